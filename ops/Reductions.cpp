// Reductions (sum ... argmin), blockwise ops over gufunc signatures, einsum, diff, cumsum and
// cumprod.
#include "ops/GraphDetail.h"

namespace shapelab::ops {

// ---------------------------------------------------------------------------------------------
// Reductions, Blockwise, the rest.

const Node *Graph::reduce(const std::string &op, const Node *x, std::optional<std::vector<int64_t>> axes,
                          bool keepdims) {
  static const std::set<std::string> known = {"sum", "prod", "max", "min", "all", "any", "mean", "argmax", "argmin"};
  if (!known.count(op)) throw OpError("unknown reduction '" + op + "'");
  const bool arg = op == "argmax" || op == "argmin";
  if (arg && axes && axes->size() != 1) throw OpError("'tuple' object cannot be interpreted as an integer");
  std::vector<int64_t> list;
  if (!axes) {
    for (std::size_t i = 0; i < x->rank(); ++i) list.push_back(int64_t(i));
  } else {
    for (int64_t a : *axes) {
      int64_t k = normalizeAxis(a, x->rank());
      if (std::find(list.begin(), list.end(), k) != list.end()) throw OpError("duplicate value in 'axis'");
      list.push_back(k);
    }
    std::sort(list.begin(), list.end());
  }
  Node c = blank(OpKind::Reduce, op, {x});
  c.attrs = attr::Reduction{list, keepdims};
  return make(std::move(c), [&](Node &n) {
    DType t = x->dtype;
    if (op == "sum" || op == "prod") t = accumulatorFor(t);
    if (op == "all" || op == "any") t = DType::Bool;
    if (op == "mean") t = isFloat(t) ? t : DType::Float64;
    if (arg) t = DType::Int64;
    n.dtype = t;
    // argmax and argmin over every axis: the index into the flattened array, which must not be
    // empty (whatever its shape: NumPy flattens first).
    if (arg && !axes)
      requireOr(n.validity, nonEmpty(product(x->shape)), "the array is not empty",
                "attempt to get " + op + " of an empty sequence");
    for (std::size_t i = 0; i < x->rank(); ++i) {
      bool reduced = std::find(list.begin(), list.end(), int64_t(i)) != list.end();
      if (!reduced) n.shape.push_back(x->shape[i]);
      else if (keepdims) n.shape.push_back(1);
      if (reduced && (op == "max" || op == "min"))
        requireOr(n.validity, nonEmpty(x->shape[i]), "reduced axis " + std::to_string(i) + " is not empty",
                  std::string("zero-size array to reduction operation ") + reductionName(op) + " which has no identity");
      if (reduced && arg && axes)
        requireOr(n.validity, nonEmpty(x->shape[i]), "reduced axis " + std::to_string(i) + " is not empty",
                  "attempt to get " + op + " of an empty sequence");
    }
  });
}

const Node *Graph::sumTo(const Node *g, const Shape &shape) {
  if (shape.size() > g->rank())
    throw OpError("sum_to: the shape " + toString(shape) + " has more dimensions than the array (" + std::to_string(g->rank()) + ")");
  if (g->dtype == DType::Bool) throw OpError("sum_to: a bool array does not sum to its own dtype");
  Node c = blank(OpKind::SumTo, "sum_to", {g});
  c.exprs = shape;
  return make(std::move(c), [&](Node &n) {
    n.dtype = g->dtype;
    requireSizes(n.validity, shape, "the target shape");
    BroadcastResult r = shapelab::broadcastTo(*solver_, n.validity.context(), shape, g->shape);
    // sum_to runs after g: where g's own shape obligations hold (the broadcast that made g's
    // shape, for a gradient), an obligation they imply holds too, and is not asked again (a
    // gradient then shows the cost's check once, not also its restatement). At most 32 of them
    // are assumed (one question over their conjunction: past that, the obligation is kept).
    std::vector<Pred> given;
    if (g->pending)
      for (const Node *p : *g->pending)
        for (const Obligation &o : p->validity.obligations())
          if (o.kind == ObligationKind::Shape && o.decision.answer != Answer::Proven) given.push_back(o.predicate);
    if (given.size() > 32) given.clear();
    const Pred holds = Pred::conjunction(given);
    for (const Obligation &o : r.validity.obligations()) {
      if (o.decision.answer != Answer::Proven && !given.empty() &&
          solver_->proves(n.validity.context(), Pred::disjunction({Pred::negation(holds), o.predicate})))
        continue;
      n.validity.record(o.predicate, o.what, o.decision, o.kind, o.refusal);
    }
    n.validity.mention(shape);
    n.validity.mention(g->shape);
    n.shape = shape;
  });
}

namespace {
/// np.linalg's factorizations, one op per output: qr_q, qr_r (reduced; _complete for
/// mode='complete'), svd_u, svd_vh (reduced; _full for full_matrices), svd_s, eigh_w, eigh_v
/// (_upper for UPLO='U'). Their core dims for an (m, n) operand, k = min(m, n).
std::optional<Shape> factorCore(const std::string &op, const Expr &m, const Expr &n, const Expr &k) {
  if (op == "qr_q") return Shape{m, k};
  if (op == "qr_q_complete") return Shape{m, m};
  if (op == "qr_r") return Shape{k, n};
  if (op == "qr_r_complete") return Shape{m, n};
  if (op == "svd_u") return Shape{m, k};
  if (op == "svd_u_full") return Shape{m, m};
  if (op == "svd_s") return Shape{k};
  if (op == "svd_vh") return Shape{k, n};
  if (op == "svd_vh_full") return Shape{n, n};
  if (op == "eigh_w" || op == "eigh_w_upper") return Shape{m};
  if (op == "eigh_v" || op == "eigh_v_upper") return Shape{m, m};
  return std::nullopt;
}
} // namespace

bool isFactorization(const std::string &op) { return factorCore(op, Expr(0), Expr(0), Expr(0)).has_value(); }

const Node *Graph::blockwise(const std::string &op, const std::vector<const Node *> &xs, BroadcastMode mode) {
  if (isFactorization(op)) {
    if (xs.size() != 1) throw OpError(op + "() takes 1 array argument(s), " + std::to_string(xs.size()) + " given");
    const Node *x = xs[0];
    if (x->rank() < 2)
      throw OpError(std::to_string(x->rank()) + "-dimensional array given. Array must be at least two-dimensional");
    if (x->dtype == DType::Float16) throw OpError("array type float16 is unsupported in linalg");
    Node c = blank(OpKind::Blockwise, op, xs);
    c.mode = mode;
    return make(std::move(c), [&](Node &n) {
      n.dtype = isFloat(x->dtype) ? x->dtype : DType::Float64;
      const Expr &m = x->shape[x->rank() - 2], &cols = x->shape.back();
      if (op.starts_with("eigh"))
        requireOr(n.validity, eq(m, cols), "the last 2 dimensions are square", "Last 2 dimensions of the array must be square");
      n.shape.assign(x->shape.begin(), x->shape.end() - 2);
      const Shape core = *factorCore(op, m, cols, smaller(n.validity.context(), m, cols, true));
      n.shape.insert(n.shape.end(), core.begin(), core.end());
      requireSizes(n.validity, n.shape, "the " + op + " result");
      if (mode == BroadcastMode::Static) markStaticBroadcastable(n, true, {2});
    });
  }
  std::string sig;
  std::size_t arity = 1;
  if (op == "matmul") sig = "(n?,k),(k,m?)->(n?,m?)", arity = 2;
  else if (op == "outer") sig = "(m),(n)->(m,n)", arity = 2;
  else if (op == "det") sig = "(m,m)->()";
  else if (op == "inv" || op == "cholesky") sig = "(m,m)->(m,m)";
  else if (op == "solve") {
    arity = 2;
    // NumPy's rule: b is a stack of vectors when it has one dimension fewer than a.
    if (xs.size() == 2) sig = xs[1]->rank() + 1 == xs[0]->rank() ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)";
  } else if (op == "convolve") {
    if (xs.size() == 2) return convolve(xs[0], xs[1]);
    arity = 2;
  } else throw OpError("unknown function '" + op + "'");
  if (xs.size() != arity)
    throw OpError(op + "() takes " + std::to_string(arity) + " array argument(s), " + std::to_string(xs.size()) + " given");
  if (op == "det" || op == "inv" || op == "solve" || op == "cholesky")
    for (const Node *x : xs)
      if (x->dtype == DType::Float16) throw OpError("array type float16 is unsupported in linalg");
  if (op == "matmul")
    for (std::size_t i = 0; i < 2; ++i)
      if (xs[i]->rank() == 0) throw OpError("matmul: Input operand " + std::to_string(i) + " does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)");
  Node c = blank(OpKind::Blockwise, op, xs);
  c.mode = mode;
  return make(std::move(c), [&](Node &n) {
    DType t = arrayResultType(xs);
    if (op == "det" || op == "inv" || op == "solve" || op == "cholesky") t = isFloat(t) ? t : DType::Float64;
    n.dtype = t;
    std::vector<GufuncArgument> args;
    for (const Node *x : xs) args.push_back({x->shape, false});
    GufuncResult r = resolveGufunc(*solver_, n.validity.context(), parseSignature(sig), args, mode, true,
                                   OperandsExist::Known);
    // No output shape: an operand with too few dimensions (ranks are static, so no size fixes it).
    if (r.outShapes.empty()) throw OpError(op + ": " + r.validity.message());
    for (const auto &d : r.outShapes[0]) n.shape.push_back(d ? *d : Expr(0));
    n.validity.absorb(r.validity);
    if (mode == BroadcastMode::Static) {
      // The batch shapes broadcast as an elementwise op's shapes do; an operand of fewer
      // dimensions than its core (matmul's vectors) has no batch.
      Signature parsed = parseSignature(sig);
      std::vector<std::size_t> core;
      for (std::size_t i = 0; i < xs.size(); ++i) core.push_back(std::min(xs[i]->rank(), parsed.inputs[i].dims.size()));
      markStaticBroadcastable(n, true, core);
    }
  });
}

