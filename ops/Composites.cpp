#include "ops/Composites.h"

#include <string>

namespace shapelab::ops {

namespace {

/// np.tri(N, M, k, dtype=bool) for m's last two axes: arange(N)[:, None] >= arange(-k, M - k)
/// (numpy.lib.twodim_base.tri), and the zeros(1, m.dtype) the result takes outside it.
struct Triangle {
  const Node *mask, *zeros;
};
Triangle triangle(Graph &g, const Node *m, const Expr &k, BroadcastMode mode, const char *fn) {
  if (m->rank() == 0) throw OpError(std::string(fn) + "() of a 0-d array (NumPy: tri() missing 1 required positional argument: 'N')");
  const Expr &cols = m->shape.back(), &rows = m->rank() == 1 ? cols : m->shape[m->rank() - 2];
  const Node *i = g.expandDims(g.arange(Expr(0), rows, 1, DType::Int64), {1});
  const Node *j = g.expandDims(g.arange(-k, cols - k, 1, DType::Int64), {0});
  return {g.binary("greater_equal", i, j, mode), g.full({Expr(1)}, g.literal(0, DType::Int64), m->dtype)};
}

} // namespace

const Node *tril(Graph &g, const Node *m, const Expr &k, BroadcastMode mode) {
  Triangle t = triangle(g, m, k, mode, "tril");
  return g.where(t.mask, m, t.zeros, mode);
}

const Node *triu(Graph &g, const Node *m, const Expr &k, BroadcastMode mode) {
  Triangle t = triangle(g, m, k - Expr(1), mode, "triu");
  return g.where(t.mask, t.zeros, m, mode);
}

const Node *roll(Graph &g, const Node *a, const std::vector<Expr> &shifts, const std::optional<std::vector<int64_t>> &axes,
                 BroadcastMode mode) {
  if (!axes) {
    // numpy.roll: roll(a.ravel(), shift, 0).reshape(a.shape); the shifts add.
    Expr total(0);
    for (const Expr &s : shifts) total = total + s;
    return g.reshape(roll(g, g.reshape(a, {Expr(-1)}), {total}, std::vector<int64_t>{0}, mode), a->shape);
  }
  const std::size_t count = std::max(shifts.size(), axes->size());
  if (shifts.empty() || axes->empty() || (shifts.size() != axes->size() && shifts.size() != 1 && axes->size() != 1))
    throw OpError("shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg 0 with shape (" +
                  std::to_string(shifts.size()) + ",) and arg 1 with shape (" + std::to_string(axes->size()) + ",).");
  // Per axis, the sum of its shifts (NumPy adds the shifts of an axis named twice).
  std::vector<std::optional<Expr>> by(a->rank());
  for (std::size_t q = 0; q < count; ++q) {
    int64_t axis = (*axes)[axes->size() == 1 ? 0 : q], r = int64_t(a->rank());
    if (axis < -r || axis >= r)
      throw OpError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " + std::to_string(a->rank()));
    std::optional<Expr> &s = by[std::size_t(axis < 0 ? axis + r : axis)];
    const Expr &shift = shifts[shifts.size() == 1 ? 0 : q];
    s = s ? *s + shift : shift;
  }
  const Node *out = a;
  for (std::size_t axis = 0; axis < a->rank(); ++axis) {
    if (!by[axis] || *by[axis] == Expr(0)) continue;
    // out[..., i, ...] = a[..., (i - s) mod L, ...]: a gather along the axis with indices in
    // [0, L) (the shift reduced mod L first, so no index leaves int64). L = 0 gathers nothing.
    const Expr &L = a->shape[axis];
    const Node *length = g.size(L);
    const Node *shift = g.binary("remainder", g.size(*by[axis]), length, mode);
    const Node *from = g.binary("remainder", g.binary("subtract", g.arange(Expr(0), L, 1, DType::Int64), shift, mode), length, mode);
    std::vector<IndexEntry> entries(a->rank());
    entries[axis].kind = IndexEntry::Array;
    out = g.index(out, entries, from);
  }
  return out; // (no shift: a itself, whose values a copy would have)
}

} // namespace shapelab::ops
