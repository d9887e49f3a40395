// GraphDetail — what the parts of the graph share (internal to ops/): helpers of the shape rules
// (axis normalisation, requirements, products), the structural key (hash and equality), and
// Graph::make, which every factory calls. The parts: Graph.cpp (interning, contexts, shape
// choice, pending lists and validity), Elementwise.cpp (sources and elementwise ops),
// Layout.cpp, Indexing.cpp (and slice lengths), Reductions.cpp (reductions, blockwise, einsum,
// diff, cumulative), Control.cpp (random variables, specify_shape, ifelse, after), Rebuild.cpp.
#pragma once


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
#include "ops/Graph.h"

namespace shapelab::ops {

namespace detail {

/// The dtype rule of a ufunc the factory was given (unary() and binary() check the name first).
inline UfuncRule ruleOf(const std::string &op) { return ufunc(op)->rule; }

inline std::size_t mix(std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

/// Lists of pending nodes and of requirements are short (typically under a dozen entries): up
/// to this many a linear search tells them apart, where a hash set would allocate per entry.
constexpr std::size_t kLinearSearch = 32;

/// Appends `p` to `out` unless `out` holds it: a linear search while `out` is short, past that
/// `seen` (filled from `out` when first needed, then kept with it). Nodes are told apart by
/// address, never read: in a large graph each is cold memory.
inline bool appendIfNew(std::vector<const Node *> &out, const Node *p, std::unordered_set<const Node *> &seen) {
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
inline int64_t normalizeAxis(int64_t axis, std::size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    throw OpError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

inline Expr product(const Shape &s, std::size_t from = 0, std::size_t to = SIZE_MAX) {
  Expr p = 1;
  for (std::size_t i = from; i < std::min(to, s.size()); ++i) p = p * s[i];
  return p;
}

inline std::string dimText(const Expr &e) { return e.toString(); }

/// A Python integer (a weak literal or size) meeting an integer array narrower than int64 must
/// be one of its dtype's values (NEP 50; NumPy's OverflowError otherwise): recorded in `v`.
void requireLiteralFits(Validity &v, const Node *literal, const Node *other);

/// Records `pred` with `what`; a predicate false for every size is recorded as a failure with
/// `concrete` (NumPy's message) instead.
inline void requireOr(Validity &v, const Pred &pred, const std::string &what, const std::string &concrete,
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
inline void requireSizes(Validity &v, const Shape &dims, const std::string &what, bool given = false) {
  if (!constantDimensionsFit(v, dims, what)) return;
  requireArraySizes(v, dims, what, given ? ObligationKind::Existence : ObligationKind::Limit);
}

/// `numerator / divisor` as a polynomial when each term of the numerator is a multiple of the
/// divisor's single monomial (of any non-zero coefficient); nullopt otherwise.
inline std::optional<Expr> divideByMonomial(const Expr &numerator, const Expr &divisor) {
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
inline DType arrayResultType(const std::vector<const Node *> &xs) {
  std::vector<Typed> types;
  for (const Node *x : xs) types.push_back({x->dtype, false});
  return resultType(types);
}

inline const char *reductionName(const std::string &op) {
  if (op == "max") return "maximum";
  if (op == "min") return "minimum";
  return op.c_str();
}

/// d >= 1, without the clipping of a slice length: max(0, X) >= 1 is X >= 1 (a max is at
/// least 1 where one of its operands is; a constant operand below 1 never is). The same
/// definedness: both read X.
inline Pred nonEmpty(const Expr &d) {
  if (d.kind() != ExprKind::Max) return ge(d, 1);
  std::vector<Pred> parts;
  for (const Expr &o : d->operands)
    if (auto c = o.constantValue(); !c || *c >= Integer(1)) parts.push_back(nonEmpty(o));
  return Pred::disjunction(parts);
}

/// Dims with more nodes than this (written out as a tree) are offered to Solver::compact.
/// Cost: a compaction is an isl question of a few milliseconds; below this size it costs more
/// than its smaller dim saves later, while a chain of slices of slices still stays short
/// (Shapes.TwentyFiveNestedSlicesBuild).
constexpr uint64_t kCompactDimsAbove = 80;
/// Whether a node's literal flag is part of its key (a literal or size, and an After, are made
/// with it); elsewhere the rule derives it from the operands (`n + 1` of two literals is one),
/// so the node found and the one about to be made would differ in it.
inline bool weakInKey(OpKind k) { return k == OpKind::Scalar || k == OpKind::After || k == OpKind::Check; }
/// Whether `a` has `b`'s structural key, b's operands taken to be `bInputs`.
inline bool sameKeyOver(const Node &a, const Node &b, std::span<const Node *const> bInputs) {
  return a.kind == b.kind && a.op == b.op && std::ranges::equal(a.inputs, bInputs) && a.attrs == b.attrs &&
         a.exprs == b.exprs && a.index == b.index && a.cond == b.cond && a.mode == b.mode &&
         (!weakInKey(a.kind) || a.weak == b.weak) && (a.kind != OpKind::Cast || a.dtype == b.dtype);
}

/// The hash of `c`'s structural key, its operands taken to be `inputs`.
inline std::size_t keyHash(const Node &c, std::span<const Node *const> inputs) {
  std::size_t h = std::hash<std::string>()(c.op) ^ (std::size_t(c.kind) << 56);
  for (const Node *i : inputs) h = mix(h, i->id);
  h = mix(h, hashAttrs(c.attrs));
  for (const Expr &e : c.exprs) h = mix(h, e.hash());
  for (const IndexEntry &e : c.index)
    h = mix(mix(mix(h, e.kind * 31 + std::size_t(e.step)), e.start ? e.start->hash() : 1), e.stop ? e.stop->hash() : 2);
  return mix(h, c.cond.hash() + std::size_t(c.mode) + (weakInKey(c.kind) && c.weak ? 7 : 0) +
                   (c.kind == OpKind::Cast ? std::size_t(c.dtype) : 0));
}
/// Whether `a` and `b` derived the same dtype, literal flag, shape, broadcast bits and own
/// validity (its obligations' predicates and answers, failures and assumptions).
inline bool sameDerived(const Node &a, const Node &b) {
  auto predicates = [](const Validity &v) {
    std::vector<std::string> out;
    for (const Obligation &o : v.obligations()) out.push_back(o.predicate.toString() + " " + spelling(o.decision.answer));
    return out;
  };
  return a.dtype == b.dtype && a.weak == b.weak && a.shape == b.shape && a.broadcastable == b.broadcastable &&
         predicates(a.validity) == predicates(b.validity) && a.validity.failures() == b.validity.failures() &&
         a.validity.context().assumptions() == b.validity.context().assumptions();
}
} // namespace detail

using namespace detail;

template <class Rule> const Node *Graph::make(Node c, Rule rule) {
  if (!attrsFit(c.kind, c.attrs)) throw InternalError(std::string("a ") + kindName(c.kind) + " node with another kind's attributes");
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
                like->attrs == c.attrs && like->exprs == c.exprs && like->index == c.index && like->cond == c.cond &&
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
      takeDerived(c); // in place: copying the candidate would be a large part of a rewrite
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

} // namespace shapelab::ops
