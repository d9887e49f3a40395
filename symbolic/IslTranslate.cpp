// Translation of expressions and predicates to isl: parameters and opaque monomials, piecewise
// affine functions, sets where a predicate holds or fails, product envelopes.
#include "symbolic/SolverDetail.h"

namespace shapelab {

Translation::~Translation() {
  for (auto &[k, v] : memo) isl_pw_aff_free(v);
  for (auto &[k, v] : setMemo) isl_set_free(v);
  for (auto &[k, v] : failsMemo) isl_set_free(v);
}

auto Translation::scan(const Expr &n, std::vector<Expr> &params, std::vector<Monomial> &monos) -> void {
  if (!scanned.insert(n.node()).second) return;
  if (n->kind == ExprKind::Param) {
    if (std::find(params.begin(), params.end(), n) == params.end()) params.push_back(n);
    return;
  }
  for (const Term &t : n->terms) {
    uint32_t degree = 0;
    for (auto &[a, k] : t.monomial) degree += k;
    if (degree > 1 && std::find(monos.begin(), monos.end(), t.monomial) == monos.end())
      monos.push_back(t.monomial);
    for (auto &[a, k] : t.monomial) scan(a, params, monos);
  }
  for (const Expr &o : n->operands) scan(o, params, monos);
  if (n->condition) scan(n->condition, params, monos);
}

auto Translation::scan(const Pred &n, std::vector<Expr> &params, std::vector<Monomial> &monos) -> void {
  if (!scanned.insert(n.node()).second) return;
  if (n->lhs) {
    scan(n->lhs, params, monos);
    scan(n->rhs, params, monos);
  }
  for (const Pred &c : n->children) scan(c, params, monos);
}

auto Translation::build(isl_ctx *c, const std::vector<Pred> &roots, TranslationCache *across) -> void {
  ctx = c;
  cache = across;
  std::vector<Expr> params;
  std::vector<Monomial> monos;
  for (const Pred &r : roots) scan(r, params, monos);
  if (monos.size() > kMaxOpaqueProducts)
    throw TooHard{"the question has " + std::to_string(monos.size()) +
                  " distinct products of parameters (the solver takes at most " +
                  std::to_string(kMaxOpaqueProducts) + ")"};
  if (params.size() > kMaxQuestionParameters)
    throw TooHard{"the question has " + std::to_string(params.size()) +
                  " parameters (the solver takes at most " +
                  std::to_string(kMaxQuestionParameters) + ")"};
  std::sort(params.begin(), params.end(),
            [](const Expr &a, const Expr &b) { return a->name < b->name; });
  space.reset(check(isl_space_params_alloc(ctx, params.size() + monos.size())));
  int pos = 0;
  for (const Expr &p : params) {
    paramIndex[p] = pos;
    names.push_back(p->name);
    meaning.push_back(p);
    readback.push_back(p);
    nameDimension(pos, p->name);
    ++pos;
  }
  for (std::size_t i = 0; i < monos.size(); ++i) {
    // '$' cannot appear in a user or reserved name, so these never clash.
    std::string name = "$mono" + std::to_string(i);
    Expr m(1);
    for (auto &[a, k] : monos[i]) m = m * pow(a, k);
    monomials.push_back({monos[i], pos});
    names.push_back(name);
    meaning.push_back(m);
    readback.push_back(totalized(m));
    nameDimension(pos, name);
    ++pos;
  }
  if (cache) {
    if (cache->entries > TranslationCache::kMaxEntries) cache->clear();
    auto &slot = cache->spaces[meaning];
    if (!slot) slot = std::make_shared<TranslationCache::Space>();
    shared = slot;
  }
}

auto Translation::nameDimension(int pos, const std::string &name) -> void {
  isl_id *id = check(isl_id_alloc(ctx, name.c_str(), nullptr));
  space.reset(check(isl_space_set_dim_id(space.release(), isl_dim_param, pos, id)));
}

auto Translation::localSpace() const -> LocalSpacePtr {
  return LocalSpacePtr(check(isl_local_space_from_space(check(isl_space_copy(space.get())))));
}

auto Translation::constant(const Integer &v) const -> PwAffPtr {
  ValPtr value = toVal(ctx, v);
  LocalSpacePtr ls = localSpace();
  isl_aff *a = check(isl_aff_val_on_domain(ls.release(), value.release()));
  return PwAffPtr(check(isl_pw_aff_from_aff(a)));
}

auto Translation::variable(int pos) const -> PwAffPtr {
  isl_aff *a = check(isl_aff_var_on_domain(localSpace().release(), isl_dim_param, pos));
  return PwAffPtr(check(isl_pw_aff_from_aff(a)));
}

auto Translation::domain(SizeDomain sizes) const -> SetPtr {
  SetPtr s = universe();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Monomial *m = i >= paramIndex.size() ? &monomials[i - paramIndex.size()].first : nullptr;
    if (!m && sizes == SizeDomain::ArraySizes) {
      PwAffPtr x = variable(int(i)), limit = constant(maxArraySize());
      SetPtr atMost(check(isl_pw_aff_le_set(x.release(), limit.release())));
      s.reset(check(isl_set_intersect(s.release(), atMost.release())));
    }
    if (m && !nonNegativeMonomial(*m)) continue;
    PwAffPtr x = variable(int(i)), zero = constant(0);
    SetPtr atLeastZero(check(isl_pw_aff_ge_set(x.release(), zero.release())));
    s.reset(check(isl_set_intersect(s.release(), atLeastZero.release())));
    // A power p**k (k >= 1) of one parameter p >= 0 is at least p, over the integers.
    if (m) {
      if (m->size() == 1 && (*m)[0].first->kind == ExprKind::Param) {
        const Expr &base = (*m)[0].first;
        PwAffPtr power = variable(int(i)), p = variable(paramIndex.at(base));
        SetPtr atLeastBase(check(isl_pw_aff_ge_set(power.release(), p.release())));
        s.reset(check(isl_set_intersect(s.release(), atLeastBase.release())));
        // p**k and p have the same parity (p**k - p = p*(p**(k-1) - 1) is even).
        PwAffPtr power2 = variable(int(i)), p2 = variable(paramIndex.at(base));
        PwAffPtr difference(check(isl_pw_aff_sub(power2.release(), p2.release())));
        ValPtr two = toVal(ctx, 2);
        PwAffPtr parity(check(isl_pw_aff_mod_val(difference.release(), two.release())));
        PwAffPtr zero2 = constant(0);
        SetPtr even(check(isl_pw_aff_eq_set(parity.release(), zero2.release())));
        s.reset(check(isl_set_intersect(s.release(), even.release())));
      }
    }
  }
  // Array sizes are at most M = 2**63 - 1, so a product of d of them is at most M**d, and one
  // of two is at most M times each factor (so 0 where a factor is). Without these bounds the
  // relaxation lets a product of sizes take any value, and a question past its reach
  // (82**40 - n - a*b <= 2**63 - 1) was Unknown instead of refuted. The factor bounds of
  // higher degrees (coefficients M**(d-1)) made the questions of fuzz_einsum's corpus 37%
  // slower; the constant bound costs nothing measurable.
  if (sizes == SizeDomain::ArraySizes)
    for (const auto &[m, position] : monomials) {
      bool ofSizes = true;
      uint32_t degree = 0;
      for (auto &[a, k] : m) {
        ofSizes = ofSizes && a->kind == ExprKind::Param;
        degree += k;
      }
      if (!ofSizes) continue;
      const int at = position; // a structured binding is not captured by clang 14
      auto atMost = [&](PwAffPtr bound) {
        PwAffPtr product = variable(at);
        SetPtr below(check(isl_pw_aff_le_set(product.release(), bound.release())));
        s.reset(check(isl_set_intersect(s.release(), below.release())));
      };
      if (degree > 2) {
        atMost(constant(Integer::pow(maxArraySize(), degree)));
        continue;
      }
      for (auto &[a, k] : m) {
        PwAffPtr factor = variable(paramIndex.at(a));
        ValPtr scale = toVal(ctx, maxArraySize());
        atMost(PwAffPtr(check(isl_pw_aff_scale_val(factor.release(), scale.release()))));
      }
    }
  // A product is at most the same product with some factors p raised to max(p, ...): the
  // count of an array (n*m) and its sizes other than 0 multiplied (max(1, n)*max(1, m)) are
  // then related, though both are opaque.
  for (std::size_t i = 0; i < monomials.size(); ++i)
    for (std::size_t j = 0; j < monomials.size(); ++j)
      if (i != j && dominated(monomials[i].first, monomials[j].first)) {
        PwAffPtr low = variable(monomials[i].second), high = variable(monomials[j].second);
        SetPtr atMost(check(isl_pw_aff_le_set(low.release(), high.release())));
        s.reset(check(isl_set_intersect(s.release(), atMost.release())));
      }
  return s;
}

