// Walks over expressions: their parameters (cached per node), definedness, substitution, choices
// resolved, totalized forms.
#include "symbolic/Expr.h"
#include "symbolic/Bearing.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "symbolic/Errors.h"

namespace shapelab {

// ---------------------------------------------------------------------------------------------
// Traversals

namespace {
using ParamList = std::vector<const ExprNode *>;
bool byName(const ExprNode *a, const ExprNode *b) { return a->name < b->name; }
/// Adds `more` (sorted by name) to `into` (sorted by name); a parameter is one node per name.
void mergeParams(ParamList &into, const ParamList &more) {
  if (more.empty()) return;
  if (into.empty()) {
    into = more;
    return;
  }
  ParamList out;
  out.reserve(into.size() + more.size());
  std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(out), byName);
  into = std::move(out);
}
const ParamList &paramsBelow(const PredNode *n);
/// The empty list, never destroyed (nodes borrow it).
const ParamList &noParams() {
  static const ParamList *none = new ParamList();
  return *none;
}
/// A node's list from its children's lists (and its own parameter): where one child's list holds
/// every other's, that list itself (most nodes: a sum over one parameter, a division of it), so
/// that only a node that joins parameters of different children keeps a list of its own.
template <class EachChild> CachedParams::Computed joinedParams(const ExprNode *param, EachChild eachChild) {
  const ParamList *largest = &noParams();
  eachChild([&](const ParamList &l) { if (l.size() > largest->size()) largest = &l; });
  bool contained = param == nullptr;
  if (contained)
    eachChild([&](const ParamList &l) {
      contained = contained && (&l == largest || std::includes(largest->begin(), largest->end(),
                                                               l.begin(), l.end(), byName));
    });
  if (contained) return {largest, {}};
  CachedParams::Computed c;
  if (param) c.own.push_back(param);
  eachChild([&](const ParamList &l) { mergeParams(c.own, l); });
  return c;
}
/// The parameters below a node, from its children's (each node's list is computed once).
const ParamList &paramsBelow(const ExprNode *n) {
  if (n->kind == ExprKind::Constant) return noParams(); // nothing to compute or keep per node
  return n->params.get([n] {
    return joinedParams(n->kind == ExprKind::Param ? n : nullptr, [n](auto &&each) {
      for (const Term &t : n->terms)
        for (auto &p : t.monomial) each(paramsBelow(p.first.node()));
      for (const Expr &o : n->operands) each(paramsBelow(o.node()));
      if (n->condition) each(paramsBelow(n->condition.node()));
    });
  });
}
const ParamList &paramsBelow(const PredNode *n) {
  return n->params.get([n] {
    return joinedParams(nullptr, [n](auto &&each) {
      if (n->lhs) {
        each(paramsBelow(n->lhs.node()));
        each(paramsBelow(n->rhs.node()));
      }
      for (const Pred &c : n->children) each(paramsBelow(c.node()));
    });
  });
}
void collectInto(const ParamList &below, std::vector<Expr> &out) {
  if (out.empty()) {
    out.reserve(below.size());
    for (const ExprNode *p : below) out.push_back(Expr(p));
    return;
  }
  ParamList nodes;
  for (const Expr &x : out) nodes.push_back(x.node());
  std::sort(nodes.begin(), nodes.end(), byName);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  mergeParams(nodes, below);
  out.clear();
  for (const ExprNode *p : nodes) out.push_back(Expr(p));
}
} // namespace

void collectParameters(Expr e, std::vector<Expr> &out) { collectInto(paramsBelow(e.node()), out); }
const std::vector<const ExprNode *> &parameterNodes(const Expr &e) { return paramsBelow(e.node()); }
const std::vector<const ExprNode *> &parameterNodes(const Pred &p) { return paramsBelow(p.node()); }
void collectParameters(const Pred &p, std::vector<Expr> &out) { collectInto(paramsBelow(p.node()), out); }
std::vector<Expr> parametersOf(Expr e) {
  std::vector<Expr> out;
  collectParameters(e, out);
  return out;
}
std::vector<Pred> conjuncts(const Pred &p) {
  if (p.kind() != PredKind::And) return {p};
  return p->children;
}

std::vector<Expr> parametersOf(const Pred &p) {
  std::vector<Expr> out;
  collectParameters(p, out);
  return out;
}

