#include "ops/Graph.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <set>
#include <span>
#include <unordered_set>
#include <utility>

#include "shape/ArraySize.h"
#include "shape/Gufunc.h"
#include "shape/RandomVariable.h"
#include "shape/Signature.h"
#include "symbolic/Errors.h"
#include "symbolic/Range.h"

namespace shapelab::ops {

namespace {

/// The dtype rule of a ufunc the factory was given (unary() and binary() check the name first).
UfuncRule ruleOf(const std::string &op) { return ufunc(op)->rule; }

std::size_t mix(std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

/// Lists of pending nodes and of requirements are short (8 pending nodes on average in the
/// benchmark's programs, at most 36): up to this many entries a linear search tells them apart,
/// where a hash set allocated a node per entry.
constexpr std::size_t kLinearSearch = 32;

/// Appends `p` to `out` unless `out` holds it: a linear search while `out` is short, past that
/// `seen` (filled from `out` when first needed, then kept with it). Nodes are told apart by
/// address, never read: in a large graph each is cold memory.
bool appendIfNew(std::vector<const Node *> &out, const Node *p, std::unordered_set<const Node *> &seen) {
  if (out.size() < kLinearSearch) {
    if (std::find(out.begin(), out.end(), p) != out.end()) return false;
  } else {
    if (seen.empty()) seen.insert(out.begin(), out.end());
    if (!seen.insert(p).second) return false;
  }
  out.push_back(p);
  return true;
}

/// NumPy's axis normalisation (numpy.exceptions.AxisError's message).
int64_t normalizeAxis(int64_t axis, std::size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    throw OpError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

Expr product(const Shape &s, std::size_t from = 0, std::size_t to = SIZE_MAX) {
  Expr p = 1;
  for (std::size_t i = from; i < std::min(to, s.size()); ++i) p = p * s[i];
  return p;
}

std::string dimText(const Expr &e) { return e.toString(); }

/// Records `pred` with `what`; a predicate false for every size is recorded as a failure with
/// `concrete` (NumPy's message) instead.
void requireOr(Validity &v, const Pred &pred, const std::string &what, const std::string &concrete,
               ObligationKind kind = ObligationKind::Shape) {
  if (pred.constantValue() == true) return;
  if (pred.constantValue() == false) {
    v.fail(concrete);
    return;
  }
  v.require(pred, what, kind, concrete);
}

/// Dimensions given by the user must be sizes (>= 0, defined: shape obligations) of at most
/// 2**63 - 1 (limits: of an array made, or, `given`, assumed of an input that exists).
void requireSizes(Validity &v, const Shape &dims, const std::string &what, bool given = false) {
  if (!constantDimensionsFit(v, dims, what)) return;
  requireArraySizes(v, dims, what, given ? ObligationKind::Existence : ObligationKind::Limit);
}

/// `numerator / divisor` as a polynomial when each term of the numerator is a multiple of the
/// divisor's single monomial (of any non-zero coefficient); nullopt otherwise.
std::optional<Expr> divideByMonomial(const Expr &numerator, const Expr &divisor) {
  auto [dterms, dconst] = asPolynomial(divisor);
  if (dterms.empty()) {
    if (dconst <= Integer(0)) return std::nullopt;
    return exactDiv(numerator, dconst);
  }
  if (dterms.size() != 1 || dconst != Integer(0)) return std::nullopt;
  const Term &d = dterms[0];
  auto [nterms, nconst] = asPolynomial(numerator);
  if (nconst != Integer(0)) return std::nullopt;
  std::vector<Term> out;
  for (const Term &t : nterms) {
    Monomial m = t.monomial;
    for (const auto &factor : d.monomial) {
      const Expr &atom = factor.first;
      const uint32_t exponent = factor.second;
      auto it = std::find_if(m.begin(), m.end(), [&](const auto &f) { return f.first == atom; });
      if (it == m.end() || it->second < exponent) return std::nullopt;
      it->second -= exponent;
      if (it->second == 0) m.erase(it);
    }
    out.push_back({t.coefficient, std::move(m)});
  }
  Expr q = fromPolynomial(std::move(out), 0);
  if (d.coefficient == Integer(1)) return q;
  if (d.coefficient < Integer(0)) return exactDiv(-q, -d.coefficient);
  return exactDiv(q, d.coefficient);
}

/// np.result_type of arrays (no literal among them is weak: they are operands of a function
/// that takes arrays).
DType arrayResultType(const std::vector<const Node *> &xs) {
  std::vector<Typed> types;
  for (const Node *x : xs) types.push_back({x->dtype, false});
  return resultType(types);
}

const char *reductionName(const std::string &op) {
  if (op == "max") return "maximum";
  if (op == "min") return "minimum";
  return op.c_str();
}

} // namespace

std::string Node::describe() const {
  switch (kind) {
  case OpKind::Input: return "input " + op;
  case OpKind::Scalar: return exprs.empty() ? "literal" : "size " + exprs[0].toString();
  default: break;
  }
  std::string s = op.empty() ? "node" : op;
  s += "#" + std::to_string(id);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Graph bookkeeping.

Graph::Graph(Solver &solver, std::vector<Pred> assumptions)
    : solver_(&solver), assumptions_(std::move(assumptions)), context_(solver.makeContext(assumptions_)) {}

void Graph::assume(const std::vector<Pred> &more) {
  std::vector<Pred> all = assumptions_;
  all.insert(all.end(), more.begin(), more.end());
  Context c = solver_->makeContext(all); // throws, leaving the graph unchanged
  assumptions_ = std::move(all);
  context_ = std::move(c);
  contexts_.clear();
}

void Graph::checkNewParam(const std::string &name) const {
  Expr p = Expr::param(name); // refuses reserved names
  if (std::find(params_.begin(), params_.end(), p) != params_.end())
    throw NameError("size parameter '" + name + "' is already declared");
  if (inputsByName_.count(name)) throw NameError("'" + name + "' is already an input");
}

Expr Graph::param(const std::string &name) {
  checkNewParam(name);
  Expr p = Expr::param(name);
  params_.push_back(p);
  return p;
}

Expr Graph::freshDataSize(Node &n, const Expr &size, bool boolean) {
  // The bound is total: where the operand's size is undefined (its reshape's exact division
  // does not divide) the operand fails before this node runs, and a partial bound would make the
  // context exclude those points — hiding the operand's requirement from every later validity.
  const Expr bound = totalized(size);
  Expr k = Expr(0);
  // A rebuilt node keeps its data-dependent size when the bound is the same (rewrites compare
  // shapes across the old and the new node).
  std::optional<Expr> reuse = std::exchange(reuseDataSize_, std::nullopt);
  if (reuse) {
    auto it = dataBounds_.find((*reuse)->name);
    if (it != dataBounds_.end() && it->second == le(*reuse, boolean ? Expr(1) : bound)) k = *reuse;
    else reuse.reset();
  }
  if (!reuse) k = Expr::reservedParam("_k" + std::to_string(++dataSizes_));
  dataBounds_.emplace(k->name, le(k, boolean ? Expr(1) : bound));
  // The node's later obligations may mention k: they are decided with its bound. Those already
  // recorded (a mask's shape must match the indexed axes) are kept with their decisions: they
  // do not mention k, whose bound (satisfied by k = 0) restricts no other size.
  std::vector<Expr> reserved = reservedOf(n);
  reserved.push_back(k);
  Validity before = std::move(n.validity);
  n.validity = Validity(*solver_, contextFor(reserved));
  n.validity.absorb(before);
  return k;
}

bool addReserved(std::vector<Expr> &into, const std::vector<const ExprNode *> &params) {
  bool any = false;
  for (const ExprNode *p : params)
    if (p->reserved) {
      any = true;
      if (std::none_of(into.begin(), into.end(), [p](const Expr &x) { return x.node() == p; })) into.push_back(Expr(p));
    }
  return any;
}

std::vector<Expr> Graph::reservedOf(const Node &c) const {
  std::vector<Expr> out;
  auto add = [&](const Expr &e) { addReserved(out, parameterNodes(e)); };
  for (const Node *i : c.inputs)
    for (const Expr &d : i->shape) add(d);
  for (const Expr &e : c.exprs) add(e);
  for (const IndexEntry &e : c.index) {
    if (e.start) add(*e.start);
    if (e.stop) add(*e.stop);
  }
  return out;
}

Context Graph::contextFor(std::vector<Expr> reserved) const {
  if (reserved.empty()) return context_;
  // Bounds can mention other data-dependent sizes: close the set.
  for (std::size_t i = 0; i < reserved.size(); ++i) {
    auto it = dataBounds_.find(reserved[i]->name);
    if (it == dataBounds_.end()) continue;
    addReserved(reserved, parameterNodes(it->second));
  }
  std::sort(reserved.begin(), reserved.end(), [](const Expr &a, const Expr &b) { return a->name < b->name; });
  std::string key;
  for (const Expr &r : reserved) key += r->name + ",";
  if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
  std::vector<Pred> all = assumptions_;
  for (const Expr &r : reserved)
    if (auto it = dataBounds_.find(r->name); it != dataBounds_.end()) all.push_back(it->second);
  const uint64_t unkept = solver_->stats().unkept;
  // The graph's own sample with 0 for the data-dependent sizes satisfies their bounds
  // (0 <= k <= size) wherever the sizes are not negative there, and is then this context's
  // sample without asking isl (the masks of the random programs made a context each: 8% of the
  // property harness's time was isl finding such a point).
  Context c = context_.consistencyProven() ? solver_->makeContextNear(all, SizeDomain::ArraySizes, context_.samplePoint())
                                           : solver_->makeContext(all);
  if (solver_->stats().unkept == unkept) contexts_.emplace(key, c); // else the clock cut its search short
  return c;
}

namespace {
/// d >= 1, without the clipping of a slice length: max(0, X) >= 1 is X >= 1 (a max is at
/// least 1 where one of its operands is; a constant operand below 1 never is). The same
/// definedness: both read X.
Pred nonEmpty(const Expr &d) {
  if (d.kind() != ExprKind::Max) return ge(d, 1);
  std::vector<Pred> parts;
  for (const Expr &o : d->operands)
    if (auto c = o.constantValue(); !c || *c >= Integer(1)) parts.push_back(nonEmpty(o));
  return Pred::disjunction(parts);
}
} // namespace

/// Dims with more nodes than this (written out as a tree) are offered to Solver::compact. Each
/// compaction is an isl question of about 3 ms (8.5M instructions); at 40 nodes the benchmark's
/// random programs paid more for them than their smaller dims saved later (the 10^5-statement
/// build: 37 compactions, 4,024M instructions; at 80 none was needed, 3,776M, with the same
/// status at every statement), while a chain of slices of slices still stays short
/// (Shapes.TwentyFiveNestedSlicesBuild).
constexpr uint64_t kCompactDimsAbove = 80;

Expr Graph::choose(const Context &context, const Pred &cond, const Expr &whereTrue, const Expr &whereFalse) {
  if (whereTrue == whereFalse) return whereTrue;
  if (auto v = cond.constantValue()) return *v ? whereTrue : whereFalse;
  // A choice inside a side, whose condition this one decides wherever that side is taken, takes
  // its side there: the first side of `min(n - 1, 1 if n - 1 < 0 else k) if -n < 0 else 0` is
  // taken where n >= 1, where n - 1 < 0 is false, so it is min(n - 1, k). Each side below is
  // then equal to the one given wherever it is taken (and so is what this returns). Slices of
  // slices of random programs nest such choices.
  Expr a = whereTrue, b = whereFalse;
  if (cond.node()->total) {
    auto takenWhere = [&](bool truth) {
      return [&context, &cond, truth](const Pred &c) -> std::optional<bool> {
        return c.node()->total ? truthWhere(context, cond, truth, c) : std::nullopt;
      };
    };
    a = resolveChoices(whereTrue, takenWhere(true));
    b = resolveChoices(whereFalse, takenWhere(false));
    if (a == b) return a;
  }
  if (provesCheaply(context, cond)) return a;
  if (provesCheaply(context, !cond)) return b;
  // Branches that agree wherever one of them is taken are one expression: `0 if -n < 0 else -n`
  // is 0 for every size n. Kept as a choice, it would nest in every shape built on it and make
  // each later question larger. Decided only where the comparison is quasi-affine (cheap).
  if (a.isQuasiAffine() && b.isQuasiAffine() && definedness(cond).constantValue() == std::optional<bool>(true)) {
    // Branches defined at the same points (both built on one exact division, as the bounds of
    // a slice of `n / 2` are) need only agree where they are defined: elsewhere the choice is
    // undefined whichever branch it keeps. Asked in total form, so that an undefined point
    // does not make the question fail.
    Pred same = eq(a, b);
    if (!a.isTotal() || !b.isTotal()) {
      Pred da = definedness(a);
      if (da != definedness(b)) return constantIfFixed(context, select(cond, a, b));
      same = !da || eq(totalized(a), totalized(b));
    }
    if (provesCheaply(context, cond || same)) return a;
    if (provesCheaply(context, !cond || same)) return b;
  }
  // A side taken only where the condition pins a size to one value reads that value: with
  // n >= 0, `n + 2 if n - 1 < 0 else ...` is `2 if n - 1 < 0 else ...`. (A slice bound of
  // n - 1 gives such a choice, and every shape built on it would carry n + 2.)
  using Pin = std::optional<std::pair<std::string, Integer>>;
  const Pin pinTrue = pinnedParameter(context, cond, true), pinFalse = pinnedParameter(context, cond, false);
  auto atPin = [](const Expr &side, const Pin &pin) {
    return pin ? substitute(side, {{pin->first, Expr(pin->second)}}) : side;
  };
  Expr pa = atPin(a, pinTrue), pb = atPin(b, pinFalse);
  if (pa == pb) return pa;
  // A side taken only where the condition pins a size, and the other side equal to it there, is
  // not a choice: `max(0, n*k - n) if -n < 0 else 0` is its first side for every size n (at
  // n == 0, the one point of the second, the first is 0 too). Equal as written out after the
  // pin, the two sides are equal functions there, defined at the same points. (Products make
  // such dims, which the quasi-affine test above leaves alone.)
  if (definedness(cond).constantValue() == std::optional<bool>(true)) {
    auto agreesAt = [&](const Expr &other, const Pin &pin, const Expr &pinnedSide) {
      if (!pin) return false;
      try {
        return atPin(other, pin) == pinnedSide;
      } catch (const UserError &) {
        return false; // written out at the pin, `other` is past the expression limits
      }
    };
    if (agreesAt(a, pinFalse, pb)) return a;
    if (agreesAt(b, pinTrue, pa)) return b;
  }
  return constantIfFixed(context, select(cond, pa, pb));
}

Expr Graph::constantIfFixed(const Context &context, const Expr &e) {
  if (e.isConstant() || !e.isTotal()) return e;
  Range r = rangeOf(e, context);
  return r.low && r.high && *r.low == *r.high ? Expr(*r.low) : e;
}

// Simplifications only: a question isl answers directly (quasi-affine) is asked; one over
// products of sizes would make the solver search for witnesses, so the general form is kept.
bool Graph::provesCheaply(const Context &context, const Pred &p) {
  if (auto v = p.constantValue()) return *v;
  if (p.kind() == PredKind::Compare && !(p->lhs.isQuasiAffine() && p->rhs.isQuasiAffine())) return false;
  return solver_->provesQuickly(context, p);
}

Expr Graph::nonNegative(const Context &context, const Expr &e) {
  if (auto c = e.constantValue()) return *c < Integer(0) ? Expr(0) : e;
  return provesCheaply(context, ge(e, 0)) ? e : constantIfFixed(context, max(Expr(0), e));
}

Expr Graph::smaller(const Context &context, const Expr &a, const Expr &b, bool smallest) {
  if (a == b) return a;
  if (provesCheaply(context, le(a, b))) return smallest ? a : b;
  if (provesCheaply(context, le(b, a))) return smallest ? b : a;
  return constantIfFixed(context, smallest ? min(a, b) : max(a, b));
}

namespace {
/// Whether `a` has `b`'s structural key, b's operands taken to be `bInputs`.
bool sameKeyOver(const Node &a, const Node &b, std::span<const Node *const> bInputs) {
  return a.kind == b.kind && a.op == b.op && std::ranges::equal(a.inputs, bInputs) && a.ints == b.ints &&
         a.exprs == b.exprs && a.index == b.index && std::memcmp(&a.number, &b.number, sizeof(double)) == 0 &&
         a.cond == b.cond && a.mode == b.mode && a.weak == b.weak && (a.kind != OpKind::Cast || a.dtype == b.dtype);
}

/// The hash of `c`'s structural key, its operands taken to be `inputs`.
std::size_t keyHash(const Node &c, std::span<const Node *const> inputs) {
  std::size_t h = std::hash<std::string>()(c.op) ^ (std::size_t(c.kind) << 56);
  for (const Node *i : inputs) h = mix(h, i->id);
  for (int64_t v : c.ints) h = mix(h, std::size_t(v));
  for (const Expr &e : c.exprs) h = mix(h, e.hash());
  for (const IndexEntry &e : c.index)
    h = mix(mix(mix(h, e.kind * 31 + std::size_t(e.step)), e.start ? e.start->hash() : 1), e.stop ? e.stop->hash() : 2);
  h = mix(h, std::bit_cast<uint64_t>(c.number));
  return mix(h, c.cond.hash() + std::size_t(c.mode) + (c.weak ? 7 : 0) + (c.kind == OpKind::Cast ? std::size_t(c.dtype) : 0));
}
} // namespace

bool Graph::KeyEq::operator()(const Node *a, const Node *b) const { return sameKeyOver(*a, *b, b->inputs); }

namespace {
/// Whether `a` and `b` derived the same dtype, literal flag, shape, broadcast bits and own
/// validity (its obligations' predicates and answers, failures and assumptions).
bool sameDerived(const Node &a, const Node &b) {
  auto predicates = [](const Validity &v) {
    std::vector<std::string> out;
    for (const Obligation &o : v.obligations()) out.push_back(o.predicate.toString() + " " + spelling(o.decision.answer));
    return out;
  };
  return a.dtype == b.dtype && a.weak == b.weak && a.shape == b.shape && a.broadcastable == b.broadcastable &&
         predicates(a.validity) == predicates(b.validity) && a.validity.failures() == b.validity.failures() &&
         a.validity.context().assumptions() == b.validity.context().assumptions();
}
} // namespace

const Node *Graph::find(std::size_t hash, const Node &key, std::span<const Node *const> inputs) {
  ++stats_.lookups;
  std::size_t at = interned_.find(hash, [&](std::size_t id) { return sameKeyOver(nodes_[id], key, inputs); });
  if (at == FlatIndex::npos) return nullptr;
  ++stats_.hits;
  if (madeLog_) madeLog_->push_back(&nodes_[at]);
  return &nodes_[at];
}

const Node *Graph::adopt(Node &&c) {
  c.id = uint32_t(nodes_.size());
  nodes_.push_back(std::move(c));
  Node &n = nodes_.back();
  for (const Node *i : n.inputs) operandIds_.push_back(i->id);
  operandStart_.push_back(operandIds_.size());
  finish(n);
  interned_.insert(n.hash, n.id);
  ++stats_.nodes;
  if (madeLog_) madeLog_->push_back(&n);
  return &n;
}

Node Graph::blank(OpKind kind, std::string op, std::vector<const Node *> inputs) const {
  Node n{.kind = kind, .inputs = std::move(inputs), .op = std::move(op), .validity = Validity(*solver_, context_)};
  return n;
}

template <class Rule> const Node *Graph::make(Node c, Rule rule) {
  c.hash = keyHash(c, c.inputs);
  if (const Node *found = find(c.hash, c, c.inputs)) return found;
  // The rule, then a long dim (slices of slices clip their bounds again at each step) replaced
  // by the same function as isl writes it, when that is smaller: every later shape and question
  // built on it stays small.
  auto derive = [&](Node &d) {
    d.validity = Validity(*solver_, contextFor(reservedOf(d)));
    rule(d); // may throw: nothing is kept
    for (Expr &dim : d.shape)
      if (dim.node()->treeSize > kCompactDimsAbove)
        if (auto r = solver_->compact(d.validity.context(), dim)) dim = *r;
  };
  const Node *like = std::exchange(derivesLike_, nullptr);
  // Only for the node rebuild() was asked for (a factory may make other nodes first).
  if (like && !(like->kind == c.kind && like->op == c.op && like->inputs.size() == c.inputs.size() &&
                like->ints == c.ints && like->exprs == c.exprs && like->index == c.index &&
                std::memcmp(&like->number, &c.number, sizeof(double)) == 0 && like->cond == c.cond &&
                like->mode == c.mode && (c.kind != OpKind::Cast || like->dtype == c.dtype)))
    like = nullptr;
  if (like) {
    // rebuild(): operands that look the same to the rule (shapes, dtypes, literal flags).
    auto takeDerived = [like](Node &d) {
      d.dtype = like->dtype;
      d.weak = like->weak;
      d.shape = like->shape;
      d.validity = like->validity;
      d.broadcastable = like->broadcastable;
    };
    if (!checkRebuilds_) {
      takeDerived(c); // in place: a copy of the candidate was a tenth of a rewrite's work
    } else {
      Node derived = c;
      takeDerived(derived);
      derive(c);
      if (!sameDerived(c, derived))
        throw InternalError("rebuild: " + c.describe() + " derived differently from " + like->describe());
      c = std::move(derived);
    }
  } else {
    derive(c);
  }
  return adopt(std::move(c));
}

std::vector<const Node *> Graph::readsBefore(const Node *n) const {
  std::vector<const Node *> out;
  if (n->kind == OpKind::IfElse) {
    if (n->inputs.size() == 3) out.push_back(n->inputs[2]);
  } else if (n->kind == OpKind::SetSubtensor) {
    out.assign(n->inputs.begin(), n->inputs.end() - 1);
  } else {
    out = n->inputs;
  }
  if (dataOwners_.empty()) return out;
  const std::size_t operands = out.size();
  auto add = [&](const std::vector<Expr> &params) {
    for (const Expr &p : params) {
      if (!p->reserved) continue;
      auto it = dataOwners_.find(p->name);
      if (it != dataOwners_.end() && it->second != n &&
          std::find(out.begin() + std::ptrdiff_t(operands), out.end(), it->second) == out.end())
        out.push_back(it->second);
    }
  };
  for (const Expr &e : n->exprs) add(parametersOf(e));
  for (const IndexEntry &e : n->index) {
    if (e.start) add(parametersOf(*e.start));
    if (e.stop) add(parametersOf(*e.stop));
  }
  add(parametersOf(n->cond));
  return out;
}

void Graph::finish(Node &n) {
  n.validity.mention(n.shape);
  if (n.dataSize) dataOwners_.emplace((*n.dataSize)->name, &n);
  // What computing n gathers: its own obligations (unless valid) and those of what it reads
  // before it runs (a lazy ifelse folds its branches' into its own obligations instead).
  // (readsBefore's list is the operands themselves for most nodes: read in place, not copied.)
  std::vector<const Node *> reads;
  std::span<const Node *const> from(n.inputs);
  if (!dataOwners_.empty() || n.kind == OpKind::IfElse || n.kind == OpKind::SetSubtensor) {
    reads = readsBefore(&n);
    from = reads;
  }
  bool own = !n.validity.settledValid();
  std::shared_ptr<const std::vector<const Node *>> single;
  bool several = false;
  for (const Node *i : from) {
    if (!i->pending || i->pending == single) continue; // (a list is never empty)
    if (single) several = true;
    else single = i->pending;
  }
  if (!own && !several) {
    n.pending = single;
    return;
  }
  // Merged in a buffer the graph keeps: a list equal to one already made is only looked up.
  std::vector<const Node *> &merged = mergeScratch_;
  merged.clear();
  std::unordered_set<const Node *> seen;
  for (const Node *i : from)
    if (i->pending)
      for (const Node *p : *i->pending) appendIfNew(merged, p, seen);
  if (own) merged.push_back(&n);
  const std::size_t h = PendingHash()(merged);
  std::size_t at = pendingIndex_.find(h, [&](std::size_t i) { return *pendingLists_[i] == merged; });
  if (at == FlatIndex::npos) {
    at = pendingLists_.size();
    pendingLists_.push_back(std::make_shared<const std::vector<const Node *>>(merged));
    pendingIndex_.insert(h, at);
  }
  n.pending = pendingLists_[at];
}

std::size_t Graph::PendingHash::operator()(const std::vector<const Node *> &v) const {
  std::size_t h = v.size();
  for (const Node *p : v) h = mix(h, reinterpret_cast<std::uintptr_t>(p)); // not p->id: see appendIfNew
  return h;
}

Validity validityOf(const Graph &graph, const std::vector<const Node *> &nodes) {
  // What is gathered: every pending node once, every distinct requirement once, each with
  // whether it mentions data-dependent sizes (their bounds then join the context).
  struct Gathered {
    const Node *from;
    const Obligation *obligation;
    bool userOnly;
    ObligationKind kind; // see gather
    bool givenInput;     // an input's own existence (an array the user gives)
  };
  std::vector<Gathered> gathered;
  std::vector<const Node *> pending;
  std::vector<Expr> reserved;
  // Told apart as Graph::finish does (appendIfNew); one node's list holds each pending node
  // once (finish made it so).
  std::unordered_set<const Node *> seen;
  std::unordered_map<Pred, std::size_t> recorded; // gathered's entries by predicate, once it is long
  auto firstVisit = [&](const Node *p) {
    if (nodes.size() != 1) return appendIfNew(pending, p, seen);
    pending.push_back(p);
    return true;
  };
  // The same requirement from another op is gathered once, whichever op comes first, with the
  // kind that says most: an existence when an input has it (an array the user gives, so the
  // requirement holds), else a limit when an op has it so (an array computed here must fit),
  // else an existence (an op's operands exist: their own obligations say when).
  auto gather = [&](const Node *p, const Obligation &o) {
    const bool input = p->kind == OpKind::Input && o.kind == ObligationKind::Existence;
    Gathered *same = nullptr;
    if (gathered.size() < kLinearSearch) {
      for (Gathered &g : gathered)
        if (g.obligation->predicate == o.predicate) same = &g;
    } else {
      if (recorded.empty())
        for (std::size_t i = 0; i < gathered.size(); ++i) recorded.emplace(gathered[i].obligation->predicate, i);
      auto [at, added] = recorded.emplace(o.predicate, gathered.size());
      if (!added) same = &gathered[at->second];
    }
    if (!same) {
      gathered.push_back({p, &o, !addReserved(reserved, parameterNodes(o.predicate)), o.kind, input});
    } else if (input) {
      same->kind = ObligationKind::Existence, same->givenInput = true;
    } else if (!same->givenInput && o.kind == ObligationKind::Limit) {
      same->kind = ObligationKind::Limit;
    }
  };
  pending.reserve(nodes.size() == 1 && nodes[0]->pending ? nodes[0]->pending->size() : 0);
  for (const Node *node : nodes) {
    if (node->pending)
      for (const Node *p : *node->pending)
        if (firstVisit(p)) {
          for (const Obligation &o : p->validity.obligations()) gather(p, o);
        }
    for (const Expr &d : node->shape) addReserved(reserved, parameterNodes(d));
  }
  Context context = graph.contextFor(reserved);
  Validity v(graph.solver(), context);
  v.reserve(gathered.size());
  for (const Node *p : pending)
    for (const std::string &f : p->validity.failures()) v.fail(f);
  for (const Gathered &g : gathered) {
    const Obligation &o = *g.obligation;
    // A requirement over size parameters alone is decided under the user's assumptions: the
    // bounds of data-dependent sizes (each satisfiable by 0) do not restrict the parameters,
    // and their products would only make the question harder.
    const Context &where = g.userOnly ? graph.context() : context;
    if (g.from->validity.context().assumptions() == where.assumptions()) v.record(o.predicate, o.what, o.decision, g.kind, o.refusal);
    else v.record(o.predicate, o.what, graph.solver().decide(where, o.predicate), g.kind, o.refusal);
  }
  for (const Node *node : nodes) {
    v.mention(node->shape);
    for (const Node *i : node->inputs) v.mention(i->shape);
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Sources.

const Node *Graph::input(const std::string &name, DType dtype, const Shape &shape) {
  Expr::param(name); // refuses reserved and malformed names
  if (inputsByName_.count(name)) throw NameError("input '" + name + "' is already defined");
  if (std::find(params_.begin(), params_.end(), Expr::param(name)) != params_.end())
    throw NameError("'" + name + "' is already a size parameter");
  if (std::string e = rankError(shape.size()); !e.empty()) throw OpError(e);
  Node c = blank(OpKind::Input, name, {});
  c.exprs = shape;
  const Node *n = make(std::move(c), [&](Node &n) {
    n.dtype = dtype;
    n.shape = shape;
    requireSizes(n.validity, shape, "input " + name, true);
    requireElementCountFits(n.validity, shape, "input " + name, ObligationKind::Existence);
  });
  inputsByName_[name] = n;
  return n;
}

const Node *Graph::literal(double value, DType kind) {
  Node c = blank(OpKind::Scalar, "literal", {});
  c.number = value;
  c.weak = true;
  c.ints = {int64_t(kind)};
  return make(std::move(c), [&](Node &n) { n.dtype = kind; });
}

const Node *Graph::constant(double value, DType dtype) {
  Node c = blank(OpKind::Scalar, "constant", {});
  c.number = value;
  c.ints = {int64_t(dtype)};
  return make(std::move(c), [&](Node &n) { n.dtype = dtype; });
}

namespace {
/// A polynomial with non-negative coefficients in sizes (parameters, and choices, minima and
/// maxima of such polynomials): an element count, never negative.
bool sizePolynomial(const Expr &e) {
  if (e.kind() == ExprKind::Param) return true;
  if (e.kind() == ExprKind::Select || e.kind() == ExprKind::Min || e.kind() == ExprKind::Max)
    return std::all_of(e->operands.begin(), e->operands.end(), sizePolynomial);
  if (e.kind() == ExprKind::Constant) return *e.constantValue() >= Integer(0);
  if (e.kind() != ExprKind::Sum || e->constantTerm < Integer(0)) return false;
  for (const Term &t : e->terms) {
    if (t.coefficient < Integer(0)) return false;
    for (const auto &[atom, power] : t.monomial)
      if (!sizePolynomial(atom)) return false;
  }
  return true;
}
} // namespace

const Node *Graph::size(Expr value) {
  Node c = blank(OpKind::Scalar, "size", {});
  c.exprs = {value};
  c.weak = true;
  return make(std::move(c), [&](Node &n) {
    n.dtype = DType::Int64;
    static const Integer lowest = -maxArraySize() - Integer(1);
    // An element count only needs the upper bound (the same requirement its array has).
    Pred fits = sizePolynomial(value) ? le(value, maxArraySize())
                                      : Pred::conjunction({definedness(value), ge(value, lowest), le(value, maxArraySize())});
    // An element count's bound is its array's limit (of that kind); any other value's is a
    // shape error of its own (NumPy's OverflowError).
    requireOr(n.validity, fits, "the value " + value.toString() + " fits in int64",
              "Python integer " + value.toString() + " out of bounds for int64",
              sizePolynomial(value) ? ObligationKind::Limit : ObligationKind::Shape);
  });
}

// ---------------------------------------------------------------------------------------------
// Elementwise.

void Graph::broadcastOperands(Node &n, BroadcastMode mode) {
  std::vector<Shape> shapes;
  shapes.reserve(n.inputs.size());
  for (const Node *in : n.inputs) shapes.push_back(in->shape);
  // When one operand's shape dominates (every other one, right-aligned, has the same dim or a
  // constant 1 at each position), the result is that shape where valid, and its element count
  // was required where that operand was made: no second count obligation.
  auto dominates = [&](const Shape &big) {
    for (const Shape &s : shapes) {
      if (s.size() > big.size()) return false;
      for (std::size_t i = 1; i <= s.size(); ++i)
        if (s[s.size() - i] != big[big.size() - i] && s[s.size() - i] != Expr(1)) return false;
    }
    return true;
  };
  bool known = std::any_of(shapes.begin(), shapes.end(), dominates);
  const Context &cx = n.validity.context();
  BroadcastKey key{cx.assumptions(), cx.domain(), mode, !known, std::move(shapes)};
  const BroadcastResult *r = nullptr;
  std::optional<BroadcastResult> unkept; // an answer the clock cut short: used, not kept
  if (auto it = broadcasts_.find(key); it != broadcasts_.end()) {
    ++stats_.broadcastsRemembered;
    r = &it->second;
  } else {
    const uint64_t before = solver_->stats().unkept;
    BroadcastResult fresh = broadcast(*solver_, cx, key.shapes, mode, !known);
    if (solver_->stats().unkept != before) {
      r = &unkept.emplace(std::move(fresh));
    } else {
      if (broadcasts_.size() >= (std::size_t(1) << 14)) broadcasts_.clear();
      r = &broadcasts_.emplace(std::move(key), std::move(fresh)).first->second;
    }
  }
  n.shape = r->shape;
  n.validity.absorb(r->validity); // after anything the rule recorded before
  if (mode == BroadcastMode::Static) markStaticBroadcastable(n, true);
}

std::size_t Graph::BroadcastKeyHash::operator()(const BroadcastKey &k) const {
  std::size_t h = mix(k.assumptions.hash(), std::size_t(k.domain) * 4 + std::size_t(k.mode) * 2 + std::size_t(k.count));
  for (const Shape &s : k.shapes) {
    h = mix(h, s.size());
    for (const Expr &d : s) h = mix(h, d.hash());
  }
  return h;
}

void Graph::markStaticBroadcastable(Node &n, bool positionWide, const std::vector<std::size_t> &core,
                                    const std::vector<bool> &apart, const std::vector<Shape> *over) {
  // Static mode: the kernels need to know which sizes 1 may broadcast — those provably 1 when the
  // node was built, and those whose oneness the solver could not decide (the shape rule then
  // checks NumPy's rule at run time, so the kernel must apply the same one). For broadcasting
  // operands one undecided size makes its whole position NumPy's (as shape/Broadcast decides);
  // a random variable's batch dimensions with size are decided one by one. Positions are counted
  // from the right after each input's core dims (core[i], none when not given); bits are kept
  // per position of the whole input shape.
  std::vector<std::vector<Answer>> answers;
  uint64_t undecided = 0;
  for (std::size_t k = 0; k < n.inputs.size(); ++k) {
    const Shape &shape = over ? (*over)[k] : n.inputs[k]->shape;
    std::size_t c = k < core.size() ? core[k] : 0;
    answers.emplace_back();
    for (std::size_t j = 0; j + c < shape.size() && j + c < 64; ++j) {
      Expr d = shape[shape.size() - 1 - c - j];
      Answer one = d.constantValue() ? (d.constantValue()->isOne() ? Answer::Proven : Answer::Refuted)
                                     : oneness(*solver_, n.validity.context(), d).answer;
      answers.back().push_back(one);
      if (one == Answer::Unknown && !(k < apart.size() && apart[k])) undecided |= uint64_t(1) << j;
    }
  }
  for (std::size_t k = 0; k < answers.size(); ++k) {
    const std::vector<Answer> &a = answers[k];
    std::size_t c = k < core.size() ? core[k] : 0;
    uint64_t bits = 0;
    for (std::size_t j = 0; j < a.size(); ++j)
      if (a[j] == Answer::Proven || a[j] == Answer::Unknown || (positionWide && (undecided >> j & 1)))
        bits |= uint64_t(1) << (j + c);
    n.broadcastable.push_back(bits);
  }
}

const Node *Graph::unary(const std::string &op, const Node *x) {
  if (!isUnaryOp(op)) throw OpError("unknown elementwise function '" + op + "'");
  Node c = blank(OpKind::Unary, op, {x});
  return make(std::move(c), [&](Node &n) {
    DType t = x->dtype;
    const UfuncRule rule = ruleOf(op);
    if (rule == UfuncRule::Test) { // any dtype in, bool out
      n.dtype = DType::Bool;
      n.shape = x->shape;
      return;
    }
    bool math = rule != UfuncRule::Keep;
    if (op == "positive" && t == DType::Bool)
      throw OpError("ufunc 'positive' did not contain a loop with signature matching types <class 'numpy.dtype[bool_]'> -> None");
    if (op == "square" && t == DType::Bool) throw OpError("square of a bool array is int8 in NumPy, a dtype shapelab does not have; use astype first");
    if (op == "negative" && t == DType::Bool)
      throw OpError("The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or the logical_not function instead.");
    if ((op == "sign" && t == DType::Bool) || (op == "invert" && isFloat(t)))
      throw OpError("ufunc '" + op + "' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
    if (math && t == DType::Bool) throw OpError(op + " of a bool array is float16 in NumPy, a dtype shapelab does not have; use astype first");
    if (math && isInteger(t)) t = DType::Float64;
    if (x->weak && math) t = DType::Float64;
    n.dtype = t;
    n.weak = x->weak;
    n.shape = x->shape;
  });
}

const Node *Graph::binary(const std::string &op, const Node *a, const Node *b, BroadcastMode mode) {
  if (!isBinaryOp(op)) throw OpError("unknown elementwise function '" + op + "'");
  Node c = blank(OpKind::Binary, op, {a, b});
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    DType t = resultType({{a->dtype, a->weak}, {b->dtype, b->weak}});
    if (t == DType::Bool) {
      if (op == "subtract")
        throw OpError("numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` operator, or the logical_xor function instead.");
      if (op == "floor_divide" || op == "remainder" || op == "power")
        throw OpError(op + " of bool arrays is int8 in NumPy, a dtype shapelab does not have; use astype first");
    }
    const UfuncRule rule = ruleOf(op);
    const bool math = rule == UfuncRule::Math;
    if (t == DType::Bool && (op == "fmod" || math))
      throw OpError(op + " of bool arrays is " + (math ? "float16" : "int8") + " in NumPy, a dtype shapelab does not have; use astype first");
    if ((op == "bitwise_and" || op == "bitwise_or" || op == "bitwise_xor") && isFloat(t))
      throw OpError("ufunc '" + op + "' not supported for the input types, and the inputs could not be safely coerced to any supported types according to the casting rule ''safe''");
    if ((rule == UfuncRule::Divide || math) && !isFloat(t)) t = DType::Float64;
    n.dtype = rule == UfuncRule::Compare || rule == UfuncRule::Logical ? DType::Bool : t;
    n.weak = a->weak && b->weak;
    broadcastOperands(n, mode);
  });
}

const Node *Graph::where(const Node *cnd, const Node *a, const Node *b, BroadcastMode mode) {
  Node c = blank(OpKind::Where, "where", {cnd, a, b});
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    n.dtype = resultType({{a->dtype, a->weak}, {b->dtype, b->weak}});
    n.weak = a->weak && b->weak && cnd->weak;
    broadcastOperands(n, mode);
  });
}

const Node *Graph::astype(const Node *x, DType dtype) {
  Node c = blank(OpKind::Cast, "astype", {x});
  c.dtype = dtype;
  return make(std::move(c), [&](Node &n) { n.shape = x->shape; });
}

// ---------------------------------------------------------------------------------------------
// Layout.

const Node *Graph::transpose(const Node *x, std::optional<std::vector<int64_t>> axes) {
  std::vector<int64_t> perm;
  if (!axes) {
    for (std::size_t i = x->rank(); i-- > 0;) perm.push_back(int64_t(i));
  } else {
    if (axes->size() != x->rank()) throw OpError("axes don't match array");
    std::vector<bool> used(x->rank());
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (used[k]) throw OpError("repeated axis in transpose");
      used[k] = true;
      perm.push_back(k);
    }
  }
  Node c = blank(OpKind::Transpose, "transpose", {x});
  c.ints = perm;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    for (int64_t k : perm) n.shape.push_back(x->shape[k]);
  });
}

