// Witness search: points in boxes, by fixing parameters, from isl's samples, and real points among
// a relaxation's.
#include "symbolic/SolverDetail.h"

namespace shapelab {

auto Solver::Impl::searchBox(const std::vector<Expr> &params, const Pred &c, const Pred &p, bool want, uint64_t budget) const -> std::optional<Assignment> {
  if (params.empty()) {
    Assignment a;
    if (holds(c, a) && wanted(p, a, want)) return a;
    return std::nullopt;
  }
  uint64_t side = 1;
  while (true) {
    uint64_t total = 1;
    bool over = false;
    for (std::size_t i = 0; i < params.size() && !over; ++i) {
      total *= (side + 1);
      if (total > budget) over = true;
    }
    if (over) break;
    ++side;
  }
  std::vector<const ExprNode *> nodes;
  for (const Expr &x : params) nodes.push_back(x.node());
  bool complete = false;
  return firstInBox(nodes, std::vector<Integer>(nodes.size(), Integer(0)),
                    std::vector<Integer>(nodes.size(), Integer(int64_t(side - 1))), c, p, want, complete);
}

auto Solver::Impl::firstInBox(const std::vector<const ExprNode *> &params, const std::vector<Integer> &low, const std::vector<Integer> &high, const Pred &c, const Pred &p, bool want, bool &complete) const -> std::optional<Assignment> {
  complete = false;
  std::vector<Integer> values = low;
  const NodeValues at{params, values};
  for (uint64_t step = 0;; ++step) {
    if (step % 256 == 0 && outOfTime()) return std::nullopt;
    if (holds(c, at) && wanted(p, at, want)) {
      Assignment a;
      for (std::size_t i = 0; i < params.size(); ++i) a.set(params[i]->name, values[i]);
      return a;
    }
    std::size_t i = 0;
    for (; i < params.size(); ++i) {
      if (values[i] < high[i]) {
        values[i] += Integer(1);
        break;
      }
      values[i] = low[i];
    }
    if (i == params.size()) {
      complete = true;
      return std::nullopt;
    }
  }
}

auto Solver::Impl::searchByFixing(const std::vector<Expr> &params, const Pred &c, const Pred &p, bool want, SizeDomain sizes) -> std::optional<Assignment> {
  if (params.size() < 2) return std::nullopt;
  constexpr int64_t kSide = 4;          // values 0..3 for the fixed parameters
  constexpr std::size_t kMaxTries = 96; // isl questions at most
  std::size_t tries = 0;
  for (std::size_t free = 0; free < params.size(); ++free) {
    std::size_t others = params.size() - 1;
    if (others > 3) others = 3; // fix at most 3 parameters to small values, the rest to 0
    std::vector<int64_t> v(params.size() - 1, 0);
    while (true) {
      if (++tries > kMaxTries || outOfTime()) return std::nullopt;
      std::map<std::string, Expr> fixed;
      Assignment fixedValues;
      for (std::size_t i = 0, j = 0; i < params.size(); ++i) {
        if (i == free) continue;
        fixed.emplace(params[i].node()->name, Expr(v[j]));
        fixedValues.set(params[i].node()->name, v[j]);
        ++j;
      }
      Pred c2 = substitute(c, fixed), p2 = substitute(p, fixed);
      if (auto point = sampleQuasiAffine(c2, p2, want, sizes)) {
        Assignment a = *point;
        for (auto &[name, value] : fixedValues.values()) a.set(name, value);
        if (holds(c, a) && wanted(p, a, want)) return a;
      }
      std::size_t i = 0;
      while (i < others && ++v[i] >= kSide) v[i++] = 0;
      if (i == others) break;
    }
  }
  return std::nullopt;
}

auto Solver::Impl::sampleQuasiAffine(const Pred &c, const Pred &p, bool want, SizeDomain sizes) -> std::optional<Assignment> {
  if (!isQuasiAffine(c) || !isQuasiAffine(p)) return std::nullopt;
  Translation t;
  t.build(ctx, {c, p, definedness(c), definedness(p)});
  SetPtr C = t.holdsWithin(c, sizes);
  SetPtr H = t.holds(p);
  SetPtr target(check(want ? isl_set_intersect(C.release(), H.release())
                           : isl_set_subtract(C.release(), H.release())));
  PointPtr pt(check(isl_set_sample_point(target.release())));
  if (checkBool(isl_point_is_void(pt.get()))) return std::nullopt;
  bool consistent = true;
  Assignment a = t.pointToAssignment(pt.get(), consistent);
  if (!consistent) return std::nullopt;
  return a;
}

auto Solver::Impl::isQuasiAffine(const Pred &p) -> bool {
  std::vector<const PredNode *> stack{p.node()};
  std::unordered_set<const PredNode *> seen;
  while (!stack.empty()) {
    const PredNode *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->lhs && (!n->lhs->quasiAffine || !n->rhs->quasiAffine)) return false;
    for (const Pred &ch : n->children) stack.push_back(ch.node());
  }
  return true;
}

