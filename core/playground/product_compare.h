#pragma once
// Any product under every backend: C = A B formed by nn::gemm() with each backend's policy, the
// results side by side with their bits and ulp distances.

#include <cstdint>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/playground/matrix_text.h"

namespace paritylab::playground {

// A [m,k] x B [k,n] through nn::gemm() with `policy`. Throws std::invalid_argument naming both
// shapes when the inner dimensions differ.
// `scaleA`/`scaleB`: fp8 per-tensor scales (see nn::GemmExtras).
Matrix multiply(const backends::GemmPolicy& policy, const Matrix& a, const Matrix& b,
                float scaleA = 1.0f, float scaleB = 1.0f);

// Transformer Engine's per-tensor scale for `values` when its amax history holds only this
// tensor: format max / amax (1 when amax is 0), through nn::Fp8TensorScale.
float currentTensorScale(const numerics::RoundingSpec& format, const float* values, std::size_t n);

// Distance between two fp32 values in units in the last place: how many fp32 values lie from a
// to b (0: same value, +0 and -0 count as one). -1 when either is NaN.
std::int64_t ulpDistance(float a, float b);
std::uint32_t bitsOf(float v);

struct BackendProduct {
  std::string backend;
  Matrix product;                               // [m, n]
  std::vector<std::int64_t> ulpsFromReference;  // [m*n] against ProductComparison::reference
};

struct ProductComparison {
  Matrix a, b;
  // [m*n] the exact product of the fp32 inputs, rounded once to fp64
  std::vector<double> exact;
  std::string reference;                 // backend the ulps count from: cpu-fp32 when present
  std::vector<BackendProduct> products;  // in the order of the policies
  std::vector<bool> differs;             // [m*n] true when not all backends give the same bits
  int rows() const { return a.rows; }
  int cols() const { return b.cols; }
};

// Every policy's linear forward product (what a Dense layer's matmul would give); fp8 policies
// scale each operand per tensor to its format's range first (currentTensorScale).
ProductComparison compareProducts(const Matrix& a, const Matrix& b,
                                  const std::vector<backends::PrecisionPolicy>& policies);

// The jax issue 9973 example: [[0.3744, 0.1656], [0.4707, 0.1663]] x [[0.3946, 0.1186],
// [0.1569, 0.3145]].
Matrix jaxExampleA();
Matrix jaxExampleB();

}  // namespace paritylab::playground
