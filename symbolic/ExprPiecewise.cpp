// The non-polynomial atoms: e // c, e % c and e / c for a positive constant c (canonical: the
// multiple of c split off, the common factor cancelled), min, max and select(cond, a, b). Each
// keeps the definedness of what it drops (ExprDetail.h: keepDefinedness).
// Example: (2*n + 3) // 2 is n + 1; min(n, n + 1) is n.
#include "symbolic/ExprDetail.h"

#include "symbolic/Errors.h"

namespace shapelab {

using namespace exprdetail;

namespace exprdetail {

// Splits e = c*q + r where every coefficient of r has |coef| < c and the sign of the original
// (truncating split), so "(n - 1) // 2" stays as written and "(2*n + 3) // 2" becomes n + 1.
void splitByDivisor(Expr e, const Integer &c, Terms &q, Integer &q0, Terms &r, Integer &r0) {
  PolyRef terms(e);
  const Integer &constant = terms.constant();
  if (terms.size() > 4) { // a short sum fits in place or grows once; its quotient is often empty
    q.reserve(terms.size());
    r.reserve(terms.size());
  }
  for (const Term &t : terms) {
    auto [qt, rt] = Integer::truncDivRem(t.coefficient, c);
    if (!qt.isZero()) q.push_back({qt, t.monomial});
    if (!rt.isZero()) r.push_back({rt, t.monomial});
  }
  std::tie(q0, r0) = Integer::truncDivRem(constant, c);
}

Integer contentOf(const Terms &terms, const Integer &constant) {
  Integer g = Integer::abs(constant);
  for (const Term &t : terms) g = Integer::gcd(g, t.coefficient);
  return g;
}

void checkDivisor(const Integer &d, const char *op) {
  if (d.sign() <= 0)
    throw UserError(std::string("the divisor of '") + op + "' must be a positive constant, not " +
                    d.toString());
}

Expr makeDivisionAtom(ExprKind kind, Expr e, const Integer &c) {
  ExprNode n;
  n.kind = kind;
  n.value = c;
  n.operands = {e};
  return internExpr(std::move(n));
}

Expr undefinedEverywhere() {
  static const Expr *u = new Expr(makeDivisionAtom(ExprKind::ExactDiv, Expr(1), Integer(2)));
  return *u;
}


Expr minMax(ExprKind kind, std::vector<Expr> args) {
  if (args.empty()) throw UserError(kind == ExprKind::Min ? "min() needs an argument" : "max() needs an argument");
  bool isMin = kind == ExprKind::Min;
  std::vector<Expr> flat;
  for (Expr a : args) {
    if (a.kind() == kind)
      for (const Expr &o : a.node()->operands) flat.push_back(o);
    else
      flat.push_back(a);
  }
  // Drop any argument that another argument dominates by a constant (min(n, n + 1) = n).
  std::vector<Expr> kept;
  for (std::size_t i = 0; i < flat.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < flat.size() && !dominated; ++j) {
      if (i == j || !flat[i].isTotal() || !flat[j].isTotal()) continue;
      auto d = constantDifference(flat[i].node(), flat[j].node());
      if (!d) continue;
      // flat[i] - flat[j] = d: for min, i is dominated when d > 0 (or d == 0 and j < i).
      int s = d->sign();
      if (isMin ? (s > 0 || (s == 0 && j < i)) : (s < 0 || (s == 0 && j < i))) dominated = true;
    }
    if (!dominated) kept.push_back(flat[i]);
  }
  if (kept.size() == 1) return kept[0];
  std::sort(kept.begin(), kept.end(),
            [](Expr a, Expr b) { return structuralCompare(a.node(), b.node()) < 0; });
  ExprNode n;
  n.kind = kind;
  n.operands.assign(kept.begin(), kept.end());
  return internExpr(std::move(n));
}

} // namespace exprdetail

namespace exprdetail {
/// The canonical form of e // c, e % c or e / c (kind FloorDiv, Mod or ExactDiv):
/// e = c*q + r (truncating split), then the common factor g of r and c is cancelled:
///   e // c = q + (r/g) // (c/g),  e % c = g * ((r/g) % (c/g)),  e / c = q + (r/g) / (c/g).
Expr divisionCanonical(ExprKind kind, Expr e, const Integer &c) {
  checkDivisor(c, kind == ExprKind::FloorDiv ? "//" : kind == ExprKind::Mod ? "%" : "/");
  if (c.isOne()) return kind == ExprKind::Mod ? Expr(0) : e;
  // An atom (coefficient 1, no constant) splits into no quotient and itself as the remainder,
  // whose content 1 cancels nothing: the division is the atom's division.
  if (!e.isConstant() && e.kind() != ExprKind::Sum) return makeDivisionAtom(kind, e, c);
  Terms q, r;
  Integer q0, r0;
  splitByDivisor(e, c, q, q0, r, r0);
  // q and r keep the order of e's terms, and their coefficients are not zero: no sorting.
  Expr quotient = kind == ExprKind::Mod ? Expr(0) : fromNormalised(std::move(q), q0);
  if (r.empty()) {
    if (kind == ExprKind::FloorDiv) return quotient + Expr(Integer::floorDiv(r0, c));
    if (kind == ExprKind::Mod) return Expr(Integer::floorMod(r0, c));
    if (r0.isZero()) return quotient; // an exact division of a constant that does not divide stays
  }
  Integer g = Integer::gcd(contentOf(r, r0), c);
  for (Term &t : r) t.coefficient = Integer::floorDiv(t.coefficient, g);
  Expr rest = fromNormalised(std::move(r), Integer::floorDiv(r0, g));
  Integer cg = Integer::floorDiv(c, g);
  if (kind == ExprKind::Mod) return cg.isOne() ? Expr(0) : Expr(g) * makeDivisionAtom(kind, rest, cg);
  Expr atom = cg.isOne() ? rest : makeDivisionAtom(kind, rest, cg);
  return quotient.isConstant() && quotient.node()->value.isZero() ? atom : quotient + atom; // 0 + x is x
}

} // namespace exprdetail

Expr floorDiv(Expr e, const Integer &c) {
  return keepDefinedness(divisionCanonical(ExprKind::FloorDiv, e, c), {e});
}
Expr mod(Expr e, const Integer &c) { return keepDefinedness(divisionCanonical(ExprKind::Mod, e, c), {e}); }
Expr exactDiv(Expr e, const Integer &c) {
  return keepDefinedness(divisionCanonical(ExprKind::ExactDiv, e, c), {e});
}

namespace exprdetail {
Expr minMaxKeeping(ExprKind kind, const std::vector<Expr> &args) {
  Expr r = minMax(kind, args);
  for (Expr a : args) r = keepDefinedness(r, {a});
  return r;
}
} // namespace exprdetail

Expr min(std::vector<Expr> args) { return minMaxKeeping(ExprKind::Min, args); }
Expr max(std::vector<Expr> args) { return minMaxKeeping(ExprKind::Max, args); }

Expr select(const Pred &cond, Expr a, Expr b) {
  if (cond.isTrue()) return a;
  if (cond.isFalse()) return b;
  if (a == b && cond.node()->total) return a; // a partial condition still guards
  ExprNode n;
  n.kind = ExprKind::Select;
  n.operands = {a, b};
  n.condition = cond;
  return internExpr(std::move(n));
}


} // namespace shapelab
