#pragma once
// Which ways of splitting and rounding a convolution's products keep a policy's bits: shared by
// Conv2d's forward, its lowered backward (conv2d.cpp) and its gathered backward
// (conv2d_gathered_backward.cpp).

#include <cstddef>

#include "core/backends/precision_policy.h"
#include "core/nn/gemm.h"
#include "core/nn/layer.h"

namespace paritylab::nn {

// A convolution's two backward products' policies, and the weight product's policy for the image
// groups before the last: those accumulate in fp32, without the output rounding, which the last
// group's call applies once to the total.
struct ConvBackwardPolicies {
  ConvBackwardPolicies(const backends::GemmPolicy& weight, const backends::GemmPolicy& data);
  const backends::GemmPolicy& weight;
  const backends::GemmPolicy& data;
  backends::GemmPolicy partialWeight;
};

// Images per group in the conv products: the group's columns (or column gradients),
// [columnRows, group * plane] fp32, stay within about 1 MiB so that the gather, the products and
// the scatter meet in the core's L2 instead of streaming a whole-batch matrix through memory.
// weightRows is the product's other side (the weights' [weightRows, columnRows]): OpenBLAS packs
// the weights afresh in every call, once per 2 * group * plane multiply-adds of each weight, so
// where the weights outnumber the group's columns (the last stages of a wide ResNet: 512 x 4608
// weights against 3 images of 4x4) a group takes at least 400 columns instead (the
// weights' packing was 16% of a width-64 stage-4 block). Splitting the batch differently moves
// OpenBLAS's fp32 summation order (its kernels' tiles), so the rule is part of the bits.
int imagesPerGroup(std::size_t columnRows, std::size_t plane, int batch, std::size_t weightRows);

// The output gradient is A of the weight-gradient product and B of every backward-data product.
// The first product may round it in place when nothing reads it afterwards, or when the
// backward-data products round it the same deterministic, unscaled, single-pass way (rounding it
// again is then exact), neither of them block-scaled.
bool dytMayBeRoundedInPlace(const backends::GemmPolicy& weight, const backends::GemmPolicy& data,
                            bool needInputGrad, bool scaled);

bool stochasticOperands(const backends::GemmPolicy& p);

// Rounds operands only, accumulating in fp32: splitting K then only reorders fp32 additions.
bool operandRoundingOnly(const backends::GemmPolicy& p);

// Rounds operands and the output once, deterministically, accumulating in fp32 in between.
bool operandAndOutputRoundingOnly(const backends::GemmPolicy& p);

// Whether the weights (A) of a product split into `groups` image groups may be rounded once by
// the first group's call and read as they are by the next groups' calls
// (GemmExtras::writableARounded): a deterministic operand rounding of unscaled weights, not
// block-scaled, outside X-ray steps.
bool weightsMayBeRoundedOnce(const backends::GemmPolicy& p, const GemmExtras& e, int groups);

// A copy of the weights `w` (n floats) in s.weights for that, or null when it does not apply (each
// call then packs and rounds the weights itself: the same bits, one more pass per group).
float* weightsRoundedOnce(const backends::GemmPolicy& p, const GemmExtras& e, const float* w,
                          std::size_t n, int groups, LayerScratch& s);

// A block-scaled weight-gradient product's operands quantized along the batch before their
// gathers (blocks of images at each channel and pixel, a part of the product's reduction over
// images and pixels, as microxcaling's Conv2d quantizes them): the output gradient dy into
// s.gradientByBatch and the input x [batch, xItem] into s.inputByBatch (prequantizeOperand). Null
// for an operand the policy does not block-scale.
struct QuantizedByBatch {
  float* gradient = nullptr;
  float* input = nullptr;
  float gradientTensorScale = 0.0f;  // NVFP4's (GemmExtras::tensorScaleA / B)
  float inputTensorScale = 0.0f;
};
// The output gradient as a stack of `count` matrices [batch, cols]: as the layer has it, [batch,
// Cout * plane] (count 1), or channels first, [Cout, batch, plane] (count Cout, cols plane), the
// rows a lowered weight product reads. Its blocks and their draws are the same either way (each
// runs down one channel's pixel, and a draw's index counts the blocks' lines alike); the values
// come out in the stack's layout.
struct GradientStack {
  const float* values = nullptr;  // [count, batch, cols]
  std::size_t count = 1;
  std::size_t cols = 0;
};
QuantizedByBatch quantizeAlongBatch(const backends::GemmPolicy& weightPolicy, const GemmExtras& e,
                                    GradientStack dy, const float* x, std::size_t xItem, int batch,
                                    LayerScratch& s);

// Whether operand `which` of a product under `p` is already rounded because it went through the
// store step in `storedAs` (a conv's input, kept as activations in the format its products round
// it to: gpu-amp-*): the same deterministic rounding, unscaled, single pass. Then rounding it
// again would leave every value as it is.
bool operandAlreadyStored(const std::optional<numerics::RoundingSpec>& storedAs,
                          const backends::GemmPolicy& p, Operand which, const GemmExtras& e);

// Parts to split one per-image product into, along its wide dimension, so that each part runs
// through OpenBLAS's small-matrix kernels, which read the operands where they lie instead of
// packing them: its SkylakeX kernels take products of at most 10^6 multiply-adds that way. Two
// halves of the narrow products of a ResNet's first stages ran faster than the packed whole
// (16 x 784 x 144, forward or data gradient: 40 -> 30 us; its weight gradient 144 x 784 x 16:
// 46 -> 41 us); wider ones ran slower (64 x 49 x 576), so only products whose narrow side is at
// most `maxNarrow` and that need at most 3 parts (32x32 images: 16 x 1024 x 144) split. 1 (no
// split) on other kernel sets. The parts are whole output columns or rows: each output element
// keeps its reduction, summed by the small-matrix kernel.
int smallKernelParts(std::size_t narrow, std::size_t multiplyAdds, std::size_t maxNarrow);

}  // namespace paritylab::nn
