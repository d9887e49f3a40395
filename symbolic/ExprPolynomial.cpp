// The polynomial normal form: a Sum node is sum(coefficient * monomial) + constant over
// atoms (parameters and the non-polynomial nodes), its terms in the canonical order, distinct
// and non-zero. Sums and differences merge two sorted term lists; asPolynomial and
// fromPolynomial read and make the form.
// Example: (n + 1) + (n - 1) is the Sum 2*n; n - n is the constant 0.
#include "symbolic/ExprDetail.h"

#include "symbolic/Errors.h"

namespace shapelab {

using namespace exprdetail;

namespace exprdetail {

// ---------------------------------------------------------------------------------------------
// Polynomials.

/// Merges equal monomials of sorted terms and drops zero coefficients, in place.
void mergeSorted(Terms &terms) {
  std::size_t w = 0;
  for (std::size_t r = 0; r < terms.size(); ++r) {
    if (w > 0 && terms[w - 1].monomial == terms[r].monomial)
      terms[w - 1].coefficient += terms[r].coefficient;
    else if (w != r)
      terms[w++] = std::move(terms[r]);
    else
      ++w;
    if (terms[w - 1].coefficient.isZero()) --w;
  }
  terms.resize(w);
}

/// Sorts terms into the canonical order (monomialCompare), merges equal monomials and drops zero
/// coefficients. A long list (a product of sums) is sorted through small keys, each holding its
/// term's degree computed once, and the terms are moved once into place.
void normalise(Terms &terms) {
  if (terms.size() <= 16) {
    std::sort(terms.begin(), terms.end(), [](const Term &a, const Term &b) {
      return monomialCompare(a.monomial, b.monomial) < 0;
    });
    return mergeSorted(terms);
  }
  struct Key {
    uint32_t degree, index;
  };
  std::vector<Key> keys(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) keys[i] = {degreeOf(terms[i].monomial), uint32_t(i)};
  std::sort(keys.begin(), keys.end(), [&](const Key &a, const Key &b) {
    if (a.degree != b.degree) return a.degree > b.degree;
    return sameDegreeCompare(terms[a.index].monomial, terms[b.index].monomial) < 0;
  });
  Terms sorted;
  sorted.reserve(terms.size());
  for (const Key &k : keys) sorted.push_back(std::move(terms[k.index]));
  terms = std::move(sorted);
  mergeSorted(terms);
}

/// normalise() for terms that are already sorted runs (run k: [runs[k], runs[k + 1])): the
/// runs are merged pairwise, then equal monomials merge.
void mergeRuns(Terms &terms, Runs &runs) {
  auto before = [](const Term &a, const Term &b) { return monomialCompare(a.monomial, b.monomial) < 0; };
  while (runs.size() > 2) {
    Runs merged{runs[0]};
    for (std::size_t k = 0; k + 2 < runs.size(); k += 2) {
      std::inplace_merge(terms.begin() + std::ptrdiff_t(runs[k]), terms.begin() + std::ptrdiff_t(runs[k + 1]),
                         terms.begin() + std::ptrdiff_t(runs[k + 2]), before);
      merged.push_back(runs[k + 2]);
    }
    if (runs.size() % 2 == 0) merged.push_back(runs.back()); // an odd number of runs: the last one stays
    runs.swap(merged);
  }
  mergeSorted(terms);
}

Monomial multiplyMonomials(const Monomial &a, const Monomial &b) {
  Monomial out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : j == b.size() ? -1 : structuralCompare(a[i].first, b[j].first);
    if (c == 0) {
      out.push_back({a[i].first, a[i].second + b[j].second});
      ++i, ++j;
    } else if (c < 0) {
      out.push_back(a[i++]);
    } else {
      out.push_back(b[j++]);
    }
  }
  return out;
}


/// a - b when it is a constant (their non-constant parts are the same terms), read off the
/// nodes without building the difference: min/max compare every pair of arguments, and every
/// comparison made asks it. Cost: a walk over both term lists, no allocation (shape rules and
/// range walks compare by the thousand).
std::optional<Integer> constantDifference(const ExprNode *a, const ExprNode *b) {
  auto split = [](const ExprNode *n, const Terms *&terms, Integer &constant,
                  const ExprNode *&atom) {
    terms = nullptr;
    atom = nullptr;
    if (n->kind == ExprKind::Constant) constant = n->value;
    else if (n->kind == ExprKind::Sum) terms = &n->terms, constant = n->constantTerm;
    else atom = n, constant = 0;
  };
  const Terms *ta, *tb;
  const ExprNode *xa, *xb;
  Integer ca, cb;
  split(a, ta, ca, xa);
  split(b, tb, cb, xb);
  auto singleAtom = [](const Terms *t, const ExprNode *x) {
    return t && t->size() == 1 && (*t)[0].coefficient.isOne() && (*t)[0].monomial.size() == 1 &&
           (*t)[0].monomial[0].second == 1 && (*t)[0].monomial[0].first.node() == x;
  };
  bool same = false;
  if (xa || xb) same = xa == xb || (xa && singleAtom(tb, xa)) || (xb && singleAtom(ta, xb));
  else if (!ta || !tb) same = !ta && !tb ? true : (ta ? ta->empty() : tb->empty());
  else {
    same = ta->size() == tb->size();
    for (std::size_t i = 0; same && i < ta->size(); ++i)
      same = (*ta)[i].coefficient == (*tb)[i].coefficient && (*ta)[i].monomial == (*tb)[i].monomial;
  }
  if (!same) return std::nullopt;
  return ca - cb;
}


} // namespace exprdetail