auto Translation::nonNegativeByForm(const Expr &x, int depth) -> bool {
  if (depth == 0) return false;
  switch (x->kind) {
  case ExprKind::Constant: return x->value.sign() >= 0;
  case ExprKind::Param: return true;
  case ExprKind::Sum:
    if (x->constantTerm.sign() < 0) return false;
    for (const Term &t : x->terms) {
      if (t.coefficient.sign() < 0) return false;
      for (const auto &[a, k] : t.monomial)
        if (k % 2 == 1 && !nonNegativeByForm(a, depth - 1)) return false;
    }
    return true;
  case ExprKind::FloorDiv:
  case ExprKind::ExactDiv: return x->value.sign() > 0 && nonNegativeByForm(x->operands[0], depth - 1);
  case ExprKind::Mod: return x->value.sign() > 0;
  case ExprKind::Max:
    return std::any_of(x->operands.begin(), x->operands.end(),
                       [&](const Expr &o) { return nonNegativeByForm(o, depth - 1); });
  case ExprKind::Min:
  case ExprKind::Select:
    return std::all_of(x->operands.begin(), x->operands.end(),
                       [&](const Expr &o) { return nonNegativeByForm(o, depth - 1); });
  }
  return false;
}

auto Translation::dominated(const Monomial &a, const Monomial &b) -> bool {
  if (a.size() != b.size() || a == b) return false;
  std::vector<bool> used(b.size(), false);
  for (const auto &[x, k] : a) {
    if (k % 2 == 1 && !nonNegativeByForm(x)) return false;
    bool matched = false;
    for (std::size_t t = 0; t < b.size() && !matched; ++t) {
      if (used[t] || b[t].second != k) continue;
      const Expr &y = b[t].first;
      bool above = y == x || (y->kind == ExprKind::Max &&
                              std::find(y->operands.begin(), y->operands.end(), x) != y->operands.end());
      if (above) used[t] = matched = true;
    }
    if (!matched) return false;
  }
  return true;
}

