// Reference kernels (Interpreter::run, by family): the layout kernels: reshape, expand_dims and squeeze, broadcast_to and full, concatenate and stack.
#include "interp/kernels/KernelDetail.h"

namespace shapelab::interp {

Array Interpreter::runReshape(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const Array &x = in(0);
  Dims target;
  if (n->kind == OpKind::Squeeze) {
    const std::vector<int64_t> &dropped = n->attr<ops::attr::Dropped>().axes;
    for (std::size_t i = 0; i < x.rank(); ++i) {
      const bool drop = std::find(dropped.begin(), dropped.end(), int64_t(i)) != dropped.end();
      if (drop && x.shape()[i] != 1) shapeError("cannot select an axis to squeeze out which has size not equal to one");
      if (!drop) target.push_back(x.shape()[i]);
    }
  } else {
    // NumPy's reading of the target (`_fix_unknown_dimension`): every negative entry is the
    // unknown one (two are an error); the others multiply, checked, in order.
    const bool infers = n->kind == OpKind::Reshape;
    for (const Expr &e : n->exprs) target.push_back(value(e));
    const std::string message = "cannot reshape array of size " + std::to_string(x.size()) + " into shape " +
                                reshapeTargetText(target);
    int64_t known = 1, unknown = -1;
    for (std::size_t i = 0; i < target.size(); ++i) {
      if (target[i] < 0 && !infers) shapeError("negative dimensions not allowed");
      if (target[i] < 0) {
        if (unknown >= 0) shapeError("can only specify one unknown dimension");
        unknown = int64_t(i);
      } else if (__builtin_mul_overflow(known, target[i], &known)) {
        shapeError(message);
      }
    }
    if (unknown >= 0) {
      if (known == 0 || x.size() % known != 0) shapeError(message);
      target[unknown] = x.size() / known;
    } else if (known != x.size()) {
      shapeError(message);
    }
  }
  return x.reshaped(target).contiguous();
}

Array Interpreter::runFill(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  const Array &x = in(0);
  Dims target;
  for (const Expr &e : n->exprs) {
    int64_t d = value(e);
    if (d < 0) shapeError("negative dimensions are not allowed");
    target.push_back(d);
  }
  checkedCount(target);
  if (!broadcastsTo(x.shape(), target))
    shapeError("operands could not be broadcast together with remapped shapes [original->remapped]: " + shapeText(x.shape()) +
               "  and requested shape " + shapeText(target));
  return x.astype(n->dtype).broadcastTo(target).contiguous().astype(n->dtype);
}

Array Interpreter::runJoin(const Node *n) {
  auto in = [&](std::size_t i) -> const Array & { return values_.at(n->inputs[i]); };
  int64_t axis = n->attr<ops::attr::Axis>().axis;
  std::vector<Array> xs;
  for (std::size_t i = 0; i < n->inputs.size(); ++i) {
    Array x = in(i).astype(n->dtype);
    if (n->kind == OpKind::Stack) {
      if (x.shape() != in(0).shape()) shapeError("all input arrays must have the same shape");
      Dims s = x.shape();
      s.insert(s.begin() + axis, 1);
      x = x.reshaped(s);
    } else {
      for (std::size_t d = 0; d < x.rank(); ++d)
        if (int64_t(d) != axis && x.shape()[d] != in(0).shape()[d])
          shapeError("all the input array dimensions except for the concatenation axis must match exactly, but along dimension " +
                     std::to_string(d) + ", the array at index 0 has size " + std::to_string(in(0).shape()[d]) +
                     " and the array at index " + std::to_string(i) + " has size " + std::to_string(x.shape()[d]));
    }
    xs.push_back(x);
  }
  Dims out = xs[0].shape();
  out[axis] = 0;
  for (const Array &x : xs) out[axis] += x.shape()[axis];
  Array result(n->dtype, out);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[d];
  for (std::size_t d = axis + 1; d < out.size(); ++d) inner *= out[d];
  std::size_t item = ops::itemSize(n->dtype);
  char *dst = result.base<char>();
  int64_t row = out[axis] * inner;
  int64_t at = 0;
  for (const Array &x : xs) {
    int64_t w = x.shape()[axis] * inner;
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(dst + (o * row + at) * item, x.base<char>() + o * w * item, std::size_t(w) * item);
    at += w;
  }
  return result;
}

} // namespace shapelab::interp
