#include "core/nn/reductions.h"

namespace paritylab::nn {

namespace {

template <class T, class F>
T interleavedSum(std::size_t n, F term) {
  T acc[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += term(i + std::size_t(j));
  for (int j = 0; i < n; ++i, ++j) acc[j] += term(i);
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

}  // namespace

float sumOf(const float* x, std::size_t n) {
  return interleavedSum<float>(n, [x](std::size_t i) { return x[i]; });
}

float sumSquaredDeviation(const float* x, std::size_t n, float mean) {
  return interleavedSum<float>(n, [x, mean](std::size_t i) {
    const float d = x[i] - mean;
    return d * d;
  });
}

float sumProductNormalised(const float* g, const float* x, std::size_t n, float mean,
                           float invStd) {
  return interleavedSum<float>(
      n, [g, x, mean, invStd](std::size_t i) { return g[i] * ((x[i] - mean) * invStd); });
}

double sumSquares(const float* x, std::size_t n) {
  return interleavedSum<double>(n, [x](std::size_t i) { return double(x[i]) * double(x[i]); });
}

}  // namespace paritylab::nn