namespace {
/// An operand of " / " as a message writes it: in parentheses unless a parameter or a constant
/// (6 / (2*n - 2), (b*d*t) / (b*h*t)).
std::string operandText(const Expr &e) {
  if (e.kind() == ExprKind::Param || e.isConstant()) return e.toString();
  return "(" + e.toString() + ")";
}
} // namespace

/// The reshape rule, as NumPy reads a target (`_fix_unknown_dimension`): every negative entry,
/// -1 or not, written or computed, is the one unknown dimension, inferred as the element count
/// divided by the product of the others (which must be at least 1 and divide it); two negative
/// entries are an error ("can only specify one unknown dimension"); with none, the product must
/// be the element count. A computed entry that may be negative under the context makes the
/// shape piecewise: `(b, t, -q)` of a `(b, t, d)` array is `(b, t, d if -q < 0 else 0)`, valid
/// where q >= 1 and b*t >= 1, or q == 0 and b*t*d == 0. Throws OpError for two negative
/// constants, and for an entry that may be negative where x is valid and whose quotient is not an
/// expression (a sum divides nothing exactly).
Shape Graph::reshapeTarget(Validity &v, const Context &context, const Node *x, const std::vector<Expr> &target) {
  Expr total = product(x->shape);
  // Where x cannot be computed the reshape never runs: an entry that is a size wherever x is
  // valid (x.shape[1] of an (n - 1, m - 1) array) is read as a size. x's domain is asked for
  // only when an entry's own bounds leave its sign open.
  std::optional<Pred> operandDomain;
  auto sizeWhereOperandIsValid = [&](const Expr &e) {
    try {
      if (!operandDomain) operandDomain = validityOf(*this, x).domain();
    } catch (const InputTooLarge &) {
      return false;
    }
    return !operandDomain->isTrue() && provesCheaply(context, !*operandDomain || ge(e, 0));
  };
  const std::string one = "can only specify one unknown dimension";
  std::optional<std::size_t> unknown;
  std::vector<std::size_t> maybeNegative;
  Shape known;
  for (std::size_t i = 0; i < target.size(); ++i) {
    auto value = target[i].constantValue();
    if (!value || *value >= Integer(0)) continue;
    if (unknown) throw OpError(one);
    unknown = i;
  }
  // Beside a written unknown every other entry must be a size (one negative somewhere is a second
  // unknown there); otherwise an entry whose sign is open is inferred where it is negative.
  for (std::size_t i = 0; i < target.size() && !unknown; ++i) {
    if (target[i].isConstant()) continue;
    Range r = rangeOf(target[i], context);
    if (!(r.low && *r.low >= Integer(0)) && !provesCheaply(context, ge(target[i], 0)) &&
        !sizeWhereOperandIsValid(target[i]))
      maybeNegative.push_back(i);
  }
  std::string shown = "(";
  for (std::size_t i = 0; i < target.size(); ++i) shown += (i ? "," : "") + target[i].toString();
  shown += target.size() == 1 ? ",)" : ")";
  std::string sizeText = total.toString();
  std::string message = "cannot reshape array of size " + sizeText + " into shape " + shown;
  for (std::size_t i = 0; i < target.size(); ++i)
    if (i != unknown && std::find(maybeNegative.begin(), maybeNegative.end(), i) == maybeNegative.end())
      known.push_back(target[i]);
  requireSizes(v, known, "the new shape");
  if (maybeNegative.empty()) {
    Expr rest = product(known);
    if (!unknown) {
      requireOr(v, eq(total, rest), "the element count is kept (" + sizeText + " == " + rest.toString() + ")", message);
      return target;
    }
    if (rest.constantValue() == Integer(0)) {
      v.fail(message);
      return target;
    }
    std::optional<Expr> q = divideByMonomial(total, rest);
    if (!q)
      throw OpError("reshape: the -1 dimension would be " + operandText(total) + " / " + operandText(rest) +
                    ", which is not an expression shapelab can represent; give the dimension");
    Shape out = target;
    out[*unknown] = *q;
    if (!rest.isConstant()) requireOr(v, ge(rest, 1), "the known dimensions are not empty", message);
    requireOr(v, definedness(*q), "the element count " + sizeText + " is a multiple of " + rest.toString(), message);
    return out;
  }
  Shape out = target;
  std::vector<Pred> someNegative;
  for (std::size_t k = 0; k < maybeNegative.size(); ++k) {
    const std::size_t j = maybeNegative[k];
    const Expr &e = target[j];
    Shape others = target;
    others.erase(others.begin() + std::ptrdiff_t(j));
    Expr rest = product(others);
    std::optional<Expr> q = divideByMonomial(total, rest);
    if (!q)
      throw OpError("reshape: the dimension " + e.toString() + " may be negative, and NumPy then infers it as " +
                    operandText(total) + " / " + operandText(rest) +
                    ", which is not an expression shapelab can represent; assume " + e.toString() +
                    " >= 0 or give the dimension");
    const Pred negative = lt(e, 0);
    someNegative.push_back(negative);
    out[j] = choose(context, negative, *q, e);
    requireOr(v, negative || le(e, Expr(maxArraySize())),
              "the dimension " + e.toString() + " is at most 2**63 - 1 where it is not negative (inferred)",
              "the dimension " + e.toString() + " is larger than 2**63 - 1", ObligationKind::Limit);
    requireOr(v, !negative || (ge(rest, 1) && definedness(*q)),
              "where " + e.toString() + " < 0 (inferred), the other dimensions are not empty and their product " +
                  rest.toString() + " divides " + sizeText,
              message);
    for (std::size_t l = 0; l < k; ++l)
      requireOr(v, !(negative && someNegative[l]),
                "at most one of " + target[maybeNegative[l]].toString() + " and " + e.toString() + " is negative",
                one);
  }
  const Expr count = product(target);
  requireOr(v, Pred::disjunction(someNegative) || eq(total, count),
            "the element count is kept (" + sizeText + " == " + count.toString() + ") where no dimension is negative",
            message);
  return out;
}