auto Translation::monomialPosition(const Monomial &m) const -> int {
  for (auto &[mm, p] : monomials)
    if (mm == m) return p;
  throw InternalError("monomial was not scanned");
}

auto Translation::pwAff(const Expr &n) -> isl_pw_aff * {
  auto it = memo.find(n);
  if (it != memo.end()) return it->second;
  if (shared)
    if (auto s = shared->exprs.find(n); s != shared->exprs.end()) {
      isl_pw_aff *copy = check(isl_pw_aff_copy(s->second));
      memo[n] = copy;
      return copy;
    }
  PwAffPtr r = translate(n);
  if (shared) {
    // Only a complete translation is shared (translate() throws when isl stops).
    shared->exprs.emplace(n, check(isl_pw_aff_copy(r.get())));
    ++cache->entries;
  }
  memo[n] = r.get();
  return r.release();
}

auto Translation::translate(const Expr &n) -> PwAffPtr {
  switch (n->kind) {
  case ExprKind::Constant: return constant(n->value);
  case ExprKind::Param: return variable(paramIndex.at(n));
  case ExprKind::Sum: {
    // The affine part is built as one isl_aff; other atoms are added as pieces.
    ValPtr constantTerm = toVal(ctx, n->constantTerm);
    LocalSpacePtr ls = localSpace();
    AffPtr a(check(isl_aff_val_on_domain(ls.release(), constantTerm.release())));
    std::vector<std::pair<Integer, Expr>> others;
    for (const Term &t : n->terms) {
      uint32_t degree = 0;
      for (auto &[x, k] : t.monomial) degree += k;
      int pos = -1;
      if (degree > 1)
        pos = monomialPosition(t.monomial);
      else if (t.monomial[0].first->kind == ExprKind::Param)
        pos = paramIndex.at(t.monomial[0].first);
      if (pos >= 0) {
        ValPtr coefficient = toVal(ctx, t.coefficient);
        a.reset(check(isl_aff_set_coefficient_val(a.release(), isl_dim_param, pos,
                                                  coefficient.release())));
      }
      else
        others.push_back({t.coefficient, t.monomial[0].first});
    }
    PwAffPtr r(check(isl_pw_aff_from_aff(a.release())));
    for (auto &[c, atom] : others) {
      PwAffPtr atomPiece = pwAffCopy(atom);
      ValPtr factor = toVal(ctx, c);
      PwAffPtr piece(check(isl_pw_aff_scale_val(atomPiece.release(), factor.release())));
      r.reset(check(isl_pw_aff_add(r.release(), piece.release())));
    }
    if (!others.empty()) r.reset(check(isl_pw_aff_coalesce(r.release())));
    return r;
  }
  case ExprKind::FloorDiv: case ExprKind::ExactDiv: {
    // Exact division is floor division here; where it does not divide, definedness() has
    // already excluded the point.
    PwAffPtr e = pwAffCopy(n->operands[0]);
    ValPtr divisor = toVal(ctx, n->value);
    PwAffPtr scaled(check(isl_pw_aff_scale_down_val(e.release(), divisor.release())));
    return PwAffPtr(check(isl_pw_aff_floor(scaled.release())));
  }
  case ExprKind::Mod:
  {
    PwAffPtr e = pwAffCopy(n->operands[0]);
    ValPtr divisor = toVal(ctx, n->value);
    return PwAffPtr(check(isl_pw_aff_mod_val(e.release(), divisor.release())));
  }
  case ExprKind::Min: case ExprKind::Max: {
    PwAffPtr r = pwAffCopy(n->operands[0]);
    for (std::size_t i = 1; i < n->operands.size(); ++i) {
      PwAffPtr o = pwAffCopy(n->operands[i]);
      r.reset(check(n->kind == ExprKind::Min ? isl_pw_aff_min(r.release(), o.release())
                                             : isl_pw_aff_max(r.release(), o.release())));
    }
    return PwAffPtr(check(isl_pw_aff_coalesce(r.release())));
  }
  case ExprKind::Select: {
    SetPtr c = set(n->condition);
    SetPtr notC(check(isl_set_complement(check(isl_set_copy(c.get())))));
    PwAffPtr ifTrue = pwAffCopy(n->operands[0]), ifFalse = pwAffCopy(n->operands[1]);
    PwAffPtr a(check(isl_pw_aff_intersect_params(ifTrue.release(), c.release())));
    PwAffPtr b(check(isl_pw_aff_intersect_params(ifFalse.release(), notC.release())));
    return PwAffPtr(check(isl_pw_aff_coalesce(check(isl_pw_aff_union_add(a.release(), b.release())))));
  }
  }
  throw InternalError("unhandled expression kind");
}

