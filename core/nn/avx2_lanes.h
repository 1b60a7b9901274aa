#pragma once
// Lane shuffles shared by the AVX2 paths of the gathers (im2col.cpp) and max-pool (maxpool.cpp),
// for CPUs without AVX-512. Include only where __AVX2__ is defined.

#include <immintrin.h>

namespace paritylab::nn::avx2 {

// Lane j is all ones where j < n (n in [0, 8]; n <= 0 none, n >= 8 all).
inline __m256i firstLanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The first n lanes of v to dst, touching nothing past them (all 8 when n >= 8, none when n <= 0).
inline void storeFirstLanes(float* dst, __m256 v, int n) {
  if (n >= 8)
    _mm256_storeu_ps(dst, v);
  else if (n > 0)
    _mm256_maskstore_ps(dst, firstLanes(n), v);
}

// [a0 a2 a4 a6 b0 b2 b4 b6]: the even lanes of two vectors of 8 (a stride-2 row's lanes).
inline __m256 evenLanes(__m256 a, __m256 b) {
  // [a0 a2 b0 b2 | a4 a6 b4 b6] -> [a0 a2 a4 a6 b0 b2 b4 b6]
  const __m256 pairs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pairs), _MM_SHUFFLE(3, 1, 2, 0)));
}

// [a1 a3 a5 a7 b1 b3 b5 b7]: the odd lanes.
inline __m256 oddLanes(__m256 a, __m256 b) {
  const __m256 pairs = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(pairs), _MM_SHUFFLE(3, 1, 2, 0)));
}

}  // namespace paritylab::nn::avx2