const Node *Graph::reshape(const Node *x, const std::vector<Expr> &shape) {
  Node c = blank(OpKind::Reshape, "reshape", {x});
  c.exprs = shape;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = reshapeTarget(n.validity, n.validity.context(), x, shape);
    // Where every size is at least 1 the new shape has x's element count, which fits. An empty
    // array does not make any shape of count 0 possible: NumPy refuses to reshape np.empty(0)
    // to (0, 7, 1111**6), whose sizes other than 0 multiply past 2**63 - 1.
    bool mayBeZero = std::any_of(n.shape.begin(), n.shape.end(), [&](const Expr &d) {
      Range r = rangeOf(d, n.validity.context());
      return !r.low || *r.low < Integer(1);
    });
    if (mayBeZero) requireElementCountFits(n.validity, n.shape, "the result");
  });
}

const Node *Graph::expandDims(const Node *x, std::vector<int64_t> axes) {
  std::size_t rank = x->rank() + axes.size();
  std::vector<bool> isNew(rank);
  for (int64_t a : axes) {
    int64_t k = normalizeAxis(a, rank);
    if (isNew[k]) throw OpError("repeated axis");
    isNew[k] = true;
  }
  Shape target;
  for (std::size_t i = 0, j = 0; i < rank; ++i) target.push_back(isNew[i] ? Expr(1) : x->shape[j++]);
  Node c = blank(OpKind::Reshape, "expand_dims", {x});
  c.exprs = target;
  for (std::size_t i = 0; i < rank; ++i)
    if (isNew[i]) c.ints.push_back(int64_t(i));
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = target;
  });
}

