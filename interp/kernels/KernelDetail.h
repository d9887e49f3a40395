// KernelDetail — what the reference kernels share (internal to interp/): NumPy's shape
// messages, broadcasting of concrete shapes, element offsets, the gufunc loop.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "interp/Interpreter.h"
#include "interp/Interrupt.h"
#include "interp/Kernels.h"
#include "shape/Broadcast.h"
#include "shape/RandomVariable.h"

namespace shapelab::interp {

using ops::IndexEntry;
using ops::Node;
using ops::OpKind;

namespace detail {


using Dims = std::vector<int64_t>;

[[noreturn]] inline void shapeError(const std::string &message) { throw EvalError(EvalError::Shape, message); }
[[noreturn]] inline void valueError(const std::string &message) { throw EvalError(EvalError::Value, message); }

inline std::string numpyShapes(const std::vector<Dims> &shapes) {
  std::string s;
  for (const Dims &d : shapes) {
    std::string t = shapeText(d);
    // NumPy writes (3,) here as "(3,)" and joins with a space.
    s += t + " ";
  }
  return s;
}

/// A reshape target as NumPy's message writes it (`convert_shape_to_string`): leading negative
/// entries left out, later ones written `newaxis`, and "," before ")" only for one entry:
/// (0, -1) is "(0,newaxis)", (-1, 0) is "(0)", (3,) is "(3,)".
inline std::string reshapeTargetText(const Dims &target) {
  std::size_t i = 0;
  while (i < target.size() && target[i] < 0) ++i;
  if (i == target.size()) return "()";
  std::string s = "(" + std::to_string(target[i++]);
  for (; i < target.size(); ++i) s += target[i] < 0 ? ",newaxis" : "," + std::to_string(target[i]);
  return s + (target.size() == 1 ? ",)" : ")");
}

/// NumPy's broadcasting of concrete shapes (for a kernel's own check).
inline Dims broadcastShapes(const std::vector<Dims> &shapes) {
  std::size_t rank = 0;
  for (const Dims &s : shapes) rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims &s : shapes)
    for (std::size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1) continue;
      if (o == 1) o = d;
      else shapeError("operands could not be broadcast together with shapes " + numpyShapes(shapes));
    }
  return out;
}

/// NumPy's one-way rule: `from` broadcasts to `to` (right-aligned, each dim equal or 1).
inline bool broadcastsTo(const Dims &from, const Dims &to) {
  if (from.size() > to.size()) return false;
  for (std::size_t i = 0; i < from.size(); ++i) {
    int64_t d = from[i], t = to[to.size() - from.size() + i];
    if (d != t && d != 1) return false;
  }
  return true;
}

/// In static mode a size 1 that was not provably 1 when the graph was built does not broadcast.
/// `core[k]`: input k's shape here is its batch shape, before that many core dims (a gufunc's).
inline void checkStaticBroadcast(const Node *n, const std::vector<Dims> &shapes, const Dims &out,
                          const std::vector<std::size_t> &core = {}) {
  if (n->mode != BroadcastMode::Static) return;
  for (std::size_t k = 0; k < shapes.size(); ++k)
    for (std::size_t i = 0; i < shapes[k].size(); ++i) {
      std::size_t fromRight = shapes[k].size() - 1 - i, bit = fromRight + (k < core.size() ? core[k] : 0);
      int64_t d = shapes[k][i], o = out[out.size() - 1 - fromRight];
      bool marked = bit < 64 && k < n->broadcastable.size() && (n->broadcastable[k] >> bit & 1);
      if (d == 1 && o != 1 && !marked)
        shapeError("Runtime broadcasting not allowed. Input " + std::to_string(k) + " had a distinct dimension length of 1 (axis " +
                   std::to_string(i) + "), but was not marked as broadcastable when the graph was built (mode static): " +
                   (core.empty() ? "shapes " : "batch shapes ") + numpyShapes(shapes));
    }
}


/// Element offsets of `a` broadcast to `shape`, in C order.
inline std::vector<int64_t> offsets(const Array &a, const Dims &shape) {
  std::vector<int64_t> out;
  if (a.shape() == shape && a.isContiguous()) { // 0, 1, 2, ...: no odometer
    out.resize(std::size_t(checkedCount(shape)));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = int64_t(i);
    return out;
  }
  out.reserve(std::size_t(checkedCount(shape)));
  a.broadcastTo(shape).forEachOffset([&](int64_t o) { out.push_back(o); });
  return out;
}

/// The gufunc loop of node n: inputs with their core ranks, batch dims broadcast (static mode:
/// only where n marked them), one call per batch index with contiguous core blocks (type T);
/// `core` writes the output block.
template <class T>
inline Array gufuncLoop(const Node *n, const std::vector<Array> &ins, const std::vector<std::size_t> &coreRanks,
                 const Dims &outCore, DType outType, const std::function<void(const std::vector<const T *> &, T *)> &core) {
  std::vector<Dims> batches;
  for (std::size_t i = 0; i < ins.size(); ++i)
    batches.emplace_back(ins[i].shape().begin(), ins[i].shape().end() - coreRanks[i]);
  Dims batch = broadcastShapes(batches);
  checkStaticBroadcast(n, batches, batch, coreRanks);
  Dims outShape = batch;
  outShape.insert(outShape.end(), outCore.begin(), outCore.end());
  Array out(outType, outShape);
  int64_t outBlock = checkedCount(outCore), count = checkedCount(batch);
  std::vector<Array> typed;
  std::vector<int64_t> blocks;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    typed.push_back(ins[i].astype(dtypeOf<T>()));
    Dims core(ins[i].shape().end() - coreRanks[i], ins[i].shape().end());
    blocks.push_back(checkedCount(core));
  }
  std::vector<std::vector<int64_t>> batchIndex;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    // Which block of input i each batch element reads: broadcast an index array.
    Array idx(DType::Int64, batches[i]);
    int64_t *p = idx.base<int64_t>();
    for (int64_t k = 0; k < idx.size(); ++k) p[k] = k;
    std::vector<int64_t> offs = offsets(idx, batch);
    for (int64_t &o : offs) o = p[o];
    batchIndex.push_back(std::move(offs));
  }
  std::unique_ptr<T[]> result(new T[std::size_t(outBlock)]);
  std::vector<const T *> blockPtrs(ins.size());
  for (int64_t b = 0; b < count; ++b) {
    checkInterrupt();
    for (std::size_t i = 0; i < ins.size(); ++i) blockPtrs[i] = typed[i].base<T>() + batchIndex[i][b] * blocks[i];
    std::fill(result.get(), result.get() + outBlock, T(0));
    core(blockPtrs, result.get());
    dispatch(outType, [&](auto t) {
      using O = decltype(t);
      O *o = out.base<O>() + b * outBlock;
      for (int64_t k = 0; k < outBlock; ++k) o[k] = castValue<O>(result[k]);
    });
  }
  return out;
}

} // namespace detail

using namespace detail;

} // namespace shapelab::interp
