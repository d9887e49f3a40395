#include "rewrite/Engine.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "rewrite/Builtins.h"
#include "symbolic/Evaluate.h"

namespace shapelab::rewrite {

using ops::DType;
using ops::Node;
using ops::OpKind;

const char *spelling(Soundness s) {
  switch (s) {
  case Soundness::Strict: return "strict";
  case Soundness::ValidGraph: return "valid-graph";
  default: return "unsound";
  }
}

namespace {

using Bindings = std::map<std::string, const Node *>;

/// What a pattern's function name matches: nodes of one kind, and of that op name too where
/// the kind has several (`exp` among the unary functions, `sum` among the reductions).
struct NameMatch {
  OpKind kind;
  bool sameOp;
};
/// From the op list: a ufunc's kind (Unary, Binary), or the kind of a function a pattern may
/// match (the rule parser refuses any other name); the op too where the kind is NamedByOp.
std::optional<NameMatch> nameMatch(const std::string &name) {
  if (const ops::UfuncInfo *u = ops::ufunc(name)) return NameMatch{u->arity == 1 ? OpKind::Unary : OpKind::Binary, true};
  const ops::FunctionInfo *f = ops::function(name);
  if (!f || !f->has(ops::fn::Pattern) || !f->kind) return std::nullopt;
  return NameMatch{*f->kind, ops::hasTrait(*f->kind, ops::trait::NamedByOp)};
}

bool kindMatches(const std::string &name, const Node *n) {
  // Matching runs for every rule at every node: the names of the rules are read once (the
  // table is built on first use and never changes, so engines on several threads share it).
  static const auto *known = [] {
    auto *m = new std::unordered_map<std::string, std::optional<NameMatch>>();
    for (const Rule &r : defaultRules()) {
      if (!r.pattern) continue;
      std::vector<const Term *> todo{&*r.pattern};
      while (!todo.empty()) {
        const Term *t = todo.back();
        todo.pop_back();
        if (t->kind == Term::Call) m->emplace(t->name, nameMatch(t->name));
        for (const Term &a : t->args) todo.push_back(&a);
      }
    }
    return m;
  }();
  auto it = known->find(name);
  const std::optional<NameMatch> how = it != known->end() ? it->second : nameMatch(name);
  return how && n->kind == how->kind && (!how->sameOp || n->op == name);
}

bool match(const Term &t, const Node *n, Bindings &b) {
  switch (t.kind) {
  case Term::Var: {
    auto [it, fresh] = b.emplace(t.name, n);
    return fresh || it->second == n; // hash-consing: the same subterm is the same node
  }
  case Term::Number: {
    if (n->kind != OpKind::Scalar) return false;
    if (n->exprs.empty()) return n->attr<ops::attr::Constant>().value == t.number;
    // A size that is a constant (a Python int meeting an array).
    std::optional<Integer> c = n->exprs[0].constantValue();
    return t.integer && c && *c == Integer(int64_t(t.number));
  }
  case Term::Call:
    if (!kindMatches(t.name, n) || t.args.size() != n->inputs.size()) return false;
    for (std::size_t i = 0; i < t.args.size(); ++i)
      if (!match(t.args[i], n->inputs[i], b)) return false;
    return true;
  }
  return false;
}

/// The monomials of degree 2 or more (products of sizes, opaque to isl) in `p`, each once.
std::vector<Monomial> productsIn(const Pred &p) {
  std::vector<Monomial> out;
  std::unordered_set<const ExprNode *> seenExprs;
  std::unordered_set<const PredNode *> seenPreds;
  std::vector<const ExprNode *> exprs;
  std::vector<const PredNode *> preds{p.node()};
  while (!preds.empty() || !exprs.empty()) {
    if (!preds.empty()) {
      const PredNode *n = preds.back();
      preds.pop_back();
      if (!seenPreds.insert(n).second) continue;
      if (n->lhs) exprs.insert(exprs.end(), {n->lhs.node(), n->rhs.node()});
      for (const Pred &ch : n->children) preds.push_back(ch.node());
      continue;
    }
    const ExprNode *e = exprs.back();
    exprs.pop_back();
    if (e->quasiAffine || !seenExprs.insert(e).second) continue; // no product below
    for (const shapelab::Term &t : e->terms) {
      uint32_t degree = 0;
      for (const auto &factor : t.monomial) {
        degree += factor.second;
        exprs.push_back(factor.first.node());
      }
      if (degree > 1 && std::find(out.begin(), out.end(), t.monomial) == out.end()) out.push_back(t.monomial);
    }
    for (const Expr &o : e->operands) exprs.push_back(o.node());
    if (e->condition) preds.push_back(e->condition.node());
  }
  return out;
}

/// The data-dependent sizes in `p` and in the shapes of `nodes`.
std::vector<Expr> reservedIn(const std::vector<Pred> &preds, const std::vector<const Node *> &nodes) {
  std::vector<Expr> out;
  for (const Pred &p : preds) ops::addReserved(out, parameterNodes(p));
  for (const Node *n : nodes)
    for (const Expr &d : n->shape) ops::addReserved(out, parameterNodes(d));
  return out;
}

/// A point of the context where `p` holds (nullopt when there is none or none was found).
std::optional<Assignment> pointWhere(Solver &solver, const Context &c, const Pred &p) {
  Decision d = solver.decide(c, p);
  if (d.satisfying) return d.satisfying;
  if (d.answer == Answer::Proven) {
    Decision e = solver.decide(c, !p);
    if (e.violating) return e.violating;
  }
  return std::nullopt;
}

std::set<const Node *> pendingOf(const Node *n) {
  if (!n->pending) return {};
  return std::set<const Node *>(n->pending->begin(), n->pending->end());
}

/// A node `old` computes first for a data-dependent size its attributes read (the mask of
/// broadcast_to(x, (a[a > 0].shape[0], 2))) that `now` no longer computes; null when none.
const Node *lostSizeSource(const ops::Graph &graph, const Node *old, const Node *now) {
  std::vector<const Node *> sources;
  for (const Node *s : graph.readsBefore(old))
    if (std::find(old->inputs.begin(), old->inputs.end(), s) == old->inputs.end()) sources.push_back(s);
  if (sources.empty()) return nullptr;
  std::unordered_set<const Node *> seen{now};
  std::vector<const Node *> stack{now};
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    for (const Node *i : graph.readsBefore(n))
      if (seen.insert(i).second) stack.push_back(i);
  }
  for (const Node *s : sources)
    if (!seen.count(s)) return s;
  return nullptr;
}

ApplicationCheck checkApplicationOrThrow(const ops::Graph &graph, const Node *old, const Node *now) {
  ApplicationCheck r;
  if (old == now) return r;
  // Shapes aside: a replacement that no longer computes what the old node computed for a
  // data-dependent size would skip whatever error computing it raises (a value error, as a
  // random variable's invalid parameter): it may mask an error.
  if (const Node *lost = lostSizeSource(graph, old, now)) {
    r.soundness = Soundness::ValidGraph;
    r.reason = "the new node does not compute " + lost->describe() +
               ", which the old one computes for a data-dependent size: an error raised there would be masked";
    return r;
  }
  Solver &solver = graph.solver();
  bool sameShapes = old->shape == now->shape;
  std::set<const Node *> po = pendingOf(old), pn = pendingOf(now);
  if (old->dtype == now->dtype && sameShapes && po == pn) return r; // same dims, same requirements
  Validity vo = validityOf(graph, old), vn = validityOf(graph, now);
  Pred okOld = vo.domain(), okNew = vn.domain();
  Context c = graph.contextFor(reservedIn({okOld, okNew}, {old, now}));
  if (old->dtype != now->dtype || old->rank() != now->rank()) {
    r.soundness = Soundness::Unsound;
    r.witness = pointWhere(solver, c, okOld);
    r.reason = old->dtype != now->dtype
                   ? std::string("the dtype changes from ") + ops::spelling(old->dtype) + " to " + ops::spelling(now->dtype)
                   : "the rank changes from " + std::to_string(old->rank()) + " to " + std::to_string(now->rank());
    return r;
  }
  for (std::size_t i = 0; i < old->rank(); ++i) {
    if (old->shape[i] == now->shape[i]) continue;
    // Equal at every point of the context (the common case: a rewrite keeps its shapes) needs
    // no hypothesis; only otherwise is the old node's whole validity domain assumed, a question
    // that grows with the program above the node.
    const Pred same = whereHolds(eq(old->shape[i], now->shape[i]));
    if (solver.provesQuickly(c, same)) continue;
    Decision d = solver.decide(c, !okOld || same);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::Unsound;
    r.witness = d.violating;
    r.reason = "dimension " + std::to_string(i) + " is " + old->shape[i].toString() + " before and " +
               now->shape[i].toString() + " after" +
               (d.answer == Answer::Unknown ? " (their equality could not be decided: " + d.reason + ")" : "");
    return r;
  }
  if (okOld == okNew) return r;
  // Requirements compared one by one: those both nodes have need no question (the common case:
  // a rewrite keeps most of a program), only the others are asked under the other domain.
  // Shape requirements only: the error domain is the shape-error domain (DESIGN §3.6), NumPy's
  // array-size limits apart, as the domains okOld and okNew are.
  auto requirements = [](const Validity &v) {
    std::vector<Pred> out;
    for (const Obligation &o : v.obligations())
      if (o.kind == ObligationKind::Shape)
        for (const Pred &p : conjuncts(o.predicate)) out.push_back(p);
    return out;
  };
  std::vector<Pred> ro = requirements(vo), rn = requirements(vn);
  auto missingFrom = [](const std::vector<Pred> &have, const std::vector<Pred> &need) {
    std::unordered_set<Pred> in(have.begin(), have.end());
    std::vector<Pred> out;
    for (const Pred &p : need)
      if (!in.count(p) && !p.isTrue()) out.push_back(p);
    return out;
  };
  bool failsOld = !vo.failures().empty(), failsNew = !vn.failures().empty();
  // `p` follows from the requirements `have` (whose conjunction is `all`): first under the
  // context alone, then from those holding one of p's products of sizes, then from those
  // sharing a parameter with p, then from all of them (each step costs more, and `all` grows
  // with the program above the node; a proof from some requirements is one from all, and only
  // the last step's answer decides a failure). Each side is read as where it holds
  // (whereHolds): a requirement undefined at a point fails there, and the implication must not.
  const Decision proven = Decision::proven();
  auto implied = [&](const std::vector<Pred> &have, const Pred &all, const Pred &p) -> Decision {
    if (solver.provesQuickly(c, p)) return proven;
    // From `some` of the requirements, when they are fewer than all of them.
    auto fromSome = [&](const std::vector<Pred> &some) {
      return !some.empty() && some.size() < have.size() &&
             solver.provesQuickly(c, !whereHolds(Pred::conjunction(some)) || whereHolds(p));
    };
    // A limit on a product (m*n in an element count) mostly follows from the one on the same
    // product further up the program, while every requirement shares a parameter with it.
    if (std::vector<Monomial> products = productsIn(p); !products.empty()) {
      std::vector<Pred> holding;
      for (const Pred &h : have) {
        std::vector<Monomial> hp = productsIn(h);
        if (std::any_of(hp.begin(), hp.end(), [&](const Monomial &m) {
              return std::find(products.begin(), products.end(), m) != products.end();
            }))
          holding.push_back(h);
      }
      if (fromSome(holding)) return proven;
    }
    std::vector<Expr> params = parametersOf(p);
    std::vector<Pred> relevant;
    for (const Pred &h : have)
      for (const Expr &q : parametersOf(h))
        if (std::find(params.begin(), params.end(), q) != params.end()) {
          relevant.push_back(h);
          break;
        }
    if (fromSome(relevant)) return proven;
    return solver.decide(c, !all || whereHolds(p));
  };
  // New errors: the new node must be valid wherever the old one is.
  std::vector<Pred> added = missingFrom(ro, rn);
  if (failsNew && !failsOld) added.push_back(Pred::truth(false));
  for (const Pred &p : added) {
    Decision d = implied(ro, okOld, p);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::Unsound;
    r.witness = d.violating;
    r.reason = d.answer == Answer::Unknown ? "whether it adds a shape error could not be decided (" + d.reason + ")"
                                           : "it raises a shape error where the old program is valid (" + p.toString() + " fails)";
    return r;
  }
  // Masked errors: where the new node is valid and the old one is not.
  std::vector<Pred> dropped = missingFrom(rn, ro);
  if (failsOld && !failsNew) dropped.push_back(Pred::truth(false));
  for (const Pred &q : dropped) {
    Decision d = implied(rn, okNew, q);
    if (d.answer == Answer::Proven) continue;
    r.soundness = Soundness::ValidGraph;
    r.witness = d.violating;
    r.reason = d.answer == Answer::Unknown ? "whether it masks a shape error could not be decided (" + d.reason + ")"
                                           : "it masks a shape error: the old program fails where the new one runs (" +
                                                 q.toString() + " fails)";
    return r;
  }
  return r;
}

} // namespace