const Node *Graph::convolve(const Node *a, const Node *v) {
  Node c = blank(OpKind::Convolve, "convolve", {a, v});
  return make(std::move(c), [&](Node &n) {
    n.dtype = arrayResultType({a, v});
    for (const Node *x : {a, v})
      if (x->rank() != 1) throw OpError("object too deep for desired array");
    const Expr &la = a->shape[0], &lv = v->shape[0];
    requireOr(n.validity, ge(la, 1), "a is not empty", "a cannot be empty");
    requireOr(n.validity, ge(lv, 1), "v is not empty", "v cannot be empty");
    n.shape = {la + lv - 1};
  });
}

const Node *Graph::einsum(const EinsumSpec &spec, const std::vector<const Node *> &xs, BroadcastMode mode) {
  // Subscripts that do not fit the operands' ranks: refused as a rank error is (NumPy's words).
  std::vector<std::size_t> ranks;
  for (const Node *x : xs) ranks.push_back(x->rank());
  if (auto e = einsumOperandsError(spec, ranks)) throw OpError(*e);
  Node c = blank(OpKind::Einsum, "einsum", xs);
  c.mode = mode;
  c.attrs = spec;
  return make(std::move(c), [&](Node &n) {
    std::vector<Shape> shapes;
    for (const Node *x : xs) shapes.push_back(x->shape);
    // einsum makes arrays of its operands first (np.asarray): a Python number is a 0-d array,
    // not weak (NEP 50), so einsum('i,->i', f32, 2.0) is float64.
    n.dtype = arrayResultType(xs);
    EinsumResult r = resolveEinsum(*solver_, n.validity.context(), spec, shapes, mode, OperandsExist::Known);
    n.validity.absorb(r.validity);
    n.shape = r.shape.size() == spec.output.size() ? r.shape : Shape(spec.output.size(), Expr(0));
    if (mode == BroadcastMode::Static && r.remapped.size() == xs.size()) markStaticBroadcastable(n, true, {}, {}, &r.remapped);
  });
}

