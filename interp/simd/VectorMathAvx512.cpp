#include <immintrin.h>
#include <sleef.h>

#include "interp/simd/VectorMath.h"

namespace shapelab::interp::simd {
#define VEC __m512d
#define WIDTH 8
#define LOAD _mm512_loadu_pd
#define STORE _mm512_storeu_pd
#define SUFFIX(fn) Sleef_##fn##d8_u10avx512f
#define APPLY applyAvx512
#define ARITH arithAvx512
#include "interp/simd/VectorMathLoop.inc"
} // namespace shapelab::interp::simd
