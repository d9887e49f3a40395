// ExprDetail — what the rooms of Expr share (internal to symbolic/): interning a node, the limit
// checks, the canonical order of monomials, the polynomial view of an expression (PolyRef), and
// keeping the definedness of what canonicalisation drops. The rooms: Expr.cpp (interning and
// the handles' lifetime), ExprOrder.cpp (structural order), ExprPolynomial.cpp (the normal
// form: sums), ExprProduct.cpp (products and powers), ExprPiecewise.cpp (floor division,
// modulo, exact division, min, max, select), ExprPredicate.cpp (comparisons and junctions),
// ExprPrint.cpp, ExprTraversal.cpp (parameters, definedness, substitution).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "symbolic/Expr.h"

namespace shapelab {

Pred definedness(Expr e);

namespace exprdetail {

// Interning (Expr.cpp): a node its room made canonical becomes the shared node.
Expr internExpr(ExprNode &&n);
Pred internPred(PredNode &&n);
Expr constantExpr(const Integer &v);
const ExprNode *zeroNode();
const PredNode *truthNode(bool v);

// The limits (Expr.h): each throws InputTooLarge past its limit.
void checkCoefficient(const Integer &v);
void checkTermCount(std::size_t terms);
void checkProductSize(std::size_t termsA, std::size_t termsB);
void checkDegree(uint32_t degree);
void checkTreeSize(uint64_t size);
[[noreturn]] void coefficientTooLarge();
inline uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
/// What a number adds to an expression's written-out size past the node it is part of: one
/// node per 64 bits past the first 64 (a coefficient at the limit, 65,536 bits, is written in
/// 19,729 digits, a thousand times a small one's). Numbers of at most 64 bits add nothing.
inline uint64_t numberWeight(std::size_t bits) { return bits > 64 ? uint64_t(bits - 1) / 64 : 0; }
inline uint64_t numberWeight(const Integer &v) { return v.bigStorage() ? numberWeight(v.bitLength()) : 0; } // inline: 64 bits at most

// ---------------------------------------------------------------------------------------------
// Structural order.

inline int cmpInt(const Integer &a, const Integer &b) { return compare(a, b); }

inline uint32_t degreeOf(const Monomial &m) {
  uint32_t d = 0;
  for (auto &p : m) d += p.second;
  return d;
}

/// The order of two monomials of the same degree: atom by atom, then the shorter first.
inline int sameDegreeCompare(const Monomial &a, const Monomial &b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (int c = structuralCompare(a[i].first, b[i].first)) return c;
    if (a[i].second != b[i].second) return a[i].second > b[i].second ? -1 : 1;
  }
  return (a.size() > b.size()) - (a.size() < b.size());
}

inline int monomialCompare(const Monomial &a, const Monomial &b) {
  uint32_t da = degreeOf(a), db = degreeOf(b);
  if (da != db) return da > db ? -1 : 1; // higher degree first
  return sameDegreeCompare(a, b);
}

// ---------------------------------------------------------------------------------------------
// Polynomials (ExprPolynomial.cpp).

/// Sorts terms into the canonical order (monomialCompare), merges equal monomials and drops
/// zero coefficients.
void normalise(Terms &terms);
/// Where sorted runs of a term list start (and, last, where the list ends); most products make
/// a few, kept in place.
using Runs = boost::container::small_vector<std::size_t, 8>;
/// normalise() for terms that are already sorted runs (run k: [runs[k], runs[k + 1])).
void mergeRuns(Terms &terms, Runs &runs);
Monomial multiplyMonomials(const Monomial &a, const Monomial &b);
/// fromPolynomial on the node's own term list.
Expr fromTerms(Terms terms, Integer constant);
/// The node of a polynomial whose terms are sorted, distinct and non-zero.
Expr fromNormalised(Terms terms, Integer constant);
/// a - b when it is a constant (their non-constant parts are the same terms), read off the
/// nodes without building the difference. Cost: a walk over both term lists, no allocation.
std::optional<Integer> constantDifference(const ExprNode *a, const ExprNode *b);

/// An expression read as a polynomial without copying its terms (asPolynomial copies every
/// term, and with it every atom's handle); `e` must outlive the view.
class PolyRef {
public:
  explicit PolyRef(const Expr &e) {
    const ExprNode *n = e.node();
    if (n->kind == ExprKind::Constant) {
      constant_ = &n->value;
    } else if (n->kind == ExprKind::Sum) {
      begin_ = n->terms.data();
      end_ = begin_ + n->terms.size();
      constant_ = &n->constantTerm;
    } else {
      single_.coefficient = Integer(1);
      single_.monomial.push_back({e, 1});
      begin_ = &single_;
      end_ = begin_ + 1;
    }
  }
  PolyRef(const PolyRef &) = delete;
  PolyRef &operator=(const PolyRef &) = delete;
  const Term *begin() const { return begin_; }
  const Term *end() const { return end_; }
  std::size_t size() const { return std::size_t(end_ - begin_); }
  const Term &operator[](std::size_t i) const { return begin_[i]; }
  const Integer &constant() const { return *constant_; }

private:
  Term single_;
  Integer zero_{0};
  const Term *begin_ = nullptr, *end_ = nullptr;
  const Integer *constant_ = &zero_;
};

/// Every coefficient and the constant multiplied by a non-zero `k`: the terms stay sorted and
/// non-zero, so no normalisation is needed.
Expr scaled(const PolyRef &p, const Integer &k);

// ---------------------------------------------------------------------------------------------
// Piecewise atoms (ExprPiecewise.cpp).

/// min or max (kind) of the arguments: nested ones flattened, those another dominates by a
/// constant dropped, the rest in structural order.
Expr minMax(ExprKind kind, std::vector<Expr> args);
/// 1 / 2: undefined at every point.
Expr undefinedEverywhere();

// ---------------------------------------------------------------------------------------------
// Keeping definedness. Canonicalisation may cancel or drop a sub-expression (x/2 - x/2 = 0,
// (x/2) % 1 = 0, min(x/2, x/2 + 1) = x/2 keeps it, 0*(x/2) = 0). Where the dropped part was
// undefined somewhere, the result must stay undefined there, or an error would be masked.
// The result is then guarded: `result if definedness(dropped) else 1 / 2` (1 / 2 is undefined
// everywhere), so evaluation and the solver see exactly the original domain.

/// Calls `use` on each partial atom at the top of `n`: itself, or a sum's partial atoms.
template <class Use> void forTopPartialAtoms(const ExprNode *n, Use use) {
  if (n->total) return;
  if (n->kind != ExprKind::Sum) return use(n);
  for (const Term &t : n->terms)
    for (auto &p : t.monomial)
      if (!p.first->total) use(p.first.node());
}

/// True when atom `a` still appears in `result`: as the result itself, or below it without
/// entering a Select (where it would be guarded by the condition).
inline bool stillPresent(const ExprNode *a, const ExprNode *result) {
  return a == result ||
         std::binary_search(result->partialBelow.begin(), result->partialBelow.end(), a);
}

template <class Inputs> Expr keepDefinednessOf(Expr result, const Inputs &inputs) {
  bool allTotal = true;
  for (const Expr &i : inputs) allTotal = allTotal && i.isTotal();
  if (allTotal) return result;
  // Most often every partial atom of the inputs is still in the result: asked without
  // collecting them first (this runs for every sum, product and division built).
  bool allPresent = true;
  for (const Expr &i : inputs)
    forTopPartialAtoms(i.node(), [&](const ExprNode *a) { allPresent = allPresent && stillPresent(a, result.node()); });
  if (allPresent) return result;
  std::vector<const ExprNode *> obligations;
  for (const Expr &i : inputs)
    forTopPartialAtoms(i.node(), [&](const ExprNode *a) {
      if (std::find(obligations.begin(), obligations.end(), a) == obligations.end()) obligations.push_back(a);
    });
  std::vector<Pred> missing;
  for (auto *o : obligations)
    if (!stillPresent(o, result.node())) missing.push_back(definedness(Expr(o)));
  if (missing.empty()) return result;
  return select(Pred::conjunction(missing), result, undefinedEverywhere());
}
inline Expr keepDefinedness(Expr result, std::initializer_list<Expr> inputs) {
  return keepDefinednessOf(std::move(result), inputs);
}

} // namespace exprdetail
} // namespace shapelab
