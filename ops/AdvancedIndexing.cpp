// Composites of indexing (ops/Composites.h): NumPy's advanced indexing with several index
// arrays, item assignment, ufunc.at, in-place operators and take/put_along_axis, built from
// Graph::index (one index array), transpose, reshape, arange and set_subtensor.
#include <numeric>

#include "ops/Composites.h"
#include "ops/GraphDetail.h"

namespace shapelab::ops {

namespace {

/// How x[s] is built when Graph::index cannot take it alone.
struct Advanced {
  std::vector<IndexEntry> basic; // s with each array or integer entry a full slice
  std::vector<std::size_t> axes; // those entries' axes in x[basic], in order
  std::vector<Expr> lengths;     // the lengths of those axes
  std::vector<std::pair<IndexEntry, const Node *>> indices; // each one's entry (and array)
  bool adjacent = true;          // written next to each other
};

bool advancedEntry(const IndexEntry &e) { return e.kind == IndexEntry::Integer || e.kind == IndexEntry::Array; }

/// nullopt where Graph::index takes the index as it is: no array, or one with its integers
/// written next to it.
std::optional<Advanced> advancedPlan(const Node *x, const Subscript &s) {
  if (s.arrays.empty()) return std::nullopt;
  std::vector<std::size_t> written;
  for (std::size_t i = 0; i < s.entries.size(); ++i)
    if (advancedEntry(s.entries[i])) written.push_back(i);
  const bool adjacent = written.back() - written.front() + 1 == written.size();
  if (s.arrays.size() == 1 && adjacent) return std::nullopt;
  for (const Node *a : s.arrays) {
    if (a->dtype == DType::Bool)
      throw OpError("a boolean index together with another index array, or with an integer written apart from it, "
                    "is not supported: index in two steps");
    if (!isInteger(a->dtype)) throw OpError("arrays used as indices must be of integer (or boolean) type");
  }
  Advanced plan;
  plan.adjacent = adjacent;
  std::size_t consumed = 0;
  for (const IndexEntry &e : s.entries)
    if (e.kind != IndexEntry::NewAxis && !(e.kind == IndexEntry::Slice && e.step == 0)) ++consumed;
  std::size_t axis = 0, xAxis = 0, array = 0;
  for (const IndexEntry &e : s.entries) {
    if (e.kind == IndexEntry::Slice && e.step == 0) { // the ellipsis: the axes no entry takes
      const std::size_t spans = x->rank() > consumed ? x->rank() - consumed : 0;
      axis += spans;
      xAxis += spans;
      plan.basic.push_back(e);
      continue;
    }
    if (advancedEntry(e)) {
      plan.axes.push_back(axis);
      plan.lengths.push_back(xAxis < x->rank() ? x->shape[xAxis] : Expr(0));
      plan.indices.emplace_back(e, e.kind == IndexEntry::Array ? s.arrays[array++] : nullptr);
      plan.basic.push_back(IndexEntry{});
    } else {
      plan.basic.push_back(e);
    }
    ++axis;
    if (e.kind != IndexEntry::NewAxis) ++xAxis;
  }
  return plan;
}

/// The advanced axes of y (= x[basic]) moved together and merged, and the flat index into the
/// merged axis: what gather and scatter share.
struct Merged {
  const Node *y;                                // x[basic], transposed when not adjacent
  std::optional<std::vector<int64_t>> perm;     // that transpose
  const Node *z;                                // y with the advanced axes merged
  std::vector<IndexEntry> entries;              // z's index: full slices, then the flat array
  const Node *flat;
};

Merged merged(Graph &g, const Advanced &plan, const Node *y) {
  Merged m{y, std::nullopt, nullptr, {}, nullptr};
  std::size_t at = plan.axes.front();
  if (!plan.adjacent) {
    std::vector<int64_t> perm;
    for (std::size_t a : plan.axes) perm.push_back(int64_t(a));
    for (std::size_t a = 0; a < y->rank(); ++a)
      if (std::find(plan.axes.begin(), plan.axes.end(), a) == plan.axes.end()) perm.push_back(int64_t(a));
    m.perm = perm;
    m.y = g.transpose(y, perm);
    at = 0;
  }
  // Each index normalised: arange(L)[i] checks its bounds. NumPy checks the integers when it
  // reads the index, before any array's values: the arrays' are computed after them.
  std::vector<const Node *> normalised, integers;
  for (std::size_t j = 0; j < plan.indices.size(); ++j) {
    const auto &[entry, array] = plan.indices[j];
    normalised.push_back(g.index(g.arange(Expr(0), plan.lengths[j], 1, DType::Int64), {entry}, array));
    if (!array) integers.push_back(normalised.back());
  }
  Expr total(1);
  for (std::size_t j = 0; j < plan.indices.size(); ++j) {
    const Expr &L = plan.lengths[j];
    const Node *index = plan.indices[j].second ? g.after(integers, normalised[j]) : normalised[j];
    m.flat = m.flat ? g.binary("add", g.binary("multiply", m.flat, g.size(L), BroadcastMode::Numpy), index,
                               BroadcastMode::Numpy)
                    : index;
    total = total * L;
  }
  std::vector<Expr> shape(m.y->shape.begin(), m.y->shape.begin() + std::ptrdiff_t(at));
  shape.push_back(total);
  shape.insert(shape.end(), m.y->shape.begin() + std::ptrdiff_t(at + plan.axes.size()), m.y->shape.end());
  m.z = g.reshape(m.y, shape);
  m.entries.assign(at, IndexEntry{});
  IndexEntry flat;
  flat.kind = IndexEntry::Array;
  m.entries.push_back(flat);
  return m;
}

const Node *soleArray(const Subscript &s) { return s.arrays.empty() ? nullptr : s.arrays.front(); }

} // namespace

const Node *gather(Graph &g, const Node *x, const Subscript &s) {
  std::optional<Advanced> plan = advancedPlan(x, s);
  if (!plan) return g.index(x, s.entries, soleArray(s));
  Merged m = merged(g, *plan, g.index(x, plan->basic));
  return g.index(m.z, m.entries, m.flat);
}

/// NumPy's assignment takes a value with more dimensions than the region where the extra
/// leading ones are 1 (`x[i] = v` of a (1, 2) v into a (2,) region): they are dropped.
const Node *fitted(Graph &g, const Node *value, const Node *region, const std::string &write) {
  if (write != "set_subtensor" || value->rank() <= region->rank()) return value;
  std::vector<int64_t> leading(value->rank() - region->rank());
  std::iota(leading.begin(), leading.end(), 0);
  return g.squeeze(value, leading);
}

const Node *scatter(Graph &g, const Node *x, const Subscript &s, const Node *value, const std::string &write,
                    BroadcastMode mode) {
  std::optional<Advanced> plan = advancedPlan(x, s);
  if (!plan) {
    const Node *region = g.index(x, s.entries, soleArray(s));
    return g.setSubtensor(region, fitted(g, value, region, write), write, mode);
  }
  const Node *region = g.index(x, plan->basic);
  Merged m = merged(g, *plan, region);
  const Node *inner = g.index(m.z, m.entries, m.flat);
  const Node *written = g.setSubtensor(inner, fitted(g, value, inner, write), write, mode);
  const Node *y = g.reshape(written, m.y->shape);
  if (m.perm) {
    std::vector<int64_t> inverse(m.perm->size());
    for (std::size_t i = 0; i < m.perm->size(); ++i) inverse[std::size_t((*m.perm)[i])] = int64_t(i);
    y = g.transpose(y, inverse);
  }
  // x[basic] is x itself where every basic entry takes a whole axis.
  const bool whole = std::all_of(plan->basic.begin(), plan->basic.end(), [](const IndexEntry &e) {
    return e.kind == IndexEntry::Slice && !e.start && !e.stop && (e.step == 1 || e.step == 0);
  });
  if (whole && region->shape == x->shape) return y;
  return g.setSubtensor(region, y, "set_subtensor", mode);
}

const Node *inPlace(Graph &g, const std::string &ufunc, const Node *x, const Node *v, BroadcastMode mode) {
  if (v->rank() > x->rank())
    throw OpError("non-broadcastable output operand with shape " + toString(x->shape) +
                  " doesn't match the broadcast shape: the operand of shape " + toString(v->shape) + " has more dimensions");
  // v broadcasts to x one way: the result keeps x's shape.
  const Node *w = v->rank() == 0 || v->shape == x->shape ? v : g.broadcastTo(v, x->shape);
  const Node *r = g.binary(ufunc, x, w, mode);
  if (r->dtype == x->dtype) return r;
  if (!castsSameKind(r->dtype, x->dtype))
    throw OpError("Cannot cast ufunc '" + std::string(ufunc == "true_divide" ? "divide" : ufunc) + "' output from dtype('" +
                  spelling(r->dtype) + "') to dtype('" + spelling(x->dtype) + "') with casting rule 'same_kind'");
  return g.astype(r, x->dtype);
}

Subscript alongAxis(Graph &g, const Node *arr, const Node *indices, int64_t axis) {
  if (!isInteger(indices->dtype)) throw OpError("`indices` must be an integer array");
  if (indices->rank() != arr->rank())
    throw OpError("`indices` and `arr` must have the same number of dimensions");
  const std::size_t rank = arr->rank();
  axis = detail::normalizeAxis(axis, rank); // a negative axis counts from the end
  Subscript s;
  for (std::size_t d = 0; d < rank; ++d) {
    IndexEntry e;
    e.kind = IndexEntry::Array;
    s.entries.push_back(e);
    if (int64_t(d) == axis) {
      s.arrays.push_back(indices);
      continue;
    }
    // arange(arr.shape[d]) with every other axis 1 (numpy.lib.shape_base._make_along_axis_idx).
    std::vector<Expr> shape(rank, Expr(1));
    shape[d] = arr->shape[d];
    s.arrays.push_back(g.reshape(g.arange(Expr(0), arr->shape[d], 1, DType::Int64), shape));
  }
  return s;
}

} // namespace shapelab::ops
