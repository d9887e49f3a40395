// Reference kernels (Interpreter::run, by family): the reduction kernels: sum, prod, max, min, all, any, mean, argmax, argmin; diff; cumsum and cumprod.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

Array Interpreter::runReduce(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const Array &x = in(0);
  std::vector<bool> reduced(x.rank());
  const ops::attr::Reduction &reduction = n->attr<ops::attr::Reduction>();
  for (int64_t a : reduction.axes) reduced[a] = true;
  Dims kept, outShape;
  int64_t per = 1;
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (!reduced[i]) kept.push_back(x.shape()[i]);
    else per *= x.shape()[i];
  }
  const std::string &op = n->op;
  if ((op == "max" || op == "min") && per == 0)
    shapeError(std::string("zero-size array to reduction operation ") + (op == "max" ? "maximum" : "minimum") + " which has no identity");
  const bool arg = op == "argmax" || op == "argmin";
  if (arg && per == 0) shapeError("attempt to get " + op + " of an empty sequence");
  for (std::size_t i = 0; i < x.rank(); ++i) {
    if (!reduced[i]) outShape.push_back(x.shape()[i]);
    else if (reduction.keepdims) outShape.push_back(1);
  }
  // Move reduced axes last: out index major, reduced minor (C order within: argmax over every
  // axis is the flat index).
  std::vector<int64_t> perm;
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (!reduced[i]) perm.push_back(int64_t(i));
  for (std::size_t i = 0; i < x.rank(); ++i)
    if (reduced[i]) perm.push_back(int64_t(i));
  const int64_t outCount = checkedCount(kept);
  Array result(n->dtype, kept);
  if (arg) {
    // The values in their own dtype: the first extreme, and the first NaN, which wins over any
    // number (NumPy's argmax and argmin).
    const Array moved = x.transposed(perm).contiguous();
    const bool largest = op == "argmax";
    dispatch(x.dtype(), [&](auto t) {
      using T = decltype(t);
      const T *p = moved.base<T>();
      for (int64_t o = 0; o < outCount; ++o) {
        const T *row = p + o * per;
        int64_t best = 0;
        for (int64_t k = 1; k < per; ++k) {
          if constexpr (ops::floating<T>) {
            if (std::isnan(row[best])) break;
            if (std::isnan(row[k])) {
              best = k;
              break;
            }
          }
          if (largest ? row[k] > row[best] : row[k] < row[best]) best = k;
        }
        result.base<int64_t>()[o] = best;
      }
    });
    return result.reshaped(outShape);
  }
  DType acc = op == "mean" ? n->dtype : (op == "all" || op == "any") ? DType::Bool : n->dtype;
  Array moved = x.astype(acc).transposed(perm).contiguous();
  dispatch(acc, [&](auto t) {
    using T = decltype(t);
    // float16 sums and products accumulate in float, rounded once (NumPy's half loops reduce
    // in float; its mean of float16 sums in float32).
    using A = std::conditional_t<std::is_same_v<T, ops::Half>, float, T>;
    const T *p = moved.base<T>();
    T *r = result.base<T>();
    for (int64_t o = 0; o < outCount; ++o) {
      const T *row = p + o * per;
      T v;
      if (op == "sum" || op == "mean") {
        A s = A(0);
        for (int64_t k = 0; k < per; ++k) s = arithmetic<A>(Bin::Add, s, A(row[k]));
        if constexpr (ops::floating<A>)
          if (op == "mean") s = s / A(per);
        v = T(s);
      } else if (op == "prod") {
        A s = A(1);
        for (int64_t k = 0; k < per; ++k) s = arithmetic<A>(Bin::Mul, s, A(row[k]));
        v = T(s);
      } else if (op == "max" || op == "min") {
        v = row[0];
        for (int64_t k = 1; k < per; ++k) v = arithmetic<T>(op == "max" ? Bin::Max : Bin::Min, v, row[k]);
      } else if (op == "all") {
        bool all = true;
        for (int64_t k = 0; k < per; ++k) all = all && row[k] != T(0);
        v = T(all);
      } else {
        bool any = false;
        for (int64_t k = 0; k < per; ++k) any = any || row[k] != T(0);
        v = T(any);
      }
      r[o] = v;
    }
  });
  return result.reshaped(outShape);
}

