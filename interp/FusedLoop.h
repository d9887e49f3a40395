// FusedLoop — the optimized interpreter's fused-loop bytecode (internal to interp/): a cluster of
// float64 elementwise ops becomes a short program of register instructions, run over blocks of
// elements. instrFor reads the op list's ufunc columns (ops/Ufuncs.def: the loop of a unary op,
// the code of a binary one); sin and cos of one register fuse into one SinCos.
// Example: exp(x) * y + 1 is {Math exp r0 <- x; Mul r1 <- r0, y; Add r2 <- r1, 1}.
// Cost: per block of elements, one pass per instruction through SIMD loops (interp/simd).
#pragma once

#include <cstdint>
#include <vector>

#include "interp/Kernels.h"
#include "interp/simd/VectorMath.h"
#include "ops/Graph.h"

namespace shapelab::interp::fused {

using Dims = std::vector<int64_t>;

enum class Code : uint8_t {
  Math,                                                   // simd::MathOp
  Sqrt, Abs, Negative, Floor, Ceil, Sign,                 // unary, exact
  Add, Sub, Mul, Div, Max, Min, Scalar,                   // binary (Scalar: Kernels' rule per element)
  SinCos,                                                 // sin into dst, cos into dst2, of a
  Libm,                                                   // a C library function per element (fn)
};

struct Instr {
  Code code;
  simd::MathOp math = simd::MathOp::Exp;
  double (*fn)(double) = nullptr;
  Bin bin = Bin::Add;
  int dst = 0, a = 0, b = 0, dst2 = -1;
};

/// sin(r) and cos(r) of the same register become one SinCos instruction (one argument
/// reduction for both); returns how many pairs fused.
std::size_t fuseSinCos(std::vector<Instr> &program);
/// The instruction computing node `n` (a fusable op).
Instr instrFor(const ops::Node *n);
/// Runs a one-output instruction over n elements (libm: the scalar functions, not SIMD).
void execute(const Instr &in, const double *a, const double *b, double *d, int64_t n, bool libm);
/// sin and cos of a into s and c.
void runSinCos(const double *a, double *s, double *c, int64_t n, bool libm);
/// Reads elements [start, start + count) (C order over `shape`) of a float64 array viewed with
/// `strides` (0 on broadcast dims) into `out`.
void gather(const double *base, int64_t offset, const Dims &shape, const Dims &strides, int64_t start, int64_t count,
            double *out);

} // namespace shapelab::interp::fused