ApplicationCheck checkApplication(const ops::Graph &graph, const Node *old, const Node *now) {
  try {
    return checkApplicationOrThrow(graph, old, now);
  } catch (const UserError &e) {
    // A question past the limits (the two validity domains, written out, past kMaxTreeSize):
    // nothing is proven, so the application is not taken.
    ApplicationCheck r;
    r.soundness = Soundness::Unsound;
    r.reason = std::string("it could not be checked: ") + e.what();
    return r;
  }
}

Engine::Engine(ops::Graph &graph, std::vector<Rule> rules, EngineOptions options)
    : graph_(&graph), rules_(std::move(rules)), options_(std::move(options)) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule &rule = rules_[i];
    if (options_.exactOnly && !rule.exact) continue;
    if (std::find(options_.disabled.begin(), options_.disabled.end(), rule.name) != options_.disabled.end()) continue;
    Candidate c;
    c.rule = i;
    if (rule.builtin) c.builtin = findBuiltin(rule.name);
    if (!rule.builtin && rule.pattern && rule.pattern->kind == Term::Call) {
      // What kindMatches asks of the root, asked once.
      // (A name the list does not know matches nothing: kindMatches refuses every node.)
      if (const std::optional<NameMatch> how = nameMatch(rule.pattern->name)) {
        c.kind = how->kind;
        if (how->sameOp) c.op = rule.pattern->name;
      }
    }
    candidates_[std::size_t(rule.phase)].push_back(std::move(c));
  }
}