std::optional<Expr> exactQuotient(const Expr &numerator, const Expr &divisor) {
  auto [dterms, dconst] = asPolynomial(divisor);
  if (dterms.empty() && dconst.isZero()) return std::nullopt;
  // The divisor's leading term: its first (terms are sorted highest degree first), or its
  // constant.
  const Term lead = dterms.empty() ? Term{dconst, Monomial{}} : dterms.front();
  std::vector<Term> quotient;
  Expr remainder = numerator;
  for (std::size_t step = 0; step <= kMaxPolynomialTerms; ++step) {
    auto [rterms, rconst] = asPolynomial(remainder);
    if (rterms.empty() && rconst.isZero()) return fromPolynomial(std::move(quotient), 0);
    const Term r = rterms.empty() ? Term{rconst, Monomial{}} : rterms.front();
    // r / lead: each of lead's factors in r's monomial with at least its exponent, and the
    // coefficient a multiple.
    Monomial m = r.monomial;
    for (const auto &factor : lead.monomial) {
      const Expr &atom = factor.first; // (not a structured binding: lambdas capture it in C++20 only)
      const uint32_t exponent = factor.second;
      auto it = std::find_if(m.begin(), m.end(), [&](const auto &f) { return f.first == atom; });
      if (it == m.end() || it->second < exponent) return std::nullopt;
      it->second -= exponent;
      if (it->second == 0) m.erase(it);
    }
    auto [q, rest] = Integer::truncDivRem(r.coefficient, lead.coefficient);
    if (!rest.isZero()) return std::nullopt;
    Term t{q, std::move(m)};
    quotient.push_back(t);
    remainder = remainder - fromPolynomial({t}, 0) * divisor;
  }
  return std::nullopt;
}

std::pair<std::vector<Term>, Integer> asPolynomial(Expr e) {
  const ExprNode *n = e.node();
  if (n->kind == ExprKind::Constant) return {{}, n->value};
  if (n->kind == ExprKind::Sum) return {std::vector<Term>(n->terms.begin(), n->terms.end()), n->constantTerm};
  return {{Term{Integer(1), Monomial{{e, 1}}}}, Integer(0)};
}

