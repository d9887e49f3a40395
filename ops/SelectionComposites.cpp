// Composites that select (ops/Composites.h): the positions of non-zero elements (nonzero,
// flatnonzero, argwhere, where(cond), compress, tri*_indices), unique, searchsorted and
// partition, as NumPy defines them (numpy/core/fromnumeric.py, numpy/lib/arraysetops.py,
// numpy/lib/twodim_base.py). A data-dependent length is the one fresh size of a boolean mask's
// selection (Graph::index): every array of one call is built from one selection, so all share it.
#include "ops/Composites.h"
#include "ops/GraphDetail.h"

namespace shapelab::ops {

namespace {

/// The flat positions where `mask` (a bool array) is true: arange(size)[mask.ravel()].
const Node *truePositions(Graph &g, const Node *mask) {
  const Node *flat = mask->rank() == 1 ? mask : g.reshape(mask, {Expr(-1)});
  std::vector<IndexEntry> entries(1);
  entries[0].kind = IndexEntry::Array;
  return g.index(g.arange(Expr(0), flat->shape[0], 1, DType::Int64), entries, flat);
}

const Node *truth(Graph &g, const Node *a) {
  return a->dtype == DType::Bool ? a : g.binary("not_equal", a, g.literal(0, DType::Int64), BroadcastMode::Numpy);
}

/// The coordinates of flat positions in an array of `shape` (C order): (pos // stride_i) % d_i.
std::vector<const Node *> unravel(Graph &g, const Node *pos, const Shape &shape) {
  std::vector<const Node *> out;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const Expr stride = detail::product(shape, i + 1);
    const Node *q = stride == Expr(1) ? pos : g.binary("floor_divide", pos, g.size(stride), BroadcastMode::Numpy);
    out.push_back(i == 0 ? q : g.binary("remainder", q, g.size(shape[i]), BroadcastMode::Numpy));
  }
  return out;
}

/// `x` with axis `axis` taken at the 1-d integer `index` (x[..., index, ...]).
const Node *alongAxis(Graph &g, const Node *x, std::size_t axis, const Node *index) {
  std::vector<IndexEntry> entries(axis + 1);
  entries[axis].kind = IndexEntry::Array;
  return g.index(x, entries, index);
}

} // namespace

std::vector<const Node *> nonzero(Graph &g, const Node *a) {
  // NumPy reads a 0-d array as 1-d (with a DeprecationWarning).
  const Node *x = a->rank() == 0 ? g.reshape(a, {Expr(1)}) : a;
  return unravel(g, truePositions(g, truth(g, x)), x->shape);
}

const Node *flatnonzero(Graph &g, const Node *a) { return truePositions(g, truth(g, a)); }

const Node *argwhere(Graph &g, const Node *a) {
  // NumPy: argwhere of a 0-d array is that of its 1-d view, without columns.
  if (a->rank() == 0) {
    std::vector<IndexEntry> entries(2);
    entries[1].stop = Expr(0);
    return g.index(argwhere(g, g.reshape(a, {Expr(1)})), entries);
  }
  return g.stack(nonzero(g, a), 1);
}

const Node *compress(Graph &g, const Node *condition, const Node *a, std::optional<int64_t> axis) {
  if (condition->rank() != 1) throw OpError("condition must be a 1-d array");
  const Node *x = axis ? a : g.reshape(a, {Expr(-1)});
  const std::size_t k = std::size_t(axis ? detail::normalizeAxis(*axis, a->rank()) : 0);
  // a.take(nonzero(condition), axis): a true entry past the axis is an index error.
  return alongAxis(g, x, k, truePositions(g, truth(g, condition)));
}

