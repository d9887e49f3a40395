#include "interp/simd/VectorMath.h"

#include <cstdlib>
#include <cstring>

namespace shapelab::interp::simd {

namespace {

using Apply = void (*)(MathOp, const double *, double *, int64_t);
using ArithFn = void (*)(Arith, const double *, const double *, double *, int64_t);
using SinCosFn = void (*)(const double *, double *, double *, int64_t);
struct Choice {
  Apply apply;
  ArithFn arith;
  SinCosFn sincos;
  const char *name;
};

Choice choose() {
  __builtin_cpu_init();
  const char *env = std::getenv("SHAPELAB_SIMD");
  const char *forced = env ? env : "";
  bool any = !*forced, avx512 = __builtin_cpu_supports("avx512f"),
       avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx512 && (any || std::strcmp(forced, "avx512") == 0)) return {applyAvx512, arithAvx512, sincosAvx512, "avx512f"};
  if (avx2 && (any || std::strcmp(forced, "avx512") == 0 || std::strcmp(forced, "avx2") == 0)) return {applyAvx2, arithAvx2, sincosAvx2, "avx2"};
  return {applySse2, arithSse2, sincosSse2, "sse2"};
}

const Choice &chosen() {
  static const Choice c = choose();
  return c;
}

} // namespace

void apply(MathOp op, const double *in, double *out, int64_t n) { chosen().apply(op, in, out, n); }
void arith(Arith op, const double *a, const double *b, double *out, int64_t n) { chosen().arith(op, a, b, out, n); }
void sincos(const double *in, double *sinOut, double *cosOut, int64_t n) { chosen().sincos(in, sinOut, cosOut, n); }
const char *isaName() { return chosen().name; }

} // namespace shapelab::interp::simd
