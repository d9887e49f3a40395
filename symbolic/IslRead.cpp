// Reading isl back: points as assignments, isl's AST of a set as a predicate, within size bounds
// that keep the AST generator's work small.
#include "symbolic/SolverDetail.h"

namespace shapelab {

auto Translation::pointToAssignment(isl_point *pt, bool &consistent) const -> Assignment {
  Assignment a;
  for (auto &[node, pos] : paramIndex) {
    ValPtr v(check(isl_point_get_coordinate_val(pt, isl_dim_param, pos)));
    a.set(node->name, fromVal(v.get()));
  }
  consistent = true;
  for (auto &[m, pos] : monomials) {
    ValPtr v(check(isl_point_get_coordinate_val(pt, isl_dim_param, pos)));
    auto real = evaluate(meaning[pos], a);
    if (!real || *real != fromVal(v.get())) consistent = false;
  }
  return a;
}

auto Translation::nameToExpr(const char *name) const -> Expr {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return readback[i];
  throw InternalError(std::string("isl returned an unknown parameter ") + name);
}

auto Translation::argumentCount(isl_ast_expr *e) -> int {
  isl_size n = isl_ast_expr_op_get_n_arg(e);
  if (n < 0 || isl_ast_expr_op_get_type(e) == isl_ast_expr_op_error) throw IslFailure{};
  return int(n);
}

auto Translation::astToExpr(isl_ast_expr *e) const -> Expr {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_error) throw IslFailure{};
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_int: {
    ValPtr v(check(isl_ast_expr_int_get_val(e)));
    return Expr(fromVal(v.get()));
  }
  case isl_ast_expr_id: {
    std::unique_ptr<isl_id, isl_id *(*)(isl_id *)> id(check(isl_ast_expr_id_get_id(e)), isl_id_free);
    Expr r = nameToExpr(isl_id_get_name(id.get()));
    return r;
  }
  case isl_ast_expr_op: break;
  default: throw InternalError("unexpected isl AST expression");
  }
  auto arg = [&](int i) { return AstExprPtr(check(isl_ast_expr_op_get_arg(e, i))); };
  const int n = argumentCount(e);
  auto constantArg = [&](int i) {
    Expr c = astToExpr(arg(i).get());
    if (!c.isConstant() || c.constantValue()->sign() <= 0)
      throw InternalError("isl divided by a non-constant");
    return *c.constantValue();
  };
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_minus: return -astToExpr(arg(0).get());
  case isl_ast_expr_op_add: return astToExpr(arg(0).get()) + astToExpr(arg(1).get());
  case isl_ast_expr_op_sub: return astToExpr(arg(0).get()) - astToExpr(arg(1).get());
  case isl_ast_expr_op_mul: return astToExpr(arg(0).get()) * astToExpr(arg(1).get());
  // `div` is known to be exact and the p-variants have a non-negative dividend: floor
  // division gives the same value and stays total.
  case isl_ast_expr_op_div: case isl_ast_expr_op_fdiv_q: case isl_ast_expr_op_pdiv_q:
    return floorDiv(astToExpr(arg(0).get()), constantArg(1));
  // zdiv_r is only ever compared with zero, where C's remainder and floor modulo agree.
  case isl_ast_expr_op_pdiv_r: case isl_ast_expr_op_zdiv_r:
    return mod(astToExpr(arg(0).get()), constantArg(1));
  case isl_ast_expr_op_min: case isl_ast_expr_op_max: {
    std::vector<Expr> args;
    for (int i = 0; i < n; ++i) args.push_back(astToExpr(arg(i).get()));
    return isl_ast_expr_op_get_type(e) == isl_ast_expr_op_min ? min(args) : max(args);
  }
  case isl_ast_expr_op_cond: case isl_ast_expr_op_select:
    return select(astToPred(arg(0).get()), astToExpr(arg(1).get()), astToExpr(arg(2).get()));
  default: throw InternalError("unexpected isl AST operator in an expression");
  }
}

auto Translation::astToPred(isl_ast_expr *e) const -> Pred {
  if (isl_ast_expr_get_type(e) == isl_ast_expr_error) throw IslFailure{};
  if (isl_ast_expr_get_type(e) == isl_ast_expr_int) {
    ValPtr v(check(isl_ast_expr_int_get_val(e)));
    return Pred::truth(!fromVal(v.get()).isZero());
  }
  if (isl_ast_expr_get_type(e) != isl_ast_expr_op) throw InternalError("unexpected isl AST condition");
  auto arg = [&](int i) { return AstExprPtr(check(isl_ast_expr_op_get_arg(e, i))); };
  const int n = argumentCount(e);
  auto cmp = [&](CompareOp op) {
    return Pred::compare(op, astToExpr(arg(0).get()), astToExpr(arg(1).get()));
  };
  switch (isl_ast_expr_op_get_type(e)) {
  case isl_ast_expr_op_and: case isl_ast_expr_op_and_then: case isl_ast_expr_op_or:
  case isl_ast_expr_op_or_else: {
    std::vector<Pred> parts;
    for (int i = 0; i < n; ++i) parts.push_back(astToPred(arg(i).get()));
    auto t = isl_ast_expr_op_get_type(e);
    return (t == isl_ast_expr_op_and || t == isl_ast_expr_op_and_then) ? Pred::conjunction(parts)
                                                                       : Pred::disjunction(parts);
  }
  case isl_ast_expr_op_eq: return cmp(CompareOp::EQ);
  case isl_ast_expr_op_le: return cmp(CompareOp::LE);
  case isl_ast_expr_op_lt: return cmp(CompareOp::LT);
  case isl_ast_expr_op_ge: return cmp(CompareOp::GE);
  case isl_ast_expr_op_gt: return cmp(CompareOp::GT);
  default: throw InternalError("unexpected isl AST operator in a condition");
  }
}

