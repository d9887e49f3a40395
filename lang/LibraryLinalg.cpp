// The library's np.linalg functions: det, inv, cholesky, slogdet, matrix_power, norm, and the
// factorizations qr, svd, eigh, eigvalsh with pinv, lstsq and matrix_rank built on them, bound
// by their rows of ops/Functions.def and built by the composites of ops/Composites.h.
#include <limits>

#include "lang/SessionImpl.h"
#include "ops/Composites.h"

namespace shapelab::lang {

namespace {
/// A string argument (a mode, UPLO) or `absent` when not given.
std::string textOf(const Value &v, const std::string &absent, const char *what) {
  if (v.kind == Value::None) return absent;
  if (v.kind != Value::String) throw LangError{std::string(what) + " must be a string", v.pos};
  return v.text;
}
} // namespace

auto Session::Impl::bindLinalgNorm(Call &c) -> Value {
  // norm(x, ord=None, axis=None, keepdims=False) as numpy/linalg/linalg.py computes it: vector
  // norms over one axis (inf, -inf, 0, 1, 2, any p), matrix norms over two ('fro', 1, -1,
  // inf, -inf, and from the singular values 2, -2, 'nuc').
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "x"));
  const Value ord = optional(a, 1, "ord");
  Value ax = optional(a, 2, "axis"), keep = optional(a, 3, "keepdims");
  std::optional<std::vector<int64_t>> axes = axesOf(ax);
  if (axes && axes->size() > 2) failAt("Improper number of dimensions to norm.", ax.pos);
  const bool keepdims = keepdimsOf(keep);
  std::optional<double> order;
  std::string named;
  if (ord.kind == Value::String) named = ord.text;
  else if (ord.kind != Value::None) order = numberArgument(ord, "ord");
  if (ord.kind == Value::None || ((is(named, "fro") || is(named, "f")) && !axes && x->rank() == 2) ||
      (order == 2.0 && !axes && x->rank() == 1))
    return c.node(ops::norm(*graph, x, axes, keepdims, mode));
  if (!isFloat(x->dtype)) x = graph->astype(x, DType::Float64);
  std::vector<int64_t> list;
  if (axes) {
    for (int64_t k : *axes) list.push_back(axisOf(Value::ofSize(Expr(k), ax.pos), x->rank()));
  } else {
    for (std::size_t i = 0; i < x->rank(); ++i) list.push_back(int64_t(i));
  }
  const Node *absx = graph->unary("abs", x);
  auto reduce = [&](const char *op, const Node *y, int64_t axis, bool keep) {
    return graph->reduce(op, y, std::vector<int64_t>{axis}, keep);
  };
  const double inf = std::numeric_limits<double>::infinity();
  if (list.size() == 1) {
    const int64_t k = list[0];
    if (!named.empty()) failAt("Invalid norm order '" + named + "' for vectors", ord.pos);
    if (*order == inf) return c.node(reduce("max", absx, k, keepdims));
    if (*order == -inf) return c.node(reduce("min", absx, k, keepdims));
    if (*order == 0)
      return c.node(reduce("sum", graph->astype(graph->binary("not_equal", x, graph->literal(0, DType::Int64), mode), x->dtype), k, keepdims));
    if (*order == 1) return c.node(reduce("sum", absx, k, keepdims));
    if (*order == 2) return c.node(ops::norm(*graph, x, std::vector<int64_t>{k}, keepdims, mode));
    // (sum |x|**p) ** (1/p), the reciprocal in the result's dtype.
    const Node *sum = reduce("sum", graph->binary("power", absx, graph->astype(graph->literal(*order, DType::Float64), x->dtype), mode), k, keepdims);
    return c.node(graph->binary("power", sum, graph->astype(graph->literal(1.0 / *order, DType::Float64), x->dtype), mode));
  }
  if (list.size() != 2) failAt("Improper number of dimensions to norm.", ax.kind == Value::None ? p : ax.pos);
  int64_t row = list[0], col = list[1];
  if (row == col) failAt("Duplicate axes given.", ax.pos);
  const Node *out = nullptr;
  if (is(named, "fro") || is(named, "f")) {
    out = ops::norm(*graph, x, std::vector<int64_t>{row, col}, false, mode);
  } else if (is(named, "nuc") || order == 2.0 || order == -2.0) {
    out = ops::singularValueNorm(*graph, x, row, col, is(named, "nuc") ? "sum" : *order > 0 ? "max" : "min");
  } else if (order == 1.0 || order == -1.0) {
    // The largest (smallest) column sum: summed over the rows, then over the columns.
    out = reduce(*order > 0 ? "max" : "min", reduce("sum", absx, row, false), col > row ? col - 1 : col, false);
  } else if (order == inf || order == -inf) {
    out = reduce(*order > 0 ? "max" : "min", reduce("sum", absx, col, false), row > col ? row - 1 : row, false);
  } else {
    failAt("Invalid norm order for matrices.", ord.pos);
  }
  if (keepdims) {
    Shape s = x->shape;
    s[std::size_t(row)] = Expr(1);
    s[std::size_t(col)] = Expr(1);
    out = graph->reshape(out, s);
  }
  return c.node(out);
}