auto Translation::set(const Pred &n) -> SetPtr {
  auto it = setMemo.find(n);
  if (it != setMemo.end()) return SetPtr(check(isl_set_copy(it->second)));
  if (shared)
    if (auto s = shared->sets.find(n); s != shared->sets.end()) {
      SetPtr r(check(isl_set_copy(s->second)));
      setMemo[n] = check(isl_set_copy(r.get()));
      return r;
    }
  SetPtr r = translateSet(n);
  if (shared) {
    shared->sets.emplace(n, check(isl_set_copy(r.get())));
    ++cache->entries;
  }
  setMemo[n] = check(isl_set_copy(r.get()));
  return r;
}

auto Translation::translateSet(const Pred &n) -> SetPtr {
  switch (n->kind) {
  case PredKind::True: return universe();
  case PredKind::False: return SetPtr(check(isl_set_empty(check(isl_space_copy(space.get())))));
  case PredKind::Compare: {
    PwAffPtr lhs = pwAffCopy(n->lhs), rhs = pwAffCopy(n->rhs);
    isl_pw_aff *a = lhs.release(), *b = rhs.release();
    switch (n->op) {
    case CompareOp::EQ: return SetPtr(check(isl_pw_aff_eq_set(a, b)));
    case CompareOp::NE: return SetPtr(check(isl_pw_aff_ne_set(a, b)));
    case CompareOp::LT: return SetPtr(check(isl_pw_aff_lt_set(a, b)));
    case CompareOp::LE: return SetPtr(check(isl_pw_aff_le_set(a, b)));
    case CompareOp::GT: return SetPtr(check(isl_pw_aff_gt_set(a, b)));
    case CompareOp::GE: return SetPtr(check(isl_pw_aff_ge_set(a, b)));
    }
    break;
  }
  case PredKind::Not:
    return SetPtr(check(isl_set_complement(set(n->children[0]).release())));
  case PredKind::And: case PredKind::Or: {
    SetPtr r = set(n->children[0]);
    for (std::size_t i = 1; i < n->children.size(); ++i) {
      SetPtr c = set(n->children[i]);
      r.reset(check(n->kind == PredKind::And ? isl_set_intersect(r.release(), c.release())
                                             : isl_set_union(r.release(), c.release())));
    }
    return r;
  }
  }
  throw InternalError("unhandled predicate kind");
}