const Node *Graph::squeeze(const Node *x, std::optional<std::vector<int64_t>> axes) {
  std::vector<bool> drop(x->rank());
  if (axes) {
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (drop[k]) throw OpError("repeated axis");
      drop[k] = true;
    }
  } else {
    for (std::size_t i = 0; i < x->rank(); ++i) {
      Decision d = solver_->decide(contextFor(reservedOf(blank(OpKind::Reshape, "", {x}))), eq(x->shape[i], 1));
      if (d.answer == Answer::Proven) drop[i] = true;
      else if (d.answer != Answer::Refuted)
        throw OpError("squeeze without axis: whether dimension " + std::to_string(i) + " (" + dimText(x->shape[i]) +
                      ") is 1 depends on the sizes, so the result's rank would too; give axis=");
    }
  }
  Shape target;
  for (std::size_t i = 0; i < x->rank(); ++i)
    if (!drop[i]) target.push_back(x->shape[i]);
  Node c = blank(OpKind::Reshape, "squeeze", {x});
  c.exprs = target;
  c.ints.assign(drop.begin(), drop.end());
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = target;
    for (std::size_t i = 0; i < x->rank(); ++i)
      if (drop[i])
        requireOr(n.validity, eq(x->shape[i], 1), "squeezed dimension " + std::to_string(i) + " is 1",
                  "cannot select an axis to squeeze out which has size not equal to one");
  });
}