auto Session::Impl::bindLinalgSquare(Call &c) -> Value {
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  if (is(fn, "linalg.slogdet")) {
    // (sign, logabsdet): sign(det(a)) and log|det(a)| (NumPy sums the logs of LU's pivots: the
    // two differ only where det itself overflows or underflows float64).
    const Node *det = graph->blockwise("det", {x}, mode);
    Value t;
    t.kind = Value::Tuple;
    t.pos = p;
    t.items = {c.node(graph->unary("sign", det)), c.node(graph->unary("log", graph->unary("abs", det)))};
    return t;
  }
  return c.node(graph->blockwise(fn.substr(7), {x}, mode));
}

auto Session::Impl::bindMatrixPower(Call &c) -> Value {
  // linalg.matrix_power(a, n): NumPy's binary decomposition of n (n < 0 inverts a first; n = 0
  // is the identity in a's batch shape), each product a matmul; a must be a stack of squares.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value &av = required(a, 0, "a");
  const Node *x = array(av);
  int64_t k = constant(required(a, 1, "n"), "n");
  if (x->rank() < 2)
    failAt(std::to_string(x->rank()) + "-dimensional array given. Array must be at least two-dimensional", av.pos);
  const Expr &rows = x->shape[x->rank() - 2], &cols = x->shape.back();
  x = graph->check(x, eq(rows, cols), "the last 2 dimensions are square", "Last 2 dimensions of the array must be square");
  if (k == 0) {
    const DType dt = ops::resultType({{x->dtype, false}, {DType::Int64, true}});
    return c.node(graph->broadcastTo(ops::eye(*graph, rows, cols, 0, dt, mode), x->shape));
  }
  if (k < 0) {
    x = graph->blockwise("inv", {x}, mode);
    k = -k;
  }
  if (k == 1) return c.node(x);
  const Node *z = nullptr, *result = nullptr;
  while (k > 0) {
    z = z ? graph->blockwise("matmul", {z, z}, mode) : x;
    const bool bit = k % 2 == 1;
    k /= 2;
    if (bit) result = result ? graph->blockwise("matmul", {result, z}, mode) : z;
  }
  return c.node(result);
}

auto Session::Impl::bindQr(Call &c) -> Value {
  // qr(a, mode='reduced'): (q, r), or r for mode='r'.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &modeArg = optional(a, 1, "mode");
  const std::string m = textOf(modeArg, "reduced", "mode");
  if (auto problem = ops::qrModeProblem(m)) failAt(*problem, modeArg.pos);
  return Value::ofResults(ops::qr(*graph, x, m), p);
}

auto Session::Impl::bindSvd(Call &c) -> Value {
  // svd(a, full_matrices=True, compute_uv=True, hermitian=False): (u, s, vh), or s.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const bool full = flagOf(optional(a, 1, "full_matrices"), true, "full_matrices");
  const bool uv = flagOf(optional(a, 2, "compute_uv"), true, "compute_uv");
  const bool hermitian = flagOf(optional(a, 3, "hermitian"), false, "hermitian");
  return Value::ofResults(ops::svd(*graph, x, full, uv, hermitian, mode), p);
}

auto Session::Impl::bindEigh(Call &c) -> Value {
  // eigh(a, UPLO='L'): (w, v); eigvalsh(a, UPLO='L'): w.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &uplo = optional(a, 1, "UPLO");
  const std::string triangle = textOf(uplo, "L", "UPLO");
  if (auto problem = ops::uploProblem(triangle)) failAt(*problem, uplo.pos);
  return Value::ofResults(ops::eigh(*graph, x, triangle, is(fn, "linalg.eigh")), p);
}

auto Session::Impl::bindPinv(Call &c) -> Value {
  // pinv(a, rcond=1e-15, hermitian=False).
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const Value &r = optional(a, 1, "rcond");
  const Node *rcond = r.kind == Value::None ? graph->literal(1e-15, DType::Float64) : array(r);
  return c.node(ops::pinv(*graph, x, rcond, flagOf(optional(a, 2, "hermitian"), false, "hermitian"), mode));
}

auto Session::Impl::bindLstsq(Call &c) -> Value {
  // lstsq(a, b, rcond='warn'): (x, residuals, rank, s). rcond None is eps * max(M, N); 'warn'
  // (the default, which NumPy warns about) and negative values are eps.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a")), *y = array(required(a, 1, "b"));
  const Value &r = optional(a, 2, "rcond");
  std::optional<double> rcond;
  if (!a.get(2, "rcond") || (r.kind == Value::String && r.text == "warn")) rcond = -1.0;
  else if (r.kind == Value::String) failAt("rcond must be a number, None or 'warn'", r.pos);
  else if (r.kind != Value::None) rcond = numberArgument(r, "rcond");
  return Value::ofNodes(ops::lstsq(*graph, x, y, rcond, mode), p);
}

auto Session::Impl::bindMatrixRank(Call &c) -> Value {
  // matrix_rank(A, tol=None, hermitian=False).
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "A"));
  const Value &tol = optional(a, 1, "tol");
  return c.node(ops::matrixRank(*graph, x, tol.kind == Value::None ? nullptr : array(tol),
                                flagOf(optional(a, 2, "hermitian"), false, "hermitian"), mode));
}

} // namespace shapelab::lang