bool Engine::conditionHolds(const Rule &rule, const Node *self, const Bindings &b) {
  auto node = [&](const std::string &v) { return v == "self" ? self : b.at(v); };
  for (const Condition &c : rule.condition) {
    const Node *a = node(c.a);
    switch (c.kind) {
    case Condition::SameDtype:
      if (a->dtype != node(c.b)->dtype) return false;
      break;
    case Condition::DtypeIs:
      if (a->dtype != *ops::dtypeNamed(c.b)) return false;
      break;
    case Condition::RankIs:
      if (int64_t(a->rank()) != c.rank) return false;
      break;
    case Condition::SameShape: {
      const Node *o = node(c.b);
      if (a->rank() != o->rank()) return false;
      std::vector<Pred> equal;
      for (std::size_t i = 0; i < a->rank(); ++i)
        if (a->shape[i] != o->shape[i]) equal.push_back(eq(a->shape[i], o->shape[i]));
      if (equal.empty()) break;
      Pred all = Pred::conjunction(equal);
      if (!graph_->solver().provesQuickly(graph_->contextFor(reservedIn({all}, {})), all)) return false;
      break;
    }
    }
  }
  return true;
}

const Node *Engine::tryRule(const Rule &rule, const Node *n) {
  return apply(rule, rule.builtin ? findBuiltin(rule.name) : nullptr, n);
}

