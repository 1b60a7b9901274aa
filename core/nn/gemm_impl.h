#pragma once
// Details of the one GEMM entry shared by its source files; layers use gemm.h only.

#include <cstddef>
#include <cstdint>
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

// A product's two operands as bf16 values, each to be multiplied by one fp32 scale: NVFP4's
// quantized operands, whose every value is element x E4M3 block scale (at most 6 significant bits,
// exact in bf16) x the tensor's fp32 scale s_t. Their product is `scale` x (the fp32 sum of the
// bf16 values' products), each product exact in fp32 and the sum in the engine's order, with
// scale = s_tA x s_tB rounded to fp32: the tensor scales applied once, after the sum, as a GEMM
// epilogue's fp32 alpha (cuBLASLt's, in Transformer Engine's NVFP4 products). A and B are op(A)
// and op(B) as stored (gemm()'s transposes), rows of stride lda and ldb.
struct Bf16ScaledOperands {
  const std::uint16_t* a;
  int lda;
  const std::uint16_t* b;
  int ldb;
  float scale;
};

// Packs the stored matrix src [rows, cols] (row stride ld) divided by `scale` into dst [rows, cols]
// (dense) as bf16 bits, rounded to nearest-even: exact when every value is a bf16 value times
// scale rounded once to fp32 (the quotient is then within 2^-22 of that bf16 value, which has
// at most 6 significant bits here, so it rounds back to it).
void packBf16(const float* src, int rows, int cols, int ld, float scale, std::uint16_t* dst);

// C [m, n] (row stride ldc) = scale x op(A) op(B), op(A) [m, k] from A stored [m, k] (lda) or,
// transposed, [k, m]; likewise B. Products of bf16 values summed in fp32 (oneDNN's bf16 matmul on
// the calling thread), the scale applied once to each sum.
void bf16Product(Trans transA, Trans transB, int m, int n, int k, float scale,
                 const std::uint16_t* A, int lda, const std::uint16_t* B, int ldb, float* C,
                 int ldc);

// gemm() whose operands A and B are also given as Bf16ScaledOperands: the product runs on those
// (bf16Product), A and B serving only what the X-ray measures of them; the policy has no operand
// rounding, multi-pass or chunked accumulation left (gemmBlockScaled's rest).
void gemmOfScaledBf16(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n,
                      int k, float alpha, const float* A, int lda, const float* B, int ldb,
                      float beta, float* C, int ldc, GemmWorkspace& ws, const GemmExtras& extras,
                      const Bf16ScaledOperands& bf16);

// gemm() for a policy with block-scaled operands (GemmPolicy::blockScaled()): each operand packed
// densely, transformed (hadamard) and quantized along K (or rounded by `operands`), then handed as
// fp32 values to gemm() with the rest of the policy (accumulation, output, addend). The X-ray
// measures each operand before and after its quantization.
void gemmBlockScaled(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n,
                     int k, float alpha, const float* A, int lda, const float* B, int ldb,
                     float beta, float* C, int ldc, GemmWorkspace& ws, const GemmExtras& extras);

}  // namespace paritylab::nn
