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
// Batch norm's backward sums in one pass: sum_i g'[i] and sum_i g'[i] * ((x[i] - mean) * invStd),
// where g'[i] = g[i] if relu == null or relu[i] > 0, else 0 (the fused ReLU's mask, from its
// output). Each sum uses the same lanes as sumOf.
void sumsOfMaskedGradient(const float* g, const float* relu, const float* x, std::size_t n,
                          float mean, float invStd, float& sumG, float& sumGX);
// The same sums with the mask taken from x itself: g[i] counts where
// (x[i] - mean) * scale + shift > 0, a fused batch norm + ReLU's output computed with
// BatchNorm::normalize's float operations, so the mask is the one reading that output would give
// (without reading it).
void sumsOfReluGradient(const float* g, const float* x, std::size_t n, float mean, float invStd,
                        float scale, float shift, float& sumG, float& sumGX);
// sum_i x[i]^2 in double
double sumSquares(const float* x, std::size_t n);

}  // namespace paritylab::nn
