// Reference kernels (Interpreter::run, by family): the indexing kernels: basic and advanced indexing, boolean masks, set_subtensor, inc_subtensor and ufunc.at.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

std::vector<int64_t> padSources(const std::string &mode, int64_t L, int64_t before, int64_t after, int64_t axis) {
  // (The node's obligations; checked again here, where a round would otherwise copy nothing.)
  if (before < 0 || after < 0) shapeError("index can't contain negative values");
  if (L < 1 && (before > 0 || after > 0)) shapeError("can't extend empty axis " + std::to_string(axis) + " using modes other than 'constant' or 'empty'");
  const int64_t T = before + L + after;
  std::vector<int64_t> v(std::size_t(T), 0);
  for (int64_t k = 0; k < L; ++k) v[std::size_t(before + k)] = k;
  auto at = [&](int64_t i) -> int64_t & { return v[std::size_t(i)]; };
  if (mode == "edge" || ((mode == "reflect" || mode == "symmetric") && L == 1)) {
    for (int64_t i = 0; i < T; ++i) at(i) = std::clamp<int64_t>(i - before, 0, L - 1);
    return v;
  }
  int64_t left = before, right = after;
  while (left > 0 || right > 0) {
    if (mode == "wrap") {
      // _set_wrap_both: the left pad from the right end of what is filled, the right pad from
      // its left end, at most `period` positions a round.
      const int64_t period = T - right - left;
      int64_t newLeft = 0, newRight = 0;
      if (left > 0) {
        const int64_t count = std::min(period, left), from = T - right - count;
        const int64_t to = left > period ? left - period : 0;
        if (left > period) newLeft = left - period;
        for (int64_t k = 0; k < count; ++k) at(to + k) = at(from + k);
      }
      if (right > 0) {
        const int64_t count = std::min(period, right), to = T - right;
        if (right > period) newRight = right - period;
        for (int64_t k = 0; k < count; ++k) at(to + k) = at(left + k);
      }
      left = newLeft, right = newRight;
    } else {
      // _set_reflect_both (reflect_type 'even'): each side mirrored from what is filled next
      // to it, the edge repeated (symmetric) or not (reflect).
      const bool edge = mode == "symmetric";
      const int64_t available = T - right - left - (edge ? 0 : 1), offset = edge ? 1 : 0;
      if (left > 0) {
        const int64_t count = std::min(available, left), start = left - offset + count;
        for (int64_t k = 0; k < count; ++k) at(left - count + k) = at(start - k);
        left -= count;
      }
      if (right > 0) {
        const int64_t count = std::min(available, right), start = T - right + offset - 2, to = T - right;
        for (int64_t k = 0; k < count; ++k) at(to + k) = at(start - k);
        right -= count;
      }
    }
  }
  return v;
}

namespace {

/// The value error of an index past its axis (kept out of the gather's loop).
[[noreturn, gnu::noinline, gnu::cold]] void outOfBounds(int64_t index, std::size_t axis, int64_t length) {
  valueError("index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) + " with size " +
             std::to_string(length));
}

/// x[:, ..., idx, :, ...]: one integer index array along axis `axis`, every other entry a whole
/// axis (np.take, a row gather) — the common gather, as one pass over the index (per outer
/// block): each index normalised and checked, then its block of inner elements copied (NumPy's
/// take loop). nullopt when the index is not of that form.
std::optional<Array> gatherAlongAxis(const Node *n, const Array &x, const Array &index) {
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32) return std::nullopt; // (the loop reads these two)
  std::size_t axis = n->index.size();
  for (std::size_t e = 0; e < n->index.size(); ++e) {
    const IndexEntry &entry = n->index[e];
    if (entry.kind == IndexEntry::Array) {
      axis = e;
      continue;
    }
    if (entry.kind != IndexEntry::Slice || entry.start || entry.stop || entry.step != 1) return std::nullopt;
  }
  if (axis == n->index.size() || n->index.size() != x.rank()) return std::nullopt;
  const Array src = x.contiguous(), idx = index.contiguous();
  int64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= src.shape()[d];
  for (std::size_t d = axis + 1; d < src.rank(); ++d) inner *= src.shape()[d];
  const int64_t L = src.shape()[axis], count = idx.size();
  std::vector<int64_t> shape(src.shape().begin(), src.shape().begin() + std::ptrdiff_t(axis));
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), src.shape().begin() + std::ptrdiff_t(axis) + 1, src.shape().end());
  Array out = Array::uninitialized(x.dtype(), shape);
  const std::size_t item = ops::itemSize(x.dtype());
  const char *from = src.base<char>() + src.offset() * int64_t(item);
  char *to = out.base<char>();
  // Each index checked and normalised as it is read, then its block of inner elements copied
  // (a 1-d take reads one element per index).
  auto copy = [&](auto e, auto t, auto single) {
    using T = decltype(e);
    using I = decltype(t);
    const T *f = reinterpret_cast<const T *>(from);
    T *o = reinterpret_cast<T *>(to);
    const I *v = idx.base<I>() + idx.offset();
    auto position = [&](int64_t k) {
      int64_t i = int64_t(v[k]);
      if (i < 0) i += L;
      if (i < 0 || i >= L) [[unlikely]]
        outOfBounds(int64_t(v[k]), axis, L);
      return i;
    };
    if (outer == 0) // nothing is taken, but NumPy checks every index all the same
      for (int64_t k = 0; k < count; ++k) position(k);
    for (int64_t q = 0; q < outer; ++q, f += L * inner)
      for (int64_t k = 0; k < count; ++k, o += inner) {
        const int64_t i = position(k);
        if constexpr (decltype(single)::value) *o = f[i];
        else std::memcpy(o, f + i * inner, std::size_t(inner) * sizeof(T));
      }
  };
  auto byIndex = [&](auto e) { // (one element per index compiled apart: a plain load)
    auto byInner = [&](auto t) {
      if (inner == 1) copy(e, t, std::true_type{});
      else copy(e, t, std::false_type{});
    };
    if (idx.dtype() == DType::Int64) byInner(int64_t{});
    else byInner(int32_t{});
  };
  if (item == 8) byIndex(uint64_t{});
  else if (item == 4) byIndex(uint32_t{});
  else if (item == 2) byIndex(uint16_t{});
  else byIndex(uint8_t{});
  return out;
}

} // namespace

