#pragma once
// Details of the one GEMM entry shared by its source files; layers use gemm.h only.

#include <cstddef>
#include <vector>

#include "core/nn/gemm.h"

namespace paritylab::nn {

// v's data with room for n values, grown and never shrunk: the products' sizes alternate, and a
// vector grown back after shrinking would zero-fill what it regains at every product.
template <typename T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// gemm() for a policy with block-scaled operands (GemmPolicy::blockScaled()): each operand packed
// densely, transformed (hadamard) and quantized along K (or rounded by `operands`), then handed as
// fp32 values to gemm() with the rest of the policy (accumulation, output, addend). The X-ray
// measures each operand before and after its quantization.
void gemmBlockScaled(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n,
                     int k, float alpha, const float* A, int lda, const float* B, int ldb,
                     float beta, float* C, int ldc, GemmWorkspace& ws, const GemmExtras& extras);

}  // namespace paritylab::nn
