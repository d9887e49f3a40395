// The fused-loop bytecode (interp/FusedLoop.h): instructions from the op list, SinCos fusion,
// the executor over SIMD loops, and the strided gather of a leaf's block.
#include "interp/FusedLoop.h"

#include <algorithm>
#include <string>

namespace shapelab::interp::fused {

using ops::Bin;
using ops::Node;
using ops::OpKind;

namespace {

} // namespace


/// sin(r) and cos(r) of the same register become one SinCos instruction (one argument
/// reduction for both), placed where the first of them was: its operand is ready there, and
/// registers are written once, so the later one's result is only computed earlier. The last
/// instruction (the loop's output, written to memory) is left alone.
std::size_t fuseSinCos(std::vector<Instr> &program) {
  std::size_t pairs = 0;
  auto isTrig = [](const Instr &in, simd::MathOp op) { return in.code == Code::Math && in.math == op; };
  for (std::size_t k = 0; k + 1 < program.size(); ++k) {
    bool sin = isTrig(program[k], simd::MathOp::Sin);
    if (!sin && !isTrig(program[k], simd::MathOp::Cos)) continue;
    simd::MathOp other = sin ? simd::MathOp::Cos : simd::MathOp::Sin;
    for (std::size_t j = k + 1; j + 1 < program.size(); ++j)
      if (isTrig(program[j], other) && program[j].a == program[k].a) {
        Instr fused = program[k];
        fused.code = Code::SinCos;
        fused.dst = sin ? program[k].dst : program[j].dst;
        fused.dst2 = sin ? program[j].dst : program[k].dst;
        program[k] = fused;
        program.erase(program.begin() + std::ptrdiff_t(j));
        ++pairs;
        break;
      }
  }
  return pairs;
}

// The ufunc list's Vector rows are simd::MathOp's, in its order.
static_assert(int(ops::Un::Tanh) - int(ops::Un::Exp) + 1 == simd::kMathOps);
simd::MathOp mathOp(ops::Un u) { return simd::MathOp(int(u) - int(ops::Un::Exp)); }
ops::Un unaryOf(simd::MathOp m) { return ops::Un(int(ops::Un::Exp) + int(m)); }

Instr instrFor(const Node *n) {
  Instr i{Code::Math};
  if (n->kind == OpKind::Unary) {
    // The loop column of the ufunc list (ops/Ufuncs.def).
    const ops::Un u = ops::unaryCode(n->op);
    switch (ops::loopOf(u)) {
    case ops::UfuncLoop::Vector: i.math = mathOp(u); return i;
    case ops::UfuncLoop::Arith:
      switch (u) {
      case ops::Un::Sqrt: i.code = Code::Sqrt; return i;
      case ops::Un::Abs: i.code = Code::Abs; return i;
      case ops::Un::Negative: i.code = Code::Negative; return i;
      case ops::Un::Floor: i.code = Code::Floor; return i;
      case ops::Un::Ceil: i.code = Code::Ceil; return i;
      default: break;
      }
      break;
    case ops::UfuncLoop::Libm: i.code = Code::Libm, i.fn = libmFunction<double>(u); return i;
    case ops::UfuncLoop::Own:
      if (u == ops::Un::Sign) return i.code = Code::Sign, i;
      if (u == ops::Un::Square) return i.code = Code::Mul, i;
      break;
    case ops::UfuncLoop::Test: break;
    }
    throw InternalError("no fused instruction for the elementwise function " + n->op);
  }
  i.bin = binCode(n->op);
  switch (i.bin) {
  case Bin::Add: i.code = Code::Add; break;
  case Bin::Sub: i.code = Code::Sub; break;
  case Bin::Mul: i.code = Code::Mul; break;
  case Bin::Div: i.code = Code::Div; break;
  case Bin::Max: i.code = Code::Max; break;
  case Bin::Min: i.code = Code::Min; break;
  default: i.code = Code::Scalar; break;
  }
  return i;
}

void execute(const Instr &in, const double *a, const double *b, double *d, int64_t n, bool libm) {
  using simd::Arith;
  switch (in.code) {
  case Code::Math:
    if (libm) {
      const ops::Un u = unaryOf(in.math);
      for (int64_t k = 0; k < n; ++k) d[k] = unaryValue<double>(u, a[k]);
      return;
    }
    simd::apply(in.math, a, d, n);
    return;
  case Code::Sqrt: simd::arith(Arith::Sqrt, a, a, d, n); return;
  case Code::Abs: simd::arith(Arith::Abs, a, a, d, n); return;
  case Code::Negative: simd::arith(Arith::Negative, a, a, d, n); return;
  case Code::Floor: simd::arith(Arith::Floor, a, a, d, n); return;
  case Code::Ceil: simd::arith(Arith::Ceil, a, a, d, n); return;
  case Code::Sign: for (int64_t k = 0; k < n; ++k) d[k] = floatSign(a[k]); return;
  case Code::Add: simd::arith(Arith::Add, a, b, d, n); return;
  case Code::Sub: simd::arith(Arith::Sub, a, b, d, n); return;
  case Code::Mul: simd::arith(a == b ? Arith::Square : Arith::Mul, a, b, d, n); return;
  case Code::Div: simd::arith(Arith::Div, a, b, d, n); return;
  case Code::Max: simd::arith(Arith::Max, a, b, d, n); return;
  case Code::Min: simd::arith(Arith::Min, a, b, d, n); return;
  case Code::Scalar: for (int64_t k = 0; k < n; ++k) d[k] = arithmetic<double>(in.bin, a[k], b[k]); return;
  case Code::Libm: for (int64_t k = 0; k < n; ++k) d[k] = in.fn(a[k]); return;
  case Code::SinCos: break; // two outputs: the loop runs it (runSinCos)
  }
  throw InternalError("a SinCos instruction reached the one-output executor");
}

void runSinCos(const double *a, double *s, double *c, int64_t n, bool libm) {
  if (libm) {
    for (int64_t k = 0; k < n; ++k) s[k] = unaryValue<double>(ops::Un::Sin, a[k]), c[k] = unaryValue<double>(ops::Un::Cos, a[k]);
    return;
  }
  simd::sincos(a, s, c, n);
}

/// Reads elements [start, start + count) (C order over `shape`) of a float64 array viewed with
/// `strides` (0 on broadcast dims) into `out`.
void gather(const double *base, int64_t offset, const Dims &shape, const Dims &strides, int64_t start, int64_t count,
            double *out) {
  std::size_t r = shape.size();
  if (r == 0) {
    std::fill(out, out + count, base[offset]);
    return;
  }
  Dims idx(r);
  int64_t off = offset, rest = start;
  for (std::size_t i = r; i-- > 0;) {
    idx[i] = rest % shape[i];
    rest /= shape[i];
    off += idx[i] * strides[i];
  }
  int64_t last = shape[r - 1], step = strides[r - 1];
  for (int64_t k = 0; k < count;) {
    int64_t run = std::min(count - k, last - idx[r - 1]);
    if (step == 0) std::fill(out + k, out + k + run, base[off]);
    else
      for (int64_t j = 0; j < run; ++j) out[k + j] = base[off + j * step];
    k += run;
    off += run * step;
    idx[r - 1] += run;
    // Carry into the outer dimensions.
    for (std::size_t i = r - 1; i > 0 && idx[i] == shape[i]; --i) {
      off -= idx[i] * strides[i];
      idx[i] = 0;
      ++idx[i - 1];
      off += strides[i - 1];
    }
  }
}

} // namespace shapelab::interp::fused
