// The library's functions that select and the grids and windows: nonzero and its kin, unique,
// searchsorted, partition, the triangle indices, vander, logspace, indices, broadcast_arrays
// and sliding_window_view, bound by their rows of ops/Functions.def and built by the
// composites of ops/Composites.h.
#include "lang/SessionImpl.h"
#include "ops/Composites.h"

namespace shapelab::lang {

auto Session::Impl::sizesOf(const Value &v, const char *what) -> std::vector<Expr> {
  if (v.kind != Value::Tuple) return {sizeOf(v, what)};
  std::vector<Expr> out;
  for (const Value &t : v.items) out.push_back(sizeOf(t, what));
  return out;
}

auto Session::Impl::flagOf(const Value &v, bool absent, const char *what) -> bool {
  if (v.kind == Value::None) return absent;
  if (v.kind == Value::Bool) return v.flag;
  if (v.kind == Value::Size && v.size.isConstant()) return !(v.size == Expr(0));
  failAt(std::string(what) + " must be True or False, not " + kindName(v), v.pos);
}

auto Session::Impl::bindNonzero(Call &c) -> Value {
  // nonzero(a), flatnonzero(a), argwhere(a), and where(condition) with one argument.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, is(fn, "where") ? "condition" : "a"));
  try {
    if (is(fn, "flatnonzero")) return c.node(ops::flatnonzero(*graph, x));
    if (is(fn, "argwhere")) return c.node(ops::argwhere(*graph, x));
    return Value::ofNodes(ops::nonzero(*graph, x), p);
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::bindCompress(Call &c) -> Value {
  // compress(condition, a, axis=None, out=None)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value &cond = required(a, 0, "condition");
  const Node *x = array(required(a, 1, "a"));
  const Value ax = optional(a, 2, "axis"), out = optional(a, 3, "out");
  if (out.kind != Value::None) failAt("compress(): out is not supported", out.pos);
  const std::optional<int64_t> axis = ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(axisOf(ax, x->rank()));
  try {
    return c.node(ops::compress(*graph, array(cond), x, axis));
  } catch (const UserError &e) {
    failAt(e.what(), cond.pos);
  }
}

auto Session::Impl::bindUnique(Call &c) -> Value {
  // unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
  // equal_nan=True): the values, then each array asked for, in that order.
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "ar"));
  const bool index = flagOf(optional(a, 1, "return_index"), false, "return_index");
  const bool inverse = flagOf(optional(a, 2, "return_inverse"), false, "return_inverse");
  const bool counts = flagOf(optional(a, 3, "return_counts"), false, "return_counts");
  if (const Value ax = optional(a, 4, "axis"); ax.kind != Value::None)
    failAt("unique(): axis is not supported (the flattened array's unique values are)", ax.pos);
  if (const Value *eq = a.get(SIZE_MAX, "equal_nan"); eq && !flagOf(*eq, true, "equal_nan"))
    failAt("unique(): equal_nan=False is not supported", eq->pos);
  const ops::Unique u = ops::unique(*graph, x);
  if (!index && !inverse && !counts) return c.node(u.values);
  std::vector<const Node *> parts = {u.values};
  if (index) parts.push_back(u.index);
  if (inverse) parts.push_back(u.inverse);
  if (counts) parts.push_back(u.counts);
  return Value::ofNodes(parts, p);
}

auto Session::Impl::bindSearchsorted(Call &c) -> Value {
  // searchsorted(a, v, side='left', sorter=None)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value &av = required(a, 0, "a");
  const Node *x = array(av), *v = array(required(a, 1, "v"));
  const Value side = optional(a, 2, "side"), sorter = optional(a, 3, "sorter");
  bool right = false;
  if (side.kind != Value::None) {
    if (side.kind != Value::String || !(is(side.text, "left") || is(side.text, "right")))
      failAt("side must be 'left' or 'right' (got " + (side.kind == Value::String ? "'" + side.text + "'" : std::string(kindName(side))) + ")", side.pos);
    right = is(side.text, "right");
  }
  try {
    return c.node(ops::searchsorted(*graph, x, v, right, sorter.kind == Value::None ? nullptr : array(sorter)));
  } catch (const UserError &e) {
    failAt(e.what(), av.pos);
  }
}

auto Session::Impl::bindPartition(Call &c) -> Value {
  // partition(a, kth, axis=-1, kind='introselect', order=None), argpartition(...)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "a"));
  const std::vector<Expr> kth = sizesOf(required(a, 1, "kth"), "kth");
  const Value ax = optional(a, 2, "axis"), kind = optional(a, 3, "kind"), order = optional(a, 4, "order");
  if (kind.kind != Value::None && !(kind.kind == Value::String && is(kind.text, "introselect")))
    failAt("select kind must be 'introselect' (got " + (kind.kind == Value::String ? "'" + kind.text + "'" : std::string(kindName(kind))) + ")", kind.pos);
  if (order.kind != Value::None) failAt(fn + "(): order applies to structured arrays, which shapelab does not have", order.pos);
  std::optional<int64_t> axis = -1;
  if (a.get(2, "axis")) axis = ax.kind == Value::None ? std::nullopt : std::optional<int64_t>(axisOf(ax, x->rank()));
  // (A 0-d a with the default axis: ops::partition's AxisError, at the call.)
  try {
    return c.node(ops::partition(*graph, fn, x, kth, axis));
  } catch (const UserError &e) {
    failAt(e.what(), p);
  }
}

auto Session::Impl::bindTriangleIndices(Call &c) -> Value {
  // tril_indices(n, k=0, m=None), triu_indices(n, k=0, m=None)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Expr n = sizeOf(required(a, 0, "n"), "n");
  const Value k = optional(a, 1, "k"), m = optional(a, 2, "m");
  const Expr diagonal = k.kind == Value::None ? Expr(0) : sizeOf(k, "k");
  const Expr cols = m.kind == Value::None ? n : sizeOf(m, "m");
  return Value::ofNodes(ops::triangleIndices(*graph, n, diagonal, cols, is(fn, "triu_indices")), p);
}

auto Session::Impl::bindVander(Call &c) -> Value {
  // vander(x, N=None, increasing=False)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value &xv = required(a, 0, "x");
  const Node *x = array(xv);
  const Value N = optional(a, 1, "N");
  const bool increasing = flagOf(optional(a, 2, "increasing"), false, "increasing");
  if (x->rank() != 1) failAt("x must be a one-dimensional array or sequence.", xv.pos);
  const Expr columns = N.kind == Value::None ? x->shape[0] : sizeOf(N, "N");
  if (auto v = columns.constantValue(); v && *v < Integer(0)) failAt("negative dimensions are not allowed", N.pos);
  return c.node(ops::vander(*graph, x, columns, increasing, mode));
}

auto Session::Impl::bindLogspace(Call &c) -> Value {
  // logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Value num = optional(a, 2, "num"), base = optional(a, 4, "base"), dt = optional(a, 5, "dtype"), axis = optional(a, 6, "axis");
  if (axis.kind != Value::None && !(axis.kind == Value::Size && axis.size == Expr(0)))
    failAt("logspace(): shapelab takes 0-d start and stop, so axis is 0", axis.pos);
  const Expr count = num.kind == Value::None ? Expr(50) : sizeOf(num, "num");
  if (auto k = count.constantValue(); k && *k < Integer(0))
    failAt("Number of samples, " + count.toString() + ", must be non-negative.", num.pos);
  const bool withEnd = flagOf(optional(a, 3, "endpoint"), true, "endpoint");
  const Node *start = array(required(a, 0, "start")), *stop = array(required(a, 1, "stop"));
  if (start->rank() != 0 || stop->rank() != 0) failAt("logspace(): shapelab takes a number (or 0-d array) for start and stop", p);
  const Node *b = base.kind == Value::None ? graph->literal(10.0, DType::Float64) : array(base);
  if (b->rank() != 0) failAt("logspace(): shapelab takes a number for base", base.pos);
  return c.node(ops::logspace(*graph, start, stop, count, withEnd, b, dt.kind == Value::None ? std::nullopt : std::optional(dtypeOf(dt)), mode));
}

auto Session::Impl::bindIndices(Call &c) -> Value {
  // indices(dimensions, dtype=int, sparse=False)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Shape dims = shapeOf(required(a, 0, "dimensions"), "dimensions");
  const Value dt = optional(a, 1, "dtype");
  const bool sparse = flagOf(optional(a, 2, "sparse"), false, "sparse");
  const std::vector<const Node *> out = ops::indices(*graph, dims, dt.kind == Value::None ? DType::Int64 : dtypeOf(dt), sparse);
  return sparse ? Value::ofNodes(out, p) : c.node(out[0]);
}

auto Session::Impl::bindBroadcastArrays(Call &c) -> Value {
  // broadcast_arrays(*args, subok=False)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  std::vector<const Node *> xs;
  for (const Value &v : a.positional) xs.push_back(array(v));
  return Value::ofNodes(ops::broadcastArrays(*graph, xs, mode), p);
}

auto Session::Impl::bindSlidingWindow(Call &c) -> Value {
  // lib.stride_tricks.sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False)
  [[maybe_unused]] auto &[fn, a, p, f] = c;
  checkArguments(a);
  const Node *x = array(required(a, 0, "x"));
  const Value &w = required(a, 1, "window_shape");
  const Value ax = optional(a, 2, "axis");
  const std::vector<Expr> windows = sizesOf(w, "a window size");
  if (const Value *wr = a.get(SIZE_MAX, "writeable"); wr && flagOf(*wr, false, "writeable"))
    failAt("sliding_window_view(): writeable=True is not supported (shapelab's arrays are values)", wr->pos);
  std::vector<int64_t> axes;
  if (ax.kind == Value::None) {
    if (windows.size() != x->rank())
      failAt("Since axis is `None`, must provide window_shape for all dimensions of `x`; got " + std::to_string(windows.size()) +
                 " window_shape elements and `x.ndim` is " + std::to_string(x->rank()) + ".", w.pos);
    for (std::size_t i = 0; i < x->rank(); ++i) axes.push_back(int64_t(i));
  } else {
    if (ax.kind == Value::Tuple) {
      for (const Value &t : ax.items) axes.push_back(axisOf(t, x->rank()));
    } else {
      axes.push_back(axisOf(ax, x->rank()));
    }
    if (axes.size() != windows.size())
      failAt("Must provide matching length window_shape and axis; got " + std::to_string(windows.size()) +
                 " window_shape elements and " + std::to_string(axes.size()) + " axes elements.", ax.pos);
  }
  return c.node(ops::slidingWindowView(*graph, x, windows, axes));
}

} // namespace shapelab::lang