auto Translation::fails(const Pred &n) -> SetPtr {
  if (!n.node()->total) throw InternalError("fails() of a partial predicate");
  auto it = failsMemo.find(n);
  if (it != failsMemo.end()) return SetPtr(check(isl_set_copy(it->second)));
  SetPtr r;
  switch (n->kind) {
  case PredKind::True: r.reset(check(isl_set_empty(check(isl_space_copy(space.get()))))); break;
  case PredKind::False: r = universe(); break;
  case PredKind::Not: r = set(n->children[0]); break;
  case PredKind::Compare: {
    PwAffPtr lhs = pwAffCopy(n->lhs), rhs = pwAffCopy(n->rhs);
    isl_pw_aff *a = lhs.release(), *b = rhs.release();
    switch (n->op) {
    case CompareOp::EQ: r.reset(check(isl_pw_aff_ne_set(a, b))); break;
    case CompareOp::NE: r.reset(check(isl_pw_aff_eq_set(a, b))); break;
    case CompareOp::LT: r.reset(check(isl_pw_aff_ge_set(a, b))); break;
    case CompareOp::LE: r.reset(check(isl_pw_aff_gt_set(a, b))); break;
    case CompareOp::GT: r.reset(check(isl_pw_aff_le_set(a, b))); break;
    case CompareOp::GE: r.reset(check(isl_pw_aff_lt_set(a, b))); break;
    }
    break;
  }
  case PredKind::And: case PredKind::Or: {
    r = fails(n->children[0]);
    for (std::size_t i = 1; i < n->children.size(); ++i) {
      SetPtr c = fails(n->children[i]);
      r.reset(check(n->kind == PredKind::And ? isl_set_union(r.release(), c.release())
                                             : isl_set_intersect(r.release(), c.release())));
    }
    break;
  }
  }
  failsMemo[n] = check(isl_set_copy(r.get()));
  return r;
}

auto Translation::holdsWithin(const Pred &c, SizeDomain sizes) -> SetPtr {
  SetPtr s = holds(c);
  SetPtr dom = domain(sizes);
  return withProductEnvelopes(SetPtr(check(isl_set_intersect(s.release(), dom.release()))));
}

