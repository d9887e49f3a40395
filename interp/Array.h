// Array — a strided n-d array of one of shapelab's dtypes (DESIGN §2: interp/).
//
// Model: a shared buffer, a dtype, a shape, strides (in elements, may be 0 for broadcast
// dimensions or negative) and an offset. Views (transpose, broadcast, slices) share the buffer;
// `contiguous()` copies into C order. Zero-size dimensions and 0-d arrays are ordinary. Element
// access goes through `forEachOffset`, an odometer over the shape in C order.
// Invariant: every offset reachable from the shape and strides lies inside the buffer (views
// are only made by the functions below, which keep it).
// Cost: shapes and counts are int64; building an array checks its element count against
// kMaxElements first (OverflowError beyond), so no count ever overflows.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <memory>
#include <string>
#include <vector>

#include "ops/Scalar.h"

namespace shapelab::interp {

using ops::DType;

/// The largest array the interpreters materialize (elements); larger ones are refused.
inline constexpr int64_t kMaxElements = int64_t(1) << 28;

using ops::Element;
using ops::dispatch;
using ops::dtypeOf;
using ops::castValue;

class Array {
public:
  Array() : Array(DType::Float64, {}) {}
  /// A new C-contiguous array filled with zeros. Throws OverflowError beyond kMaxElements.
  Array(DType dtype, std::vector<int64_t> shape) : Array(dtype, std::move(shape), true) {}
  /// A new C-contiguous array whose elements are to be written by the caller (not zeroed).
  static Array uninitialized(DType dtype, std::vector<int64_t> shape);
  /// A C-contiguous array on memory the caller owns (NumPy's, passed in without a copy): `data`
  /// must hold the elements, aligned for the dtype; `release` runs when the last view drops it.
  /// Throws OverflowError beyond kMaxElements.
  static Array adopt(DType dtype, std::vector<int64_t> shape, void *data, std::function<void()> release);
  /// The first element's address (the buffer plus the offset), for handing the memory out.
  const void *data() const { return reinterpret_cast<const char *>(buffer_.get()) + offset_ * int64_t(ops::itemSize(dtype_)); }
  /// Whether this array's elements live in `other`'s buffer (one is a view of the other).
  bool sharesBuffer(const Array &other) const { return buffer_ == other.buffer_; }

  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  const std::vector<int64_t> &strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  std::size_t rank() const { return shape_.size(); }
  int64_t size() const;
  bool isContiguous() const;
  /// How many arrays share this one's buffer (views included).
  long bufferUses() const { return buffer_.use_count(); }

  /// Typed pointer to element 0 of the buffer (add offset() and strides yourself).
  template <class T> T *base() const { return reinterpret_cast<T *>(buffer_.get()); }
  /// The element at a C-order linear index (slow; for tests and printing).
  template <class T> T at(int64_t linear) const;
  /// Calls f(offset) for every element in C order (offset into base<T>()).
  void forEachOffset(const std::function<void(int64_t)> &f) const;

  /// A C-contiguous copy (or this array when it already is one).
  Array contiguous() const;
  Array astype(DType t) const;
  /// Views.
  Array transposed(const std::vector<int64_t> &perm) const;
  /// A view with stride 0 on broadcast dimensions; `shape` must be a valid broadcast target.
  Array broadcastTo(const std::vector<int64_t> &shape) const;
  /// C-order reshape of a contiguous copy.
  Array reshaped(const std::vector<int64_t> &shape) const;
  /// The element strides of a C-contiguous array of this shape (a size 0 counts as 1).
  static std::vector<int64_t> cStrides(const std::vector<int64_t> &shape);
  /// A view: `view(offset, shape, strides)` on the same buffer.
  Array view(int64_t offset, std::vector<int64_t> shape, std::vector<int64_t> strides) const;

  /// Element-wise bitwise equality (NaNs with the same bits are equal); shapes and dtypes too.
  bool identical(const Array &o) const;
  /// "[[1.0, 2.0], [3.0, 4.0]]" — floats in shortest round-trip form, nan/inf as in NumPy.
  std::string toString() const;
  /// As NumPy prints it for a person (np.array2string's conventions: summarised beyond 1,000
  /// elements, rows on lines of their own, wrapped at 75 columns, True/False); continuation lines
  /// start at column `indent` (the width of what precedes the value on its first line).
  std::string printed(std::size_t indent = 0) const;

private:
  Array(DType dtype, std::vector<int64_t> shape, bool zeroed);
  DType dtype_;
  std::vector<int64_t> shape_, strides_;
  int64_t offset_ = 0;
  std::shared_ptr<uint64_t[]> buffer_;
};

/// Product of dims, refusing negatives and counts beyond kMaxElements (OverflowError).
int64_t checkedCount(const std::vector<int64_t> &shape);
/// "(3, 4)", "(3,)", "()".
std::string shapeText(const std::vector<int64_t> &shape);
/// Shortest text that reads back to the same double ("0.1", "1e+300", "nan", "inf").
std::string formatDouble(double v);
std::string formatFloat(float v);
/// The fewest significant digits that read back to the same float16 ("2.719").
std::string formatHalf(ops::Half v);

template <class T> T Array::at(int64_t linear) const {
  int64_t off = offset_;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    off += (linear % shape_[i]) * strides_[i];
    linear /= shape_[i];
  }
  return base<T>()[off];
}

// .npy files (NumPy's format 1.0/2.0/3.0: a magic string, a header dict, the data).
/// Reads a little-endian bool/int32/int64/float32/float64 array in C or Fortran order; anything
/// else (big-endian, other dtypes, object arrays, a truncated file) is a UserError naming it.
Array loadNpy(const std::string &path);
Array parseNpy(const std::string &bytes, const std::string &what);
void saveNpy(const Array &a, const std::string &path);
std::string npyBytes(const Array &a);

} // namespace shapelab::interp
