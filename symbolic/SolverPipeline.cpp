// The decide pipeline: compaction, least points, proofs with isl within a budget, conditions read
// from isl, and the decision of a predicate under a context.
#include "symbolic/SolverDetail.h"

namespace shapelab {

auto Solver::Impl::compactWithIsl(const Context &c, const Expr &e) -> std::optional<Expr> {
  ++stats.islQuestions;
  return attempt([&]() -> std::optional<Expr> {
    Translation t;
    t.build(ctx, {c.assumptions(), ge(e, Expr(0)), definedness(c.assumptions())}, &translations);
    if (t.hasOpaqueAtoms()) return std::nullopt;
    SetPtr C = contextSet(t, c);
    PwAffPtr f = t.pwAffCopy(e);
    f.reset(check(isl_pw_aff_gist_params(f.release(), check(isl_set_copy(C.get())))));
    f.reset(check(isl_pw_aff_coalesce(f.release())));
    if (!Translation::fitsAstGenerator(f.get())) return std::nullopt;
    AstBuildPtr build(check(isl_ast_build_from_context(t.domain(c.domain()).release())));
    AstExprPtr a(shield.run(ctx, [&] { return check(isl_ast_build_expr_from_pw_aff(build.get(), f.release())); }));
    return t.astToExpr(a.get());
  });
}

auto Solver::Impl::smallestWithIsl(const Context &c, const Pred &p, const std::vector<std::string> &order, const Integer &bound) -> std::optional<Assignment> {
  if (!isQuasiAffine(c.assumptions()) || !isQuasiAffine(p)) return std::nullopt;
  ++stats.islQuestions;
  return attempt([&]() -> std::optional<Assignment> {
    Translation t;
    t.build(ctx, {c.assumptions(), p, definedness(c.assumptions()), definedness(p)});
    if (t.hasOpaqueAtoms()) return std::nullopt;
    SetPtr within = t.holdsWithin(c.assumptions(), c.domain());
    SetPtr where = t.holds(p);
    SetPtr target(check(isl_set_intersect(within.release(), where.release())));
    // Positions in the order asked for: named ones first, the others by name.
    std::vector<std::pair<std::size_t, int>> ranked;
    for (auto &[node, pos] : t.paramIndex) {
      auto at = std::find(order.begin(), order.end(), node->name);
      ranked.push_back({std::size_t(at - order.begin()), pos});
    }
    std::sort(ranked.begin(), ranked.end(), [&](const auto &a, const auto &b) {
      if (a.first != b.first) return a.first < b.first;
      return t.names[std::size_t(a.second)] < t.names[std::size_t(b.second)];
    });
    auto var = [&](int pos) { return AffPtr(check(isl_aff_var_on_domain(t.localSpace().release(), isl_dim_param, pos))); };
    auto pw = [&](const AffPtr &a) { return PwAffPtr(check(isl_pw_aff_from_aff(check(isl_aff_copy(a.get()))))); };
    auto restrict = [&](PwAffPtr lhs, PwAffPtr rhs, bool equal) {
      SetPtr s(check(equal ? isl_pw_aff_eq_set(lhs.release(), rhs.release()) : isl_pw_aff_le_set(lhs.release(), rhs.release())));
      target.reset(check(isl_set_intersect(target.release(), s.release())));
    };
    AffPtr sum(check(isl_aff_zero_on_domain(t.localSpace().release())));
    for (auto &[rank, pos] : ranked) {
      restrict(pw(var(pos)), t.constant(bound), false);
      AffPtr x = var(pos);
      sum.reset(check(isl_aff_add(sum.release(), x.release())));
    }
    auto least = [&](const AffPtr &objective) -> std::optional<Integer> {
      ValPtr v(check(isl_set_min_val(target.get(), objective.get())));
      if (!checkBool(isl_val_is_int(v.get()))) return std::nullopt; // empty (or unbounded)
      return fromVal(v.get());
    };
    std::optional<Integer> total = least(sum);
    if (!total) return std::nullopt;
    restrict(pw(sum), t.constant(*total), true);
    Assignment a;
    for (auto &[rank, pos] : ranked) {
      AffPtr x = var(pos);
      std::optional<Integer> v = least(x);
      if (!v) return std::nullopt;
      restrict(pw(x), t.constant(*v), true);
      a.set(t.names[std::size_t(pos)], *v);
    }
    // The point is checked by exact evaluation, as every witness is.
    if (!holds(c.assumptions(), completed(a, c, p)) || !holds(p, completed(a, c, p))) return std::nullopt;
    return completed(a, c, p);
  });
}

auto Solver::Impl::provenWithIsl(const Context &c, const Pred &original) -> bool {
  ++stats.islQuestions;
  Budget budget(*this, quickQuota());
  try {
    Translated q;
    translate(c, original, q);
    SetPtr V = violations(q.t, q.C, q.H, q.p);
    if (checkBool(isl_set_is_empty(V.get()))) return true;
    // Opaque products with piecewise factors: asked again with those split (decideWithIsl).
    if (!q.t.hasOpaqueAtoms() || outOfTime() || !piecewiseFactor(q.p)) return false;
    ++stats.piecewiseSplits;
    return splitIsEmpty(c, original, true);
  } catch (const IslFailure &) {
    if (isl_ctx_last_error(ctx) == isl_error_quota) ++stats.quickBoundHits;
    isl_ctx_reset_error(ctx);
    return false;
  } catch (const TooHard &) {
    return false;
  } catch (const InputTooLarge &) {
    return false;
  }
}

auto Solver::Impl::separates(const Pred &condition, const Assignment &yes, const Assignment &no) -> bool {
  try {
    return holds(condition, yes) && !holds(condition, no);
  } catch (const NameError &) {
    return false; // a parameter the witnesses do not give: not confirmed
  }
}

auto Solver::Impl::conditionFromIsl(const Context &c, const Pred &original, const Assignment &yes, const Assignment &no) -> Pred {
  ++stats.conditionsRead;
  std::optional<Pred> read = attempt([&]() -> std::optional<Pred> {
    // Where the plain form's condition is not exact (opaque products with piecewise factors
    // keep isl's sets from separating the witnesses), it is read with those factors split.
    for (bool split : {false, true}) {
      if (split && !piecewiseFactor(original)) break;
      Translated q;
      translate(c, original, q, split);
      Pred condition = q.t.toPred(q.H.get(), q.C.get(), c.domain(), shield);
      if (separates(condition, yes, no)) return condition;
    }
    return std::nullopt;
  });
  if (read) return *read;
  ++stats.conditionsCutShort;
  return original;
}

auto Solver::Impl::provenByCuts(const Context &c, const Pred &p, const SmallWitnesses &small) -> bool {
  if (small.no || !piecewiseFactor(p) || !provenByRangesCut(c, p)) return false;
  ++stats.ranges;
  return true;
}

auto Solver::Impl::refutedByCuts(const Context &c, const Pred &p, const SmallWitnesses &small) -> bool {
  if (!small.no || small.yes) return false;
  const Pred fails = !p;
  if (!provenByRangesCut(c, fails)) return false;
  ++stats.ranges;
  return true;
}

auto Solver::Impl::dependsByPoints(const Context &c, const Pred &original, SmallWitnesses &small) -> std::optional<Decision> {
  try {
    small = smallWitnesses(c, original);
  } catch (const InputTooLarge &) {
    return std::nullopt;
  }
  if (!small.yes || !small.no) return std::nullopt;
  ++stats.dependsByPoints;
  Decision d;
  d.answer = Answer::Depends;
  d.satisfying = completed(*small.yes, c, original);
  d.violating = completed(*small.no, c, original);
  d.setConditionOnRead([solver = weak_from_this(), options = options, c, original, yes = *d.satisfying,
                        no = *d.violating] {
    // The solver may be gone when the condition is read: then a new one computes it.
    if (auto im = solver.lock()) return im->conditionFromIsl(c, original, yes, no);
    Solver fresh(options);
    return fresh.impl_->conditionFromIsl(c, original, yes, no);
  });
  return d;
}

auto Solver::Impl::decideWithIsl(const Context &c, const Pred &original) -> Decision {
  SmallWitnesses small;
  if (auto d = dependsByPoints(c, original, small)) return *d;
  if (provenByCuts(c, original, small)) return Decision::proven();
  if (refutedByCuts(c, original, small)) return Decision::refuted(completed(*small.no, c, original));
  ++stats.islQuestions;
  Budget budget(*this);
  // A product with a min, max or choice as a factor is one opaque atom to isl, unrelated to
  // its factors. Where the question is undecided because of such atoms, it is asked again
  // with them split case by case, under the same budget: an answer the plain form gives is
  // never changed, and only an Unknown can become an exact answer.
  // The split form is asked only whether p fails nowhere or holds nowhere (two emptiness
  // tests): the plain form has already searched for the real witnesses it would need else.
  bool again = false;
  std::optional<Assignment> realNo;
  Decision d = decideTranslated(c, original, small, budget, again, realNo);
  if (!again) return d;
  ++stats.piecewiseSplits;
  try {
    if (splitIsEmpty(c, original, true)) return Decision::proven();
    if (realNo && splitIsEmpty(c, original, false)) return Decision::refuted(completed(*realNo, c, original));
  } catch (const IslFailure &) {
    isl_ctx_reset_error(ctx);
  } catch (const TooHard &) {
  } catch (const InputTooLarge &) {
  }
  std::string why = budget.exhausted();
  return unknown(original, why.empty() ? kOpaqueProducts : why);
}

auto Solver::Impl::decideTranslated(const Context &c, const Pred &original, SmallWitnesses &small, Budget &budget, bool &again, std::optional<Assignment> &realNo) -> Decision {
  try {
    Translated q;
    translate(c, original, q);
    const Pred &p = q.p;
    Translation &t = q.t;
    const SetPtr &C = q.C, &H = q.H;
    Decision d;
    SetPtr V = violations(t, C, H, p);
    bool opaque = t.hasOpaqueAtoms();
    // A sample point answers emptiness and gives the witness in one isl call.
    PointPtr noPoint(check(isl_set_sample_point(check(isl_set_copy(V.get())))));
    if (checkBool(isl_point_is_void(noPoint.get()))) return Decision::proven();
    SetPtr S(check(isl_set_intersect(check(isl_set_copy(C.get())), check(isl_set_copy(H.get())))));
    PointPtr yesPoint(check(isl_set_sample_point(check(isl_set_copy(S.get())))));
    // p holds at no real point of the context: refuted, given a real point where it fails.
    auto refuted = [&]() {
      auto w = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
      if (!w) {
        std::string why = budget.exhausted();
        return unknown(original, why.empty() ? "no real point of the assumptions was found to witness the refutation" : why);
      }
      return Decision::refuted(completed(*w, c, original));
    };
    if (checkBool(isl_point_is_void(yesPoint.get()))) return refuted();
    // A side the small points did not reach, whose relaxation has points, may still have no
    // real one: its own factors' box shows it (jointly impossible obligations over products,
    // 5 to 35 ms each of searching for a point that does not exist before).
    if (opaque && !small.no && t.noRealPointWithinOwnEnvelopes(V.get())) return Decision::proven();
    if (opaque && !small.yes && t.noRealPointWithinOwnEnvelopes(S.get())) return refuted();
    auto yes = small.yes ? small.yes : witness(t, yesPoint.get(), c.assumptions(), p, true, c.domain());
    auto no = !yes ? std::nullopt : small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
    // Asked without ending the budget: the search below runs under it too.
    if ((!yes || !no) && opaque && budgetLeft()) {
      // The relaxation has points on both sides, but the search found no real one on a side:
      // where the real parameters are confined to a small box there, every point is tried.
      bool decided = false;
      if (!yes) {
        yes = realPointAmong(t, S.get(), c.assumptions(), p, true, decided);
        if (!yes && decided) {
          // p holds at no real point: refuted, given a real point of the context where it fails.
          auto w = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
          if (w) return Decision::refuted(completed(*w, c, original));
        }
        if (yes) no = small.no ? small.no : witness(t, noPoint.get(), c.assumptions(), p, false, c.domain());
      }
      if (yes && !no) {
        no = realPointAmong(t, V.get(), c.assumptions(), p, false, decided);
        if (!no && decided) return Decision::proven(); // p fails at no real point of the context
      }
    }
    if (!yes || !no) {
      if (opaque && budgetLeft() && piecewiseFactor(p)) {
        again = true;
        realNo = no ? no : small.no; // (no is searched for only once yes is found)
        return d;
      }
      std::string why = budget.exhausted();
      if (!why.empty()) return unknown(original, why);
      if (opaque) return unknown(original, kOpaqueProducts);
      throw InternalError("isl found points on both sides but no witness was read");
    }
    d.answer = Answer::Depends;
    d.satisfying = completed(*yes, c, original);
    d.violating = completed(*no, c, original);
    // Where the condition is too large to read back, the predicate is its own exact one.
    try {
      d.setCondition(t.toPred(H.get(), C.get(), c.domain(), shield));
    } catch (const TooHard &) {
      ++stats.conditionsCutShort;
      d.setCondition(original);
    }
    if (!separates(d.condition(), *d.satisfying, *d.violating)) {
      std::string why = budget.exhausted();
      return unknown(original, why.empty() ? "the condition read back from the solver disagrees with its witnesses" : why);
    }
    return d;
  } catch (const IslFailure &) {
    std::string why = budget.exhausted();
    std::string msg = isl_ctx_last_error_msg(ctx) ? isl_ctx_last_error_msg(ctx) : "unknown isl error";
    isl_ctx_reset_error(ctx);
    return unknown(original, why.empty() ? "the solver failed: " + msg : why);
  } catch (const TooHard &e) {
    return unknown(original, e.reason);
  } catch (const InputTooLarge &e) {
    return unknown(original, std::string("the solver's answer would be too large: ") + e.what());
  }
}

} // namespace shapelab