namespace exprdetail {
Expr fromNormalised(Terms terms, Integer constant);

/// Every coefficient and the constant multiplied by a non-zero `k`: the terms stay sorted and
/// non-zero, so no normalisation is needed.
Expr scaled(const PolyRef &p, const Integer &k) {
  Terms out;
  out.reserve(p.size());
  for (const Term &t : p) out.push_back({t.coefficient * k, t.monomial});
  return fromNormalised(std::move(out), p.constant() * k);
}
} // namespace exprdetail

namespace exprdetail {
/// fromPolynomial on the node's own term list.
Expr fromTerms(Terms terms, Integer constant) {
  // A term without atoms (a quotient m / m, say) is a constant: it joins the constant term.
  auto atomless = [](const Term &t) { return t.monomial.empty(); };
  for (const Term &t : terms)
    if (atomless(t)) constant += t.coefficient;
  terms.erase(std::remove_if(terms.begin(), terms.end(), atomless), terms.end());
  normalise(terms);
  return fromNormalised(std::move(terms), std::move(constant));
}
} // namespace exprdetail

Expr fromPolynomial(std::vector<Term> terms, Integer constant) {
  return fromTerms(Terms(std::make_move_iterator(terms.begin()), std::make_move_iterator(terms.end())),
                   std::move(constant));
}

namespace exprdetail {
/// The node of a polynomial whose terms are sorted, distinct and non-zero.
Expr fromNormalised(Terms terms, Integer constant) {
  checkTermCount(terms.size());
  if (terms.empty()) return Expr(constant);
  if (terms.size() == 1 && constant.isZero() && terms[0].coefficient.isOne() &&
      terms[0].monomial.size() == 1 && terms[0].monomial[0].second == 1)
    return terms[0].monomial[0].first;
  ExprNode n;
  n.kind = ExprKind::Sum;
  n.terms = std::move(terms);
  n.constantTerm = std::move(constant);
  return internExpr(std::move(n));
}
} // namespace exprdetail

namespace exprdetail {
/// Walks two sorted term lists (a sum's terms are kept sorted) in monomial order, calling
/// `each(a, b)` with the term each list has at a monomial (null where it has none); stops with
/// false as soon as `each` does. Sums, differences and replaced terms are written by one merge
/// instead of concatenating and sorting.
template <class Each> bool forEachMonomial(const PolyRef &ta, const PolyRef &tb, Each each) {
  std::size_t i = 0, j = 0;
  while (i < ta.size() || j < tb.size()) {
    const int c = i == ta.size() ? 1 : j == tb.size() ? -1 : monomialCompare(ta[i].monomial, tb[j].monomial);
    const Term *a = c <= 0 ? &ta[i++] : nullptr;
    const Term *b = c >= 0 ? &tb[j++] : nullptr;
    if (!each(a, b)) return false;
  }
  return true;
}

/// a + sign*b.
Expr addSigned(const Expr &a, const Expr &b, int sign) {
  if (a.isConstant() && b.isConstant())
    return Expr(sign > 0 ? *a.constantValue() + *b.constantValue() : *a.constantValue() - *b.constantValue());
  PolyRef ta(a), tb(b);
  Terms out;
  out.reserve(ta.size() + tb.size());
  forEachMonomial(ta, tb, [&](const Term *x, const Term *y) {
    if (!y) {
      out.push_back(*x);
    } else if (!x) {
      out.push_back({sign < 0 ? -y->coefficient : y->coefficient, y->monomial});
    } else {
      Integer k = sign > 0 ? x->coefficient + y->coefficient : x->coefficient - y->coefficient;
      if (!k.isZero()) out.push_back({std::move(k), x->monomial});
    }
    return true;
  });
  const Integer &ca = ta.constant(), &cb = tb.constant();
  return keepDefinedness(fromNormalised(std::move(out), sign > 0 ? ca + cb : ca - cb), {a, b});
}
} // namespace exprdetail