std::optional<std::string> Engine::replacementText(const Rule &rule, const Node *n,
                                                   const std::function<std::optional<std::string>(const Node *)> &nameOf,
                                                   const Assignment &at) {
  if (rule.builtin || !rule.pattern || !rule.replacement) return std::nullopt;
  Bindings b;
  if (!match(*rule.pattern, n, b)) return std::nullopt;
  bool named = true;
  std::function<std::string(const Term &)> write = [&](const Term &t) -> std::string {
    if (t.kind == Term::Var) {
      std::optional<std::string> name = nameOf(b.at(t.name));
      named = named && name;
      return name.value_or(t.name);
    }
    if (t.kind == Term::Number) {
      std::string s = t.toString();
      // A float literal reads as one (1.0, not the integer 1), as the replacement builds it.
      if (!t.integer && s.find_first_of(".einf") == std::string::npos) s += ".0";
      return s;
    }
    if ((t.name == "zeros_like" || t.name == "ones_like") && t.args.size() == 1 && t.args[0].kind == Term::Var) {
      const Node *x = b.at(t.args[0].name);
      std::string dims;
      for (const Expr &d : x->shape) {
        std::optional<Integer> v = evaluate(d, at);
        named = named && v;
        dims += (v ? v->toString() : "0") + ", ";
      }
      if (x->shape.size() > 1) dims.resize(dims.size() - 2);
      else if (x->shape.size() == 1) dims.pop_back();
      return std::string(t.name == "zeros_like" ? "zeros" : "ones") + "((" + dims + "), " + ops::spelling(x->dtype) + ")";
    }
    std::string s = t.name + "(" + (t.list ? "[" : "");
    for (std::size_t i = 0; i < t.args.size(); ++i) s += (i ? ", " : "") + write(t.args[i]);
    return s + (t.list ? "])" : ")");
  };
  std::string text = write(*rule.replacement);
  if (!named) return std::nullopt;
  return text;
}