const Node *Graph::broadcastTo(const Node *x, const Shape &shape) {
  Node c = blank(OpKind::BroadcastTo, "broadcast_to", {x});
  c.exprs = shape;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    requireSizes(n.validity, shape, "the target shape");
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), x->shape, shape);
    n.shape = shape;
    n.validity.absorb(r.validity);
  });
}

const Node *Graph::full(const Shape &shape, const Node *value, std::optional<DType> dtype) {
  Node c = blank(OpKind::Alloc, "full", {value});
  c.exprs = shape;
  if (dtype) c.ints = {int64_t(*dtype)};
  return make(std::move(c), [&](Node &n) {
    n.dtype = dtype ? *dtype : value->dtype;
    requireSizes(n.validity, shape, "the shape");
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), value->shape, shape);
    n.validity.absorb(r.validity);
    n.shape = shape;
  });
}

const Node *Graph::arange(const Expr &start, const Expr &stop, int64_t step, DType dtype) {
  if (step == 0) throw OpError("arange's step must not be 0 (NumPy: division by zero)");
  Node c = blank(OpKind::Arange, "arange", {});
  c.exprs = {start, stop};
  c.ints = {step, int64_t(dtype)};
  return make(std::move(c), [&](Node &n) {
    n.dtype = dtype;
    // NumPy takes Python integers as int64: each bound must fit.
    const Expr highest(maxArraySize()), lowest(-maxArraySize() - Integer(1));
    for (const auto &[bound, name] : {std::pair{start, "start"}, std::pair{stop, "stop"}})
      for (const Pred &fits : {ge(bound, lowest), le(bound, highest)})
        requireOr(n.validity, fits, std::string("arange's ") + name + " fits in int64", "Python int too large to convert to C long");
    // ceil(d / step) for the distance d the values run over, or 0 where d has the other sign.
    const Expr distance = step > 0 ? stop - start : start - stop;
    const Integer s = Integer::abs(Integer(step));
    n.shape = {smaller(n.validity.context(), Expr(0), floorDiv(distance + Expr(s - Integer(1)), s), false)};
    requireSizes(n.validity, n.shape, "the length");
  });
}

const Node *Graph::concatenate(const std::vector<const Node *> &xs, std::optional<int64_t> axisArg) {
  if (xs.empty()) throw OpError("need at least one array to concatenate");
  if (!axisArg) {
    std::vector<const Node *> flat;
    for (const Node *x : xs) flat.push_back(reshape(x, {Expr(-1)}));
    return concatenate(flat, 0);
  }
  std::size_t rank = xs[0]->rank();
  if (rank == 0) throw OpError("zero-dimensional arrays cannot be concatenated");
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (xs[i]->rank() != rank)
      throw OpError("all the input arrays must have same number of dimensions, but the array at index 0 has " +
                    std::to_string(rank) + " dimension(s) and the array at index " + std::to_string(i) + " has " +
                    std::to_string(xs[i]->rank()) + " dimension(s)");
  int64_t axis = normalizeAxis(*axisArg, rank);
  Node c = blank(OpKind::Concatenate, "concatenate", xs);
  c.ints = {axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = arrayResultType(xs);
    n.shape = xs[0]->shape;
    std::vector<Expr> parts;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      parts.push_back(xs[i]->shape[axis]);
      if (i == 0) continue;
      for (std::size_t d = 0; d < rank; ++d) {
        if (int64_t(d) == axis) continue;
        const Expr &a = xs[0]->shape[d], &b = xs[i]->shape[d];
        requireOr(n.validity, eq(a, b),
                  "dimension " + std::to_string(d) + " of array " + std::to_string(i) + " matches array 0",
                  "all the input array dimensions except for the concatenation axis must match exactly, but along dimension " +
                      std::to_string(d) + ", the array at index 0 has size " + dimText(a) + " and the array at index " +
                      std::to_string(i) + " has size " + dimText(b));
      }
    }
    n.shape[axis] = signedSum(parts);
    requireElementCountFits(n.validity, n.shape, "the result");
  });
}

const Node *Graph::stack(const std::vector<const Node *> &xs, int64_t axisArg) {
  if (xs.empty()) throw OpError("need at least one array to stack");
  std::size_t rank = xs[0]->rank();
  for (std::size_t i = 1; i < xs.size(); ++i)
    if (xs[i]->rank() != rank) throw OpError("all input arrays must have the same shape");
  int64_t axis = normalizeAxis(axisArg, rank + 1);
  Node c = blank(OpKind::Stack, "stack", xs);
  c.ints = {axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = arrayResultType(xs);
    for (std::size_t i = 1; i < xs.size(); ++i)
      for (std::size_t d = 0; d < rank; ++d)
        requireOr(n.validity, eq(xs[0]->shape[d], xs[i]->shape[d]),
                  "dimension " + std::to_string(d) + " of array " + std::to_string(i) + " matches array 0",
                  "all input arrays must have the same shape");
    n.shape = xs[0]->shape;
    n.shape.insert(n.shape.begin() + axis, Expr(int64_t(xs.size())));
    requireElementCountFits(n.validity, n.shape, "the result");
  });
}