const Node *Graph::diff(const Node *x, int64_t order, int64_t axisArg) {
  if (x->rank() == 0) throw OpError("diff requires input that is at least one dimensional");
  if (order < 0) throw OpError("order must be non-negative but got " + std::to_string(order));
  int64_t axis = normalizeAxis(axisArg, x->rank());
  Node c = blank(OpKind::Diff, "diff", {x});
  c.attrs = attr::Difference{order, axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = x->dtype;
    n.shape = x->shape;
    n.shape[axis] = smaller(n.validity.context(), Expr(0), x->shape[axis] - Expr(order), false);
  });
}

const Node *Graph::cumulative(const std::string &op, const Node *x, std::optional<int64_t> axisArg) {
  if (op != "cumsum" && op != "cumprod") throw OpError("unknown cumulative function '" + op + "'");
  if (!axisArg) return cumulative(op, reshape(x, {Expr(-1)}), 0);
  int64_t axis = normalizeAxis(*axisArg, x->rank());
  Node c = blank(op == "cumsum" ? OpKind::Cumsum : OpKind::Cumprod, op, {x});
  c.attrs = attr::Axis{axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = accumulatorFor(x->dtype);
    n.shape = x->shape;
  });
}

const Node *Graph::sort(const std::string &op, const Node *x, std::optional<int64_t> axisArg) {
  if (op != "sort" && op != "argsort") throw OpError("unknown sorting function '" + op + "'");
  if (!axisArg) return sort(op, reshape(x, {Expr(-1)}), 0);
  const int64_t axis = normalizeAxis(*axisArg, x->rank());
  Node c = blank(OpKind::Sort, op, {x});
  c.attrs = attr::Axis{axis};
  return make(std::move(c), [&](Node &n) {
    n.dtype = op == "sort" ? x->dtype : DType::Int64;
    n.shape = x->shape;
  });
}

const Node *Graph::searchSorted(const Node *a, const Node *v, bool right) {
  if (a->rank() != 1) throw OpError("object too deep for desired array");
  Node c = blank(OpKind::SearchSorted, right ? "searchsorted_right" : "searchsorted", {a, v});
  return make(std::move(c), [&](Node &n) {
    n.dtype = DType::Int64;
    n.shape = v->shape;
  });
}

} // namespace shapelab::ops
