#include "core/nn/reductions.h"

#ifdef __AVX__
#include <immintrin.h>
#endif

namespace paritylab::nn {

namespace {

// Lane j accumulates the terms i with i % 8 == j; lanes are combined in one fixed order. The AVX
// path computes exactly the same lanes (separate multiply and add, no FMA), so both paths give
// identical bits.
inline float combine(const float acc[8]) {
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

template <class Term>
void scalarTail(float acc[8], std::size_t from, std::size_t n, Term term) {
  for (std::size_t i = from, j = 0; i < n; ++i, ++j) acc[j] += term(i);
}

}  // namespace

float sumOf(const float* x, std::size_t n) {
  float acc[8] = {};
  std::size_t i = 0;
#ifdef __AVX__
  __m256 a = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) a = _mm256_add_ps(a, _mm256_loadu_ps(x + i));
  _mm256_storeu_ps(acc, a);
#endif
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += x[i + std::size_t(j)];
  scalarTail(acc, i, n, [x](std::size_t k) { return x[k]; });
  return combine(acc);
}

float sumSquaredDeviation(const float* x, std::size_t n, float mean) {
  float acc[8] = {};
  std::size_t i = 0;
#ifdef __AVX__
  const __m256 m = _mm256_set1_ps(mean);
  __m256 a = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
    a = _mm256_add_ps(a, _mm256_mul_ps(d, d));
  }
  _mm256_storeu_ps(acc, a);
#endif
  auto term = [x, mean](std::size_t k) {
    const float d = x[k] - mean;
    return d * d;
  };
  for (; i + 8 <= n; i += 8)
    for (std::size_t j = 0; j < 8; ++j) acc[j] += term(i + j);
  scalarTail(acc, i, n, term);
  return combine(acc);
}

void sumsOfMaskedGradient(const float* g, const float* relu, const float* x, std::size_t n,
                          float mean, float invStd, float& sumG, float& sumGX) {
  float accG[8] = {}, accGX[8] = {};
  std::size_t i = 0;
#ifdef __AVX__
  const __m256 m = _mm256_set1_ps(mean), s = _mm256_set1_ps(invStd), zero = _mm256_setzero_ps();
  __m256 ag = _mm256_setzero_ps(), agx = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    __m256 gv = _mm256_loadu_ps(g + i);
    if (relu) gv = _mm256_and_ps(gv, _mm256_cmp_ps(_mm256_loadu_ps(relu + i), zero, _CMP_GT_OQ));
    const __m256 xhat = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(x + i), m), s);
    ag = _mm256_add_ps(ag, gv);
    agx = _mm256_add_ps(agx, _mm256_mul_ps(gv, xhat));
  }
  _mm256_storeu_ps(accG, ag);
  _mm256_storeu_ps(accGX, agx);
#endif
  for (std::size_t j = 0; i < n; ++i, j = (j + 1) % 8) {
    const float gv = relu && !(relu[i] > 0.0f) ? 0.0f : g[i];
    accG[j] += gv;
    accGX[j] += gv * ((x[i] - mean) * invStd);
  }
  sumG = combine(accG);
  sumGX = combine(accGX);
}

void sumsOfReluGradient(const float* g, const float* x, std::size_t n, float mean, float invStd,
                        float scale, float shift, float& sumG, float& sumGX) {
  float accG[8] = {}, accGX[8] = {};
  std::size_t i = 0;
#ifdef __AVX__
  const __m256 m = _mm256_set1_ps(mean), s = _mm256_set1_ps(invStd), zero = _mm256_setzero_ps();
  const __m256 sc = _mm256_set1_ps(scale), sh = _mm256_set1_ps(shift);
  __m256 ag = _mm256_setzero_ps(), agx = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), m);
    const __m256 out = _mm256_add_ps(_mm256_mul_ps(d, sc), sh);
    const __m256 gv = _mm256_and_ps(_mm256_loadu_ps(g + i), _mm256_cmp_ps(out, zero, _CMP_GT_OQ));
    ag = _mm256_add_ps(ag, gv);
    agx = _mm256_add_ps(agx, _mm256_mul_ps(gv, _mm256_mul_ps(d, s)));
  }
  _mm256_storeu_ps(accG, ag);
  _mm256_storeu_ps(accGX, agx);
#endif
  for (std::size_t j = 0; i < n; ++i, j = (j + 1) % 8) {
    const float d = x[i] - mean;
    const float gv = d * scale + shift > 0.0f ? g[i] : 0.0f;
    accG[j] += gv;
    accGX[j] += gv * (d * invStd);
  }
  sumG = combine(accG);
  sumGX = combine(accGX);
}

double sumSquares(const float* x, std::size_t n) {
  double acc[8] = {};
  for (std::size_t i = 0; i < n; ++i) acc[i % 8] += double(x[i]) * double(x[i]);
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

}  // namespace paritylab::nn
