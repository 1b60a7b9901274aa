#pragma once
// Sums whose result depends only on the values, never on where they sit in memory. (Eigen's
// vectorised reductions peel an unaligned head, so their summation order — and the last bits of
// the result — change with the buffer's address, which breaks run-to-run bit-identity.)
// Eight interleaved fp32 partial sums by index, combined pairwise in a fixed order.

#include <cstddef>

namespace paritylab::nn {

// sum_i x[i]
float sumOf(const float* x, std::size_t n);
// sum_i (x[i] - mean)^2
float sumSquaredDeviation(const float* x, std::size_t n, float mean);
// sum_i g[i] * ((x[i] - mean) * invStd)
float sumProductNormalised(const float* g, const float* x, std::size_t n, float mean, float invStd);
// sum_i x[i]^2 in double
double sumSquares(const float* x, std::size_t n);

}  // namespace paritylab::nn