std::vector<const Node *> Graph::split(const Node *x, std::variant<Expr, std::vector<Expr>> how, int64_t axisArg) {
  if (x->rank() == 0) throw OpError("split of a 0-d array");
  int64_t axis = normalizeAxis(axisArg, x->rank());
  const Expr L = x->shape[axis];
  auto slice = [&](std::optional<Expr> a, std::optional<Expr> b) {
    std::vector<IndexEntry> entries(std::size_t(axis), IndexEntry{});
    entries.push_back({IndexEntry::Slice, a, b, 1});
    return index(x, entries);
  };
  std::vector<const Node *> parts;
  if (auto *sections = std::get_if<Expr>(&how)) {
    auto count = sections->constantValue();
    if (!count)
      throw OpError("split: the number of sections must be a constant (it is how many arrays split returns), not " +
                    sections->toString() + "; to cut at sizes, give indices: split(x, [i, j], axis)");
    if (*count <= Integer(0)) throw OpError("number sections must be larger than 0.");
    if (*count > Integer(4096)) throw OpError("split: at most 4096 sections");
    int64_t k = count->toInt64Checked();
    if (auto l = L.constantValue(); l && Integer::floorMod(*l, *count) != Integer(0))
      throw OpError("array split does not result in an equal division");
    // Part i is [i*L//k, (i+1)*L//k): total bounds; the division is an obligation of each part.
    for (int64_t i = 0; i < k; ++i) {
      std::vector<IndexEntry> entries(std::size_t(axis), IndexEntry{});
      entries.push_back({IndexEntry::Slice, floorDiv(L * Expr(i), *count), floorDiv(L * Expr(i + 1), *count), 1});
      parts.push_back(indexImpl(x, entries, nullptr, "split", {k, axis}));
    }
    return parts;
  }
  const std::vector<Expr> &at = std::get<std::vector<Expr>>(how);
  std::optional<Expr> prev;
  for (std::size_t i = 0; i <= at.size(); ++i) {
    std::optional<Expr> next = i < at.size() ? std::optional<Expr>(at[i]) : std::nullopt;
    parts.push_back(slice(prev, next));
    prev = next;
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------
// Indexing.

const Node *Graph::index(const Node *x, std::vector<IndexEntry> entries, const Node *array) {
  return indexImpl(x, std::move(entries), array, "index", {});
}

std::size_t Graph::SliceKeyHash::operator()(const SliceKey &k) const {
  std::size_t h = mix(k.assumptions.hash(), k.length.hash());
  h = mix(h, k.start ? k.start->hash() : 1);
  h = mix(h, k.stop ? k.stop->hash() : 2);
  return mix(h, std::size_t(k.step) * 2 + std::size_t(k.domain));
}

/// The length of x[start:stop:step] along an axis of length L >= 0 (either bound may be left
/// out), written by the signs of the bounds. NumPy clips each bound by its sign
/// (PySlice_AdjustIndices), and for a fixed pair of signs the difference of the clipped bounds
/// has a form with L in it once, where clipping each bound on its own writes L two to four
/// times; every later shape and question built on the length is that much smaller. The forms
/// (t = |step|; a, b the bounds):
///   step > 0: a, b >= 0: min(b, L) - a;  a >= 0, b < 0: L + b - a;  a < 0, b < 0:
///             min(b - a, L + b);  no stop: L - a (a >= 0) or min(-a, L) (a < 0);
///   step < 0: a, b >= 0: min(a, L - 1) - b;  a < 0, b >= 0: L + a - b;  a < 0, b < 0:
///             min(a - b, L + a + 1);  no start: L - 1 - b (b >= 0) or min(-1 - b, L) (b < 0);
///             no stop: min(a + 1, L) (a >= 0) or L + a + 1 (a < 0); neither: L;
/// each then divided by t rounding up, and at least 0. A bound whose sign varies makes the length
/// a choice on its sign between two such forms. The two mixed cases left out (step > 0 with
/// a < 0 <= b, step < 0 with b < 0 <= a) keep L twice in any form, unless the bound that is not
/// negative lies past the end (then it is as if left out): where one is met, the bounds are
/// clipped one by one instead. Remembered per (assumptions, L, bounds, step): slicedLength
/// computes it.
Expr Graph::sliceLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                        const std::optional<Expr> &stop, int64_t step) {
  SliceKey key{cx.assumptions(), cx.domain(), L, start, stop, step};
  if (auto it = sliceLengths_.find(key); it != sliceLengths_.end()) {
    ++stats_.sliceLengthsRemembered;
    return it->second;
  }
  const uint64_t unkept = solver_->stats().unkept;
  Expr length = slicedLength(cx, L, start, stop, step);
  if (solver_->stats().unkept == unkept) {
    if (sliceLengths_.size() >= (std::size_t(1) << 16)) sliceLengths_.clear();
    sliceLengths_.emplace(std::move(key), length);
  }
  return length;
}

Expr Graph::slicedLength(const Context &cx, const Expr &L, const std::optional<Expr> &start,
                         const std::optional<Expr> &stop, int64_t step) {
  enum Sign { Absent, NonNegative, Negative };
  const Integer t(step > 0 ? step : -step);
  // ceil(d / t), and at least 0 unless d is known to be.
  auto count = [&](const Expr &d, bool atLeastZero) {
    Expr q = floorDiv(d + Expr(t - Integer(1)), t);
    return atLeastZero ? q : nonNegative(cx, q);
  };
  // The length where the bounds have the signs sa and sb.
  auto forSigns = [&](Sign sa, Sign sb) -> std::optional<Expr> {
    // A bound past the end clips to where a left-out bound starts: x[-1:n] of an axis of at
    // most n is x[-1:].
    if (step > 0 && sb == NonNegative && provesCheaply(cx, ge(*stop, L))) sb = Absent;
    if (step < 0 && sa == NonNegative && provesCheaply(cx, ge(*start, L - 1))) sa = Absent;
    if (step > 0) {
      const Expr a = sa == Absent ? Expr(0) : *start;
      const bool aNonNegative = sa != Negative;
      if (sb == Absent) return aNonNegative ? count(L - a, false) : count(smaller(cx, -a, L, true), true);
      const Expr &b = *stop;
      if (aNonNegative && sb == NonNegative) return count(smaller(cx, b, L, true) - a, false);
      if (aNonNegative && sb == Negative) return count(L + b - a, false);
      if (!aNonNegative && sb == Negative) return count(smaller(cx, b - a, L + b, true), false);
      return std::nullopt;
    }
    if (sa == Absent) {
      if (sb == Absent) return count(L, true);
      const Expr &b = *stop;
      return sb == NonNegative ? count(L - 1 - b, false) : count(smaller(cx, -1 - b, L, true), true);
    }
    const Expr &a = *start;
    if (sb == Absent) return sa == NonNegative ? count(smaller(cx, a + 1, L, true), true) : count(L + a + 1, false);
    const Expr &b = *stop;
    if (sa == NonNegative && sb == NonNegative) return count(smaller(cx, a, L - 1, true) - b, false);
    if (sa == Negative && sb == NonNegative) return count(L + a - b, false);
    if (sa == Negative && sb == Negative) return count(smaller(cx, a - b, L + a + 1, true), false);
    return std::nullopt;
  };
  // A bound's sign, or both signs when it varies (a choice on the sign then picks the length).
  auto signsOf = [&](const std::optional<Expr> &w) -> std::vector<Sign> {
    if (!w) return {Absent};
    const Pred negative = lt(*w, 0);
    if (auto v = negative.constantValue()) return {*v ? Negative : NonNegative};
    if (provesCheaply(cx, negative)) return {Negative};
    if (provesCheaply(cx, !negative)) return {NonNegative};
    return {Negative, NonNegative};
  };
  const std::vector<Sign> as = signsOf(start), bs = signsOf(stop);
  auto bySigns = [&]() -> std::optional<Expr> {
    std::optional<Expr> byStart[2];
    for (std::size_t i = 0; i < as.size(); ++i) {
      std::optional<Expr> byStop[2];
      for (std::size_t j = 0; j < bs.size(); ++j)
        if (!(byStop[j] = forSigns(as[i], bs[j]))) return std::nullopt;
      byStart[i] = bs.size() == 1 ? byStop[0] : choose(cx, lt(*stop, 0), *byStop[0], *byStop[1]);
    }
    return as.size() == 1 ? byStart[0] : choose(cx, lt(*start, 0), *byStart[0], *byStart[1]);
  };
  if (std::optional<Expr> len = bySigns()) return *len;
  // Otherwise each bound clipped on its own, by its signs: a negative one counts from the end
  // and is clipped below, another is clipped above; a side its sign rules out is not built (its
  // clipping asks the solver too).
  auto clipped = [&](const std::optional<Expr> &w, const std::vector<Sign> &signs, bool isStart) -> Expr {
    if (!w) return step > 0 ? (isStart ? Expr(0) : L) : (isStart ? L - 1 : Expr(-1));
    auto fromEnd = [&] { return smaller(cx, *w + L, step < 0 ? Expr(-1) : Expr(0), false); };
    auto fromStart = [&] { return smaller(cx, *w, step < 0 ? L - 1 : L, true); };
    if (signs.size() == 2) return choose(cx, lt(*w, 0), fromEnd(), fromStart());
    return signs[0] == Negative ? fromEnd() : fromStart();
  };
  const Expr a = clipped(start, as, true), b = clipped(stop, bs, false);
  return count(step > 0 ? b - a : a - b, false);
}

const Node *Graph::indexImpl(const Node *x, std::vector<IndexEntry> entries, const Node *array, const std::string &op,
                             std::vector<int64_t> ints) {
  // Expand `...` and pad with full slices.
  std::size_t consumed = 0, ellipses = 0, arrays = 0;
  for (const IndexEntry &e : entries) {
    if (e.kind == IndexEntry::Slice && e.step == 0) ++ellipses;
    else if (e.kind == IndexEntry::Integer || e.kind == IndexEntry::Slice) ++consumed;
    else if (e.kind == IndexEntry::Array) {
      ++arrays;
      consumed += array && array->dtype == DType::Bool ? std::max<std::size_t>(array->rank(), 0) : 1;
    }
  }
  if (ellipses > 1) throw OpError("an index can only have a single ellipsis ('...')");
  if (arrays > 1 || (arrays && !array)) throw OpError("shapelab supports one array in an index");
  if (array && array->dtype != DType::Bool && !isInteger(array->dtype))
    throw OpError("arrays used as indices must be of integer (or boolean) type");
  if (consumed > x->rank())
    throw OpError("too many indices for array: array is " + std::to_string(x->rank()) + "-dimensional, but " +
                  std::to_string(consumed) + " were indexed");
  std::vector<IndexEntry> full;
  for (const IndexEntry &e : entries) {
    if (e.kind == IndexEntry::Slice && e.step == 0) {
      for (std::size_t i = 0; i < x->rank() - consumed; ++i) full.push_back(IndexEntry{});
    } else {
      full.push_back(e);
    }
  }
  if (!ellipses)
    for (std::size_t i = consumed; i < x->rank(); ++i) full.push_back(IndexEntry{});
  // Integers next to the array index join it (NumPy broadcasts them together); elsewhere they
  // would move the array's dimensions to the front, which shapelab does not model.
  if (array) {
    std::size_t pos = 0;
    while (full[pos].kind != IndexEntry::Array) ++pos;
    std::size_t lo = pos, hi = pos;
    while (lo > 0 && full[lo - 1].kind == IndexEntry::Integer) --lo;
    while (hi + 1 < full.size() && full[hi + 1].kind == IndexEntry::Integer) ++hi;
    for (std::size_t i = 0; i < full.size(); ++i)
      if (full[i].kind == IndexEntry::Integer && (i < lo || i > hi))
        throw OpError("an integer index separated from an array index by a slice or None moves the result's axes "
                      "(NumPy's advanced indexing rule); shapelab does not model that: index in two steps");
  }
  std::vector<const Node *> ins{x};
  if (array) ins.push_back(array);
  Node c = blank(OpKind::Index, op, ins);
  c.index = full;
  c.ints = ints;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    if (op == "split") {
      const Expr &L = x->shape[ints[1]];
      requireOr(n.validity, eq(mod(L, Integer(ints[0])), 0),
                "axis " + std::to_string(ints[1]) + " divides into " + std::to_string(ints[0]) + " equal sections",
                "array split does not result in an equal division");
    }
    std::size_t axis = 0;
    bool arrayPlaced = false;
    for (const IndexEntry &e : full) {
      switch (e.kind) {
      case IndexEntry::NewAxis: n.shape.push_back(1); break;
      case IndexEntry::Integer: {
        const Expr &L = x->shape[axis];
        const Expr &i = *e.start;
        requireOr(n.validity, Pred::conjunction({ge(i, -L), lt(i, L)}),
                  "index " + i.toString() + " is within axis " + std::to_string(axis) + " of size " + dimText(L),
                  "index " + i.toString() + " is out of bounds for axis " + std::to_string(axis) + " with size " +
                      dimText(L));
        if (array && !arrayPlaced) {
          arrayPlaced = true;
          if (array->dtype != DType::Bool) for (const Expr &d : array->shape) n.shape.push_back(d);
          else n.shape.push_back(*n.dataSize);
        }
        ++axis;
        break;
      }
      case IndexEntry::Slice: {
        const std::size_t at = axis++;
        const Expr &L = x->shape[at];
        int64_t s = e.step;
        for (const auto &bound : {e.start, e.stop})
          if (bound && !bound->isTotal())
            n.validity.require(definedness(*bound), "the slice bound " + bound->toString() + " is defined (array split does not result in an equal division otherwise)");
        // A part of split(x, k) is [i*L//k, (i+1)*L//k) of an axis k divides: L//k long wherever
        // the part exists (L is then a size, as a dimension of x, and a multiple of k). The
        // slice's own length, exact at every L, would carry clipping that cannot happen there
        // (`max(0, min(L, L // 3))`), and cost a few solver questions a part.
        // The same for `:` over an affine size (`n - m`): L itself, not max(0, L).
        if (op == "split" && at == std::size_t(ints[1])) n.shape.push_back(floorDiv(L, Integer(ints[0])));
        else if (!e.start && !e.stop && s == 1 && L.isTotal() && L.isQuasiAffine()) n.shape.push_back(L);
        else n.shape.push_back(sliceLength(n.validity.context(), L, e.start, e.stop, s));
        break;
      }
      case IndexEntry::Array: {
        if (array->dtype == DType::Bool) {
          for (std::size_t d = 0; d < array->rank(); ++d) {
            // NumPy checks only a mask dimension that is not 0 (prepare_index in its
            // mapping.c): an empty mask dimension selects nothing along any axis length.
            const Expr &L = x->shape[axis + d], &M = array->shape[d];
            requireOr(n.validity, eq(M, 0) || eq(L, M),
                      "boolean index dimension " + std::to_string(d) + " matches axis " + std::to_string(axis + d),
                      "boolean index did not match indexed array along dimension " + std::to_string(axis + d) +
                          "; dimension is " + dimText(L) + " but corresponding boolean dimension is " + dimText(M));
          }
          if (!n.dataSize) n.dataSize = freshDataSize(n, product(array->shape), false);
          axis += array->rank();
        } else {
          ++axis;
        }
        if (!arrayPlaced) {
          arrayPlaced = true;
          if (array->dtype != DType::Bool) for (const Expr &d : array->shape) n.shape.push_back(d);
          else n.shape.push_back(*n.dataSize);
        }
        break;
      }
      }
    }
    if (array && array->dtype == DType::Bool && !n.dataSize) n.dataSize = freshDataSize(n, product(array->shape), false);
    // Basic indexing and masks select at most x's elements; an integer array can repeat them.
    if (array && array->dtype != DType::Bool) requireElementCountFits(n.validity, n.shape, "the result");
  });
}

const Node *Graph::setSubtensor(const Node *region, const Node *value, bool increment, BroadcastMode mode) {
  if (region->kind != OpKind::Index)
    throw OpError(std::string(increment ? "inc" : "set") + "_subtensor needs an indexed array as its first argument, like x[1:3]");
  const Node *x = region->inputs[0];
  std::vector<const Node *> ins{x, value};
  if (region->inputs.size() > 1) ins.push_back(region->inputs[1]);
  ins.push_back(region);
  Node c = blank(OpKind::SetSubtensor, increment ? "inc_subtensor" : "set_subtensor", ins);
  c.index = region->index;
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = x->shape;
    n.validity.absorb(region->validity); // the region is not computed first (readsBefore)
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), value->shape, region->shape);
    n.validity.absorb(r.validity);
  });
}

// ---------------------------------------------------------------------------------------------
// Reductions, Blockwise, the rest.

const Node *Graph::reduce(const std::string &op, const Node *x, std::optional<std::vector<int64_t>> axes,
                          bool keepdims) {
  static const std::set<std::string> known = {"sum", "prod", "max", "min", "all", "any", "mean", "argmax", "argmin"};
  if (!known.count(op)) throw OpError("unknown reduction '" + op + "'");
  const bool arg = op == "argmax" || op == "argmin";
  if (arg && axes && axes->size() != 1) throw OpError("'tuple' object cannot be interpreted as an integer");
  std::vector<int64_t> list;
  if (!axes) {
    for (std::size_t i = 0; i < x->rank(); ++i) list.push_back(int64_t(i));
  } else {
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (std::find(list.begin(), list.end(), k) != list.end()) throw OpError("duplicate value in 'axis'");
      list.push_back(k);
    }
    std::sort(list.begin(), list.end());
  }
  Node c = blank(OpKind::Reduce, op, {x});
  c.ints = list;
  c.number = keepdims ? 1 : 0;
  return make(std::move(c), [&](Node &n) {
    DType t = x->dtype;
    if (op == "sum" || op == "prod") t = isFloat(t) ? t : DType::Int64;
    if (op == "all" || op == "any") t = DType::Bool;
    if (op == "mean") t = isFloat(t) ? t : DType::Float64;
    if (arg) t = DType::Int64;
    n.dtype = t;
    // argmax and argmin over every axis: the index into the flattened array, which must not be
    // empty (whatever its shape: NumPy flattens first).
    if (arg && !axes)
      requireOr(n.validity, nonEmpty(product(x->shape)), "the array is not empty",
                "attempt to get " + op + " of an empty sequence");
    for (std::size_t i = 0; i < x->rank(); ++i) {
      bool reduced = std::find(list.begin(), list.end(), int64_t(i)) != list.end();
      if (!reduced) n.shape.push_back(x->shape[i]);
      else if (keepdims) n.shape.push_back(1);
      if (reduced && (op == "max" || op == "min"))
        requireOr(n.validity, nonEmpty(x->shape[i]), "reduced axis " + std::to_string(i) + " is not empty",
                  std::string("zero-size array to reduction operation ") + reductionName(op) + " which has no identity");
      if (reduced && arg && axes)
        requireOr(n.validity, nonEmpty(x->shape[i]), "reduced axis " + std::to_string(i) + " is not empty",
                  "attempt to get " + op + " of an empty sequence");
    }
  });
}

