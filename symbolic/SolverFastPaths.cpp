// Answers before isl: contexts as isl sets (cached), fast paths over intervals, piecewise splits,
// and the small points every question is tried at.
#include "symbolic/SolverDetail.h"

namespace shapelab {

auto Solver::Impl::contextSet(Translation &t, const Context &c) -> SetPtr {
  std::pair<Pred, SizeDomain> key{c.assumptions(), c.domain()};
  auto it = contextCache.find(key);
  if (it != contextCache.end() && it->second.meaning == t.meaning)
    return SetPtr(check(isl_set_copy(it->second.set.get())));
  SetPtr C = t.holdsWithin(c.assumptions(), c.domain());
  if (contextCache.size() > 4096) contextCache.clear();
  CachedContext &slot = contextCache[key];
  slot.meaning = t.meaning;
  slot.set.reset(check(isl_set_copy(C.get())));
  return C;
}

auto Solver::Impl::violations(Translation &t, const SetPtr &C, const SetPtr &H, const Pred &p) -> SetPtr {
  if (p.node()->total) {
    // fails() may throw (isl's quota): nothing owned may sit in a half-built argument list.
    SetPtr f = t.fails(p);
    return SetPtr(check(isl_set_intersect(check(isl_set_copy(C.get())), f.release())));
  }
  return SetPtr(check(isl_set_subtract(check(isl_set_copy(C.get())), check(isl_set_copy(H.get())))));
}

auto Solver::Impl::unknown(const Pred &p, std::string reason) -> Decision {
  Decision d;
  d.answer = Answer::Unknown;
  d.residual = p;
  d.reason = std::move(reason);
  return d;
}

auto Solver::Impl::fastPath(const Context &c, const Pred &p, bool *undecidedInBox) -> std::optional<Decision> {
  // A refutation carries a real point of the context; without one, isl and the witness
  // search decide (DESIGN §3.3).
  bool canRefute = c.consistencyProven();
  if (auto v = p.constantValue()) {
    if (!*v && !canRefute) return std::nullopt;
    return *v ? Decision::proven() : Decision::refuted(completed(c.samplePoint(), c, p));
  }
  // Interval bounds of a single affine comparison over parameters, or of its negation.
  const PredNode *n = p.node();
  const bool negated = n->kind == PredKind::Not && n->children.size() == 1 &&
                       n->children[0].kind() == PredKind::Compare;
  if (negated) n = n->children[0].node();
  if (n->kind != PredKind::Compare || !n->lhs->total || !n->rhs->total) return std::nullopt;
  // lhs - rhs as (parameter, coefficient) pairs, read off both sides without building the
  // difference as an expression (this runs before every question).
  Integer constant;
  std::vector<std::pair<const ExprNode *, Integer>> terms;
  auto addSide = [&](const Expr &side, int sign) {
    const ExprNode *e = side.node();
    auto add = [&](const ExprNode *param, const Integer &coefficient) {
      for (auto &[x, k] : terms)
        if (x == param) {
          k += sign > 0 ? coefficient : -coefficient;
          return true;
        }
      terms.push_back({param, sign > 0 ? coefficient : -coefficient});
      return true;
    };
    if (e->kind == ExprKind::Constant) {
      constant += sign > 0 ? e->value : -e->value;
      return true;
    }
    if (e->kind == ExprKind::Param) return add(e, Integer(1));
    if (e->kind != ExprKind::Sum) return false;
    constant += sign > 0 ? e->constantTerm : -e->constantTerm;
    for (const Term &t : e->terms) {
      if (t.monomial.size() != 1 || t.monomial[0].second != 1 ||
          t.monomial[0].first->kind != ExprKind::Param)
        return false;
      add(t.monomial[0].first.node(), t.coefficient);
    }
    return true;
  };
  if (!addSide(n->lhs, 1) || !addSide(n->rhs, -1)) return std::nullopt;
  Integer low = constant;
  std::optional<Integer> high = constant;
  for (const auto &[param, coefficient] : terms) {
    if (coefficient.isZero()) continue;
    Context::Interval b = c.boundsOf(param->name);
    bool positive = coefficient.sign() > 0;
    // low += coefficient * (positive ? b.low : b.high), and symmetrically for high.
    if (positive) {
      low += coefficient * b.low;
      if (high && b.high) *high += coefficient * *b.high;
      else high.reset();
    } else {
      if (b.high) low += coefficient * *b.high;
      else return std::nullopt; // unbounded below; no interval answer
      if (high) *high += coefficient * b.low;
    }
  }
  // diff lies in [low, high]; decide `diff OP 0` when the whole interval agrees.
  std::optional<bool> verdict;
  switch (n->op) {
  case CompareOp::GE: if (low.sign() >= 0) verdict = true; else if (high && high->sign() < 0) verdict = false; break;
  case CompareOp::GT: if (low.sign() > 0) verdict = true; else if (high && high->sign() <= 0) verdict = false; break;
  case CompareOp::LE: if (high && high->sign() <= 0) verdict = true; else if (low.sign() > 0) verdict = false; break;
  case CompareOp::LT: if (high && high->sign() < 0) verdict = true; else if (low.sign() >= 0) verdict = false; break;
  case CompareOp::EQ: if (low.sign() > 0 || (high && high->sign() < 0)) verdict = false; else if (low.isZero() && high && high->isZero()) verdict = true; break;
  case CompareOp::NE: if (low.sign() > 0 || (high && high->sign() < 0)) verdict = true; else if (low.isZero() && high && high->isZero()) verdict = false; break;
  }
  // An interval across zero: an order comparison takes both truth values at the box's
  // corners; `==` is only known to be false somewhere (2*n - 2*m == 1 never holds) and `!=`
  // only true somewhere. So in a box the comparison is not implied unless it is `!=`, and its
  // negation is not implied unless it negates `==`.
  if (verdict && negated) verdict = !*verdict;
  if (!verdict && undecidedInBox && c.isBox() && n->op != (negated ? CompareOp::EQ : CompareOp::NE))
    *undecidedInBox = true;
  if (!verdict || (!*verdict && !canRefute)) return std::nullopt;
  return *verdict ? Decision::proven() : Decision::refuted(completed(c.samplePoint(), c, p));
}

auto Solver::Impl::withFixedParameters(const Context &c, const Pred &p) -> Pred {
  if (isQuasiAffine(p)) return p;
  std::map<std::string, Expr> fixed;
  for (Expr x : parametersOf(p)) {
    Context::Interval b = c.boundsOf(x.node()->name);
    if (b.high && *b.high == b.low) fixed.emplace(x.node()->name, Expr(b.low));
  }
  Pred q = fixed.empty() ? p : substitute(p, fixed);
  for (const Pred &e : conjuncts(c.assumptions())) {
    if (e.kind() != PredKind::Compare || e->op != CompareOp::EQ) continue;
    if (auto [x, by] = definedParameter(e); x && !fixed.count(x->name)) {
      const std::vector<Expr> used = parametersOf(q);
      if (std::find(used.begin(), used.end(), x) == used.end()) continue;
      fixed.emplace(x->name, by);
      q = substitute(q, {{x->name, by}});
    }
  }
  return q;
}

auto Solver::Impl::definedParameter(const Pred &equality) -> std::pair<Expr, Expr> {
  const Expr difference = equality->lhs - equality->rhs;
  if (difference.kind() != ExprKind::Sum) return {};
  for (const Term &t : difference->terms) {
    if (t.monomial.size() != 1 || t.monomial[0].second != 1 || !Integer::abs(t.coefficient).isOne()) continue;
    const Expr &x = t.monomial[0].first;
    if (x.kind() != ExprKind::Param) continue;
    const Expr rest = difference - Expr(t.coefficient) * x;
    if (!rest.isTotal()) continue;
    const std::vector<Expr> restParameters = parametersOf(rest);
    if (std::find(restParameters.begin(), restParameters.end(), x) != restParameters.end()) continue;
    // x + rest == 0 gives x == -rest; -x + rest == 0 gives x == rest.
    return {x, t.coefficient.sign() > 0 ? Expr(0) - rest : rest};
  }
  return {};
}

auto Solver::Impl::piecewiseFactor(const Pred &p) -> const ExprNode * {
  std::unordered_set<const void *> seen;
  std::function<const ExprNode *(const ExprNode *)> inExpr;
  std::function<const ExprNode *(const PredNode *)> inPred;
  inExpr = [&](const ExprNode *n) -> const ExprNode * {
    if (!seen.insert(n).second) return nullptr;
    for (const Term &t : n->terms) {
      const bool product = t.monomial.size() > 1 || t.monomial[0].second > 1;
      for (auto &[atom, k] : t.monomial) {
        const ExprKind kind = atom->kind;
        if (product && (kind == ExprKind::Min || kind == ExprKind::Max || kind == ExprKind::Select)) return atom.node();
        if (const ExprNode *f = inExpr(atom.node())) return f;
      }
    }
    for (const Expr &o : n->operands)
      if (const ExprNode *f = inExpr(o.node())) return f;
    return n->condition ? inPred(n->condition.node()) : nullptr;
  };
  inPred = [&](const PredNode *n) -> const ExprNode * {
    if (!seen.insert(n).second) return nullptr;
    if (n->lhs)
      for (const Expr *side : {&n->lhs, &n->rhs})
        if (const ExprNode *f = inExpr(side->node())) return f;
    for (const Pred &c : n->children)
      if (const ExprNode *f = inPred(c.node())) return f;
    return nullptr;
  };
  return inPred(p.node());
}

auto Solver::Impl::splitPiecewiseFactors(const Pred &p, int depth) -> Pred {
  const ExprNode *a = depth > 0 ? piecewiseFactor(p) : nullptr;
  if (!a) return p;
  const Expr atom(a);
  std::vector<Pred> cases;
  auto add = [&](const Pred &guard, const Expr &value) {
    cases.push_back(splitPiecewiseFactors(guard && substituteAtom(p, atom, value), depth - 1));
  };
  if (a->kind == ExprKind::Select) {
    add(a->condition, a->operands[0]);
    add(!a->condition, a->operands[1]);
  } else {
    const ExprOperands &o = a->operands;
    // Operand i where it is the first extreme one: the cases are disjoint.
    for (std::size_t i = 0; i < o.size(); ++i) {
      std::vector<Pred> chosen;
      for (std::size_t j = 0; j < o.size(); ++j) {
        if (j == i) continue;
        const bool strict = j < i;
        chosen.push_back(a->kind == ExprKind::Min ? (strict ? lt(o[i], o[j]) : le(o[i], o[j]))
                                                  : (strict ? gt(o[i], o[j]) : ge(o[i], o[j])));
      }
      add(Pred::conjunction(chosen), o[i]);
    }
  }
  return Pred::disjunction(cases);
}

auto Solver::Impl::splitWhere(const Pred &p, bool failing) -> Pred {
  const Pred def = definedness(p), total = totalized(p);
  return failing ? !def || splitPiecewiseFactors(!total, kPiecewiseSplits)
                 : def && splitPiecewiseFactors(total, kPiecewiseSplits);
}

auto Solver::Impl::withPiecewiseFactorsSplit(const Pred &p) -> Pred {
  if (isQuasiAffine(p) || !piecewiseFactor(p)) return p;
  try {
    return splitWhere(p, false);
  } catch (const InputTooLarge &) {
    return p;
  }
}

auto Solver::Impl::splitIsEmpty(const Context &c, const Pred &original, bool failing) -> bool {
  const Pred q = splitWhere(withFixedParameters(c, original), failing);
  Translation t;
  t.build(ctx, {c.assumptions(), q, definedness(c.assumptions())}, &translations);
  SetPtr C = contextSet(t, c);
  SetPtr where = t.set(q);
  SetPtr both(check(isl_set_intersect(C.release(), where.release())));
  if (checkBool(isl_set_is_empty(both.get()))) return true;
  return t.hasOpaqueAtoms() && t.noRealPointWithinOwnEnvelopes(both.get());
}

auto Solver::Impl::refutedAtSmallPoints(const Context &c, const Pred &p, bool few) const -> bool {
  return atSmallPoints(c, p, [&](const Assignment &a) { return evaluate(p, a) != std::optional<bool>(true); }, few);
}

auto Solver::Impl::smallWitnesses(const Context &c, const Pred &p) const -> SmallWitnesses {
  SmallWitnesses w;
  atSmallPoints(c, p, [&](const Assignment &a) {
    bool v = evaluate(p, a) == std::optional<bool>(true);
    if (v && !w.yes) w.yes = a;
    if (!v && !w.no) w.no = a;
    return w.yes && w.no;
  });
  return w;
}

auto Solver::Impl::translate(const Context &c, const Pred &original, Translated &q, bool split) -> void {
  q.p = withFixedParameters(c, original);
  if (split) q.p = withPiecewiseFactorsSplit(q.p);
  q.t.build(ctx, {c.assumptions(), q.p, definedness(q.p), definedness(c.assumptions())}, &translations);
  q.C = contextSet(q.t, c);
  q.H = q.t.holds(q.p);
}

} // namespace shapelab