Array Interpreter::runSumTo(const Node *n) {
  const Array &g = values_.at(n->inputs[0]);
  Dims target;
  for (const Expr &e : n->exprs) target.push_back(value(e));
  const std::size_t lead = g.rank() - target.size();
  // The axes the target was stretched along: the leading ones, and each where it has 1 and g
  // does not (g of size 0 there: the sum is 0).
  std::vector<bool> reduced(g.rank());
  for (std::size_t i = 0; i < g.rank(); ++i) {
    if (i < lead) {
      reduced[i] = true;
      continue;
    }
    const int64_t t = target[i - lead], d = g.shape()[i];
    if (t != d && t != 1)
      shapeError("sum_to: shape " + shapeText(target) + " does not broadcast to " + shapeText(g.shape()));
    reduced[i] = t == 1 && d != 1;
  }
  std::vector<int64_t> perm;
  Dims kept;
  int64_t per = 1;
  for (std::size_t i = 0; i < g.rank(); ++i)
    if (!reduced[i]) perm.push_back(int64_t(i)), kept.push_back(g.shape()[i]);
  for (std::size_t i = 0; i < g.rank(); ++i)
    if (reduced[i]) perm.push_back(int64_t(i)), per *= g.shape()[i];
  const Array moved = g.transposed(perm).contiguous();
  Array result(n->dtype, kept);
  const int64_t outCount = checkedCount(kept);
  dispatch(n->dtype, [&](auto t) {
    using T = decltype(t);
    using A = std::conditional_t<std::is_same_v<T, ops::Half>, float, T>;
    const T *p = moved.base<T>();
    T *r = result.base<T>();
    for (int64_t o = 0; o < outCount; ++o) {
      if ((o & 4095) == 0) checkInterrupt();
      A s = A(0);
      for (int64_t k = 0; k < per; ++k) s = arithmetic<A>(Bin::Add, s, A(p[o * per + k]));
      r[o] = T(s);
    }
  });
  return result.reshaped(target);
}

Array Interpreter::runDiff(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const int64_t order = n->attr<ops::attr::Difference>().n, axis = n->attr<ops::attr::Difference>().axis;
  Array x = in(0).astype(n->dtype);
  for (int64_t r = 0; r < order && x.shape()[axis] > 0; ++r) {
    Dims s = x.shape();
    s[axis] -= 1;
    Array out(n->dtype, s);
    Dims lo(x.rank(), 0), hi(x.rank(), 0);
    hi[axis] = 1;
    Array a = x.view(x.offset() + x.strides()[axis], s, x.strides()), b = x.view(x.offset(), s, x.strides());
    std::vector<int64_t> oa, ob;
    a.forEachOffset([&](int64_t o) { oa.push_back(o); });
    b.forEachOffset([&](int64_t o) { ob.push_back(o); });
    dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      T *d = out.base<T>();
      const T *p = x.base<T>();
      for (std::size_t k = 0; k < oa.size(); ++k) {
        if constexpr (std::is_same_v<T, bool>) d[k] = p[oa[k]] != p[ob[k]];
        else d[k] = arithmetic<T>(Bin::Sub, p[oa[k]], p[ob[k]]);
      }
    });
    x = out;
  }
  if (x.shape()[axis] == 0 || order == 0) {
    Dims s = x.shape();
    s[axis] = std::max<int64_t>(0, in(0).shape()[axis] - order);
    if (order > 0 || s != x.shape()) x = Array(n->dtype, s);
  }
  return x;
}

Array Interpreter::runCumulative(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const int64_t axis = n->attr<ops::attr::Axis>().axis;
  const Array &x = in(0);
  const Array src = x.dtype() == n->dtype ? x.contiguous() : x.astype(n->dtype);
  Array out = Array::uninitialized(n->dtype, src.shape());
  int64_t L = src.shape()[axis], inner = 1, outer = 1;
  for (std::size_t d = axis + 1; d < src.rank(); ++d) inner *= src.shape()[d];
  for (int64_t d = 0; d < axis; ++d) outer *= src.shape()[d];
  // One pass, a row of `inner` elements at a time: out[k] = out[k - 1] op x[k] along the axis
  // (the same left fold element by element as NumPy's loop).
  auto scan = [&](auto t, auto op) {
    using T = decltype(t);
    const T *s = src.base<T>() + src.offset();
    T *o = out.base<T>();
    for (int64_t q = 0; q < outer; ++q, s += L * inner, o += L * inner) {
      if (L == 0) continue;
      for (int64_t i = 0; i < inner; ++i) o[i] = s[i];
      for (int64_t k = 1; k < L; ++k) {
        const T *prev = o + (k - 1) * inner, *cur = s + k * inner;
        T *dst = o + k * inner;
        for (int64_t i = 0; i < inner; ++i) dst[i] = arithmetic<T>(decltype(op)::value, prev[i], cur[i]);
      }
    }
  };
  dispatch(n->dtype, [&](auto t) {
    if (n->kind == OpKind::Cumprod) scan(t, std::integral_constant<Bin, Bin::Mul>{});
    else scan(t, std::integral_constant<Bin, Bin::Add>{});
  });
  return out;
}

namespace {

/// Sort keys: unsigned integers ordered as the values are, NaNs (any sign or payload) all last
/// and equal to each other (NumPy's order); -0.0 and 0.0 equal.
template <class T> auto sortKey(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return uint32_t(v);
  } else if constexpr (ops::floating<T>) {
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint16_t>>;
    constexpr U sign = U(1) << (8 * sizeof(T) - 1);
    if (std::isnan(v)) return U(~U(0));
    if (v == 0) v = T(0); // -0.0 ties with 0.0, as they compare (a stable argsort keeps their order)
    U bits;
    std::memcpy(&bits, &v, sizeof bits);
    return U((bits & sign) ? ~bits : (bits | sign));
  } else if constexpr (std::is_unsigned_v<T>) {
    return v;
  } else {
    using U = std::make_unsigned_t<T>;
    return U(U(v) ^ U(U(1) << (8 * sizeof(T) - 1)));
  }
}