const Node *Graph::blockwise(const std::string &op, const std::vector<const Node *> &xs, BroadcastMode mode) {
  std::string sig;
  std::size_t arity = 1;
  if (op == "matmul") sig = "(n?,k),(k,m?)->(n?,m?)", arity = 2;
  else if (op == "outer") sig = "(m),(n)->(m,n)", arity = 2;
  else if (op == "det") sig = "(m,m)->()";
  else if (op == "inv") sig = "(m,m)->(m,m)";
  else if (op == "solve") {
    arity = 2;
    // NumPy's rule: b is a stack of vectors when it has one dimension fewer than a.
    if (xs.size() == 2) sig = xs[1]->rank() + 1 == xs[0]->rank() ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)";
  } else if (op == "convolve") arity = 2;
  else throw OpError("unknown function '" + op + "'");
  if (xs.size() != arity)
    throw OpError(op + "() takes " + std::to_string(arity) + " array argument(s), " + std::to_string(xs.size()) + " given");
  if (op == "matmul")
    for (std::size_t i = 0; i < 2; ++i)
      if (xs[i]->rank() == 0) throw OpError("matmul: Input operand " + std::to_string(i) + " does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)");
  Node c = blank(OpKind::Blockwise, op, xs);
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    DType t = arrayResultType(xs);
    if (op == "det" || op == "inv" || op == "solve") t = isFloat(t) ? t : DType::Float64;
    if (op == "convolve" && t == DType::Bool) t = DType::Bool;
    n.dtype = t;
    if (op == "convolve") {
      for (std::size_t i = 0; i < 2; ++i)
        if (xs[i]->rank() != 1) throw OpError("object too deep for desired array");
      const Expr &a = xs[0]->shape[0], &v = xs[1]->shape[0];
      requireOr(n.validity, ge(a, 1), "a is not empty", "a cannot be empty");
      requireOr(n.validity, ge(v, 1), "v is not empty", "v cannot be empty");
      n.shape = {a + v - 1};
      return;
    }
    std::vector<GufuncArgument> args;
    for (const Node *x : xs) args.push_back({x->shape, false});
    GufuncResult r = resolveGufunc(*solver_, n.validity.context(), parseSignature(sig), args, mode, true,
                                   OperandsExist::Known);
    // No output shape: an operand with too few dimensions (ranks are static, so no size fixes it).
    if (r.outShapes.empty()) throw OpError(op + ": " + r.validity.message());
    for (const auto &d : r.outShapes[0]) n.shape.push_back(d ? *d : Expr(0));
    n.validity.absorb(r.validity);
    if (mode == BroadcastMode::Static) {
      // The batch shapes broadcast as an elementwise op's shapes do; an operand of fewer
      // dimensions than its core (matmul's vectors) has no batch.
      Signature parsed = parseSignature(sig);
      std::vector<std::size_t> core;
      for (std::size_t i = 0; i < xs.size(); ++i) core.push_back(std::min(xs[i]->rank(), parsed.inputs[i].dims.size()));
      markStaticBroadcastable(n, true, core);
    }
  });
}

std::vector<int64_t> encodeEinsum(const EinsumSpec &spec) {
  std::vector<int64_t> out{int64_t(spec.operands.size())};
  for (const std::vector<int64_t> &labels : spec.operands) {
    out.push_back(int64_t(labels.size()));
    out.insert(out.end(), labels.begin(), labels.end());
  }
  out.push_back(int64_t(spec.output.size()));
  out.insert(out.end(), spec.output.begin(), spec.output.end());
  return out;
}

EinsumSpec decodeEinsum(const std::vector<int64_t> &ints) {
  EinsumSpec spec;
  std::size_t at = 0;
  auto take = [&]() {
    if (at >= ints.size()) throw InternalError("einsum: truncated subscripts");
    return ints[at++];
  };
  auto labels = [&]() {
    const int64_t count = take();
    if (count < 0 || std::size_t(count) > ints.size()) throw InternalError("einsum: bad subscripts");
    std::vector<int64_t> l;
    for (int64_t i = 0; i < count; ++i) l.push_back(take());
    return l;
  };
  for (int64_t k = take(); k > 0; --k) spec.operands.push_back(labels());
  spec.output = labels();
  return spec;
}

const Node *Graph::einsum(const EinsumSpec &spec, const std::vector<const Node *> &xs, BroadcastMode mode) {
  // Subscripts that do not fit the operands' ranks: refused as a rank error is (NumPy's words).
  std::vector<std::size_t> ranks;
  for (const Node *x : xs) ranks.push_back(x->rank());
  if (auto e = einsumOperandsError(spec, ranks)) throw OpError(*e);
  Node c = blank(OpKind::Einsum, "einsum", xs);
  c.mode = mode;
  c.ints = encodeEinsum(spec);
  return make(std::move(c), [&](Node &n) {
    std::vector<Shape> shapes;
    for (const Node *x : xs) shapes.push_back(x->shape);
    // einsum makes arrays of its operands first (np.asarray): a Python number is a 0-d array,
    // not weak (NEP 50), so einsum('i,->i', f32, 2.0) is float64.
    n.dtype = arrayResultType(xs);
    EinsumResult r = resolveEinsum(*solver_, n.validity.context(), spec, shapes, mode, OperandsExist::Known);
    n.validity.absorb(r.validity);
    n.shape = r.shape.size() == spec.output.size() ? r.shape : Shape(spec.output.size(), Expr(0));
    if (mode == BroadcastMode::Static && r.remapped.size() == xs.size()) markStaticBroadcastable(n, true, {}, {}, &r.remapped);
  });
}

const Node *Graph::diff(const Node *x, int64_t order, int64_t axisArg) {
  if (x->rank() == 0) throw OpError("diff requires input that is at least one dimensional");
  if (order < 0) throw OpError("order must be non-negative but got " + std::to_string(order));
  int64_t axis = normalizeAxis(axisArg, x->rank());
  Node c = blank(OpKind::Diff, "diff", {x});
  c.ints = {order, axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = x->shape;
    n.shape[axis] = max(Expr(0), x->shape[axis] - Expr(order));
  });
}

const Node *Graph::cumulative(const std::string &op, const Node *x, std::optional<int64_t> axisArg) {
  if (op != "cumsum" && op != "cumprod") throw OpError("unknown cumulative function '" + op + "'");
  if (!axisArg) return cumulative(op, reshape(x, {Expr(-1)}), 0);
  int64_t axis = normalizeAxis(*axisArg, x->rank());
  Node c = blank(OpKind::Cumsum, op, {x});
  c.ints = {axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = isFloat(x->dtype) ? x->dtype : DType::Int64;
    n.shape = x->shape;
  });
}

const Node *Graph::random(const std::string &name, const std::vector<const Node *> &parameters,
                          const std::optional<Shape> &size, BroadcastMode mode,
                          const std::vector<std::optional<Shape>> &shapeOnly) {
  const RandomVariableInfo *info = findRandomVariable(name);
  if (!info) throw OpError("unknown random variable '" + name + "' (see :ops)");
  std::vector<GufuncArgument> args;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    if (i < shapeOnly.size() && shapeOnly[i]) args.push_back({*shapeOnly[i], true});
    else args.push_back({parameters[i]->shape, false});
  }
  Node c = blank(OpKind::Random, name, parameters);
  // ints: the draw, then per parameter the rank of its value-shape (-1: an array), then the
  // rank of size when given.
  c.ints = {reuseDraw_ ? *std::exchange(reuseDraw_, std::nullopt) : int64_t(++draws_)};
  for (std::size_t i = 0; i < parameters.size(); ++i)
    c.ints.push_back(i < shapeOnly.size() && shapeOnly[i] ? int64_t(shapeOnly[i]->size()) : -1);
  for (const auto &s : shapeOnly)
    if (s) c.exprs.insert(c.exprs.end(), s->begin(), s->end());
  if (size) {
    c.ints.push_back(int64_t(size->size()));
    c.exprs.insert(c.exprs.end(), size->begin(), size->end());
  }
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    if (size) requireSizes(n.validity, *size, "size");
    RandomVariableResult r = inferRandomVariable(*solver_, n.validity.context(), name, args, size, mode,
                                                 OperandsExist::Known);
    if (!r.allocatable())
      throw OpError(name + ": the output shape depends on the value of a parameter (" + r.undetermined.front() +
                    "); give that parameter as a literal");
    for (const auto &d : r.shape) n.shape.push_back(*d);
    n.validity.absorb(r.validity);
    if (mode == BroadcastMode::Static) {
      // Without size the batch shapes broadcast with one another (shape/Broadcast's rule), after
      // each parameter's core dims; parameters given by their shape alone take no part.
      std::vector<std::size_t> core;
      if (!size) {
        Signature sig = parseSignature(r.signature);
        core.assign(parameters.size(), 0);
        for (std::size_t i = 0; i < parameters.size() && i < sig.inputs.size(); ++i) core[i] = sig.inputs[i].dims.size();
      }
      std::vector<bool> apart;
      for (std::size_t i = 0; i < parameters.size(); ++i) apart.push_back(i < shapeOnly.size() && bool(shapeOnly[i]));
      markStaticBroadcastable(n, !size, core, apart);
    }
    if (info->dtype == "int64") n.dtype = DType::Int64;
    else if (name == "permutation" || name == "choice_without_replacement")
      n.dtype = parameters.empty() || (shapeOnly.size() && shapeOnly[0]) ? DType::Int64 : parameters[0]->dtype;
    else n.dtype = DType::Float64;
  });
}

const Node *Graph::specifyShape(const Node *x, const std::vector<std::optional<Expr>> &shape) {
  if (shape.size() != x->rank())
    throw OpError("specify_shape: the array has " + std::to_string(x->rank()) + " dimension(s), the shape " +
                  std::to_string(shape.size()));
  Node c = blank(OpKind::SpecifyShape, "specify_shape", {x});
  for (std::size_t i = 0; i < shape.size(); ++i) {
    c.ints.push_back(shape[i] ? 1 : 0);
    c.exprs.push_back(shape[i] ? *shape[i] : Expr(0));
  }
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      n.shape.push_back(shape[i] ? *shape[i] : x->shape[i]);
      if (shape[i])
        requireOr(n.validity, eq(x->shape[i], *shape[i]),
                  "dimension " + std::to_string(i) + " is " + shape[i]->toString(),
                  "SpecifyShape: dim " + std::to_string(i) + " of input has shape " + dimText(x->shape[i]) +
                      ", expected " + shape[i]->toString() + ".");
    }
  });
}

namespace {
void foldBranches(Graph &g, Node &n, const Pred &cond, const Node *a, const Node *b) {
  if (a->rank() != b->rank())
    throw OpError("ifelse: the branches have ranks " + std::to_string(a->rank()) + " and " + std::to_string(b->rank()));
  n.dtype = resultType({{a->dtype, a->weak}, {b->dtype, b->weak}});
  const Validity va = validityOf(g, a), vb = validityOf(g, b);
  // NumPy's limits of the arrays a branch makes bind where it runs, as its shape obligations do
  // (reported apart, as limits).
  auto limitsOf = [](const Validity &v) {
    std::vector<Pred> ps;
    for (const Obligation &o : v.obligations())
      if (o.kind == ObligationKind::Limit && o.decision.answer != Answer::Proven) ps.push_back(o.predicate);
    return whereHolds(Pred::conjunction(ps));
  };
  auto fold = [&](const Pred &okA, const Pred &okB, const std::string &what, ObligationKind kind) {
    if (okA == okB) {
      // Both branches need the same: no matter which runs.
      if (!okA.isTrue()) n.validity.require(okA, "either branch " + what, kind);
      return;
    }
    if (!okA.isTrue()) n.validity.require(!cond || okA, "the first branch " + what + " where it is chosen", kind);
    if (!okB.isTrue()) n.validity.require(cond || okB, "the second branch " + what + " where it is chosen", kind);
  };
  fold(va.domain(), vb.domain(), "is valid", ObligationKind::Shape);
  fold(limitsOf(va), limitsOf(vb), "makes arrays that fit NumPy's limits", ObligationKind::Limit);
}
} // namespace