const Node *Engine::apply(const Rule &rule, const BuiltinRewrite *builtin, const Node *n) {
  try {
    if (rule.builtin) return builtin ? (*builtin)(*graph_, n, [this](const Node *x) { return readersOf(x); }) : nullptr;
    Bindings b;
    if (!match(*rule.pattern, n, b) || !conditionHolds(rule, n, b)) return nullptr;
    std::function<const Node *(const Term &)> build = [&](const Term &t) -> const Node * {
      if (t.kind == Term::Var) return b.at(t.name);
      if (t.kind == Term::Number) return graph_->literal(t.number, t.integer ? DType::Int64 : DType::Float64);
      std::vector<const Node *> args;
      for (const Term &a : t.args) args.push_back(build(a));
      if (ops::isUnaryOp(t.name)) return graph_->unary(t.name, args[0]);
      if (ops::isBinaryOp(t.name)) return graph_->binary(t.name, args[0], args[1], n->mode);
      if (t.name == "where") return graph_->where(args[0], args[1], args[2], n->mode);
      // zeros_like / ones_like: the operand's shape, not its value (the operand is not computed).
      const Node *x = args.at(0);
      return graph_->full(x->shape, graph_->literal(t.name == "ones_like" ? 1 : 0, DType::Int64), x->dtype);
    };
    return build(*rule.replacement);
  } catch (const UserError &) {
    return nullptr; // the replacement does not build here (a rank or dtype the factory refuses)
  }
}

const Node *Engine::simplify(const Node *m, Phase phase, OptimizeResult &result) {
  for (int k = 0; k < options_.maxApplicationsPerNode; ++k) {
    bool fired = false;
    for (const Candidate &c : candidates_[std::size_t(phase)]) {
      // A root of another kind does not match (match would say so after a lookup by name).
      if (c.kind && (m->kind != *c.kind || (!c.op.empty() && m->op != c.op))) continue;
      if (!refusedAt_.empty() && refusedAt_.count({m, c.rule})) continue;
      const Rule &rule = rules_[c.rule];
      const Node *rep = apply(rule, c.builtin, m);
      if (!rep || rep == m) continue;
      ApplicationCheck check = checkApplication(*graph_, m, rep);
      if (int(check.soundness) > int(options_.allow)) {
        refusedAt_.insert({m, c.rule});
        result.refused.push_back({rule.name, m, std::move(check)});
        continue;
      }
      ++result.fired[rule.name];
      result.trace.push_back(rule.name + ": " + m->describe() + " -> " + rep->describe());
      m = rewrite(rep, phase, result);
      fired = true;
      break;
    }
    if (!fired) break;
  }
  return m;
}

const Node *Engine::rewrite(const Node *root, Phase phase, OptimizeResult &result) {
  std::vector<std::pair<const Node *, bool>> stack{{root, false}};
  std::vector<const Node *> ins; // the operands rewritten, one buffer for the walk
  while (!stack.empty()) {
    auto [n, expanded] = stack.back();
    if (doneOf(n)) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const Node *i : n->inputs)
        if (!doneOf(i)) stack.push_back({i, false});
      continue;
    }
    stack.pop_back();
    rewriteOne(n, phase, result, ins);
  }
  return doneOf(root);
}