auto Translation::constraintToPred(isl_constraint *c) const -> Pred {
  Expr lhs(0), rhs(0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    ValPtr v(check(isl_constraint_get_coefficient_val(c, isl_dim_param, int(i))));
    Integer k = fromVal(v.get());
    if (k.sign() > 0) lhs = lhs + Expr(k) * readback[i];
    if (k.sign() < 0) rhs = rhs + Expr(-k) * readback[i];
  }
  ValPtr v(check(isl_constraint_get_constant_val(c)));
  Integer k = fromVal(v.get());
  if (k.sign() > 0) lhs = lhs + Expr(k);
  if (k.sign() < 0) rhs = rhs + Expr(-k);
  bool equality = isl_constraint_is_equality(c) == isl_bool_true;
  if (lhs.isConstant() && !rhs.isConstant()) // "0 >= n - 3" reads better as "n <= 3"
    return Pred::compare(equality ? CompareOp::EQ : CompareOp::LE, rhs, lhs);
  return Pred::compare(equality ? CompareOp::EQ : CompareOp::GE, lhs, rhs);
}

auto Translation::fitsAstGenerator(isl_set *s) -> bool {
  AstSize size;
  size.add(s);
  return size.fits();
}

auto Translation::fitsAstGenerator(isl_pw_aff *f) -> bool {
  struct Walk {
    AstSize size;
    bool failed = false;
  } walk;
  isl_stat walked = isl_pw_aff_foreach_piece(f, [](isl_set *domain, isl_aff *a, void *user) -> isl_stat {
    auto *w = static_cast<Walk *>(user);
    const isl_size divs = isl_aff_dim(a, isl_dim_div);
    isl_aff_free(a);
    // The walk over the domain's disjuncts does not throw out of isl's frames.
    try {
      if (divs < 0) throw IslFailure{};
      w->size.fewDivs = w->size.fewDivs && divs <= kAstMaxDivs;
      w->size.add(domain);
    } catch (const IslFailure &) {
      w->failed = true;
    }
    isl_set_free(domain);
    return w->failed ? isl_stat_error : isl_stat_ok;
  }, &walk);
  if (walk.failed) throw IslFailure{};
  checkStat(walked);
  return walk.size.fits();
}

auto Translation::toPred(isl_set *s, isl_set *context, SizeDomain sizes, AbortShield &shield) -> Pred {
  SetPtr sCopy(check(isl_set_copy(s))), contextCopy(check(isl_set_copy(context)));
  SetPtr g(check(isl_set_gist_params(sCopy.release(), contextCopy.release())));
  g.reset(check(isl_set_coalesce(g.release())));
  // Without integer divisions the constraints read back directly; otherwise isl's AST
  // generator expresses the divisions as // and %.
  bool hasDivs = false;
  checkStat(isl_set_foreach_basic_set(g.get(), [](isl_basic_set *b, void *user) -> isl_stat {
    isl_size divs = isl_basic_set_dim(b, isl_dim_div);
    isl_basic_set_free(b);
    if (divs < 0) return isl_stat_error;
    if (divs > 0) *static_cast<bool *>(user) = true;
    return isl_stat_ok;
  }, &hasDivs));
  if (hasDivs) {
    // The generator would make the divisions explicit itself; done here, where isl may stop.
    g.reset(check(isl_set_compute_divs(g.release())));
    if (!fitsAstGenerator(g.get())) throw TooHard{"the condition is too large to read back"};
    // The generator is given the size domain, not the context: `g` is gisted under the
    // context already, and the generator gists again and proves signs over what it is
    // given, which took half a second for a three-constraint set under a context with
    // large coefficients. The domain's bounds (sizes are >= 0) are what it needs to write
    // `n - 9*(n // 9)` as `n % 9`.
    AstBuildPtr build(check(isl_ast_build_from_context(domain(sizes).release())));
    AstExprPtr e(shield.run(ctx, [&] { return check(isl_ast_build_expr_from_set(build.get(), g.release())); }));
    return withoutPartsHeldBySizes(astToPred(e.get()));
  }
  // No exception may cross isl's C frames: the callbacks catch, stop the walk, and the
  // exception is rethrown here.
  struct Acc {
    const Translation *self;
    std::vector<Pred> disjuncts;
    std::exception_ptr error;
  } acc{this, {}, nullptr};
  isl_stat walked = isl_set_foreach_basic_set(g.get(), [](isl_basic_set *b, void *user) -> isl_stat {
    auto *acc = static_cast<Acc *>(user);
    std::vector<Pred> conj;
    struct Inner {
      const Translation *self;
      std::vector<Pred> *conj;
      std::exception_ptr *error;
    } inner{acc->self, &conj, &acc->error};
    isl_stat constraints = isl_basic_set_foreach_constraint(b, [](isl_constraint *c, void *u) -> isl_stat {
      auto *in = static_cast<Inner *>(u);
      isl_stat status = isl_stat_ok;
      try {
        Pred part = in->self->constraintToPred(c);
        if (!heldBySizes(part)) in->conj->push_back(std::move(part));
      } catch (...) {
        *in->error = std::current_exception();
        status = isl_stat_error;
      }
      isl_constraint_free(c);
      return status;
    }, &inner);
    isl_basic_set_free(b);
    if (acc->error || constraints == isl_stat_error) return isl_stat_error;
    try {
      acc->disjuncts.push_back(Pred::conjunction(conj));
    } catch (...) {
      acc->error = std::current_exception();
      return isl_stat_error;
    }
    return isl_stat_ok;
  }, &acc);
  if (acc.error) std::rethrow_exception(acc.error);
  checkStat(walked);
  return Pred::disjunction(acc.disjuncts);
}

} // namespace shapelab
