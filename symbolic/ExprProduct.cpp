// Products and powers in the normal form: a product of sums multiplies every pair of terms
// (the rows of exponents per atom, merged in sorted runs); a power of a sum is expanded by the
// multinomial theorem. Both fail early, before the work, when the result would pass a limit
// (terms, degree, coefficient bits).
// Example: (n + 1)**2 is n**2 + 2*n + 1.
#include "symbolic/ExprDetail.h"

#include <cstring>

#include "symbolic/Errors.h"

namespace shapelab {

using namespace exprdetail;

namespace exprdetail {
/// The canonical order of atoms.
bool atomBefore(const Expr &x, const Expr &y) { return structuralCompare(x, y) < 0; }

/// The atoms of polynomials, in the canonical atom order, each once.
std::vector<Expr> atomsOf(std::initializer_list<const PolyRef *> polys) {
  std::vector<Expr> atoms;
  for (const PolyRef *p : polys)
    for (const Term &t : *p)
      for (auto &[atom, k] : t.monomial) atoms.push_back(atom);
  std::sort(atoms.begin(), atoms.end(), atomBefore);
  atoms.erase(std::unique(atoms.begin(), atoms.end()), atoms.end());
  return atoms;
}

/// A polynomial as rows of exponents over a list of atoms: its non-constant terms in the
/// canonical order (row i: exponents[i*width ...], degrees[i], coefficients[i]), and its constant.
struct PolyRows {
  std::vector<uint32_t> exponents, degrees;
  std::vector<Integer> coefficients;
  Integer constant;
  std::size_t size() const { return coefficients.size(); }
  void clear() { // keeps the buffers
    exponents.clear();
    degrees.clear();
    coefficients.clear();
    constant = Integer(0);
  }
};

/// `p` as rows over `atoms` (atomsOf a list that has p).
PolyRows rowsOf(const PolyRef &p, const std::vector<Expr> &atoms) {
  const std::size_t width = atoms.size();
  PolyRows rows;
  for (const Term &t : p) {
    std::size_t row = rows.size();
    rows.exponents.resize(rows.exponents.size() + width, 0);
    for (auto &[atom, k] : t.monomial) {
      std::size_t at = std::size_t(std::lower_bound(atoms.begin(), atoms.end(), atom, atomBefore) - atoms.begin());
      rows.exponents[row * width + at] = k;
    }
    rows.degrees.push_back(degreeOf(t.monomial));
    rows.coefficients.push_back(t.coefficient);
  }
  rows.constant = p.constant();
  return rows;
}

std::size_t maxCoefficientBits(const PolyRef &p) {
  std::size_t bits = p.constant().bitLength();
  for (const Term &t : p) bits = std::max(bits, t.coefficient.bitLength());
  return bits;
}

/// Whether the product of a and b might have a term that is one product of their coefficients
/// past the coefficient limit: a product of x and y has at most bits(x) + bits(y) bits, and at
/// least one fewer.
bool mayBeCoefficientTooLarge(std::size_t bitsA, std::size_t bitsB) {
  return bitsA + bitsB > kMaxCoefficientBits + 1;
}
bool mayBeCoefficientTooLarge(const PolyRef &a, const PolyRef &b) {
  return mayBeCoefficientTooLarge(maxCoefficientBits(a), maxCoefficientBits(b));
}

/// Throws checkCoefficient's error before a product of two polynomials is computed when one of
/// its coefficients is sure to be past the limit (the last step of a power of a sum with big
/// coefficients multiplied some 600 pairs of 500-limb numbers to find that out). The caller has
/// passed the checks that come before the coefficients' (product size, degree); when the product
/// could have more terms than the limit, nothing is thrown here, since the term count's check,
/// which comes first, might fail instead.
///
/// A term of the product that no other pair of terms reaches keeps its coefficient, the product
/// of two coefficients. Such terms are found by orders on monomials that multiplication keeps
/// (m < m' implies m*n < m'*n): the product's greatest monomial under such an order is the product
/// of the factors' greatest, and no other pair of terms gives it. The orders tried: the canonical
/// order and its reverse (the first and the last terms; the constant is the canonical least),
/// and for each atom, its exponent up or down with ties broken either way by the canonical order
/// (as many atoms as a budget allows). Finding no such term says nothing: the product is computed.
void failEarlyIfProductCoefficientTooLarge(const PolyRows &p, const PolyRows &q, std::size_t width) {
  if (p.size() == 0 || q.size() == 0) return; // a constant factor: the caller scales instead
  if (uint64_t(p.size() + 1) * (q.size() + 1) - 1 > kMaxPolynomialTerms) return;
  auto maxBits = [](const PolyRows &x) {
    std::size_t bits = x.constant.bitLength();
    for (const Integer &c : x.coefficients) bits = std::max(bits, c.bitLength());
    return bits;
  };
  if (!mayBeCoefficientTooLarge(maxBits(p), maxBits(q))) return;
  // Term i of x, for i <= x.size(): row i, or the constant for i = x.size() (last canonically).
  auto coefficient = [](const PolyRows &x, std::size_t i) -> const Integer & {
    return i == x.size() ? x.constant : x.coefficients[i];
  };
  // The greatest non-zero term of x by (weight, then the canonical order or its reverse).
  auto greatest = [&](const PolyRows &x, auto weight, bool reverse) {
    std::size_t best = x.size() + 1;
    int64_t bestWeight = 0;
    for (std::size_t i = 0; i <= x.size(); ++i) {
      if (coefficient(x, i).isZero()) continue; // only a constant can be
      const int64_t w = weight(x, i);
      if (best > x.size() || w > bestWeight || (w == bestWeight && reverse)) best = i, bestWeight = w;
    }
    return best;
  };
  auto check = [&](auto weight) {
    for (bool reverse : {false, true}) {
      const std::size_t i = greatest(p, weight, reverse), j = greatest(q, weight, reverse);
      if (coefficient(p, i).bitLength() + coefficient(q, j).bitLength() - 1 > kMaxCoefficientBits)
        coefficientTooLarge();
    }
  };
  check([](const PolyRows &, std::size_t) { return int64_t(0); });
  // Each order reads every term of both factors; the atoms' orders are tried while that stays a
  // small part of the products it may save (a product of two 2,000-term sums over as many atoms
  // would otherwise be 16,000 passes over 4,000 terms).
  const uint64_t perAtom = 4 * uint64_t(p.size() + q.size() + 2), budget = 16 * uint64_t(p.size() + 1) * (q.size() + 1);
  uint64_t spent = 0;
  for (std::size_t k = 0; k < width && (spent += perAtom) <= budget; ++k)
    for (int64_t sign : {1, -1})
      check([&](const PolyRows &x, std::size_t i) {
        return i == x.size() ? int64_t(0) : sign * int64_t(x.exponents[i * width + k]);
      });
}
} // namespace exprdetail

Expr operator*(Expr a, Expr b) {
  // A constant factor (the most common product: `2*n`, `n*45`) scales the other side.
  if (a.isConstant() || b.isConstant()) {
    if (a.isConstant() && b.isConstant()) return Expr(*a.constantValue() * *b.constantValue());
    const Expr &k = a.isConstant() ? a : b, &other = a.isConstant() ? b : a;
    const Integer &c = k.node()->value;
    if (c.isOne()) return other;
    if (c.isZero()) return keepDefinedness(Expr(0), {other});
    return keepDefinedness(scaled(PolyRef(other), c), {other});
  }
  PolyRef ta(a), tb(b);
  const Integer &ca = ta.constant(), &cb = tb.constant();
  checkProductSize(ta.size(), tb.size());
  // Terms come highest degree first: the loop below fails the degree check iff the first terms'
  // degrees sum past the limit; the coefficients' check comes after it.
  if (degreeOf(ta[0].monomial) + degreeOf(tb[0].monomial) <= kMaxDegree &&
      mayBeCoefficientTooLarge(ta, tb)) {
    const std::vector<Expr> atoms = atomsOf({&ta, &tb});
    failEarlyIfProductCoefficientTooLarge(rowsOf(ta, atoms), rowsOf(tb, atoms), atoms.size());
  }
  // The terms come in sorted runs: the canonical order is a monomial order (multiplying by a
  // monomial keeps it), so for each term y of the shorter factor the products x*y, x over the
  // longer factor, are in the longer factor's order; so are its terms scaled by the other's
  // constant. Merging the runs replaces sorting the whole list.
  const bool aLonger = ta.size() >= tb.size();
  const PolyRef &longer = aLonger ? ta : tb, &shorter = aLonger ? tb : ta;
  const Integer &cLonger = aLonger ? ca : cb, &cShorter = aLonger ? cb : ca;
  Terms out;
  out.reserve(ta.size() * tb.size() + ta.size() + tb.size());
  Runs runs{0};
  for (const Term &y : shorter) {
    for (const Term &x : longer) {
      Monomial m = multiplyMonomials(x.monomial, y.monomial);
      checkDegree(degreeOf(m));
      out.push_back({x.coefficient * y.coefficient, std::move(m)});
    }
    runs.push_back(out.size());
  }
  if (!cShorter.isZero()) {
    for (const Term &x : longer) out.push_back({x.coefficient * cShorter, x.monomial});
    runs.push_back(out.size());
  }
  if (!cLonger.isZero()) {
    for (const Term &y : shorter) out.push_back({cLonger * y.coefficient, y.monomial});
    runs.push_back(out.size());
  }
  mergeRuns(out, runs);
  return keepDefinedness(fromNormalised(std::move(out), ca * cb), {a, b});
}

namespace exprdetail {
/// C(n, k), or `cap` when it is larger (exact below it: each step's partial product is itself
/// a binomial, so the division is exact).
uint64_t binomialUpTo(uint64_t n, uint64_t k, uint64_t cap) {
  if (k > n) return 0;
  k = std::min(k, n - k);
  unsigned __int128 c = 1;
  for (uint64_t i = 1; i <= k; ++i) {
    c = c * (n - k + i) / i;
    if (c > cap) return cap;
  }
  return uint64_t(c);
}

/// For a linear base (every term one atom to the first power: `n + m/2 - 3`), throws at once what
/// powerOfSum's step-by-step expansion below would throw for `base**exponent` after expanding
/// every power before the failing one (`(a + b + c - 8)**62` took 1.8 ms to fail at the 20th,
/// natively). The sizes each step checks are known without expanding: base**k has one term per
/// exponent vector of the atoms of total degree at most k (exactly k without a constant), and no
/// term cancels (each coefficient is a multinomial times powers of non-zero coefficients). So
/// the steps' checks run here on binomials, in the loop's order: product size, term count, tree
/// size (the degree check cannot fail: k <= exponent <= kMaxDegree).
/// Every coefficient of base**k is at most s**k, s the sum of the base's |coefficients| (the
/// multinomial expansion of s**k has them all among its positive terms). A coefficient check
/// could fail first only when s**exponent passes the coefficient limit; the loop is then left to
/// find out, in its order. Where s**exponent passes 64 bits, the numbers add to the tree size
/// (numberWeight) by amounts not known without expanding: the run below then throws nothing,
/// bounding each number by s**k, and leaves to the loop any power where a check might fail.
/// True when the base is linear and no step fails (the power can then be written term by term:
/// powerOfSum does).
bool failEarlyIfLinearPowerTooLarge(const PolyRef &base, const std::vector<Expr> &atoms, uint32_t exponent) {
  Integer sumOfMagnitudes = Integer::abs(base.constant());
  uint64_t atomSizes = 0; // the tree sizes of the atoms, summed
  for (const Term &t : base) {
    if (t.monomial.size() != 1 || t.monomial[0].second != 1) return false;
    sumOfMagnitudes = sumOfMagnitudes + Integer::abs(t.coefficient);
    atomSizes = saturatingAdd(atomSizes, t.monomial[0].first.node()->treeSize);
  }
  const uint64_t sBits = sumOfMagnitudes.bitLength();
  if (sBits * exponent > kMaxCoefficientBits) return false;
  // Whether every number of every power weighs nothing: then the sizes below are the steps'.
  const bool exact = numberWeight(sBits * exponent) == 0;
  const uint64_t w = atoms.size();
  const bool constant = !base.constant().isZero();
  constexpr uint64_t cap = uint64_t(1) << 40; // far past every limit, and no product overflows
  // Non-constant terms of (a linear form in `atomCount` atoms, with this constant)**k.
  auto terms = [&](uint64_t k, uint64_t atomCount) -> uint64_t {
    if (atomCount == 0) return 0;
    if (constant) return binomialUpTo(k + atomCount, atomCount, cap) - 1;
    return binomialUpTo(k + atomCount - 1, atomCount - 1, cap);
  };
  for (uint64_t k = 2; k <= exponent; ++k) {
    const uint64_t before = std::min<uint64_t>(terms(k - 1, w), kMaxPolynomialTerms + 1),
                   now = std::min<uint64_t>(terms(k, w), kMaxPolynomialTerms + 1);
    if (exact) {
      checkProductSize(before, w);
      checkTermCount(now);
    } else if (before * w > kMaxPolynomialTerms || now > kMaxPolynomialTerms) {
      return false;
    }
    // Written out: 1, then per term 1 and the size of each atom in it; an atom is in all terms
    // but those of the form without it. Its numbers (the terms' and the constant) weigh at most
    // what s**k weighs each.
    const unsigned __int128 size = 1 + (unsigned __int128)now + (unsigned __int128)atomSizes * (now - terms(k, w - 1)) +
                                   (unsigned __int128)(now + 1) * numberWeight(sBits * k);
    if (exact) checkTreeSize(uint64_t(std::min<unsigned __int128>(size, kMaxTreeSize + 1)));
    else if (size > kMaxTreeSize) return false;
  }
  return true;
}

/// C(n, k) for n <= kMaxDegree, as Integers (C(64, 32) < 2^61).
const Integer &binomial(uint32_t n, uint32_t k) {
  static const std::vector<std::vector<Integer>> table = [] {
    std::vector<std::vector<Integer>> t(kMaxDegree + 1);
    for (uint32_t i = 0; i <= kMaxDegree; ++i) {
      t[i].resize(i + 1);
      t[i][0] = t[i][i] = Integer(1);
      for (uint32_t j = 1; j < i; ++j) t[i][j] = t[i - 1][j - 1] + t[i - 1][j];
    }
    return t;
  }();
  return table[n][k];
}

/// e**exponent for a sum e, exponent >= 2: the repeated product r = e, r = r*e, ... that
/// operator* computes, with the same terms and the same checks and errors at every step, but on
/// rows of exponents over e's atoms, so that the intermediate powers are neither interned nor
/// made of handles. Every atom of e is in every power of e (the term of e that has an atom's
/// highest exponent, raised to the power, is a vertex of the power's Newton polytope, so its
/// coefficient cannot cancel): no partial atom is lost on the way, and the nesting of every
/// power is e's. A linear e skips the steps: their checks are run on binomials
/// (failEarlyIfLinearPowerTooLarge) and the power is written term by term.
Expr powerOfSum(const Expr &e, uint32_t exponent) {
  PolyRef base(e);
  const std::vector<Expr> atoms = atomsOf({&base});
  const std::size_t width = atoms.size();
  using Rows = PolyRows;
  const Rows b = rowsOf(base, atoms);
  const uint32_t baseDegree = *std::max_element(b.degrees.begin(), b.degrees.end());
  const bool linear = failEarlyIfLinearPowerTooLarge(base, atoms, exponent);
  // The canonical order on rows is monomialCompare's: higher degree first, then at the first
  // atom where the exponents differ, the higher exponent first.
  auto before = [&](const Rows &p, std::size_t i, std::size_t j) {
    if (p.degrees[i] != p.degrees[j]) return p.degrees[i] > p.degrees[j];
    const uint32_t *x = &p.exponents[i * width], *y = &p.exponents[j * width];
    for (std::size_t k = 0; k < width; ++k)
      if (x[k] != y[k]) return x[k] > y[k];
    return false;
  };
  // With at most 8 atoms a row's place in that order is one integer: the degree in the top
  // byte, then each atom's exponent in 7 bits, the first atom highest (a degree and so every
  // exponent is at most kMaxDegree = 64 < 128 once checkDegree has passed), so that a larger key
  // comes first, and the key of a product of rows is the sum of their keys. Then a step sorts
  // the products' keys, not rows, and sums each monomial's coefficient in place (ProductSum)
  // instead of making every product an Integer of its own.
  static_assert(kMaxDegree < 128);
  const bool packed = width <= 8;
  auto keyOf = [&](const Rows &p, std::size_t i) {
    uint64_t key = uint64_t(p.degrees[i]) << 56;
    const uint32_t *x = &p.exponents[i * width];
    for (std::size_t k = 0; k < width; ++k) key |= uint64_t(x[k]) << (49 - 7 * k);
    return key;
  };
  struct Product {
    uint64_t key;
    uint32_t i, j; // rows of r and b; r.size() or b.size() for the constant
  };
  std::vector<Product> products;
  std::vector<uint64_t> keysOfB;
  if (packed)
    for (std::size_t j = 0; j < b.size(); ++j) keysOfB.push_back(keyOf(b, j));
  ProductSum sum;
  Rows r;
  if (linear) {
    // The multinomial expansion, written in the canonical order (degree down, then each atom's
    // exponent down in atom order): base = c0 + Σ c_i x_i, and x^k (|k| = d) has the coefficient
    // C(e, d) c0^(e-d) Π_i C(k_i + ... + k_w, k_i) c_i^k_i. No step's check can fail (the dry
    // run above), so this is the node the steps would reach, with a few products a term instead
    // of a sort of every step's products.
    std::vector<Integer> coefficient(width); // c_i, by atom
    for (std::size_t i = 0; i < b.size(); ++i)
      for (std::size_t k = 0; k < width; ++k)
        if (b.exponents[i * width + k]) coefficient[k] = b.coefficients[i];
    auto powers = [&](const Integer &c) { // c^0 .. c^exponent
      std::vector<Integer> p(exponent + 1);
      p[0] = Integer(1);
      for (uint32_t t = 1; t <= exponent; ++t) p[t] = p[t - 1] * c;
      return p;
    };
    std::vector<std::vector<Integer>> atomPowers;
    for (const Integer &c : coefficient) atomPowers.push_back(powers(c));
    const std::vector<Integer> constantPowers = powers(b.constant);
    std::vector<uint32_t> k(width);
    // Atoms j.. share `left` of the degree; `partial` is the coefficient so far.
    auto place = [&](auto &&self, std::size_t j, uint32_t left, const Integer &partial) -> void {
      if (j + 1 == width) {
        k[j] = left;
        r.exponents.insert(r.exponents.end(), k.begin(), k.end());
        r.coefficients.push_back(partial * atomPowers[j][left]);
        return;
      }
      for (uint32_t x = left + 1; x-- > 0;) {
        k[j] = x;
        self(self, j + 1, left - x, partial * binomial(left, x) * atomPowers[j][x]);
      }
    };
    const uint32_t lowest = b.constant.isZero() ? exponent : 1;
    for (uint32_t d = exponent; d >= lowest; --d) {
      place(place, 0, d, binomial(exponent, d) * constantPowers[exponent - d]);
      r.degrees.resize(r.size(), d);
    }
    r.constant = constantPowers[exponent];
  } else {
    r = b;
  }
  // Each step writes into buffers the step before it left (next, all): the same memory each time.
  Rows next, all;
  for (uint32_t step = 2; step <= exponent && !linear; ++step) {
    // operator*'s checks, in its order: the size of the product, the degree of each product of
    // terms, then (fromNormalised, internExpr) the number of terms, each coefficient, the size.
    checkProductSize(r.size(), b.size());
    checkDegree(*std::max_element(r.degrees.begin(), r.degrees.end()) + baseDegree);
    failEarlyIfProductCoefficientTooLarge(r, b, width);
    next.clear();
    next.constant = r.constant * b.constant;
    if (packed) {
      const uint32_t nr = uint32_t(r.size()), nb = uint32_t(b.size());
      products.clear();
      products.reserve((r.size() + 1) * (b.size() + 1));
      for (uint32_t i = 0; i < nr; ++i) {
        const uint64_t key = keyOf(r, i);
        for (uint32_t j = 0; j < nb; ++j) products.push_back({key + keysOfB[j], i, j});
        if (!b.constant.isZero()) products.push_back({key, i, nb});
      }
      if (!r.constant.isZero())
        for (uint32_t j = 0; j < nb; ++j) products.push_back({keysOfB[j], nr, j});
      std::sort(products.begin(), products.end(), [](const Product &x, const Product &y) { return x.key > y.key; });
      next.exponents.reserve(products.size() * width);
      next.degrees.reserve(products.size());
      next.coefficients.reserve(products.size());
      for (std::size_t s = 0; s < products.size();) {
        const uint64_t key = products[s].key;
        for (; s < products.size() && products[s].key == key; ++s) {
          const Product &p = products[s];
          sum.add(p.i == nr ? r.constant : r.coefficients[p.i], p.j == nb ? b.constant : b.coefficients[p.j]);
        }
        Integer c = sum.take();
        if (c.isZero()) continue; // the monomial cancels
        for (std::size_t k = 0; k < width; ++k) next.exponents.push_back(uint32_t(key >> (49 - 7 * k)) & 127);
        next.degrees.push_back(uint32_t(key >> 56));
        next.coefficients.push_back(std::move(c));
      }
    } else {
      all.clear();
      auto add = [&](const uint32_t *x, const uint32_t *y, uint32_t degree, Integer coefficient) {
        for (std::size_t k = 0; k < width; ++k) all.exponents.push_back(x[k] + (y ? y[k] : 0));
        all.degrees.push_back(degree);
        all.coefficients.push_back(std::move(coefficient));
      };
      for (std::size_t i = 0; i < r.size(); ++i) {
        for (std::size_t j = 0; j < b.size(); ++j)
          add(&r.exponents[i * width], &b.exponents[j * width], r.degrees[i] + b.degrees[j], r.coefficients[i] * b.coefficients[j]);
        if (!b.constant.isZero()) add(&r.exponents[i * width], nullptr, r.degrees[i], r.coefficients[i] * b.constant);
      }
      if (!r.constant.isZero())
        for (std::size_t j = 0; j < b.size(); ++j) add(&b.exponents[j * width], nullptr, b.degrees[j], r.constant * b.coefficients[j]);
      std::vector<std::size_t> order(all.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return before(all, i, j); });
      for (std::size_t i : order) {
        const uint32_t *x = &all.exponents[i * width];
        if (next.size() > 0 && std::equal(x, x + width, &next.exponents[(next.size() - 1) * width])) {
          next.coefficients.back() += all.coefficients[i];
          if (next.coefficients.back().isZero()) {
            next.coefficients.pop_back();
            next.degrees.pop_back();
            next.exponents.resize(next.exponents.size() - width);
          }
          continue;
        }
        next.exponents.insert(next.exponents.end(), x, x + width);
        next.degrees.push_back(all.degrees[i]);
        next.coefficients.push_back(std::move(all.coefficients[i]));
      }
    }
    checkTermCount(next.size());
    checkCoefficient(next.constant);
    uint64_t size = 1 + numberWeight(next.constant);
    for (std::size_t i = 0; i < next.size(); ++i) {
      checkCoefficient(next.coefficients[i]);
      size = saturatingAdd(size, 1 + numberWeight(next.coefficients[i]));
      for (std::size_t k = 0; k < width; ++k)
        if (next.exponents[i * width + k]) size = saturatingAdd(size, atoms[k].node()->treeSize);
    }
    checkTreeSize(size);
    std::swap(r, next);
  }
  Terms terms(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    terms[i].coefficient = std::move(r.coefficients[i]);
    for (std::size_t k = 0; k < width; ++k)
      if (uint32_t x = r.exponents[i * width + k]) terms[i].monomial.push_back({atoms[k], x});
  }
  return fromNormalised(std::move(terms), std::move(r.constant));
}
} // namespace exprdetail

Expr pow(Expr e, uint32_t exponent) {
  if (exponent > kMaxDegree)
    throw InputTooLarge("exponent " + std::to_string(exponent) + " is above the limit of " +
                    std::to_string(kMaxDegree));
  if (exponent >= 2 && e.node()->kind == ExprKind::Sum) return keepDefinedness(powerOfSum(e, exponent), {e});
  if (exponent >= 2 && !e.isConstant()) {
    // An atom's power is one term: the product below would make every power up to it a node
    // (the checks of each step are those of the last, which has the highest degree).
    Terms power(1);
    power[0].coefficient = Integer(1);
    power[0].monomial.push_back({e, exponent});
    return keepDefinedness(fromNormalised(std::move(power), Integer(0)), {e});
  }
  Expr r(1);
  for (uint32_t i = 0; i < exponent; ++i) r = r * e;
  return keepDefinedness(r, {e});
}


} // namespace shapelab
