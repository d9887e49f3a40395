#include "ops/Composites.h"

#include <string>

#include "ops/GraphDetail.h"

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

// ---------------------------------------------------------------------------------------------
// Layout.

const Node *flip(Graph &g, const Node *m, const std::optional<std::vector<int64_t>> &axes) {
  std::vector<IndexEntry> entries(m->rank());
  std::vector<bool> flipped(m->rank(), !axes);
  for (int64_t a : axes.value_or(std::vector<int64_t>{})) {
    const std::size_t k = std::size_t(detail::normalizeAxis(a, m->rank()));
    if (flipped[k]) throw OpError("repeated axis");
    flipped[k] = true;
  }
  for (std::size_t k = 0; k < entries.size(); ++k)
    if (flipped[k]) entries[k].step = -1;
  return g.index(m, entries);
}

namespace {
std::vector<int64_t> identityPermutation(std::size_t rank) {
  std::vector<int64_t> perm;
  for (int64_t k = 0; k < int64_t(rank); ++k) perm.push_back(k);
  return perm;
}
} // namespace

const Node *swapaxes(Graph &g, const Node *a, int64_t axis1, int64_t axis2) {
  const int64_t i = detail::normalizeAxis(axis1, a->rank()), j = detail::normalizeAxis(axis2, a->rank());
  std::vector<int64_t> perm = identityPermutation(a->rank());
  std::swap(perm[std::size_t(i)], perm[std::size_t(j)]);
  return g.transpose(a, perm);
}

const Node *moveaxis(Graph &g, const Node *a, int64_t source, int64_t destination) {
  const int64_t i = detail::normalizeAxis(source, a->rank()), j = detail::normalizeAxis(destination, a->rank());
  std::vector<int64_t> perm = identityPermutation(a->rank());
  perm.erase(perm.begin() + i);
  perm.insert(perm.begin() + j, i);
  return g.transpose(a, perm);
}

const Node *atleast(Graph &g, const Node *x, std::size_t rank) {
  if (x->rank() >= rank) return x;
  if (x->rank() == 0) return g.reshape(x, Shape(rank, Expr(1)));
  if (rank == 2) return g.expandDims(x, {0});
  return g.expandDims(x, x->rank() == 1 ? std::vector<int64_t>{0, -1} : std::vector<int64_t>{-1});
}

const Node *vstack(Graph &g, std::vector<const Node *> xs) {
  if (xs.empty()) throw OpError("need at least one array to concatenate");
  for (const Node *&x : xs) x = atleast(g, x, 2);
  return g.concatenate(xs, 0);
}

const Node *hstack(Graph &g, std::vector<const Node *> xs) {
  if (xs.empty()) throw OpError("need at least one array to concatenate");
  for (const Node *&x : xs) x = atleast(g, x, 1);
  return g.concatenate(xs, xs[0]->rank() == 1 ? 0 : 1);
}

namespace {
/// x with a 1 beside each axis counted more than once (before it for tile, after it for
/// repeat), broadcast to the count there, then merged with its axis. The counts must be sizes
/// (NumPy: negative dimensions are not allowed), which broadcast_to requires of its target.
const Node *repeatedAlong(Graph &g, const Node *x, const std::vector<Expr> &reps, bool before) {
  Shape spread, target, merged;
  for (std::size_t i = 0; i < x->rank(); ++i) {
    const bool counted = reps[i] != Expr(1);
    if (counted && before) spread.push_back(Expr(1)), target.push_back(reps[i]);
    spread.push_back(x->shape[i]);
    target.push_back(x->shape[i]);
    if (counted && !before) spread.push_back(Expr(1)), target.push_back(reps[i]);
    merged.push_back(counted ? x->shape[i] * reps[i] : x->shape[i]);
  }
  if (spread.size() == x->rank()) return x; // every count is 1
  return g.reshape(g.broadcastTo(g.reshape(x, spread), target), merged);
}
} // namespace

const Node *repeat(Graph &g, const Node *a, const Expr &count, std::optional<int64_t> axis) {
  if (!axis) a = g.reshape(a, {Expr(-1)});
  std::vector<Expr> reps(a->rank(), Expr(1));
  reps[std::size_t(axis ? detail::normalizeAxis(*axis, a->rank()) : 0)] = count;
  return repeatedAlong(g, a, reps, false);
}