void Engine::rewriteOne(const Node *n, Phase phase, OptimizeResult &result, std::vector<const Node *> &ins) {
  // The operands' rewritten nodes, found by id in the graph's operand table, so that neither
  // the operands nor n's operand list are loaded: where every operand stays itself, n is its
  // own rebuild (as rebuild() would find, comparing the lists).
  const std::deque<Node> &nodes = graph_->nodes();
  ins.clear();
  bool unchanged = true;
  for (uint32_t i : graph_->operandIds(n->id)) {
    const Node *d = doneOf(i);
    ins.push_back(d);
    unchanged = unchanged && d == &nodes[i];
  }
  const Node *m;
  try {
    m = unchanged ? n : graph_->rebuild(n, ins);
  } catch (const UserError &) {
    // The node over its rewritten operands does not build (its shape, written out, past the
    // expression limits): it stays as it was, over its old operands, which still compute.
    setDone(n, n);
    return;
  }
  if (const Node *earlier = doneOf(m)) { // an equal node was rewritten before
    redirect(n, earlier);
    return;
  }
  setDone(m, m); // while it is simplified: a replacement that contains it stops here
  m = simplify(m, phase, result);
  redirect(n, m);
  setDone(m, m);
}

void Engine::countReaders(const std::vector<const Node *> &outputs) {
  // One sweep down the ids (a node's operands were made before it, so every reader of a node
  // is reached before the node is) over the graph's operand table: no node is loaded, where a
  // walk from the outputs jumps across the whole graph (a tenth of rewriting 10^5 nodes) and a
  // sweep over the nodes themselves loads each one.
  const std::size_t count = graph_->nodes().size();
  readers_.assign(count, 0);
  reached_.assign(count, 0);
  for (const Node *o : outputs) {
    ++readers_[o->id];
    reached_[o->id] = 1;
  }
  for (std::size_t id = count; id-- > 0;) {
    if (!reached_[id]) continue;
    for (uint32_t i : graph_->operandIds(id)) {
      if (i >= id) throw InternalError("node " + std::to_string(id) + " reads a later node");
      ++readers_[i];
      reached_[i] = 1;
    }
  }
}

void Engine::redirect(const Node *from, const Node *to) {
  setDone(from, to);
  if (from == to || from->id >= readers_.size()) return;
  if (to->id >= readers_.size()) readers_.resize(std::max<std::size_t>(to->id + 1, readers_.size() * 2), 0);
  readers_[to->id] += readers_[from->id];
}

OptimizeResult Engine::run(const std::vector<const Node *> &outputs) {
  OptimizeResult result;
  result.outputs = outputs;
  for (Phase phase : {Phase::Canonicalize, Phase::Specialize, Phase::Canonicalize, Phase::Fuse}) {
    // A phase with no rules rebuilds every node over operands that are themselves (Graph::rebuild
    // returns such a node as it is): it changes nothing, and is not walked.
    if (candidates_[std::size_t(phase)].empty()) continue;
    done_.assign(graph_->nodes().size(), nullptr);
    countReaders(result.outputs);
    // The nodes the outputs reach, in id order: a node's operands come before it, so each is
    // rewritten before its readers, as a walk from the outputs would; and the nodes are read in
    // the order they sit in memory, where a walk from the outputs jumps across a large graph.
    // Each node visited is loaded (its kind picks the rules to try, its operand list is
    // compared): that is fetched a few nodes ahead, its address computed, not read from a node.
    const std::deque<Node> &nodes = graph_->nodes();
    std::vector<const Node *> ins;
    constexpr std::size_t kAhead = 8; // nodes fetched ahead of their turn
    for (std::size_t id = 0, end = reached_.size(); id < end; ++id) {
      if (id + kAhead < end && reached_[id + kAhead]) {
        const char *ahead = reinterpret_cast<const char *>(&nodes[id + kAhead]);
        __builtin_prefetch(ahead);
        __builtin_prefetch(ahead + 64);
      }
      if (reached_[id] && !done_[id]) rewriteOne(&nodes[id], phase, result, ins);
    }
    for (const Node *&o : result.outputs) o = doneOf(o);
  }
  return result;
}

std::size_t reachableCount(const std::vector<const Node *> &outputs) { return ops::nodesRead(outputs).size(); }

} // namespace shapelab::rewrite