auto Solver::Impl::witness(Translation &t, isl_set *set, const Pred &c, const Pred &p, bool want, SizeDomain sizes) -> std::optional<Assignment> {
  PointPtr pt(check(isl_set_sample_point(check(isl_set_copy(set)))));
  if (checkBool(isl_point_is_void(pt.get()))) return std::nullopt;
  return witness(t, pt.get(), c, p, want, sizes);
}

auto Solver::Impl::witness(Translation &t, isl_point *pt, const Pred &c, const Pred &p, bool want, SizeDomain sizes) -> std::optional<Assignment> {
  bool consistent = true;
  Assignment a = t.pointToAssignment(pt, consistent);
  if (consistent) return a;
  // The point was found on the relaxation (opaque monomials): re-check it, then search.
  if (holds(c, a) && wanted(p, a, want)) return a;
  ++stats.witnessSearches;
  std::vector<Expr> params = parametersOf(c);
  collectParameters(p, params);
  // Small values first (most witnesses are there), then isl with all but one parameter fixed
  // (finds the large points an element-count limit needs: m*n > 2**63 - 1 at n = 1), then the
  // whole box. A small box that fails costs little; a whole one that fails costs the most.
  const uint64_t small = std::min<uint64_t>(options.witnessSearchPoints, 256);
  if (auto found = searchBox(params, c, p, want, small)) return found;
  if (auto found = searchByFixing(params, c, p, want, sizes)) return found;
  if (small == options.witnessSearchPoints) return std::nullopt;
  return searchBox(params, c, p, want, options.witnessSearchPoints);
}

auto Solver::Impl::realPointAmong(Translation &t, isl_set *relaxed, const Pred &c, const Pred &p, bool want, bool &decided) -> std::optional<Assignment> {
  decided = false;
  std::vector<const ExprNode *> params;
  std::vector<Integer> low, high;
  const uint64_t perPoint = p.node()->treeSize + c.node()->treeSize;
  Integer points(1);
  for (auto &[node, pos] : t.paramIndex) {
    Integer bound[2];
    for (int side = 0; side < 2; ++side) {
      AffPtr x(check(isl_aff_var_on_domain(t.localSpace().release(), isl_dim_param, pos)));
      ValPtr v(check(side == 0 ? isl_set_min_val(relaxed, x.get()) : isl_set_max_val(relaxed, x.get())));
      if (!checkBool(isl_val_is_int(v.get()))) return std::nullopt; // unbounded, or no point
      bound[side] = fromVal(v.get());
    }
    points = points * (bound[1] - bound[0] + Integer(1));
    if (points > Integer(int64_t(kMaxRelaxedBox)) ||
        points * Integer(int64_t(std::min<uint64_t>(perPoint, kMaxRelaxedEvaluation))) > Integer(int64_t(kMaxRelaxedEvaluation)))
      return std::nullopt;
    params.push_back(node.node());
    low.push_back(bound[0]);
    high.push_back(bound[1]);
  }
  return firstInBox(params, low, high, c, p, want, decided);
}

} // namespace shapelab
