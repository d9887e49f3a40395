// Composites of np.linalg (ops/Composites.h): qr, svd, eigh and eigvalsh as the factorization
// outputs of Graph::blockwise, and pinv, lstsq, matrix_rank and the singular-value norms built
// over svd as numpy/linalg/linalg.py (NumPy 1.24) builds them.
#include <limits>

#include "ops/Composites.h"
#include "ops/GraphDetail.h"

namespace shapelab::ops {

namespace {
/// The last two axes exchanged (numpy.linalg's own `transpose`).
const Node *swapLast(Graph &g, const Node *x) { return swapaxes(g, x, -1, -2); }

/// x with a new axis at `axis` (negative counts from the end of the result).
const Node *newAxis(Graph &g, const Node *x, int64_t axis) { return g.expandDims(x, {axis}); }

const Node *floatOperand(Graph &g, const Node *a) { return isFloat(a->dtype) ? a : g.astype(a, DType::Float64); }

/// The machine epsilon of a float dtype, as a float64 literal.
const Node *epsilonOf(Graph &g, DType t) {
  return g.literal(t == DType::Float32 ? double(std::numeric_limits<float>::epsilon()) : std::numeric_limits<double>::epsilon(),
                   DType::Float64);
}

/// s[..., :1] broadcast to s's shape: the largest singular value of each matrix (svd's are in
/// descending order) beside each value, and nothing for an empty one, so the cutoffs below need
/// no reduction of a possibly empty axis.
const Node *largestOf(Graph &g, const Node *s) {
  std::vector<IndexEntry> entries(s->rank());
  entries.back().stop = Expr(1);
  return g.broadcastTo(g.index(s, entries), s->shape);
}

/// The size `e` as a 0-d array of the float dtype `t`.
const Node *sizeAs(Graph &g, const Expr &e, DType t) { return g.astype(g.size(e), t); }
} // namespace

std::optional<std::string> qrModeProblem(const std::string &mode) {
  if (mode == "raw") return "qr(): mode='raw' (LAPACK's Householder reflectors and tau) is not supported";
  if (mode != "reduced" && mode != "complete" && mode != "r") return "Unrecognized mode '" + mode + "'";
  return std::nullopt;
}

std::optional<std::string> uploProblem(const std::string &uplo) {
  if (uplo != "L" && uplo != "U" && uplo != "l" && uplo != "u") return "UPLO argument must be 'L' or 'U'";
  return std::nullopt;
}

std::vector<const Node *> qr(Graph &g, const Node *a, const std::string &mode) {
  if (auto problem = qrModeProblem(mode)) throw OpError(*problem);
  const std::string suffix = mode == "complete" ? "_complete" : "";
  const Node *r = g.blockwise("qr_r" + suffix, {a}, BroadcastMode::Numpy);
  if (mode == "r") return {r};
  return {g.blockwise("qr_q" + suffix, {a}, BroadcastMode::Numpy), r};
}

std::vector<const Node *> eigh(Graph &g, const Node *a, const std::string &uplo, bool vectors) {
  if (auto problem = uploProblem(uplo)) throw OpError(*problem);
  const std::string suffix = uplo == "U" || uplo == "u" ? "_upper" : "";
  const Node *w = g.blockwise("eigh_w" + suffix, {a}, BroadcastMode::Numpy);
  if (!vectors) return {w};
  return {w, g.blockwise("eigh_v" + suffix, {a}, BroadcastMode::Numpy)};
}

std::vector<const Node *> svd(Graph &g, const Node *a, bool full, bool computeUv, bool hermitian, BroadcastMode mode) {
  if (!hermitian) {
    const Node *s = g.blockwise("svd_s", {a}, BroadcastMode::Numpy);
    if (!computeUv) return {s};
    const std::string suffix = full ? "_full" : "";
    return {g.blockwise("svd_u" + suffix, {a}, BroadcastMode::Numpy), s, g.blockwise("svd_vh" + suffix, {a}, BroadcastMode::Numpy)};
  }
  // Hermitian (here: symmetric): from eigh, the singular values the eigenvalues' magnitudes in
  // descending order, their signs moved into vh (full_matrices does not apply).
  const std::vector<const Node *> wv = eigh(g, a, "L", computeUv);
  const Node *mag = g.unary("abs", wv[0]);
  if (!computeUv) return {flip(g, g.sort("sort", mag, -1), std::vector<int64_t>{-1})};
  const Node *order = flip(g, g.sort("argsort", mag, -1), std::vector<int64_t>{-1});
  auto along = [&](const Node *x, const Node *index) { return gather(g, x, alongAxis(g, x, index, -1)); };
  const Node *sign = along(g.unary("sign", wv[0]), order);
  const Node *s = along(mag, order);
  const Node *u = along(wv[1], newAxis(g, order, -2));
  const Node *vh = swapLast(g, g.binary("multiply", u, newAxis(g, sign, -2), mode));
  return {u, s, vh};
}

const Node *pinv(Graph &g, const Node *a, const Node *rcond, bool hermitian, BroadcastMode mode) {
  // u, s, vt = svd(a, full_matrices=False); the values above rcond * max(s) inverted, the others
  // 0; vt^T @ (s[..., None] * u^T). An empty stack's result is empty (NumPy returns early).
  a = floatOperand(g, a);
  const std::vector<const Node *> f = svd(g, a, false, true, hermitian, mode);
  const Node *u = f[0], *s = f[1], *vt = f[2];
  const Node *cutoff = g.binary("multiply", newAxis(g, rcond, -1), largestOf(g, s), mode);
  const Node *large = g.binary("greater", s, cutoff, mode);
  const Node *inverse = g.where(large, g.binary("true_divide", g.literal(1, DType::Int64), s, mode), g.literal(0, DType::Int64), mode);
  return g.blockwise("matmul", {swapLast(g, vt), g.binary("multiply", newAxis(g, inverse, -1), swapLast(g, u), mode)}, mode);
}

std::vector<const Node *> lstsq(Graph &g, const Node *a, const Node *b, std::optional<double> rcond, BroadcastMode mode) {
  for (const Node *x : {a, b})
    if (x->rank() != 2 && !(x == b && x->rank() == 1))
      throw OpError(std::to_string(x->rank()) + "-dimensional array given. Array must be two-dimensional");
  const bool vector = b->rank() == 1;
  const Node *b2 = vector ? newAxis(g, b, 1) : b;
  // Both float32 stay float32; anything else is float64 (NumPy's _commonType).
  const DType t = a->dtype == DType::Float32 && b->dtype == DType::Float32 ? DType::Float32 : DType::Float64;
  a = a->dtype == t ? a : g.astype(a, t);
  b2 = b2->dtype == t ? b2 : g.astype(b2, t);
  const Expr m = a->shape[0], n = a->shape[1];
  a = g.check(a, eq(m, b2->shape[0]), "a and b have as many rows ({0} and {1})", "Incompatible dimensions", {m, b2->shape[0]});
  const std::vector<const Node *> f = svd(g, a, false, true, false, mode);
  const Node *u = f[0], *s = f[1], *vt = f[2];
  // Singular values above rcond * max(s) count (rcond < 0: the dtype's epsilon; none: epsilon
  // times max(m, n)).
  const Node *relative = rcond ? (*rcond < 0 ? epsilonOf(g, t) : g.literal(*rcond, DType::Float64))
                               : g.binary("multiply", epsilonOf(g, t), sizeAs(g, max(m, n), DType::Float64), mode);
  const Node *large = g.binary("greater", s, g.astype(g.binary("multiply", relative, largestOf(g, s), mode), t), mode);
  const Node *rank = g.astype(g.reduce("sum", large, std::nullopt, false), DType::Int32);
  const Node *inverse = g.where(large, g.binary("true_divide", g.literal(1, DType::Int64), s, mode), g.literal(0, DType::Int64), mode);
  const Node *x = g.blockwise(
      "matmul", {swapLast(g, vt), g.binary("multiply", newAxis(g, inverse, -1), g.blockwise("matmul", {swapLast(g, u), b2}, mode), mode)}, mode);
  // Residuals: the squared norms of b - a x per column, where the rank is n and m > n; else none.
  const Node *r = g.binary("subtract", b2, g.blockwise("matmul", {a, x}, mode), mode);
  const Node *squares = g.reduce("sum", g.binary("multiply", r, r, mode), std::vector<int64_t>{0}, false);
  const Node *full = g.binary("logical_and", g.binary("equal", g.astype(rank, DType::Int64), g.size(n), mode),
                              g.binary("greater", g.size(m), g.size(n), mode), mode);
  std::vector<IndexEntry> entries(1);
  entries[0].kind = IndexEntry::Array;
  const Node *residuals = g.index(squares, entries, g.broadcastTo(full, squares->shape));
  return {vector ? g.reshape(x, {n}) : x, residuals, rank, s};
}

const Node *matrixRank(Graph &g, const Node *a, const Node *tol, bool hermitian, BroadcastMode mode) {
  if (a->rank() < 2) // int(not all(A == 0))
    return g.astype(g.unary("logical_not", g.reduce("all", g.binary("equal", a, g.literal(0, DType::Int64), mode), std::nullopt, false)),
                    DType::Int64);
  const Node *s = svd(g, a, true, false, hermitian, mode)[0];
  const Node *threshold =
      tol ? newAxis(g, tol, -1)
          : g.binary("multiply",
                     g.binary("multiply", g.reduce("max", s, std::vector<int64_t>{-1}, true),
                              sizeAs(g, max(a->shape[a->rank() - 2], a->shape.back()), DType::Float64), mode),
                     epsilonOf(g, s->dtype), mode);
  return g.reduce("sum", g.binary("greater", s, threshold, mode), std::vector<int64_t>{-1}, false);
}

const Node *singularValueNorm(Graph &g, const Node *x, int64_t row, int64_t col, const std::string &op) {
  // numpy's _multi_svd_norm: the two axes moved last, op (max, min or sum) of svd's values.
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < int64_t(x->rank()); ++i)
    if (i != row && i != col) perm.push_back(i);
  perm.push_back(row);
  perm.push_back(col);
  const Node *s = svd(g, g.transpose(floatOperand(g, x), perm), true, false, false, BroadcastMode::Numpy)[0];
  return g.reduce(op, s, std::vector<int64_t>{-1}, false);
}

} // namespace shapelab::ops
