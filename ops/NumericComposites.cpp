// Composites of numbers (ops/Composites.h): linspace, meshgrid, isclose, nan_to_num and the
// modes of convolve and correlate, with NumPy's arithmetic (numpy/core/function_base.py,
// numpy/core/numeric.py, numpy/lib/type_check.py).
#include <limits>

#include "ops/Composites.h"
#include "ops/GraphDetail.h"

namespace shapelab::ops {

const Node *linspace(Graph &g, const Node *start, const Node *stop, const Expr &num, bool endpoint, DType dtype,
                     BroadcastMode mode) {
  if (start->rank() != 0 || stop->rank() != 0)
    throw OpError("linspace: shapelab takes a number (or 0-d array) for start and stop");
  const Expr div = endpoint ? num - Expr(1) : num;
  // y = arange(num) * step + start, step = (stop - start) / div; where div is 0, y * delta.
  const Node *f64start = g.astype(start, DType::Float64), *f64stop = g.astype(stop, DType::Float64);
  const Node *delta = g.binary("subtract", f64stop, f64start, mode);
  const Node *i = g.astype(g.arange(Expr(0), num, 1, DType::Int64), DType::Float64);
  const Node *divisor = g.astype(g.size(max(div, Expr(1))), DType::Float64);
  const Node *step = g.binary("true_divide", delta, divisor, mode);
  const Node *some = g.binary("greater", g.size(div), g.literal(0, DType::Int64), mode);
  const Node *y = g.where(some, g.binary("multiply", i, step, mode), g.binary("multiply", i, delta, mode), mode);
  y = g.binary("add", y, f64start, mode);
  if (endpoint) {
    // y[-1] = stop where num > 1.
    const Node *last = g.binary("logical_and", g.binary("equal", g.arange(Expr(0), num, 1, DType::Int64), g.size(num - Expr(1)), mode),
                                g.binary("greater", g.size(num), g.literal(1, DType::Int64), mode), mode);
    y = g.where(last, f64stop, y, mode);
  }
  if (isInteger(dtype)) y = g.unary("floor", y);
  return y->dtype == dtype ? y : g.astype(y, dtype);
}

const Node *logspace(Graph &g, const Node *start, const Node *stop, const Expr &num, bool endpoint, const Node *base,
                     std::optional<DType> dtype, BroadcastMode mode) {
  const DType linear = resultType({{start->dtype, start->weak}, {stop->dtype, stop->weak}, {DType::Float64, true}});
  const Node *y = g.binary("power", base, linspace(g, start, stop, num, endpoint, linear, mode), mode);
  return !dtype || y->dtype == *dtype ? y : g.astype(y, *dtype);
}

std::vector<const Node *> meshgrid(Graph &g, const std::vector<const Node *> &xs, bool cartesian) {
  const std::size_t r = xs.size();
  Shape grid;
  std::vector<const Node *> flat;
  for (const Node *x : xs) {
    flat.push_back(x->rank() == 1 ? x : g.reshape(x, {Expr(-1)}));
    grid.push_back(flat.back()->shape[0]);
  }
  // Cartesian: the first two axes swap (x along columns, y along rows).
  auto axisOf = [&](std::size_t k) -> std::size_t {
    if (!cartesian || r < 2 || k > 1) return k;
    return 1 - k;
  };
  Shape out(r, Expr(1));
  for (std::size_t k = 0; k < r; ++k) out[axisOf(k)] = grid[k];
  std::vector<const Node *> result;
  for (std::size_t k = 0; k < r; ++k) {
    Shape along(r, Expr(1));
    along[axisOf(k)] = grid[k];
    result.push_back(g.broadcastTo(g.reshape(flat[k], along), out));
  }
  return result;
}

const Node *isclose(Graph &g, const Node *a, const Node *b, double rtol, double atol, bool equalNan, BroadcastMode mode) {
  // y = asanyarray(b, dtype=result_type(b, 1.0)).
  const DType yt = resultType({{b->dtype, false}, {DType::Float64, true}});
  const Node *y = b->dtype == yt ? b : g.astype(b, yt);
  const Node *finite = g.binary("logical_and", g.unary("isfinite", a), g.unary("isfinite", y), mode);
  const Node *tolerance = g.binary("add", g.literal(atol, DType::Float64),
                                   g.binary("multiply", g.literal(rtol, DType::Float64), g.unary("abs", y), mode), mode);
  const Node *within = g.binary("less_equal", g.unary("abs", g.binary("subtract", a, y, mode)), tolerance, mode);
  const Node *close = g.where(finite, within, g.binary("equal", a, y, mode), mode);
  if (!equalNan) return close;
  const Node *bothNan = g.binary("logical_and", g.unary("isnan", a), g.unary("isnan", y), mode);
  return g.binary("logical_or", close, bothNan, mode);
}

const Node *round(Graph &g, const Node *a, int64_t decimals, BroadcastMode mode) {
  if (a->dtype == DType::Bool)
    throw OpError("round of a bool array is float16 in NumPy, a dtype shapelab does not have; use astype first");
  if (!isFloat(a->dtype)) {
    if (decimals >= 0) return a;
    throw OpError("round of integers to negative decimals is not supported; use astype(float64) first");
  }
  if (decimals == 0) return g.unary("rint", a);
  // NumPy's power_of_ten: 10.0 multiplied |decimals| times (exact up to 10**22).
  double factor = 1.0;
  for (int64_t k = 0; k < (decimals < 0 ? -decimals : decimals); ++k) factor *= 10.0;
  const Node *f = g.literal(factor, DType::Float64);
  if (decimals > 0) return g.binary("true_divide", g.unary("rint", g.binary("multiply", a, f, mode)), f, mode);
  return g.binary("multiply", g.unary("rint", g.binary("true_divide", a, f, mode)), f, mode);
}

const Node *nanToNum(Graph &g, const Node *x, double nan, std::optional<double> posinf, std::optional<double> neginf,
                     BroadcastMode mode) {
  if (!isFloat(x->dtype)) return x;
  const bool single = x->dtype == DType::Float32;
  const double largest = single ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
  auto value = [&](double v) { return g.astype(g.literal(v, DType::Float64), x->dtype); };
  const Node *inf = g.literal(std::numeric_limits<double>::infinity(), DType::Float64);
  const Node *y = g.where(g.unary("isnan", x), value(nan), x, mode);
  y = g.where(g.binary("equal", x, inf, mode), value(posinf.value_or(largest)), y, mode);
  y = g.where(g.binary("equal", x, g.unary("negative", inf), mode), value(neginf.value_or(-largest)), y, mode);
  return y;
}

const Node *convolveMode(Graph &g, const Node *a, const Node *v, const std::string &mode, bool correlate) {
  if (mode != "full" && mode != "same" && mode != "valid")
    throw OpError("mode must be one of 'valid', 'same', or 'full' (got '" + mode + "')");
  const Node *w = v;
  if (correlate) {
    if (v->rank() != 1) throw OpError("object too deep for desired array");
    w = flip(g, v, std::vector<int64_t>{0});
  }
  const Node *full = g.convolve(a, w);
  if (mode == "full") return full;
  const Expr &n = a->shape[0], &m = w->shape[0];
  const Expr longer = max(n, m), shorter = min(n, m);
  // numpy.convolve: 'valid' keeps the max - min + 1 sums that use every element of the
  // shorter; 'same' keeps max(n, m) centred: from (min - 1) // 2.
  // Taken by an index array (arange(length) + first): the length as written, where a slice's
  // clipping would write it through min and max of the bounds.
  const Expr first = mode == "valid" ? shorter - Expr(1) : floorDiv(shorter - Expr(1), Integer(2));
  const Expr length = mode == "valid" ? longer - shorter + Expr(1) : longer;
  const Node *positions = g.binary("add", g.arange(Expr(0), length, 1, DType::Int64), g.size(first), BroadcastMode::Numpy);
  std::vector<IndexEntry> taken(1);
  taken[0].kind = IndexEntry::Array;
  return g.index(full, taken, positions);
}

} // namespace shapelab::ops