Array Interpreter::runIndex(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const Array &x = in(0);
  if (n->kind == OpKind::Index && n->inputs.size() > 1)
    if (std::optional<Array> fast = gatherAlongAxis(n, x, in(1))) return std::move(*fast);
  if (n->kind == OpKind::Split) {
    const ops::attr::Sections &part = n->attr<ops::attr::Sections>();
    if (x.shape()[std::size_t(part.axis)] % part.sections != 0) shapeError("array split does not result in an equal division");
  }
  const Array *array = nullptr;
  if (n->kind == OpKind::Index && n->inputs.size() > 1) array = &in(1);
  if (n->kind == OpKind::SetSubtensor && n->inputs.size() > 3) array = &in(2);
  // Walk the entries: output dims, and per output element the source offset.
  struct Step {
    IndexEntry::Kind kind;
    int64_t start = 0, step = 1, axis = 0;
  };
  std::vector<Step> steps;
  Dims outShape;
  std::size_t axis = 0;
  std::vector<std::vector<int64_t>> maskCoords; // bool index: coordinates of the true elements
  Array arrayValues;
  std::optional<std::string> outOfBounds; // an index array's value out of range (a value error)
  for (const IndexEntry &e : n->index) {
    switch (e.kind) {
    case IndexEntry::NewAxis:
      outShape.push_back(1);
      steps.push_back({e.kind});
      break;
    case IndexEntry::Integer: {
      int64_t L = x.shape()[axis], i = value(*e.start);
      if (i < -L || i >= L)
        shapeError("index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) + " with size " + std::to_string(L));
      steps.push_back({e.kind, i < 0 ? i + L : i, 0, int64_t(axis++)});
      break;
    }
    case IndexEntry::Slice: {
      auto bound = [&](const std::optional<Expr> &v) { return v ? std::optional<int64_t>(value(*v)) : std::nullopt; };
      SliceBounds b = sliceBounds(x.shape()[axis], bound(e.start), bound(e.stop), e.step);
      outShape.push_back(b.length);
      steps.push_back({e.kind, b.start, e.step, int64_t(axis++)});
      break;
    }
    case IndexEntry::Array: {
      if (array->dtype() == DType::Bool) {
        Array mask = array->contiguous();
        for (std::size_t d = 0; d < mask.rank(); ++d)
          if (mask.shape()[d] != 0 && mask.shape()[d] != x.shape()[axis + d]) // NumPy skips an empty dimension
            shapeError("boolean index did not match indexed array along dimension " + std::to_string(axis + d) +
                       "; dimension is " + std::to_string(x.shape()[axis + d]) + " but corresponding boolean dimension is " +
                       std::to_string(mask.shape()[d]));
        for (int64_t k = 0; k < mask.size(); ++k)
          if (mask.base<bool>()[k]) {
            std::vector<int64_t> c(mask.rank());
            int64_t r = k;
            for (std::size_t d = mask.rank(); d-- > 0;) c[d] = r % mask.shape()[d], r /= mask.shape()[d];
            maskCoords.push_back(c);
          }
        // The mask's count is the region's data-dependent size (a set/inc_subtensor's region
        // is not computed on its own: its kernel counts for it).
        const Node *owner = n->kind == OpKind::Index ? n : n->inputs.back();
        if (owner->dataSize) {
          point_.set((*owner->dataSize)->name, int64_t(maskCoords.size()));
          if (!graph_.sizeDefinitions().empty()) defineSizes();
        }
        outShape.push_back(int64_t(maskCoords.size()));
        steps.push_back({e.kind, 0, 0, int64_t(axis)});
        axis += mask.rank();
      } else {
        arrayValues = array->astype(DType::Int64);
        int64_t L = x.shape()[axis];
        for (int64_t k = 0; k < arrayValues.size() && !outOfBounds; ++k) {
          int64_t &v = arrayValues.base<int64_t>()[k];
          if (v < -L || v >= L)
            outOfBounds = "index " + std::to_string(v) + " is out of bounds for axis " + std::to_string(axis) + " with size " + std::to_string(L);
          if (v < 0) v += L;
        }
        outShape.insert(outShape.end(), arrayValues.shape().begin(), arrayValues.shape().end());
        steps.push_back({e.kind, 0, 0, int64_t(axis++)});
      }
      break;
    }
    }
  }
  // set / inc: the value must fit the region (a shape error) before the index array's values
  // are read (a value error), as NumPy checks them.
  if (n->kind == OpKind::SetSubtensor && !broadcastsTo(in(1).shape(), outShape))
    shapeError("could not broadcast input array from shape " + shapeText(in(1).shape()) + " into shape " + shapeText(outShape));
  if (outOfBounds) valueError(*outOfBounds);
  // The region, in its C order: for a gather, offsets into x's buffer (read through any
  // view); for set/inc, which write a C-ordered copy of x, positions in x's C order — a
  // broadcast x has one buffer offset for many elements, which offsets would not tell apart.
  const bool cOrder = n->kind == OpKind::SetSubtensor;
  const Dims strides = cOrder ? Array::cStrides(x.shape()) : x.strides();
  int64_t count = checkedCount(outShape);
  std::vector<int64_t> source;
  source.reserve(std::size_t(count));
  Dims idx(outShape.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t off = cOrder ? 0 : x.offset();
    std::size_t o = 0;
    for (const Step &s : steps) {
      switch (s.kind) {
      case IndexEntry::NewAxis: ++o; break;
      case IndexEntry::Integer: off += s.start * strides[s.axis]; break;
      case IndexEntry::Slice: off += (s.start + idx[o++] * s.step) * strides[s.axis]; break;
      case IndexEntry::Array:
        if (array->dtype() == DType::Bool) {
          const std::vector<int64_t> &c = maskCoords[idx[o++]];
          for (std::size_t d = 0; d < c.size(); ++d) off += c[d] * strides[s.axis + d];
        } else {
          int64_t lin = 0;
          for (std::size_t d = 0; d < arrayValues.rank(); ++d) lin = lin * arrayValues.shape()[d] + idx[o++];
          off += arrayValues.base<int64_t>()[lin] * strides[s.axis];
        }
        break;
      }
    }
    source.push_back(off);
    for (std::size_t d = outShape.size(); d-- > 0;) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
  if (n->kind != OpKind::SetSubtensor) {
    Array result(n->dtype, outShape);
    std::size_t item = ops::itemSize(n->dtype);
    for (int64_t k = 0; k < count; ++k) std::memcpy(result.base<char>() + k * item, x.base<char>() + source[k] * item, item);
    return result;
  }
  // set / inc: a fresh copy of x with the region written.
  const Array &v = in(1);
  Array copy = x.contiguous().astype(x.dtype());
  // set: the value cast to x's dtype; inc: x + value computed in their promoted type, then
  // cast back (NumPy's `x[idx] += v`).
  // ufunc.at: each element becomes ufunc(element, value) in the ufunc's type, cast back.
  const Node *vn = n->inputs[1];
  const std::string ufunc = ops::accumulatingUfunc(n->op);
  const bool inc = !ufunc.empty();
  const DType compute = inc ? ops::Graph::binaryResultType(ufunc, {n->dtype, false}, {vn->dtype, vn->weak}) : n->dtype;
  const ops::Bin code = inc ? ops::binCode(ufunc) : ops::Bin::Add;
  Array value = v.astype(compute);
  std::vector<int64_t> vo = offsets(value, outShape);
  dispatch(n->dtype, [&](auto t) {
    using T = decltype(t);
    T *dst = copy.base<T>() + copy.offset();
    dispatch(compute, [&](auto c) {
      using C = decltype(c);
      const C *src = value.base<C>();
      for (int64_t k = 0; k < count; ++k) {
        T &d = dst[source[k]];
        d = inc ? castValue<T>(arithmetic<C>(code, castValue<C>(d), src[vo[k]])) : castValue<T>(src[vo[k]]);
      }
    });
  });
  return copy;
}

} // namespace shapelab::interp