auto Translation::withProductEnvelopes(SetPtr C, bool *added) -> SetPtr {
  if (added) *added = false;
  struct Box {
    std::optional<Integer> low, high;
  };
  std::map<int, Box> boxes;
  auto boxOf = [&](int pos) -> const Box & {
    auto it = boxes.find(pos);
    if (it != boxes.end()) return it->second;
    Box b;
    for (bool lowSide : {true, false}) {
      AffPtr x(check(isl_aff_var_on_domain(localSpace().release(), isl_dim_param, pos)));
      ValPtr v(check(lowSide ? isl_set_min_val(C.get(), x.get()) : isl_set_max_val(C.get(), x.get())));
      if (!checkBool(isl_val_is_int(v.get()))) continue; // unbounded, or C is empty
      Integer bound = fromVal(v.get());
      if (lowSide && bound.sign() > 0) b.low = bound;
      if (!lowSide && bound < maxArraySize()) b.high = bound;
    }
    return boxes.emplace(pos, b).first->second;
  };
  // coefficient * parameter terms + constant >= 0, intersected into C.
  auto require = [&](const std::vector<std::pair<int, Integer>> &terms, const Integer &constant) {
    LocalSpacePtr ls = localSpace();
    ValPtr c = toVal(ctx, constant);
    AffPtr a(check(isl_aff_val_on_domain(ls.release(), c.release())));
    for (const auto &[pos, coefficient] : terms) {
      ValPtr old(check(isl_aff_get_coefficient_val(a.get(), isl_dim_param, pos)));
      Integer sum = fromVal(old.get()) + coefficient;
      ValPtr total = toVal(ctx, sum);
      a.reset(check(isl_aff_set_coefficient_val(a.release(), isl_dim_param, pos, total.release())));
    }
    PwAffPtr pa(check(isl_pw_aff_from_aff(a.release())));
    SetPtr inside(check(isl_pw_aff_nonneg_set(pa.release())));
    C.reset(check(isl_set_intersect(C.release(), inside.release())));
    if (added) *added = true;
  };
  for (const auto &[m, z] : monomials) {
    uint32_t degree = 0;
    bool ofParameters = true;
    for (auto &[a, k] : m) {
      degree += k;
      ofParameters = ofParameters && a->kind == ExprKind::Param;
    }
    if (degree != 2 || !ofParameters) continue;
    const int x = paramIndex.at(m[0].first), y = paramIndex.at(m.back().first);
    const Box bx = boxOf(x), by = boxOf(y);
    const Integer xl = bx.low.value_or(Integer(0)), yl = by.low.value_or(Integer(0));
    const Integer one(1);
    // (x - xl)(y - yl) >= 0:  z - xl*y - yl*x + xl*yl >= 0 (z >= 0 already when both are 0)
    if (bx.low || by.low) require({{z, one}, {y, -xl}, {x, -yl}}, xl * yl);
    // (xu - x)(y - yl) >= 0:  xu*y + yl*x - xu*yl - z >= 0
    if (bx.high) require({{z, -one}, {y, *bx.high}, {x, yl}}, -(*bx.high * yl));
    // (x - xl)(yu - y) >= 0:  yu*x + xl*y - xl*yu - z >= 0
    if (by.high) require({{z, -one}, {x, *by.high}, {y, xl}}, -(xl * *by.high));
    // (xu - x)(yu - y) >= 0:  z - xu*y - yu*x + xu*yu >= 0
    if (bx.high && by.high) require({{z, one}, {y, -*bx.high}, {x, -*by.high}}, *bx.high * *by.high);
  }
  return C;
}

auto Translation::noRealPointWithinOwnEnvelopes(isl_set *relaxed) -> bool {
  std::vector<SetPtr> pieces;
  const isl_size n = isl_set_n_basic_set(relaxed);
  if (n < 0) check(static_cast<isl_set *>(nullptr));
  if (n > 1 && n <= kMaxEnvelopedDisjuncts) {
    std::vector<isl_basic_set *> basic;
    const isl_stat walked = isl_set_foreach_basic_set(relaxed, [](isl_basic_set *b, void *user) -> isl_stat {
      static_cast<std::vector<isl_basic_set *> *>(user)->push_back(b);
      return isl_stat_ok;
    }, &basic);
    for (isl_basic_set *b : basic) pieces.emplace_back(isl_set_from_basic_set(b)); // owned before any throw
    checkStat(walked);
    for (const SetPtr &p : pieces) check(p.get());
  } else {
    pieces.emplace_back(check(isl_set_copy(relaxed)));
  }
  for (SetPtr &s : pieces)
    for (int round = 0;; ++round) {
      bool added = false;
      s = withProductEnvelopes(std::move(s), &added);
      if (!added) return false;
      if (checkBool(isl_set_is_empty(s.get()))) break; // this piece holds no real point
      if (round == 1) return false;
    }
  return true;
}

auto Translation::holds(const Pred &p) -> SetPtr {
  SetPtr s = set(p);
  Pred def = definedness(p);
  if (!def.isTrue()) {
    SetPtr d = set(def);
    s.reset(check(isl_set_intersect(s.release(), d.release())));
  }
  return s;
}

} // namespace shapelab
