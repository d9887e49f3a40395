// Reference kernels (Interpreter::run, by family): the elementwise kernels: unary and binary ufuncs (NumPy's scalar rules, ops/Scalar.h), where.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

Array Interpreter::runUnary(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const ops::Un op = ops::unaryCode(n->op);
  if (ops::loopOf(op) == ops::UfuncLoop::Test) { // tests the value in its own dtype (isnan of a float32 is not of a bool)
    const Array x = in(0).contiguous();
    Array result(DType::Bool, x.shape());
    bool *r = result.base<bool>();
    dispatch(x.dtype(), [&](auto t) {
      using T = decltype(t);
      const T *p = x.base<T>();
      for (int64_t i = 0; i < x.size(); ++i) r[i] = unaryTest<T>(op, p[i]);
    });
    return result;
  }
  Array x = in(0).astype(n->dtype);
  dispatch(n->dtype, [&](auto t) {
    using T = decltype(t);
    T *p = x.base<T>();
    for (int64_t i = 0; i < x.size(); ++i) p[i] = unaryValue<T>(op, p[i]);
  });
  return x;
}

Array Interpreter::runBinary(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  // NEP 50 (ops' requireLiteralFits): a Python integer meeting a narrower integer array must be
  // one of its values, checked before anything else, as NumPy does.
  const std::size_t first = n->kind == OpKind::Where ? 1 : 0;
  for (std::size_t i = first; i < first + 2; ++i) {
    const Node *literal = n->inputs[i], *other = n->inputs[first + 1 - (i - first)];
    if (!ops::mustFitNarrowInteger(literal, other)) continue;
    const int64_t v = in(i).at<int64_t>(0);
    if (!ops::holds(other->dtype, (long double)v))
      shapeError("Python integer " + std::to_string(v) + " out of bounds for " + ops::spelling(other->dtype));
  }
  std::vector<Dims> shapes;
  for (std::size_t i = 0; i < n->inputs.size(); ++i) shapes.push_back(in(i).shape());
  Dims out = broadcastShapes(shapes);
  checkStaticBroadcast(n, shapes, out);
  Array result(n->dtype, out);
  if (n->kind == OpKind::Where) {
    Array c = in(0).astype(DType::Bool), a = in(1).astype(n->dtype), b = in(2).astype(n->dtype);
    dispatch(n->dtype, [&](auto t) {
      using T = decltype(t);
      T *r = result.base<T>();
      std::vector<int64_t> cc = offsets(c, out), aa = offsets(a, out), bb = offsets(b, out);
      for (std::size_t k = 0; k < cc.size(); ++k) r[k] = c.base<bool>()[cc[k]] ? a.base<T>()[aa[k]] : b.base<T>()[bb[k]];
    });
    return result;
  }
  Bin op = binCode(n->op);
  bool compare = ops::isComparison(op);
  // The type the values are computed in: the promoted operand type (comparisons), else the
  // result's.
  const Node *a0 = n->inputs[0], *b0 = n->inputs[1];
  DType compute = compare ? ops::resultType({{a0->dtype, a0->weak}, {b0->dtype, b0->weak}}) : n->dtype;
  // Read only: an operand of the compute type is used as it is.
  auto as = [&](std::size_t i) { return in(i).dtype() == compute ? in(i) : in(i).astype(compute); };
  const Array a = as(0), b = as(1);
  std::vector<int64_t> oa = offsets(a, out), ob = offsets(b, out);
  dispatch(compute, [&](auto t) {
    using T = decltype(t);
    const T *pa = a.base<T>(), *pb = b.base<T>();
    if (compare) {
      bool *r = result.base<bool>();
      for (std::size_t k = 0; k < oa.size(); ++k) r[k] = comparison<T>(op, pa[oa[k]], pb[ob[k]]);
    } else if (std::is_floating_point_v<T> && powerIsSquare(n)) {
      T *r = result.base<T>();
      if constexpr (std::is_floating_point_v<T>)
        for (std::size_t k = 0; k < oa.size(); ++k) r[k] = pa[oa[k]] * pa[oa[k]];
    } else {
      T *r = result.base<T>();
      for (std::size_t k = 0; k < oa.size(); ++k) r[k] = arithmetic<T>(op, pa[oa[k]], pb[ob[k]]);
    }
  });
  return result;
}

} // namespace shapelab::interp