const Node *repeat(Graph &g, const Node *a, const Node *counts, std::optional<int64_t> axis) {
  if (!axis) a = g.reshape(a, {Expr(-1)});
  const std::size_t k = std::size_t(axis ? detail::normalizeAxis(*axis, a->rank()) : 0);
  std::vector<IndexEntry> entries(k + 1);
  entries[k].kind = IndexEntry::Array;
  return g.index(a, entries, g.repeatIndex(counts, a->shape[k]));
}

const Node *repeat(Graph &g, const Node *a, const std::vector<Expr> &counts, std::optional<int64_t> axis) {
  if (counts.size() == 1) return repeat(g, a, counts[0], axis); // NumPy broadcasts one count
  if (!axis) a = g.reshape(a, {Expr(-1)});
  const std::size_t k = std::size_t(axis ? detail::normalizeAxis(*axis, a->rank()) : 0);
  const Expr L = a->shape[k], given(int64_t(counts.size()));
  a = g.check(a, eq(L, given), "the axis of length {0} has one count each ({1})",
              "operands could not be broadcast together with shape ({0},) ({1},)", {L, given});
  Shape known = a->shape; // where the check holds: the slices below have exact lengths
  known[k] = given;
  a = g.reshape(a, known);
  std::vector<const Node *> parts;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::vector<IndexEntry> entries(k + 1);
    entries[k].start = Expr(int64_t(i));
    entries[k].stop = Expr(int64_t(i + 1));
    const Node *one = g.check(g.index(a, entries), ge(counts[i], 0), "the count {0} is not negative",
                              "repeats may not contain negative values.", {counts[i]});
    parts.push_back(repeat(g, one, counts[i], int64_t(k)));
  }
  return g.concatenate(parts, int64_t(k));
}

const Node *tile(Graph &g, const Node *a, const std::vector<Expr> &given) {
  while (a->rank() < given.size()) a = g.expandDims(a, {0});
  std::vector<Expr> reps(a->rank() - given.size(), Expr(1));
  reps.insert(reps.end(), given.begin(), given.end());
  return repeatedAlong(g, a, reps, true);
}

const Node *padCopying(Graph &g, const Node *x, const std::vector<std::pair<Expr, Expr>> &widths, const std::string &mode) {
  const Node *out = x;
  for (std::size_t axis = 0; axis < x->rank(); ++axis) {
    const auto &[before, after] = widths[axis];
    if (before == Expr(0) && after == Expr(0)) continue;
    // The positions of x each padded position copies (NumPy's own filling: Graph::padIndex).
    std::vector<IndexEntry> entries(axis + 1);
    entries[axis].kind = IndexEntry::Array;
    out = g.index(out, entries, g.padIndex(mode, x->shape[axis], before, after, int64_t(axis)));
  }
  return out;
}

const Node *slidingWindowView(Graph &g, const Node *x, const std::vector<Expr> &windows, const std::vector<int64_t> &axes) {
  const BroadcastMode m = BroadcastMode::Numpy;
  const Node *out = x;
  std::vector<std::size_t> normalized;
  for (int64_t a : axes) normalized.push_back(std::size_t(detail::normalizeAxis(a, x->rank())));
  for (const Expr &w : windows)
    out = g.check(out, ge(w, 0), "the window {0} is not negative", "`window_shape` cannot contain negative values", {w});
  Shape left = x->shape;
  for (std::size_t q = 0; q < windows.size(); ++q) {
    const std::size_t axis = normalized[q];
    out = g.check(out, ge(left[axis], windows[q]), "the window {0} fits in what is left of axis {1} ({2})",
                  "window shape cannot be larger than input array shape", {windows[q], Expr(int64_t(axis)), left[axis]});
    left[axis] = left[axis] - windows[q] + Expr(1);
  }
  for (std::size_t q = 0; q < windows.size(); ++q) {
    const std::size_t axis = normalized[q];
    const Expr &L = out->shape[axis], &w = windows[q];
    // Position t of window s reads s + t: the axis becomes (L - w + 1, w); the w moves last.
    const Node *starts = g.expandDims(g.arange(Expr(0), L - w + Expr(1), 1, DType::Int64), {1});
    const Node *offsets = g.expandDims(g.arange(Expr(0), w, 1, DType::Int64), {0});
    std::vector<IndexEntry> entries(axis + 1);
    entries[axis].kind = IndexEntry::Array;
    out = g.index(out, entries, g.binary("add", starts, offsets, m));
    out = moveaxis(g, out, int64_t(axis) + 1, -1);
  }
  return out;
}

