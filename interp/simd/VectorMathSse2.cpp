#include <immintrin.h>
#include <sleef.h>

#include "interp/simd/VectorMath.h"

namespace shapelab::interp::simd {
#define VEC __m128d
#define WIDTH 2
#define LOAD _mm_loadu_pd
#define STORE _mm_storeu_pd
#define SUFFIX(fn) Sleef_##fn##d2_u10sse2
#define APPLY applySse2
#define ARITH arithSse2
#define SINCOS sincosSse2
#define ANY_ABOVE(x, c) (_mm_movemask_pd(_mm_cmpgt_pd((x), _mm_set1_pd(c))) != 0)
#include "interp/simd/VectorMathLoop.inc"
} // namespace shapelab::interp::simd