Expr operator+(Expr a, Expr b) { return addSigned(a, b, 1); }

Expr withTermReplaced(const Expr &sum, const Expr &atom, const Integer &c, const Expr &by) {
  if (!sum.isTotal() || !by.isTotal()) return (sum - Expr(c) * atom) + Expr(c) * by;
  PolyRef ts(sum), tb(by);
  // c*by's terms and constant, checked as its node would be (internExpr).
  const Integer byConstant = tb.constant() * c;
  checkCoefficient(byConstant);
  Terms out;
  out.reserve(ts.size() + tb.size());
  // The term c*atom of the sum: subtracted, it leaves nothing.
  auto replaced = [&](const Term *t) {
    return t && t->monomial.size() == 1 && t->monomial[0].second == 1 && t->monomial[0].first == atom &&
           t->coefficient == c;
  };
  forEachMonomial(ts, tb, [&](const Term *x, const Term *y) {
    if (replaced(x)) x = nullptr;
    if (!y) {
      if (x) out.push_back(*x);
      return true;
    }
    Integer k = y->coefficient * c;
    checkCoefficient(k);
    if (x) k = x->coefficient + k;
    if (!k.isZero()) out.push_back({std::move(k), y->monomial});
    return true;
  });
  return fromNormalised(std::move(out), ts.constant() + byConstant);
}

std::optional<OneParameterForm> differenceInOneParameter(const Expr &lhs, const Expr &rhs) {
  if (!lhs.isTotal() || !rhs.isTotal()) return std::nullopt;
  // addSigned's merge, keeping only what survives: one term, a parameter to the first power.
  PolyRef ta(lhs), tb(rhs);
  std::optional<OneParameterForm> out;
  const bool form = forEachMonomial(ta, tb, [&](const Term *x, const Term *y) {
    Integer k = !y ? x->coefficient : !x ? -y->coefficient : x->coefficient - y->coefficient;
    if (k.isZero()) return true;
    const Monomial &m = (x ? x : y)->monomial;
    if (out || m.size() != 1 || m[0].second != 1 || m[0].first.kind() != ExprKind::Param) return false;
    out = OneParameterForm{m[0].first.node(), std::move(k), Integer(0)};
    return true;
  });
  if (!form) return std::nullopt;
  if (out) out->k = ta.constant() - tb.constant();
  return out;
}

Expr Expr::operator-() const { return scaled(PolyRef(*this), Integer(-1)); }

Expr operator-(Expr a, Expr b) { return addSigned(a, b, -1); }

Expr signedSum(std::span<const Expr> operands, std::span<const bool> negated) {
  if (operands.empty()) return Expr(0);
  bool allTotal = true;
  for (const Expr &e : operands) allTotal = allTotal && e.isTotal();
  Terms terms;
  std::size_t count = 0;
  for (const Expr &e : operands) count += e.kind() == ExprKind::Sum ? e.node()->terms.size() : 1;
  terms.reserve(count);
  Integer constant(0);
  for (std::size_t i = 0; i < operands.size(); ++i) {
    const ExprNode *n = operands[i].node();
    bool minus = i > 0 && !negated.empty() && negated[i];
    auto add = [&](Term t) {
      if (minus) t.coefficient = -t.coefficient;
      terms.push_back(std::move(t));
    };
    if (n->kind == ExprKind::Constant) {
      constant = minus ? constant - n->value : constant + n->value;
    } else if (n->kind == ExprKind::Sum) {
      for (const Term &t : n->terms) add(t);
      constant = minus ? constant - n->constantTerm : constant + n->constantTerm;
    } else {
      add(Term{Integer(1), Monomial{{operands[i], 1}}});
    }
  }
  // Where operands are partial, the definedness of every one is kept (as the fold would keep
  // it step by step).
  return keepDefinednessOf(fromTerms(std::move(terms), std::move(constant)), operands);
}


} // namespace shapelab
