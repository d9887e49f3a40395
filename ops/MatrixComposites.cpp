// Composites of matrices (ops/Composites.h): diagonals, trace, diag, kron, rot90, tensordot,
// built from gathers, scatters, transposes, reshapes and matmul as NumPy builds them.
#include <numeric>

#include "ops/Composites.h"
#include "ops/GraphDetail.h"

namespace shapelab::ops {

namespace {

/// The diagonal `offset` of an (rows, cols) pair of axes: its length and the positions of its
/// first element.
struct Diagonal {
  Expr length, row, col;
};
Diagonal diagonalOf(const Expr &rows, const Expr &cols, int64_t offset) {
  const Expr k(offset);
  if (offset == 0) return {min(rows, cols), Expr(0), Expr(0)}; // both sizes where a exists
  if (offset > 0) return {max(Expr(0), min(rows, cols - k)), Expr(0), k};
  return {max(Expr(0), min(rows + k, cols)), -k, Expr(0)};
}

IndexEntry arrayEntry() {
  IndexEntry e;
  e.kind = IndexEntry::Array;
  return e;
}

} // namespace

const Node *diagonal(Graph &g, const Node *a, int64_t offset, int64_t axis1, int64_t axis2) {
  if (a->rank() < 2) throw OpError("diag requires an array of at least two dimensions");
  const int64_t i = detail::normalizeAxis(axis1, a->rank()), j = detail::normalizeAxis(axis2, a->rank());
  if (i == j) throw OpError("axis1 and axis2 cannot be the same");
  // The two axes last (the others in order), then a[..., r0 + t, c0 + t] for t < length.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < int64_t(a->rank()); ++d)
    if (d != i && d != j) perm.push_back(d);
  perm.push_back(i);
  perm.push_back(j);
  const Node *moved = g.transpose(a, perm);
  const Diagonal d = diagonalOf(a->shape[std::size_t(i)], a->shape[std::size_t(j)], offset);
  const Node *t = g.arange(Expr(0), d.length, 1, DType::Int64);
  auto shifted = [&](const Expr &by) {
    return by == Expr(0) ? t : g.binary("add", t, g.size(by), BroadcastMode::Numpy);
  };
  Subscript s;
  s.entries = {IndexEntry{}, arrayEntry(), arrayEntry()};
  s.entries.front().step = 0; // `...`
  s.arrays = {shifted(d.row), shifted(d.col)};
  return gather(g, moved, s);
}

const Node *trace(Graph &g, const Node *a, int64_t offset, int64_t axis1, int64_t axis2) {
  return g.reduce("sum", diagonal(g, a, offset, axis1, axis2), std::vector<int64_t>{-1}, false);
}

const Node *diag(Graph &g, const Node *v, int64_t k, BroadcastMode mode) {
  if (v->rank() == 2) return diagonal(g, v, k, 0, 1);
  if (v->rank() != 1) throw OpError("Input must be 1- or 2-d.");
  // numpy.lib.twodim_base.diag: zeros((n, n)) with res[:n-k].flat[i::n+1] = v; as a scatter of
  // v to (t + r0, t + c0).
  const Expr n = v->shape[0] + Expr(k < 0 ? -k : k);
  const Node *zeros = g.full({n, n}, g.literal(0, v->dtype), v->dtype);
  const Node *t = g.arange(Expr(0), v->shape[0], 1, DType::Int64);
  auto shifted = [&](int64_t by) { return by == 0 ? t : g.binary("add", t, g.size(Expr(by)), BroadcastMode::Numpy); };
  Subscript s;
  s.entries = {arrayEntry(), arrayEntry()};
  s.arrays = {shifted(k < 0 ? -k : 0), shifted(k > 0 ? k : 0)};
  return scatter(g, zeros, s, v, "set_subtensor", mode);
}

const Node *kron(Graph &g, const Node *a, const Node *b, BroadcastMode mode) {
  const std::size_t r = std::max(a->rank(), b->rank());
  auto padded = [&](const Node *x) {
    if (x->rank() == r) return x;
    Shape s(r - x->rank(), Expr(1));
    s.insert(s.end(), x->shape.begin(), x->shape.end());
    return g.reshape(x, s);
  };
  const Node *pa = padded(a), *pb = padded(b);
  // (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...), then each pair merged.
  Shape sa, sb, out;
  for (std::size_t i = 0; i < r; ++i) {
    sa.insert(sa.end(), {pa->shape[i], Expr(1)});
    sb.insert(sb.end(), {Expr(1), pb->shape[i]});
    out.push_back(pa->shape[i] * pb->shape[i]);
  }
  const Node *product = g.binary("multiply", g.reshape(pa, sa), g.reshape(pb, sb), mode);
  return g.reshape(product, out);
}

const Node *rot90(Graph &g, const Node *m, int64_t k, int64_t axis0, int64_t axis1) {
  if (m->rank() < 2) throw OpError("Axes must be different.");
  const int64_t i = detail::normalizeAxis(axis0, m->rank()), j = detail::normalizeAxis(axis1, m->rank());
  if (i == j) throw OpError("Axes must be different.");
  k = ((k % 4) + 4) % 4;
  if (k == 0) return m;
  if (k == 2) return flip(g, flip(g, m, std::vector<int64_t>{i}), std::vector<int64_t>{j});
  std::vector<int64_t> perm(m->rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[std::size_t(i)], perm[std::size_t(j)]);
  if (k == 1) return g.transpose(flip(g, m, std::vector<int64_t>{j}), perm);
  return flip(g, g.transpose(m, perm), std::vector<int64_t>{j});
}

const Node *tensordot(Graph &g, const Node *a, const Node *b, const std::vector<int64_t> &axesA,
                      const std::vector<int64_t> &axesB, BroadcastMode mode) {
  if (axesA.size() != axesB.size()) throw OpError("shape-mismatch for sum");
  std::vector<int64_t> sa, sb;
  for (int64_t x : axesA) sa.push_back(detail::normalizeAxis(x, a->rank()));
  for (int64_t x : axesB) sb.push_back(detail::normalizeAxis(x, b->rank()));
  // Each summed pair of one length: b's summed dims specified as a's.
  std::vector<std::optional<Expr>> given(b->rank());
  for (std::size_t q = 0; q < sa.size(); ++q) given[std::size_t(sb[q])] = a->shape[std::size_t(sa[q])];
  const Node *checked = sa.empty() ? b : g.specifyShape(b, given);
  std::vector<int64_t> freeA, freeB, permA, permB;
  for (int64_t d = 0; d < int64_t(a->rank()); ++d)
    if (std::find(sa.begin(), sa.end(), d) == sa.end()) freeA.push_back(d);
  for (int64_t d = 0; d < int64_t(b->rank()); ++d)
    if (std::find(sb.begin(), sb.end(), d) == sb.end()) freeB.push_back(d);
  permA = freeA;
  permA.insert(permA.end(), sa.begin(), sa.end());
  permB = sb;
  permB.insert(permB.end(), freeB.begin(), freeB.end());
  Expr rowsA(1), summed(1), colsB(1);
  Shape out;
  for (int64_t d : freeA) rowsA = rowsA * a->shape[std::size_t(d)], out.push_back(a->shape[std::size_t(d)]);
  for (int64_t d : sa) summed = summed * a->shape[std::size_t(d)];
  for (int64_t d : freeB) colsB = colsB * b->shape[std::size_t(d)], out.push_back(b->shape[std::size_t(d)]);
  const Node *ma = g.reshape(g.transpose(a, permA), {rowsA, summed});
  const Node *mb = g.reshape(g.transpose(checked, permB), {summed, colsB});
  return g.reshape(g.blockwise("matmul", {ma, mb}, mode), out);
}

const Node *vander(Graph &g, const Node *x, const Expr &columns, bool increasing, BroadcastMode mode) {
  if (x->rank() != 1) throw OpError("x must be a one-dimensional array or sequence.");
  // numpy.vander: column 0 of the increasing matrix is 1, then x multiplied in column by column
  // (multiply.accumulate), in promote_types(x.dtype, int).
  const DType dt = resultType({{x->dtype, false}, {DType::Int64, false}});
  const Expr &n = x->shape[0];
  const Node *spread = g.broadcastTo(g.expandDims(g.astype(x, dt), {1}), {n, columns});
  const Node *first = g.expandDims(g.binary("equal", g.arange(Expr(0), columns, 1, DType::Int64), g.literal(0, DType::Int64), mode), {0});
  const Node *powers = g.cumulative("cumprod", g.where(first, g.astype(g.literal(1, DType::Int64), dt), spread, mode), 1);
  return increasing ? powers : flip(g, powers, std::vector<int64_t>{1});
}

} // namespace shapelab::ops