Pred definedness(Expr e) {
  const ExprNode *n = e.node();
  if (n->total) return Pred::truth(true);
  if (auto cached = n->definedness.get()) return *cached;
  std::vector<Pred> parts;
  for (const Term &t : n->terms)
    for (auto &p : t.monomial) parts.push_back(definedness(p.first));
  // The result is total (defined at every point): where a part it reads is undefined, another
  // part (that part's own definedness) is false, and the part reads the total form (exact
  // division as floor). Otherwise `not c or defined(a)` would be undefined, not true, where c
  // is false and a undefined — and strict `or` would then fail a select that is defined.
  switch (n->kind) {
  case ExprKind::ExactDiv:
    parts.push_back(definedness(n->operands[0]));
    parts.push_back(eq(mod(totalized(n->operands[0]), n->value), Expr(0)));
    break;
  case ExprKind::FloorDiv: case ExprKind::Mod: case ExprKind::Min: case ExprKind::Max:
    for (const Expr &o : n->operands) parts.push_back(definedness(o));
    break;
  case ExprKind::Select: {
    const Pred c = totalized(n->condition);
    parts.push_back(definedness(n->condition));
    parts.push_back(!c || definedness(n->operands[0]));
    parts.push_back(c || definedness(n->operands[1]));
    break;
  }
  default: break;
  }
  Pred result = Pred::conjunction(parts);
  n->definedness.set(result);
  return result;
}

Pred definedness(const Pred &p) {
  const PredNode *n = p.node();
  if (n->total) return Pred::truth(true);
  if (auto cached = n->definedness.get()) return *cached;
  std::vector<Pred> parts;
  if (n->lhs) {
    parts.push_back(definedness(n->lhs));
    parts.push_back(definedness(n->rhs));
  }
  for (const Pred &c : n->children) parts.push_back(definedness(c));
  Pred result = Pred::conjunction(parts);
  n->definedness.set(result);
  return result;
}

namespace {
/// Rebuilds a DAG bottom-up through the canonicalising factories, mapping parameters (and, with
/// `floorForExact`, exact divisions) as it goes; each shared node is rebuilt once.
class Rebuilder {
public:
  Rebuilder(const std::map<std::string, Expr> &bindings, bool floorForExact)
      : bindings_(bindings), floorForExact_(floorForExact) {}
  /// Replaces the node `atom` by `by` instead (no parameter is bound).
  Rebuilder(const std::map<std::string, Expr> &none, const ExprNode *atom, Expr by)
      : bindings_(none), floorForExact_(false), atom_(atom), by_(std::move(by)) {}
  /// Replaces each choice whose condition `taken` answers by the side it takes instead.
  Rebuilder(const std::map<std::string, Expr> &none, const ChoiceTaken &taken)
      : bindings_(none), floorForExact_(false), taken_(&taken) {}

  Expr expr(const ExprNode *n) {
    if (n == atom_) return by_;
    if (n->kind == ExprKind::Constant) return Expr(n);
    // The total form of a node is kept in the node: chains of exact divisions ask for it at
    // every level (definedness of x / 2 reads x in total form), which would rebuild each
    // level's operand again.
    const bool totalForm = floorForExact_ && bindings_.empty();
    if (totalForm) {
      if (n->total) return Expr(n);
      if (auto cached = n->totalForm.get()) return *cached;
    }
    auto it = exprs_.find(n);
    if (it != exprs_.end()) return it->second;
    Expr r = build(n);
    exprs_.emplace(n, r);
    if (totalForm) n->totalForm.set(r);
    return r;
  }
  Pred pred(const PredNode *n) {
    auto it = preds_.find(n);
    if (it != preds_.end()) return it->second;
    Pred r = build(n);
    preds_.emplace(n, r);
    return r;
  }

private:
  Expr build(const ExprNode *n) {
    switch (n->kind) {
    case ExprKind::Constant: return Expr(n);
    case ExprKind::Param: {
      auto it = bindings_.find(n->name);
      return it == bindings_.end() ? Expr(n) : it->second;
    }
    case ExprKind::Sum: {
      // One normalisation for the whole sum (signedSum), not one per term.
      std::vector<Expr> parts{Expr(n->constantTerm)};
      for (const Term &t : n->terms) {
        Expr m(t.coefficient);
        for (auto &[atom, k] : t.monomial) m = m * pow(expr(atom.node()), k);
        parts.push_back(m);
      }
      return signedSum(parts);
    }
    case ExprKind::FloorDiv: return floorDiv(expr(n->operands[0].node()), n->value);
    case ExprKind::Mod: return mod(expr(n->operands[0].node()), n->value);
    case ExprKind::ExactDiv:
      return floorForExact_ ? floorDiv(expr(n->operands[0].node()), n->value)
                            : exactDiv(expr(n->operands[0].node()), n->value);
    case ExprKind::Min: case ExprKind::Max: {
      std::vector<Expr> args;
      for (const Expr &o : n->operands) args.push_back(expr(o.node()));
      return n->kind == ExprKind::Min ? min(args) : max(args);
    }
    case ExprKind::Select:
      if (taken_)
        if (std::optional<bool> side = (*taken_)(n->condition)) return expr(n->operands[*side ? 0 : 1].node());
      return select(pred(n->condition.node()), expr(n->operands[0].node()),
                    expr(n->operands[1].node()));
    }
    return Expr(n);
  }
  Pred build(const PredNode *n) {
    switch (n->kind) {
    case PredKind::True: case PredKind::False: return Pred(n);
    case PredKind::Compare: return Pred::compare(n->op, expr(n->lhs.node()), expr(n->rhs.node()));
    case PredKind::Not: return !pred(n->children[0].node());
    case PredKind::And: case PredKind::Or: {
      std::vector<Pred> parts;
      for (const Pred &c : n->children) parts.push_back(pred(c.node()));
      return n->kind == PredKind::And ? Pred::conjunction(parts) : Pred::disjunction(parts);
    }
    }
    return Pred(n);
  }

