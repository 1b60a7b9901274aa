#pragma once
// THE one GEMM entry. Every matrix product of training — forward, both backward products, and
// convolutions through im2col — goes through gemm(), which takes the precision policy and rounds
// the operands while packing them. No layer calls BLAS or rounds on its own.
// CONTRACT (owned by core/nn/gemm*; layers rely on these names).

#include <cstdint>
#include <vector>

#include "core/backends/precision_policy.h"

namespace paritylab::nn {

enum class Trans { No, Yes };

struct GemmXraySlot;  // gemm_xray.h

// Per-call extras. Defaults: no scaling, no stochastic stream.
struct GemmExtras {
  float scaleA = 1.0f;     // fp8 per-tensor scaling: operands are multiplied by scale before
  float scaleB = 1.0f;     // rounding and the product divided by scaleA*scaleB afterwards
  std::uint64_t seed = 0;  // stochastic operand rounding: stream seed (per call site and step)
  // Equal to A: likewise for A; the caller vouches that nothing reads A afterwards expecting its
  // unrounded values.
  float* writableA = nullptr;
  // With writableA: A already holds this call's rounded operand, because an earlier call with
  // the same deterministic operand rounding and scaleA 1 rounded it in place (a conv's weights,
  // rounded by its first image group's call and read as they are by the next groups' calls).
  // Rounding again would leave every value as it is; gemm skips it. Not on X-ray steps (the X-ray
  // must see the unrounded operand).
  bool writableARounded = false;
  // With writableARounded on an NVFP4 operand (quantized by prequantizeOperand or
  // prequantizeSquareConvWeights): the tensor scale it was quantized with, which those return
  // through their tensorScale argument. Likewise for B.
  float tensorScaleA = 0.0f;
  float tensorScaleB = 0.0f;
  // With writableB and writableBRounded on an NVFP4 operand B: B's values as the bf16 values the
  // product multiplies (B / tensorScaleB), in B's layout, gathered from packOperandBf16's output
  // (im2colBf16). The product reads these, not B's values. Not on X-ray steps.
  const std::uint16_t* bf16B = nullptr;
  // Equal to B: B is a scratch the caller discards after this call (im2col columns), so gemm may
  // scale and round it where it lies instead of packing a rounded copy. Same bits either way.
  float* writableB = nullptr;
  // With writableB: B already holds this call's rounded operand, as writableARounded for A (the
  // gathered output gradient of a conv's backward, rounded in place by its weight product and read
  // as it is by its data product). Not on X-ray steps.
  bool writableBRounded = false;
  // Equal to B: B (read-only) already holds values of its operand format, rounded by the store
  // step (a conv's input, stored as activations in the format its products round it to): gemm
  // reads it as it is, without rounding or packing a copy. Same bits: rounding a representable
  // value leaves it as it is.
  const float* roundedB = nullptr;
  // Equal to A: the same for A (attention's Q and P, stored as activations in the format its
  // products round them to).
  const float* roundedA = nullptr;
  // Non-null on a step the X-ray measures: gemm() adds this product's operands, as
  // scaled and rounded, and its output to the slot. Null (the default): no measurement.
  GemmXraySlot* xray = nullptr;
  // [n], added to every row of the product (a layer's bias), with beta 0: the same as C pre-filled
  // with it row by row and beta 1 (rounded to the policy's `addend`, added in fp32 before the
  // output rounding), without filling C. Under an output rounding gemm adds and rounds each row
  // in one pass.
  const float* bias = nullptr;
};

// Reusable packing buffers, one per training thread; grows, never shrinks (no allocation in the
// steady state of a training step).
struct GemmWorkspace {
  std::vector<float> a, b, parts, accumulator;
  std::vector<float> scaledA, scaledB, before;  // block-scaled operands (and the X-ray's copy)
  std::vector<float> bias;                      // GemmExtras::bias rounded to the addend format
  std::vector<std::uint16_t> bf16A, bf16B;      // NVFP4's operands as bf16 (gemm_impl.h)
};

// C[m,n] = round(alpha * op(A)[m,k] * op(B)[k,n] + beta * C), all row-major, where round is the
// policy's output rounding (if any): beta * C is added in fp32 before it, as in cuBLAS.
// op(A) is A [m,k] (lda >= k) or, with Trans::Yes, A stored as [k,m] (lda >= m); same for B.
// `policy` decides operand formats, multi-pass splitting, accumulation and output rounding.
void gemm(const backends::GemmPolicy& policy, Trans transA, Trans transB, int m, int n, int k,
          float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C,
          int ldc, GemmWorkspace& workspace, const GemmExtras& extras = {});

// Which operand of a product.
enum class Operand { A, B };

// Rounds n values of operand `which` of a product under `policy` into dst (dst may equal src)
// exactly as gemm() would round them, ahead of a gather that only copies values and zeros (a
// convolution's im2col): rounding the input once instead of its k*k-fold gathered copy. Only for
// a deterministic, unscaled, single-pass rounding on a step the X-ray does not measure (it must
// see the operand before rounding); returns false, touching nothing, when gemm() must round the
// gathered operand itself. When it returns true, the caller hands the gathered operand to gemm()
// as writableA/writableB with writableARounded/writableBRounded set.
bool preroundOperand(const backends::GemmPolicy& policy, Operand which, const GemmExtras& extras,
                     const float* src, float* dst, std::size_t n);
// True when preroundOperand() would round operand `which` (it returns true for any values).
bool canPreroundOperand(const backends::GemmPolicy& policy, Operand which,
                        const GemmExtras& extras);

// A convolution's block-scaled operand quantized before its gather: operand `which` of a product
// under `policy`, the tensor of `count` dense matrices [rows, cols] at src ([count, rows, cols])
// with its blocks down the columns (a convolution's activations or gradients along their
// channels at each pixel, or along the batch; its weights along one channel axis at each tap:
// docs/block-formats.md), quantized as gemm() would quantize it (its seeds, Hadamard signs and
// recipe; stochastic draws at `offset`), into dst (may be src). On a step the X-ray measures, the
// operand and its scales are measured here. False, touching nothing, when the policy does not
// block-scale that operand (or takes a Hadamard transform without block-scaling both). When it
// returns true, the caller gathers dst and hands the gathered operand to gemm() as writableA/B with
// writableARounded/BRounded set: gemm reads it as it is. *tensorScale (when given) receives NVFP4's
// tensor scale (0 for the other recipes), which the caller hands to gemm() as tensorScaleA/B.
bool prequantizeOperand(const backends::GemmPolicy& policy, Operand which, const GemmExtras& extras,
                        const float* src, float* dst, std::int64_t count, std::int64_t rows,
                        std::int64_t cols, std::uint64_t offset = 0, float* tensorScale = nullptr);

// An NVFP4 operand quantized before its gather (prequantizeOperand: n values at src, its tensor
// scale) packed into dst (grown to n) as the bf16 values the product multiplies (each value /
// tensorScale), so that the gather moves bf16 values (im2colBf16) and the product reads them
// (GemmExtras::bf16B). False, touching nothing, when the product of `policy` with reduction length
// k does not multiply bf16 values (not NVFP4 on both operands, or a chunked accumulation), or on an
// X-ray step.
bool packOperandBf16(const backends::GemmPolicy& policy, const GemmExtras& extras, int k,
                     const float* src, std::size_t n, float tensorScale,
                     std::vector<std::uint16_t>& dst);

// A convolution's weights W [Cout, Cin, taps] quantized as `policy` quantizes operand `which` when
// that operand's blocks are square: blocks of 16 output x 16 input channels at one tap (as a
// linear layer's square blocks cover output x input features), so that the forward (reduction
// over Cin) and the input gradient (over Cout) read the same quantized weights. The tensor is
// quantized as [taps, Cout, Cin], its Hadamard transform and stochastic draws (gemm()'s seeds)
// along `reduction` there (Row: Cin, Column: Cout), measured on a step the X-ray measures, and
// written to dst in W's layout (grown to W's size; not w's storage). False, touching nothing, when
// the operand's blocks are not square (or the policy takes a Hadamard transform without
// block-scaling both operands). When it returns true, the caller hands dst (or its gather) to
// gemm() as writableA/B with writableARounded/BRounded set, and *tensorScale (when given) as
// tensorScaleA/B.
bool prequantizeSquareConvWeights(const backends::GemmPolicy& policy, Operand which,
                                  const GemmExtras& extras, const float* w, std::vector<float>& dst,
                                  std::int64_t cout, std::int64_t cin, std::int64_t taps,
                                  numerics::BlockAxis reduction, float* tensorScale = nullptr);

// THE one store step: every tensor a backend keeps (activations, weights, gradients, optimizer
// state) passes through here; rounds in place to `format` when set.
void storeTensor(const std::optional<numerics::RoundingSpec>& format, float* data, std::size_t n,
                 std::uint64_t seed = 0);

// A prepared Rounder for `spec` from a small per-thread cache (the hot path never rebuilds
// rounding constants). The reference stays valid for the calling thread's lifetime.
const numerics::Rounder& cachedRounder(const numerics::RoundingSpec& spec);

// Semantics of gemm() beyond plain sgemm (documented here because layers rely on them):
// - identity policy (no operand/accumulation/output rounding, 1 pass, scales 1): cblas_sgemm
//   straight on A, B, C (bit-identical to plain sgemm);
// - operand rounding only: operands rounded while packed, then one sgemm with alpha and beta;
// - otherwise the product P = alpha * op(A)op(B) / (scaleA*scaleB) is formed in a scratch,
//   beta * C is added to it in fp32 (beta == 0 never reads C), and the sum is rounded once to
//   `output` if set: C = round(P + beta * C). A layer's bias goes in C with beta = 1, so it is
//   inside the product's output rounding like a cuBLASLt/cuDNN bias epilogue (round(XW + b), not
//   round(round(XW) + b));
// - `addend` set and beta != 0: C is rounded to it first, C = round(P + beta * round(C)), as
//   torch.addmm / linear / convNd under autocast add a bias already cast to the autocast dtype;
// - multi-pass: each pass is its own full sgemm (fp32 accumulation), passes summed elementwise in
//   fp32 smallest first (see backends::MultiPass);
// - block-scaled operands (scalingA / scalingB / hadamard): each operand packed densely,
//   transformed and quantized along K (or rounded by `operands` when it has no scaling), then one
//   product of the two as above (output, accumulation, addend apply); per-tensor fp8 scales must
//   be 1; on a step the X-ray does not measure, a writable operand without a Hadamard transform
//   is quantized where it lies; a writable block-scaled operand with writableA/BRounded set was
//   quantized by prequantizeOperand and is read as it is; two NVFP4 operands (without chunked
//   accumulation) multiply as their elements times block scales, exact in bf16, summed in fp32
//   (oneDNN's bf16 matmul: the CPU's bf16 dot products where it has them) and then multiplied by
//   the product of their tensor scales rounded to fp32, as a GEMM epilogue's alpha; any other
//   block-scaled product is the fp32 product of the dequantized operands;
// - accumulationChunk > 0: one sgemm per K-chunk, each chunk rounded to `accumulation`, added to a
//   running sum that is rounded again after every addition.

}  // namespace paritylab::nn