const Node *Graph::ifelse(const Pred &cond, const Node *a, const Node *b) {
  Node c = blank(OpKind::IfElse, "ifelse", {a, b});
  c.cond = cond;
  return make(std::move(c), [&](Node &n) {
    // A condition over a size that may not exist (x.shape[1] of a reshape to (2, -1)) picks no
    // branch where it does not: definedness is an obligation, as for every size.
    Pred defined = definedness(cond);
    if (!defined.isTrue()) n.validity.require(defined, "the condition " + cond.toString() + " is defined");
    foldBranches(*this, n, cond, a, b);
    for (std::size_t i = 0; i < a->rank(); ++i) n.shape.push_back(choose(n.validity.context(), cond, a->shape[i], b->shape[i]));
  });
}

const Node *Graph::after(const std::vector<const Node *> &guards, const Node *x) {
  if (guards.empty()) return x;
  std::vector<const Node *> inputs = guards;
  inputs.push_back(x);
  Node c = blank(OpKind::After, "after", inputs);
  c.weak = x->weak; // a Python literal stays one (part of the node's key)
  return make(std::move(c), [&](Node &n) {
    // Nothing of its own: the guards' validity and x's come through the operands.
    n.dtype = x->dtype;
    n.shape = x->shape;
  });
}

const Node *Graph::ifelse(const Node *cond, const Node *a, const Node *b) {
  if (cond->rank() != 0) throw OpError("ifelse: the condition must be a 0-d array or a predicate over sizes");
  Node c = blank(OpKind::IfElse, "ifelse", {a, b, cond});
  return make(std::move(c), [&](Node &n) {
    n.dataSize = freshDataSize(n, 1, true);
    Pred chosen = eq(*n.dataSize, 1);
    n.cond = chosen;
    foldBranches(*this, n, chosen, a, b);
    for (std::size_t i = 0; i < a->rank(); ++i) n.shape.push_back(choose(n.validity.context(), chosen, a->shape[i], b->shape[i]));
  });
}

// ---------------------------------------------------------------------------------------------

namespace {
/// Whether n's rule, given `in` for its operands, derives what it derived for n (rebuild()):
/// rules that read their operands' shapes, dtypes and literal flags only, and operands that
/// agree in those (a literal operand must be the same node: its value may matter). The
/// attributes these factories compute from their arguments (normalised axes, padded index
/// entries, a reshape's target) depend on the operands' ranks and shapes alone, so the old node's
/// attributes are also what the factory would compute.
bool derivesAlike(const Node *n, const std::vector<const Node *> &in) {
  if (!hasTrait(n->kind, trait::ShapesOnly)) return false;
  if (n->kind == OpKind::Index && n->inputs.size() != 1) return false; // an index array's values may matter
  if (n->dataSize || in.size() != n->inputs.size()) return false;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const Node *a = in[i], *b = n->inputs[i];
    if (a == b) continue;
    if (a->kind == OpKind::Scalar || b->kind == OpKind::Scalar || a->shape != b->shape || a->dtype != b->dtype ||
        a->weak != b->weak)
      return false;
  }
  return true;
}
} // namespace

namespace {
/// n over `in`: n's key (its operands replaced) and derived fields.
Node copyNode(const Node *n, const std::vector<const Node *> &in, std::size_t hash) {
  return Node{.kind = n->kind,
              .dtype = n->dtype,
              .weak = n->weak,
              .mode = n->mode,
              .inputs = in,
              .shape = n->shape,
              .hash = hash,
              .op = n->op,
              .ints = n->ints,
              .exprs = n->exprs,
              .index = n->index,
              .number = n->number,
              .cond = n->cond,
              .validity = n->validity,
              .broadcastable = n->broadcastable};
}
} // namespace

const Node *Graph::copyOver(const Node *n, const std::vector<const Node *> &in) {
  const std::size_t hash = keyHash(*n, in);
  if (const Node *found = find(hash, *n, in)) return found;
  return adopt(copyNode(n, in, hash));
}

const Node *Graph::rebuild(const Node *n, const std::vector<const Node *> &in) {
  if (in == n->inputs) return n;
  if (in.size() != n->inputs.size()) throw InternalError("rebuild: " + n->describe() + " with a wrong operand count");
  const bool alike = derivesAlike(n, in);
  if (alike) {
    // The old node over the new operands, its factory not run: it would compute the same
    // attributes and derive the same fields (a rewrite keeps most nodes' operands alike, and
    // the factory was most of a rebuild). With rebuild checks on, the factory runs too, its
    // rule as well (make compares what it derives with n's), and must give this very node.
    if (!checkRebuilds_) return copyOver(n, in);
    const Node *made = nullptr;
    try {
      made = rebuildThroughFactory(n, in, true);
    } catch (const UserError &e) {
      // What the factory made before, over operands of the same shapes and dtypes, it refuses
      // now: n's attributes are not passed back to it as it took them.
      throw InternalError("rebuild: the factory of " + n->describe() + " refuses operands alike to its own: " + e.what());
    }
    const Node copy = copyNode(n, in, keyHash(*n, in));
    if (copy.hash != made->hash || !KeyEq()(made, &copy) || !sameDerived(copy, *made))
      throw InternalError("rebuild: the copy of " + n->describe() + " over new operands is " + copy.describe() +
                          ", its factory made " + made->describe());
    return made;
  }
  return rebuildThroughFactory(n, in, false);
}

const Node *Graph::rebuildThroughFactory(const Node *n, const std::vector<const Node *> &in, bool alike) {
  auto keep = [&] {
    reuseDataSize_ = n->dataSize;
    if (n->kind == OpKind::Random) reuseDraw_ = n->ints[0];
  };
  struct Reset {
    Graph *g;
    ~Reset() { g->reuseDataSize_.reset(), g->reuseDraw_.reset(), g->derivesLike_ = nullptr; }
  } reset{this};
  if (alike) derivesLike_ = n;
  switch (n->kind) {
  case OpKind::Input:
  case OpKind::Scalar: return n;
  case OpKind::Unary: return unary(n->op, in[0]);
  case OpKind::Binary: return binary(n->op, in[0], in[1], n->mode);
  case OpKind::Where: return where(in[0], in[1], in[2], n->mode);
  case OpKind::Cast: return astype(in[0], n->dtype);
  case OpKind::Transpose: return transpose(in[0], n->ints);
  case OpKind::Reshape:
    if (n->op == "expand_dims") return expandDims(in[0], n->ints);
    if (n->op == "squeeze") {
      std::vector<int64_t> axes;
      for (std::size_t i = 0; i < n->ints.size(); ++i)
        if (n->ints[i]) axes.push_back(int64_t(i));
      return squeeze(in[0], axes);
    }
    return reshape(in[0], n->exprs);
  case OpKind::BroadcastTo: return broadcastTo(in[0], n->exprs);
  case OpKind::Alloc: return full(n->exprs, in[0], n->ints.empty() ? std::nullopt : std::optional(DType(n->ints[0])));
  case OpKind::Concatenate: return concatenate(in, n->ints[0]);
  case OpKind::Stack: return stack(in, n->ints[0]);
  case OpKind::Index: keep(); return indexImpl(in[0], n->index, in.size() > 1 ? in[1] : nullptr, n->op, n->ints);
  case OpKind::SetSubtensor: {
    // The region must stay an indexing of the (new) array, whatever its operand became.
    const Node *region = in.back();
    if (region->kind != OpKind::Index || region->inputs[0] != in[0]) {
      std::vector<const Node *> regionInputs{in[0]};
      if (n->inputs.size() > 3) regionInputs.push_back(in[2]);
      region = rebuild(n->inputs.back(), regionInputs);
    }
    return setSubtensor(region, in[1], n->op == "inc_subtensor", n->mode);
  }
  case OpKind::Reduce: {
    // argmax/argmin take one axis or none (the flat index): their list of every axis, as the
    // node keeps it, is passed back as none.
    const bool everyAxisOfArg = (n->op == "argmax" || n->op == "argmin") && n->ints.size() != 1;
    return reduce(n->op, in[0], everyAxisOfArg ? std::nullopt : std::optional(n->ints), n->number != 0);
  }
  case OpKind::Blockwise: return blockwise(n->op, in, n->mode);
  case OpKind::Diff: return diff(in[0], n->ints[0], n->ints[1]);
  case OpKind::Cumsum: return cumulative(n->op, in[0], n->ints[0]);
  case OpKind::Random: {
    std::vector<std::optional<Shape>> shapeOnly;
    std::size_t e = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      int64_t r = n->ints[1 + i];
      if (r < 0) {
        shapeOnly.push_back(std::nullopt);
        continue;
      }
      shapeOnly.push_back(Shape(n->exprs.begin() + e, n->exprs.begin() + e + r));
      e += std::size_t(r);
    }
    std::optional<Shape> size;
    if (n->ints.size() > 1 + in.size()) size = Shape(n->exprs.begin() + e, n->exprs.end());
    keep();
    return random(n->op, in, size, n->mode, shapeOnly);
  }
  case OpKind::SpecifyShape: {
    std::vector<std::optional<Expr>> shape;
    for (std::size_t i = 0; i < n->ints.size(); ++i) shape.push_back(n->ints[i] ? std::optional(n->exprs[i]) : std::nullopt);
    return specifyShape(in[0], shape);
  }
  case OpKind::After: return after(std::vector<const Node *>(in.begin(), in.end() - 1), in.back());
  case OpKind::Arange: return arange(n->exprs[0], n->exprs[1], n->ints[0], DType(n->ints[1]));
  case OpKind::Einsum: return einsum(decodeEinsum(n->ints), in, n->mode);
  case OpKind::IfElse:
    if (in.size() == 3) {
      keep();
      return ifelse(in[2], in[0], in[1]);
    }
    return ifelse(n->cond, in[0], in[1]);
  }
  throw InternalError("rebuild: unknown op kind");
}

const std::vector<OpInfo> &opCatalogue() {
  static const std::vector<OpInfo> list = [] {
    std::vector<OpInfo> l;
    for (const UfuncInfo &f : ufuncs()) {
      const std::string &u = f.name;
      if (f.arity == 1) {
        l.push_back({u, u == "invert" ? "invert(x) / ~x" : u + "(x)",
                     u == "invert"                  ? "bool or integer; same shape and dtype"
                     : f.rule == UfuncRule::Test ? "same shape; bool"
                     : f.rule == UfuncRule::Keep ? "same shape and dtype"
                                                 : "same shape; integers give float64"});
        continue;
      }
      l.push_back({u, f.symbol.empty() ? u + "(a, b)" : "a " + f.symbol + " b",
                   std::string("broadcasts a with b (per mode)") +
                       (f.rule == UfuncRule::Logical || f.rule == UfuncRule::Compare ? "; bool"
                        : f.rule == UfuncRule::Math || f.rule == UfuncRule::Divide   ? "; integers give float64"
                                                                                      : "")});
    }
    for (const FunctionInfo &f : functions())
      if (!f.signature.empty()) l.push_back({std::string(f.name), std::string(f.signature), std::string(f.rule)});
    for (const RandomVariableInfo &rv : randomVariableCatalogue()) {
      l.push_back({"random." + rv.name, "random." + rv.name + "(" + rv.parameterList() + ", size=None)",
                   rv.signature.empty() ? rv.note : "gufunc " + rv.signature});
    }
    return l;
  }();
  return list;
}

} // namespace shapelab::ops
