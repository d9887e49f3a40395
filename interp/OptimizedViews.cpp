// The optimized interpreter's views: a view kind of the op list (transpose, basic indexing and
// split's parts, broadcast_to, reshape of a contiguous array, expand_dims, squeeze) given as a
// strided view of its operand's buffer, without a copy. Anything the reference would refuse is
// left to it (nullopt).
#include "interp/Optimized.h"

#include "interp/Kernels.h"

namespace shapelab::interp {

using ops::Node;
using ops::OpKind;
using Dims = std::vector<int64_t>;

std::optional<Array> OptimizedInterpreter::view(const Node *n) {
  if (!ops::hasTrait(n->kind, ops::trait::View)) return std::nullopt; // the op list's view kinds
  auto dim = [&](const Expr &e) {
    std::optional<Integer> v = shapelab::evaluate(e, ref_.point());
    return v && v->fitsInt64() ? std::optional<int64_t>(v->toInt64Checked()) : std::nullopt;
  };
  const Array *xp = ref_.find(n->inputs.empty() ? nullptr : n->inputs[0]);
  if (!xp) return std::nullopt;
  const Array &x = *xp;
  if (x.dtype() != n->dtype) return std::nullopt;
  switch (n->kind) {
  case OpKind::Transpose: return x.transposed(n->attr<ops::attr::Permutation>().axes);
  case OpKind::Index:
  case OpKind::Split: {
    // Basic indexing (integers, slices, None) and split's pieces: a strided view of x. Anything
    // the reference would refuse (an index out of bounds, an unequal split) is left to it.
    if (n->inputs.size() != 1) return std::nullopt;
    if (n->kind == OpKind::Split) {
      const ops::attr::Sections &part = n->attr<ops::attr::Sections>();
      if (x.shape()[std::size_t(part.axis)] % part.sections != 0) return std::nullopt;
    }
    Dims shape, strides;
    int64_t offset = x.offset();
    std::size_t axis = 0;
    for (const ops::IndexEntry &e : n->index) {
      if (e.kind == ops::IndexEntry::NewAxis) {
        shape.push_back(1), strides.push_back(0);
        continue;
      }
      if (e.kind == ops::IndexEntry::Array || axis >= x.rank()) return std::nullopt;
      int64_t L = x.shape()[axis], stride = x.strides()[axis];
      if (e.kind == ops::IndexEntry::Integer) {
        auto i = dim(*e.start);
        if (!i || *i < -L || *i >= L) return std::nullopt;
        offset += (*i < 0 ? *i + L : *i) * stride;
      } else {
        std::optional<int64_t> start, stop;
        if (e.start && !(start = dim(*e.start))) return std::nullopt;
        if (e.stop && !(stop = dim(*e.stop))) return std::nullopt;
        SliceBounds b = sliceBounds(L, start, stop, e.step);
        if (b.length > 0) offset += b.start * stride;
        shape.push_back(b.length), strides.push_back(e.step * stride);
      }
      ++axis;
    }
    if (axis != x.rank()) return std::nullopt;
    return x.view(offset, shape, strides);
  }
  case OpKind::BroadcastTo: {
    if (n->mode == BroadcastMode::Static) return std::nullopt;
    Dims target;
    for (const Expr &e : n->exprs) {
      auto d = dim(e);
      if (!d || *d < 0) return std::nullopt;
      target.push_back(*d);
    }
    if (target.size() < x.rank()) return std::nullopt;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      int64_t s = x.shape()[i], t = target[target.size() - x.rank() + i];
      if (s != t && s != 1) return std::nullopt; // the reference raises the error
    }
    return x.broadcastTo(target);
  }
  case OpKind::Squeeze: {
    const std::vector<int64_t> &dropped = n->attr<ops::attr::Dropped>().axes;
    Dims shape, strides;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      const bool drop = std::find(dropped.begin(), dropped.end(), int64_t(i)) != dropped.end();
      if (drop && x.shape()[i] != 1) return std::nullopt;
      if (!drop) shape.push_back(x.shape()[i]), strides.push_back(x.strides()[i]);
    }
    return x.view(x.offset(), shape, strides);
  }
  case OpKind::ExpandDims: {
    const std::vector<int64_t> &added = n->attr<ops::attr::NewAxes>().axes;
    Dims shape, strides;
    std::size_t j = 0;
    for (std::size_t i = 0; i < x.rank() + added.size(); ++i) {
      if (std::find(added.begin(), added.end(), int64_t(i)) != added.end()) shape.push_back(1), strides.push_back(0);
      else shape.push_back(x.shape()[j]), strides.push_back(x.strides()[j]), ++j;
    }
    return x.view(x.offset(), shape, strides);
  }
  case OpKind::Reshape: {
    if (!x.isContiguous()) return std::nullopt;
    Dims shape;
    int64_t count = 1;
    for (const Expr &e : n->exprs) {
      auto d = dim(e);
      if (!d || *d < 0) return std::nullopt;
      shape.push_back(*d);
      if (__builtin_mul_overflow(count, *d, &count)) return std::nullopt;
    }
    if (count != x.size()) return std::nullopt;
    Dims strides(shape.size());
    int64_t s = 1;
    for (std::size_t i = shape.size(); i-- > 0;) strides[i] = s, s *= std::max<int64_t>(shape[i], 1);
    return x.view(x.offset(), shape, strides);
  }
  default: return std::nullopt;
  }
}

} // namespace shapelab::interp
