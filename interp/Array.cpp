#include "interp/Array.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <mutex>

#include "symbolic/Errors.h"

namespace shapelab::interp {

int64_t checkedCount(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) throw OverflowError("negative dimensions are not allowed");
    if (d == 0) empty = true;
  }
  if (empty) return 0;
  for (int64_t d : shape) {
    if (d > kMaxElements || count > kMaxElements / d)
      throw OverflowError("an array of shape " + shapeText(shape) + " is larger than the interpreters evaluate (" +
                          std::to_string(kMaxElements) + " elements)");
    count *= d;
  }
  return count;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {

/// Large buffers freed recently, kept for the next allocation of the same size: a program run
/// again (a benchmark, a loop over parameter values) reuses its memory instead of asking the
/// kernel for fresh pages. At most kPoolBuffers buffers and kPoolBytes bytes are kept.
class BufferPool {
public:
  // From 128 KiB, where the C library's allocator hands out fresh pages (mmap) or trims its
  // heap after a free: without the pool, an evaluation of arrays between 128 KiB and 1 MiB
  // faulted its pages in again on every run (the Python module, which cannot use mimalloc).
  static constexpr std::size_t kMinWords = std::size_t(1) << 14; // 128 KiB
  static constexpr std::size_t kPoolBuffers = 16;
  static constexpr std::size_t kPoolBytes = std::size_t(1) << 30;

  uint64_t *take(std::size_t words) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = 0; i < free_.size(); ++i)
      if (free_[i].second == words) {
        uint64_t *p = free_[i].first;
        bytes_ -= words * 8;
        free_.erase(free_.begin() + std::ptrdiff_t(i));
        return p;
      }
    return nullptr;
  }
  void give(uint64_t *p, std::size_t words) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (free_.size() < kPoolBuffers && bytes_ + words * 8 <= kPoolBytes) {
        free_.emplace_back(p, words);
        bytes_ += words * 8;
        return;
      }
    }
    delete[] p;
  }

private:
  std::mutex mutex_;
  std::vector<std::pair<uint64_t *, std::size_t>> free_;
  std::size_t bytes_ = 0;
};

BufferPool &pool() {
  static auto *p = new BufferPool; // never destroyed: buffers may be freed during exit
  return *p;
}

} // namespace

Array::Array(DType dtype, std::vector<int64_t> shape, bool zeroed) : dtype_(dtype), shape_(std::move(shape)) {
  int64_t count = checkedCount(shape_);
  strides_ = cStrides(shape_);
  std::size_t words = (std::size_t(count) * ops::itemSize(dtype) + 7) / 8 + 1;
  if (words < BufferPool::kMinWords) {
    // One allocation for the buffer and its count.
    buffer_ = zeroed ? std::make_shared<uint64_t[]>(words) : std::make_shared_for_overwrite<uint64_t[]>(words);
    return;
  }
  uint64_t *p = pool().take(words);
  if (!p) p = new uint64_t[words];
  if (zeroed) std::memset(p, 0, words * 8);
  buffer_ = std::shared_ptr<uint64_t[]>(p, [words](uint64_t *q) { pool().give(q, words); });
}

Array Array::uninitialized(DType dtype, std::vector<int64_t> shape) { return Array(dtype, std::move(shape), false); }

Array Array::adopt(DType dtype, std::vector<int64_t> shape, void *data, std::function<void()> release) {
  checkedCount(shape);
  Array a(dtype, {}, false);
  a.shape_ = std::move(shape);
  a.strides_ = cStrides(a.shape_);
  a.buffer_ = std::shared_ptr<uint64_t[]>(static_cast<uint64_t *>(data), [release = std::move(release)](uint64_t *) { release(); });
  return a;
}

int64_t Array::size() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

bool Array::isContiguous() const {
  int64_t expect = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expect) return false;
    expect *= shape_[i];
  }
  return offset_ == 0;
}

void Array::forEachOffset(const std::function<void(int64_t)> &f) const {
  if (size() == 0) return;
  std::size_t r = shape_.size();
  std::vector<int64_t> idx(r, 0);
  int64_t off = offset_;
  while (true) {
    f(off);
    std::size_t i = r;
    while (i > 0) {
      --i;
      if (++idx[i] < shape_[i]) {
        off += strides_[i];
        break;
      }
      off -= strides_[i] * (shape_[i] - 1);
      idx[i] = 0;
      if (i == 0) return;
    }
    if (r == 0) return;
  }
}

Array Array::contiguous() const {
  if (isContiguous()) return *this;
  return astype(dtype_);
}

Array Array::astype(DType t) const {
  if (t == dtype_ && isContiguous()) {
    Array out = uninitialized(t, shape_);
    std::memcpy(out.buffer_.get(), base<char>() + offset_ * int64_t(ops::itemSize(t)), std::size_t(size()) * ops::itemSize(t));
    return out;
  }
  Array out(t, shape_);
  dispatch(dtype_, [&](auto from) {
    using From = decltype(from);
    dispatch(t, [&](auto to) {
      using To = decltype(to);
      To *dst = out.base<To>();
      const From *src = base<From>();
      int64_t k = 0;
      forEachOffset([&](int64_t off) { dst[k++] = castValue<To>(src[off]); });
    });
  });
  return out;
}

Array Array::transposed(const std::vector<int64_t> &perm) const {
  Array v = *this;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    v.shape_[i] = shape_[perm[i]];
    v.strides_[i] = strides_[perm[i]];
  }
  return v;
}

Array Array::broadcastTo(const std::vector<int64_t> &shape) const {
  Array v = *this;
  v.shape_ = shape;
  v.strides_.assign(shape.size(), 0);
  std::size_t lead = shape.size() - shape_.size();
  for (std::size_t i = 0; i < shape_.size(); ++i)
    v.strides_[lead + i] = shape_[i] == shape[lead + i] ? strides_[i] : 0;
  return v;
}