  const std::map<std::string, Expr> &bindings_;
  bool floorForExact_;
  const ExprNode *atom_ = nullptr;
  Expr by_;
  const ChoiceTaken *taken_ = nullptr;
  std::unordered_map<const ExprNode *, Expr> exprs_;
  std::unordered_map<const PredNode *, Pred> preds_;
};
} // namespace

Expr substitute(Expr e, const std::map<std::string, Expr> &b) {
  if (b.empty()) return e;
  return Rebuilder(b, false).expr(e.node());
}

Pred substitute(const Pred &p, const std::map<std::string, Expr> &b) {
  if (b.empty()) return p;
  return Rebuilder(b, false).pred(p.node());
}

Expr substituteAtom(Expr e, const Expr &atom, const Expr &by) {
  static const std::map<std::string, Expr> none;
  return Rebuilder(none, atom.node(), by).expr(e.node());
}
Pred substituteAtom(const Pred &p, const Expr &atom, const Expr &by) {
  static const std::map<std::string, Expr> none;
  return Rebuilder(none, atom.node(), by).pred(p.node());
}

Expr resolveChoices(Expr e, const ChoiceTaken &taken) {
  // Nothing rebuilt where there is no choice (most dims).
  std::vector<const ExprNode *> stack{e.node()};
  std::unordered_set<const ExprNode *> seen;
  bool any = false;
  while (!stack.empty() && !any) {
    const ExprNode *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->kind == ExprKind::Select) any = true;
    for (const Expr &o : n->operands) stack.push_back(o.node());
    for (const Term &t : n->terms)
      for (const auto &[atom, k] : t.monomial) stack.push_back(atom.node());
  }
  if (!any) return e;
  static const std::map<std::string, Expr> none;
  return Rebuilder(none, taken).expr(e.node());
}

Expr totalized(Expr e) {
  if (e.isTotal()) return e;
  static const std::map<std::string, Expr> none;
  return Rebuilder(none, true).expr(e.node());
}

Pred totalized(const Pred &p) {
  if (p.node()->total) return p;
  static const std::map<std::string, Expr> none;
  return Rebuilder(none, true).pred(p.node());
}

Pred whereHolds(const Pred &p) {
  if (p.node()->total) return p;
  return definedness(p) && totalized(p);
}

std::vector<bool> bearingOn(const std::vector<Pred> &preds, std::vector<const ExprNode *> params) {
  std::unordered_set<const ExprNode *> reached(params.begin(), params.end());
  std::vector<bool> taken(preds.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t i = 0; i < preds.size(); ++i) {
      if (taken[i]) continue;
      const std::vector<const ExprNode *> &ps = parameterNodes(preds[i]);
      if (std::none_of(ps.begin(), ps.end(), [&](const ExprNode *p) { return reached.count(p) > 0; })) continue;
      taken[i] = grew = true;
      reached.insert(ps.begin(), ps.end());
    }
  }
  return taken;
}

} // namespace shapelab