std::vector<const Node *> indices(Graph &g, const Shape &dimensions, DType dtype, bool sparse) {
  std::vector<const Node *> along;
  for (std::size_t i = 0; i < dimensions.size(); ++i) {
    Shape s(dimensions.size(), Expr(1));
    s[i] = dimensions[i];
    const Node *a = g.reshape(g.astype(g.arange(Expr(0), dimensions[i], 1, DType::Int64), dtype), s);
    along.push_back(sparse ? a : g.broadcastTo(a, dimensions));
  }
  if (sparse) return along;
  if (along.empty()) return {g.full({Expr(0)}, g.literal(0, DType::Int64), dtype)};
  return {g.stack(along, 0)};
}

std::vector<const Node *> broadcastArrays(Graph &g, const std::vector<const Node *> &xs, BroadcastMode mode) {
  if (xs.empty()) return {};
  // The shape of all: that of a where() over them (whose validity each result carries).
  const Node *all = xs[0];
  for (std::size_t i = 1; i < xs.size(); ++i) all = g.where(g.literal(1, DType::Bool), all, xs[i], mode);
  std::vector<const Node *> out;
  for (const Node *x : xs) out.push_back(g.after({all}, g.broadcastTo(x, all->shape)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sources.

const Node *eye(Graph &g, const Expr &rows, const Expr &cols, int64_t k, DType dtype, BroadcastMode mode) {
  // Row i holds its 1 in column i + k: arange(N)[:, None] + k == arange(M)[None, :], as dtype,
  // of shape (N, M) (which refuses a negative N or M, as NumPy does).
  const Node *i = g.reshape(g.arange(Expr(0), rows, 1, DType::Int64), {Expr(-1), Expr(1)});
  const Node *j = g.reshape(g.arange(Expr(0), cols, 1, DType::Int64), {Expr(1), Expr(-1)});
  const Node *shifted = k == 0 ? i : g.binary("add", i, g.literal(double(k), DType::Int64), mode);
  const Node *ones = g.astype(g.binary("equal", shifted, j, mode), dtype);
  return g.broadcastTo(ones, {rows, cols});
}

// ---------------------------------------------------------------------------------------------
// Reductions.

const Node *variance(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                     const Expr &ddof, BroadcastMode mode) {
  const Node *mean = g.reduce("mean", a, axes, true);
  const Node *deviation = g.binary("subtract", a, mean, mode);
  const Node *squares = g.binary("multiply", deviation, deviation, mode);
  // The count of the reduced elements (the mean's axes, normalised), less ddof, as a Python
  // int would divide (weak).
  Expr count(1);
  for (int64_t k : mean->attr<attr::Reduction>().axes) count = count * a->shape[std::size_t(k)];
  const Node *divisor = g.size(ddof.constantValue() == Integer(0) ? count : max({count - ddof, Expr(0)}));
  return g.binary("true_divide", g.reduce("sum", squares, axes, keepdims), divisor, mode);
}

const Node *standardDeviation(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                              const Expr &ddof, BroadcastMode mode) {
  return g.unary("sqrt", variance(g, a, axes, keepdims, ddof, mode));
}

const Node *ptp(Graph &g, const Node *a, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                BroadcastMode mode) {
  return g.binary("subtract", g.reduce("max", a, axes, keepdims), g.reduce("min", a, axes, keepdims), mode);
}

const Node *reduceWhere(Graph &g, const std::string &op, const Node *x, const std::optional<std::vector<int64_t>> &axes,
                        bool keepdims, const Node *where, const Node *initial, BroadcastMode mode) {
  const bool extremum = op == "max" || op == "min";
  if (!where && !initial) return g.reduce(op, x, axes, keepdims);
  if (where && where->dtype != DType::Bool)
    throw OpError("Cannot cast array data from dtype('" + std::string(spelling(where->dtype)) + "') to dtype('bool') according to the rule 'safe'");
  if (initial && initial->rank() != 0) throw OpError("initial must be a number (a 0-d value)");
  if (extremum && where && !initial)
    throw OpError(std::string("reduction operation '") + (op == "max" ? "maximum" : "minimum") +
                  "' does not have an identity, so to use a where mask one has to specify 'initial'");
  if (initial && (op == "mean" || op == "all" || op == "any"))
    throw OpError(op + "() got an unexpected keyword argument 'initial'");
  // The reduced axes, as reduce() normalises them.
  std::vector<int64_t> list;
  if (!axes) {
    for (std::size_t i = 0; i < x->rank(); ++i) list.push_back(int64_t(i));
  } else {
    for (int64_t a : *axes) list.push_back(detail::normalizeAxis(a, x->rank()));
  }
  const Node *mask = where ? g.broadcastTo(where, x->shape) : nullptr; // one way, as NumPy's where=
  // The result's dtype as the plain reduction gives it; initial is cast to it (as NumPy casts).
  // (Written here: a reduce node built to read its dtype would count as computed by the statement.)
  const DType result = op == "all" || op == "any"                      ? DType::Bool
                       : extremum || isFloat(x->dtype)                 ? x->dtype
                                                                       : DType::Int64;
  const Node *init = initial ? g.astype(initial, result) : nullptr; // (mean takes no initial)
  if (extremum) {
    // Masked elements read as initial, and a slab of initial joined to each reduced axis: the
    // result is initial's where nothing is selected (an empty axis included).
    const Node *y = mask ? g.where(mask, x, init, mode) : x;
    if (init)
      for (int64_t k : list) {
        Shape slab = y->shape;
        slab[std::size_t(k)] = Expr(1);
        y = g.concatenate({y, g.full(slab, init, y->dtype)}, k);
      }
    return g.reduce(op, y, axes, keepdims);
  }
  if (op == "mean") {
    // sum over the selected elements / their count (NumPy's _mean with where=).
    const DType acc = isFloat(x->dtype) ? x->dtype : DType::Float64;
    const Node *selected = g.where(mask, g.astype(x, acc), g.literal(0, DType::Int64), mode);
    const Node *count = g.reduce("sum", g.astype(mask, DType::Int64), axes, keepdims);
    const Node *mean = g.binary("true_divide", g.reduce("sum", selected, axes, keepdims), count, mode);
    return mean->dtype == acc ? mean : g.astype(mean, acc);
  }
  // sum, prod, all, any: masked elements read as the identity.
  const double identity = op == "prod" || op == "all" ? 1 : 0;
  const Node *y = mask ? g.where(mask, x, g.literal(identity, op == "all" || op == "any" ? DType::Bool : DType::Int64), mode) : x;
  const Node *r = g.reduce(op, y, axes, keepdims);
  if (init) r = g.binary(op == "sum" ? "add" : "multiply", init, r, mode);
  return r->dtype == result ? r : g.astype(r, result);
}

const Node *norm(Graph &g, const Node *x, const std::optional<std::vector<int64_t>> &axes, bool keepdims,
                 BroadcastMode mode) {
  if (axes && axes->size() > 2) throw OpError("Improper number of dimensions to norm.");
  if (!isFloat(x->dtype)) x = g.astype(x, DType::Float64);
  const Node *squares = g.binary("multiply", x, x, mode);
  return g.unary("sqrt", g.reduce("sum", squares, axes, keepdims));
}

const Node *dot(Graph &g, const Node *a, const Node *b, BroadcastMode mode) {
  // NumPy's dot is matmul where both have at most two dimensions or b has one (and for a 1-d
  // a); a 0-d operand multiplies. A stack times a stack is a tensor product NumPy computes
  // differently: refused.
  if (a->rank() == 0 || b->rank() == 0) return g.binary("multiply", a, b, mode);
  if (a->rank() > 2 && b->rank() >= 2)
    throw OpError("dot of a " + std::to_string(a->rank()) + "-d and a " + std::to_string(b->rank()) +
                  "-d array (a sum over a's last and b's second-to-last axis, not a stack) is not supported; matmul stacks");
  return g.blockwise("matmul", {a, b}, mode);
}

} // namespace shapelab::ops
