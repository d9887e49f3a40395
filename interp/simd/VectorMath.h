// VectorMath — transcendental functions on arrays of doubles, vectorized by SLEEF with runtime
// CPU dispatch (DESIGN §3.6: the optimized interpreter).
//
// Model: the same loops are compiled three times (x86-64 baseline SSE2, AVX2+FMA, AVX-512F),
// each calling SLEEF's vector functions of that width with 1.0-ULP accuracy (`_u10`); the widest
// variant the CPU supports is picked once, at first use (SHAPELAB_SIMD=sse2|avx2|avx512 picks a
// narrower one, for tests). The default build needs only x86-64: no -march=native.
// Accuracy (stated, and tested against 50-digit values in tests/interp/VectorMathTest.cpp): every
// function within kUlpBound ULP of the correctly rounded result for finite results; nan, ±inf and
// ±0 as C's <cmath> gives them. Two SLEEF edges broke that bound and are mended (lanes past
// them go to the C library): exp overflowed to inf just below ln(DBL_MAX), log1p gave inf above
// 1e307. The test prints the worst error it measured per function and width.
#pragma once

#include <cstdint>

namespace shapelab::interp::simd {

enum class MathOp : uint8_t { Exp, Log, Log1p, Expm1, Sin, Cos, Tan, Tanh };
inline constexpr int kMathOps = 8;
/// The stated error bound of every MathOp, in units in the last place.
inline constexpr double kUlpBound = 1.0;

/// out[i] = op(in[i]) for i < n (in and out may be the same array).
void apply(MathOp op, const double *in, double *out, int64_t n);

/// sinOut[i] = sin(in[i]), cosOut[i] = cos(in[i]) in one pass (the argument reduction shared),
/// within kUlpBound like sin and cos. `in` may be one of the outputs.
void sincos(const double *in, double *sinOut, double *cosOut, int64_t n);

/// The exact elementwise operations (IEEE results, the same bits at every width): out[i] =
/// a[i] op b[i] (unary ones read a). Max/Min propagate a nan as NumPy's maximum/minimum do.
/// `out` may be `a` or `b` itself, but must not overlap them otherwise.
enum class Arith : uint8_t { Add, Sub, Mul, Div, Max, Min, Negative, Abs, Sqrt, Floor, Ceil, Square };
void arith(Arith op, const double *a, const double *b, double *out, int64_t n);
/// The instruction set in use: "avx512f", "avx2" or "sse2".
const char *isaName();

// The per-ISA loops (each compiled with its own flags; call only when the CPU has the ISA).
void applySse2(MathOp op, const double *in, double *out, int64_t n);
void applyAvx2(MathOp op, const double *in, double *out, int64_t n);
void applyAvx512(MathOp op, const double *in, double *out, int64_t n);
void sincosSse2(const double *in, double *sinOut, double *cosOut, int64_t n);
void sincosAvx2(const double *in, double *sinOut, double *cosOut, int64_t n);
void sincosAvx512(const double *in, double *sinOut, double *cosOut, int64_t n);
void arithSse2(Arith op, const double *a, const double *b, double *out, int64_t n);
void arithAvx2(Arith op, const double *a, const double *b, double *out, int64_t n);
void arithAvx512(Arith op, const double *a, const double *b, double *out, int64_t n);

} // namespace shapelab::interp::simd