/// A stable LSD radix sort of `keys`, carrying `order` (the positions) along, 11 bits a pass;
/// a pass whose digit is the same for every key is skipped. Linear in the count, and each pass
/// reads its keys in order: on 10**6 float64 several times faster than a comparison sort.
template <class K> void radixOrder(std::vector<K> &keys, std::vector<int64_t> &order) {
  constexpr int kBits = 11;
  constexpr std::size_t kBuckets = std::size_t(1) << kBits;
  const std::size_t n = keys.size();
  std::vector<K> otherKeys(n);
  std::vector<int64_t> otherOrder(n);
  std::vector<std::size_t> count(kBuckets);
  for (int shift = 0; shift < int(8 * sizeof(K)); shift += kBits) {
    std::fill(count.begin(), count.end(), 0);
    for (std::size_t k = 0; k < n; ++k) ++count[(keys[k] >> shift) & (kBuckets - 1)];
    if (std::any_of(count.begin(), count.end(), [&](std::size_t c) { return c == n; })) continue;
    std::size_t total = 0;
    for (std::size_t &c : count) total += std::exchange(c, total);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t at = count[(keys[k] >> shift) & (kBuckets - 1)]++;
      otherKeys[at] = keys[k];
      otherOrder[at] = order[k];
    }
    keys.swap(otherKeys);
    order.swap(otherOrder);
  }
}

/// Below this length a comparison sort is faster than the radix passes.
constexpr int64_t kRadixFrom = 1024;

} // namespace

Array Interpreter::runSearchSorted(const Node *n) {
  // Both in their result type (NumPy converts them to one), v's elements in C order; a's order
  // puts NaN last, so "x before y" is x < y, or y NaN and x not.
  const Node *an = n->inputs[0], *vn = n->inputs[1];
  const DType t = ops::resultType({{an->dtype, an->weak}, {vn->dtype, vn->weak}});
  const Array a = values_.at(an).astype(t).contiguous(), v = values_.at(vn).astype(t).contiguous();
  const bool right = n->op == "searchsorted_right";
  Array out = Array::uninitialized(DType::Int64, v.shape());
  dispatch(t, [&](auto e) {
    using T = decltype(e);
    const T *p = a.base<T>() + a.offset(), *q = v.base<T>() + v.offset();
    auto nan = [](T x) {
      if constexpr (ops::floating<T>) return std::isnan(x);
      else return false;
    };
    auto before = [&](T x, T y) { return x < y || (nan(y) && !nan(x)); };
    const int64_t L = a.shape()[0];
    int64_t *o = out.base<int64_t>();
    for (int64_t k = 0; k < v.size(); ++k) {
      // The first position whose element is not before q[k] (left) or that q[k] is before (right).
      int64_t lo = 0, hi = L;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (right ? !before(q[k], p[mid]) : before(p[mid], q[k])) lo = mid + 1;
        else hi = mid;
      }
      o[k] = lo;
    }
  });
  return out;
}

Array Interpreter::runSort(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const int64_t axis = n->attr<ops::attr::Axis>().axis;
  const Array src = in(0).contiguous();
  const bool positions = n->op == "argsort";
  Array out = Array::uninitialized(n->dtype, src.shape());
  int64_t L = src.shape()[axis], inner = 1, outer = 1;
  for (std::size_t d = axis + 1; d < src.rank(); ++d) inner *= src.shape()[d];
  for (int64_t d = 0; d < axis; ++d) outer *= src.shape()[d];
  dispatch(src.dtype(), [&](auto t) {
    using T = decltype(t);
    using K = decltype(sortKey(T{}));
    const T *s = src.base<T>() + src.offset();
    std::vector<K> keys(static_cast<std::size_t>(L));
    std::vector<int64_t> order(static_cast<std::size_t>(L));
    for (int64_t q = 0; q < outer; ++q)
      for (int64_t i = 0; i < inner; ++i) {
        // One lane along the axis: its keys, their stable order, then the values or positions
        // in that order. Equal keys keep their order (argsort is stable).
        const T *from = s + q * L * inner + i;
        for (int64_t k = 0; k < L; ++k) keys[std::size_t(k)] = sortKey(from[k * inner]);
        std::iota(order.begin(), order.end(), int64_t(0));
        if (L >= kRadixFrom) radixOrder(keys, order);
        else std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[std::size_t(a)] < keys[std::size_t(b)]; });
        if (positions) {
          int64_t *to = out.base<int64_t>() + q * L * inner + i;
          for (int64_t k = 0; k < L; ++k) to[k * inner] = order[std::size_t(k)];
        } else {
          T *to = out.base<T>() + q * L * inner + i;
          for (int64_t k = 0; k < L; ++k) to[k * inner] = from[order[std::size_t(k)] * inner];
        }
      }
  });
  return out;
}

} // namespace shapelab::interp