Unique unique(Graph &g, const Node *ar) {
  // numpy.unique (1.24, axis=None, equal_nan=True): the flattened array sorted (stably: the first
  // occurrence gives return_index), an element kept where it differs from the one before (NaNs
  // after the first equal to it).
  const Node *flat = g.reshape(ar, {Expr(-1)});
  const Expr N = flat->shape[0];
  const Node *perm = g.sort("argsort", flat, 0);
  const Node *s = alongAxis(g, flat, 0, perm);
  std::vector<IndexEntry> head(1), init(1);
  head[0].stop = Expr(1);
  init[0].stop = Expr(-1);
  const Node *prev = g.concatenate({g.index(s, head), g.index(s, init)}, 0); // s shifted right by one
  const BroadcastMode m = BroadcastMode::Numpy;
  const Node *differs = g.binary("not_equal", s, prev, m);
  if (isFloat(s->dtype))
    differs = g.binary("logical_and", differs,
                       g.unary("logical_not", g.binary("logical_and", g.unary("isnan", s), g.unary("isnan", prev), m)), m);
  const Node *first = g.binary("equal", g.arange(Expr(0), N, 1, DType::Int64), g.literal(0, DType::Int64), m);
  const Node *mask = g.binary("logical_or", first, differs, m);
  const Node *pos = truePositions(g, mask);
  Unique u;
  u.values = alongAxis(g, s, 0, pos);
  u.index = alongAxis(g, perm, 0, pos);
  // inverse[perm] = cumsum(mask) - 1: each element's place among the unique values.
  const Node *place = g.binary("subtract", g.cumulative("cumsum", g.astype(mask, DType::Int64), 0), g.literal(1, DType::Int64), m);
  Subscript byPerm;
  byPerm.entries.resize(1);
  byPerm.entries[0].kind = IndexEntry::Array;
  byPerm.arrays = {perm};
  u.inverse = scatter(g, g.full({N}, g.literal(0, DType::Int64), DType::Int64), byPerm, place, "set_subtensor", m);
  // counts = diff(concatenate(positions, [N])).
  u.counts = g.diff(g.concatenate({pos, g.reshape(g.size(N), {Expr(1)})}, 0), 1, 0);
  return u;
}

const Node *searchsorted(Graph &g, const Node *a, const Node *v, bool right, const Node *sorter) {
  if (a->rank() != 1) throw OpError("object too deep for desired array");
  const Node *sorted = sorter ? alongAxis(g, a, 0, sorter) : a;
  // A binary search per element of v (Graph::searchSorted), in NumPy's order (NaN last).
  return g.searchSorted(sorted, v, right);
}

const Node *partition(Graph &g, const std::string &op, const Node *a, const std::vector<Expr> &kth,
                      std::optional<int64_t> axis) {
  const Node *x = axis ? a : g.reshape(a, {Expr(-1)});
  if (x->rank() == 0) throw OpError("axis -1 is out of bounds for array of dimension 0");
  const std::size_t k = std::size_t(detail::normalizeAxis(axis.value_or(0), x->rank()));
  const Expr &L = x->shape[k];
  // NumPy checks kth only for an array with elements.
  std::vector<Pred> zero;
  for (const Expr &d : x->shape) zero.push_back(eq(d, 0));
  const Pred empty = Pred::disjunction(zero);
  for (const Expr &t : kth)
    x = g.check(x, Pred::conjunction({ge(t, -L), lt(t, L)}) || empty, "kth={0} is within the axis of length {1} (or the array is empty)",
                "kth(={0}) out of bounds ({1})", {t, L});
  // Sorted along the axis: a partition (NumPy's arrangement of the other elements is its own).
  return g.sort(op == "partition" ? "sort" : "argsort", x, int64_t(k));
}

std::vector<const Node *> triangleIndices(Graph &g, const Expr &n, const Expr &k, const Expr &m, bool upper) {
  // numpy.tril_indices: nonzero(tri(n, m, k)); triu_indices: nonzero(~tri(n, m, k - 1)).
  const Expr shift = upper ? k - Expr(1) : k;
  const Node *i = g.expandDims(g.arange(Expr(0), n, 1, DType::Int64), {1});
  const Node *j = g.expandDims(g.arange(-shift, m - shift, 1, DType::Int64), {0});
  const Node *tri = g.binary(upper ? "less" : "greater_equal", i, j, BroadcastMode::Numpy);
  return unravel(g, truePositions(g, g.broadcastTo(tri, {n, m})), {n, m});
}

} // namespace shapelab::ops
