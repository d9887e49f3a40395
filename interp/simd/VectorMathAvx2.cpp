#include <immintrin.h>
#include <sleef.h>

#include "interp/simd/VectorMath.h"

namespace shapelab::interp::simd {
#define VEC __m256d
#define WIDTH 4
#define LOAD _mm256_loadu_pd
#define STORE _mm256_storeu_pd
#define SUFFIX(fn) Sleef_##fn##d4_u10avx2
#define APPLY applyAvx2
#define ARITH arithAvx2
#define SINCOS sincosAvx2
#define ANY_ABOVE(x, c) (_mm256_movemask_pd(_mm256_cmp_pd((x), _mm256_set1_pd(c), _CMP_GT_OQ)) != 0)
#include "interp/simd/VectorMathLoop.inc"
} // namespace shapelab::interp::simd
