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
#define SINCOS sincosAvx512
#define ANY_ABOVE(x, c) (_mm512_cmp_pd_mask((x), _mm512_set1_pd(c), _CMP_GT_OQ) != 0)
#include "interp/simd/VectorMathLoop.inc"
} // namespace shapelab::interp::simd