Array Array::reshaped(const std::vector<int64_t> &shape) const {
  Array c = contiguous();
  c.shape_ = shape;
  c.strides_ = cStrides(shape);
  return c;
}

std::vector<int64_t> Array::cStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

Array Array::view(int64_t offset, std::vector<int64_t> shape, std::vector<int64_t> strides) const {
  Array v = *this;
  v.offset_ = offset;
  v.shape_ = std::move(shape);
  v.strides_ = std::move(strides);
  return v;
}

bool Array::identical(const Array &o) const {
  if (dtype_ != o.dtype_ || shape_ != o.shape_) return false;
  Array a = contiguous(), b = o.contiguous();
  return std::memcmp(a.base<char>(), b.base<char>(), std::size_t(size()) * ops::itemSize(dtype_)) == 0;
}

namespace {
template <class F> std::string shortest(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // Python's repr of a float always shows it is one: "1.0", not "1".
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
} // namespace

std::string formatDouble(double v) { return shortest(v); }
std::string formatFloat(float v) { return shortest(v); }
std::string formatHalf(ops::Half v) {
  // The fewest significant digits that read back to the same half ("2.719", as NumPy prints).
  const float f = v;
  if (std::isnan(f) || std::isinf(f)) return shortest(f);
  char buf[32];
  for (int digits = 1; digits <= 5; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(f));
    if (ops::Half(std::strtod(buf, nullptr)).bits() == v.bits()) break;
  }
  std::string s = buf;
  // Positional where NumPy prints positionally (10.0, not 1e+01): the same digits, fixed.
  if (s.find('e') != std::string::npos && std::fabs(f) >= 1e-4f && std::fabs(f) < 1e16f) {
    const int exponent = int(std::floor(std::log10(std::fabs(double(f)))));
    const int significant = int(s.find('e') - (s.find('.') == std::string::npos ? 0 : 1) - (f < 0 ? 1 : 0));
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, significant - 1 - exponent), double(f));
    s = buf;
  }
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string Array::toString() const {
  std::string out;
  std::vector<int64_t> idx(shape_.size(), 0);
  std::function<void(std::size_t, int64_t)> rec = [&](std::size_t dim, int64_t off) {
    if (dim == shape_.size()) {
      dispatch(dtype_, [&](auto t) {
        using T = decltype(t);
        T v = base<T>()[off];
        if constexpr (std::is_same_v<T, bool>) out += v ? "true" : "false";
        else if constexpr (std::is_same_v<T, double>) out += formatDouble(v);
        else if constexpr (std::is_same_v<T, float>) out += formatFloat(v);
        else if constexpr (std::is_same_v<T, ops::Half>) out += formatHalf(v);
        else out += std::to_string(v);
      });
      return;
    }
    out += "[";
    for (int64_t i = 0; i < shape_[dim]; ++i) {
      if (i) out += ", ";
      rec(dim + 1, off + i * strides_[dim]);
    }
    out += "]";
  };
  rec(0, offset_);
  return out;
}

std::string Array::printed(std::size_t indent) const {
  // NumPy's conventions (np.array2string): beyond 1,000 elements each axis shows its first and
  // last 3 entries around "...", rows of 2 or more dimensions on their own lines (a blank line
  // between blocks of 3 or more), lines wrapped at 75 columns, bools True/False.
  constexpr int64_t kThreshold = 1000, kEdge = 3;
  constexpr std::size_t kWidth = 75;
  const bool summarize = size() > kThreshold;
  auto element = [&](int64_t off) {
    std::string out;
    dispatch(dtype_, [&](auto t) {
      using T = decltype(t);
      T v = base<T>()[off];
      if constexpr (std::is_same_v<T, bool>) out = v ? "True" : "False";
      else if constexpr (std::is_same_v<T, double>) out = formatDouble(v);
      else if constexpr (std::is_same_v<T, float>) out = formatFloat(v);
      else if constexpr (std::is_same_v<T, ops::Half>) out = formatHalf(v);
      else out = std::to_string(v);
    });
    return out;
  };
  std::string out;
  std::size_t column = indent; // where the current line is
  std::function<void(std::size_t, int64_t)> rec = [&](std::size_t dim, int64_t off) {
    if (dim == shape_.size()) {
      const std::string e = element(off);
      out += e;
      column += e.size();
      return;
    }
    out += "[";
    ++column;
    const int64_t n = shape_[dim];
    const bool inner = dim + 1 == shape_.size();
    const std::size_t hang = indent + dim + 1; // under this dimension's first element
    for (int64_t i = 0; i < n; ++i) {
      if (summarize && n > 2 * kEdge && i == kEdge) {
        // The elided middle, in place of an element (the next one's separator follows it).
        if (inner) {
          out += ", ...";
          column += 5;
        } else {
          out += "," + std::string(shape_.size() - dim - 1, '\n') + std::string(hang, ' ') + "...";
          column = hang + 3;
        }
        i = n - kEdge - 1;
        continue;
      }
      if (i) {
        if (inner) {
          out += ",";
          // The next element and its separator must fit in the line, else a new line.
          const std::string next = element(off + i * strides_[dim]);
          if (column + 2 + next.size() + 1 > kWidth) {
            out += "\n" + std::string(hang, ' ');
            column = hang;
          } else {
            out += " ";
            column += 2;
          }
        } else {
          out += "," + std::string(shape_.size() - dim - 1, '\n') + std::string(hang, ' ');
          column = hang;
        }
      }
      rec(dim + 1, off + i * strides_[dim]);
    }
    out += "]";
    ++column;
  };
  rec(0, offset_);
  return out;
}

} // namespace shapelab::interp
