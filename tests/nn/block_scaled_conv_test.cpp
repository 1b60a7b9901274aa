// Which values share a block when a convolution's products are block-scaled. A convolution is a
// product whose reduction runs over input channels and kernel taps (forward), output channels and
// taps (input gradient), or images and pixels (weight gradient). Its operands are blocked as
// microxcaling's Conv2d blocks them: along the input channels at each pixel and tap (forward: x
// and W), along the output channels (input gradient: dY at each pixel, W at each input channel
// and tap), along the batch (weight gradient: dY and x at each channel and pixel); a block never
// spans two taps or two pixels, whatever the lowering (im2col's rows, or the gathered transposed
// convolution) puts next to each other. The references quantize each such vector on its own, as
// a row, and sum the products in double; the layer must agree to fp32 accumulation, under the
// gathered backward (stride 1) and the lowered one (stride 2), with full and short blocks (40
// input channels, 36 output channels, 35 images: 32 + 8, 32 + 4, 32 + 3).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv_reference.h"
#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/numerics/block_scaling.h"
#include "nn_test_support.h"
#include "pinned_steps.h"

namespace paritylab::nn {
namespace {

using numerics::BlockAxis;
using numerics::BlockScaling;

// values [outer, length, inner] quantized along `length` at each (outer, inner): each vector a
// row of its own.
std::vector<double> quantizedAlong(const float* values, int outer, int length, int inner,
                                   const BlockScaling& spec) {
  std::vector<double> out(std::size_t(outer) * length * inner);
  std::vector<float> v(static_cast<std::size_t>(length));
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < inner; ++i) {
      const auto at = [&](int l) { return (std::size_t(o) * length + l) * inner + i; };
      for (int l = 0; l < length; ++l) v[std::size_t(l)] = values[at(l)];
      numerics::quantizeBlocks(v, v, 1, length, length, BlockAxis::Row, spec);
      for (int l = 0; l < length; ++l) out[at(l)] = v[std::size_t(l)];
    }
  return out;
}

// The mxfp8 preset's block-scaled convolution products with fp32 outputs (no output rounding),
// so that the layer's results are sums of the quantized operands.
backends::PrecisionPolicy blockScaledConvPolicy() {
  backends::PrecisionPolicy p = backends::presetPolicy("mxfp8");
  for (backends::GemmPolicy* g : {&p.conv.forward, &p.conv.backwardData, &p.conv.backwardWeight}) {
    g->output.reset();
    g->addend.reset();
  }
  return p;
}

void checkBlocks(int stride) {
  constexpr int CIN = 40, COUT = 36, K = 3, PAD = 1, N = 35, H = 8, W = 8;
  const ConvGeometry g{N, CIN, H, W, K, stride, PAD};
  const int T = K * K, outPlane = g.outHeight() * g.outWidth();
  const backends::PrecisionPolicy policy = blockScaledConvPolicy();
  const BlockScaling spec = *policy.conv.forward.scalingA;
  ASSERT_EQ(spec.blockSize, 32);
  const testing::ConvPass pass = testing::convForwardBackward(policy, g, COUT, 5, 17, 29);
  const Tensor &x = pass.x, &y = pass.y, &dy = pass.dy, &dx = pass.dx;
  const float* w = pass.w.data();
  const float* dw = pass.dw.data();

  // forward: x along its channels at each pixel, W along its input channels at each tap
  const auto xf = quantizedAlong(x.data(), N, CIN, H * W, spec);
  const auto wf = quantizedAlong(w, COUT, CIN, T, spec);
  // input gradient: dY along its channels at each pixel, W along its output channels
  const auto gd = quantizedAlong(dy.data(), N, COUT, outPlane, spec);
  const auto wd = quantizedAlong(w, 1, COUT, CIN * T, spec);
  // weight gradient: dY and x along the batch at each channel and pixel
  const auto gw = quantizedAlong(dy.data(), 1, N, COUT * outPlane, spec);
  const auto xw = quantizedAlong(x.data(), 1, N, CIN * H * W, spec);

  // fp32 accumulation of at most 360 (forward), 324 (input gradient) or 2240 (weight gradient)
  // terms; a value of an fp8 element grid off would be 2^-4 of its term.
  const std::string at = ", stride " + std::to_string(stride);
  testing::expectCloseToSums(y.data(), testing::convForwardSums(g, COUT, wf, xf), 2e-5,
                             "forward" + at);
  testing::expectCloseToSums(dx.data(), testing::convInputGradientSums(g, COUT, wd, gd), 2e-5,
                             "input gradient" + at);
  testing::expectCloseToSums(dw, testing::convWeightGradientSums(g, COUT, gw, xw), 2e-5,
                             "weight gradient" + at);
}

TEST(BlockScaledConv, TheGatheredBackwardBlocksChannelsAtEachTapAndTheBatchAtEachPixel) {
  checkBlocks(1);
}

TEST(BlockScaledConv, TheLoweredBackwardBlocksTheSameValues) {
  checkBlocks(2);
}

// NVFP4's square weight blocks: 16 output x 16 input channels at one tap (as a linear layer's
// cover 16 output x 16 input features), the same blocks and so the same quantized weights in the
// forward (reduction over Cin) and the input gradient (over Cout), under the gathered backward
// (stride 1) and the lowered one (stride 2), with short blocks at both edges (36 = 16 + 16 + 4
// output, 40 = 16 + 16 + 8 input channels). Only the weights are quantized here (activations and
// gradients stay fp32), so each result is a sum over the reference's quantized weights: the
// weights as [taps, Cout, Cin], one tensor scale over all of them.
void checkSquareWeightBlocks(int stride) {
  constexpr int CIN = 40, COUT = 36, K = 3, PAD = 1, N = 3, H = 8, W = 8;
  const ConvGeometry g{N, CIN, H, W, K, stride, PAD};
  constexpr int T = K * K;
  backends::PrecisionPolicy policy = backends::presetPolicy("nvfp4");
  for (backends::GemmPolicy* p :
       {&policy.conv.forward, &policy.conv.backwardData, &policy.conv.backwardWeight}) {
    p->output.reset();
    p->addend.reset();
  }
  policy.conv.forward.scalingB.reset();       // the input
  policy.conv.backwardData.scalingB.reset();  // the output gradient
  policy.conv.backwardWeight.scalingA.reset();
  policy.conv.backwardWeight.scalingB.reset();
  policy.conv.backwardWeight.hadamard = false;
  const BlockScaling spec = *policy.conv.forward.scalingA;
  ASSERT_TRUE(spec.squareBlocks);
  ASSERT_TRUE(policy.conv.backwardData.scalingA->squareBlocks);
  const testing::ConvPass pass = testing::convForwardBackward(policy, g, COUT, 7, 19, 31);

  std::vector<float> byTap(std::size_t(T) * COUT * CIN);
  const auto tapAt = [&](int o, int i, int t) { return (std::size_t(t) * COUT + o) * CIN + i; };
  const auto weightAt = [&](int o, int i, int t) { return (std::size_t(o) * CIN + i) * T + t; };
  for (int o = 0; o < COUT; ++o)
    for (int i = 0; i < CIN; ++i)
      for (int t = 0; t < T; ++t) byTap[tapAt(o, i, t)] = pass.w[weightAt(o, i, t)];
  numerics::quantizeBlockStack(byTap, byTap, T, COUT, CIN, BlockAxis::Row, spec);
  std::vector<double> wq(pass.w.size());
  for (int o = 0; o < COUT; ++o)
    for (int i = 0; i < CIN; ++i)
      for (int t = 0; t < T; ++t) wq[weightAt(o, i, t)] = byTap[tapAt(o, i, t)];
  const std::vector<double> x(pass.x.data(), pass.x.data() + pass.x.size());
  const std::vector<double> dy(pass.dy.data(), pass.dy.data() + pass.dy.size());

  // An E2M1 grid off would move a term by a sixth of it or more; fp32 accumulation of at most
  // 360 terms stays far below 2e-5 of the largest sum.
  const std::string at = ", stride " + std::to_string(stride);
  testing::expectCloseToSums(pass.y.data(), testing::convForwardSums(g, COUT, wq, x), 2e-5,
                             "forward" + at);
  testing::expectCloseToSums(pass.dx.data(), testing::convInputGradientSums(g, COUT, wq, dy), 2e-5,
                             "input gradient" + at);
}

TEST(BlockScaledConv, SquareWeightBlocksCoverOutputAndInputChannelsAtOneTapInEveryProduct) {
  checkSquareWeightBlocks(1);
  checkSquareWeightBlocks(2);
}

// Square blocks asked of the weight gradient's output-gradient operand (a policy may ask them of
// any operand): 16 images x 16 neighbouring values of dY [N, Cout * plane], whose 25-pixel planes
// put a block across two channels, in the lowered backward (stride 2) as in the gathered one
// (stride 1). Only that operand is quantized, so dW is a sum over the reference's quantized dY.
void checkSquareGradientBlocks(int stride) {
  constexpr int CIN = 5, COUT = 6, K = 3, PAD = 1, N = 35;
  const int side = stride == 1 ? 5 : 10;  // 25 output pixels either way
  const ConvGeometry g{N, CIN, side, side, K, stride, PAD};
  const int outPlane = g.outHeight() * g.outWidth();
  ASSERT_EQ(outPlane, 25);
  backends::PrecisionPolicy policy = backends::presetPolicy("nvfp4");
  for (backends::GemmPolicy* p :
       {&policy.conv.forward, &policy.conv.backwardData, &policy.conv.backwardWeight}) {
    p->output.reset();
    p->addend.reset();
    p->scalingA.reset();
    p->scalingB.reset();
    p->hadamard = false;
  }
  BlockScaling spec = numerics::defaultBlockScaling(numerics::BlockScalingKind::NVFP4);
  spec.squareBlocks = true;
  policy.conv.backwardWeight.scalingA = spec;
  const testing::ConvPass pass = testing::convForwardBackward(policy, g, COUT, 3, 13, 23);

  std::vector<float> dyq(pass.dy.data(), pass.dy.data() + pass.dy.size());
  numerics::quantizeBlocks(dyq, dyq, N, COUT * outPlane, COUT * outPlane, BlockAxis::Column, spec);
  const std::vector<double> gq(dyq.begin(), dyq.end());
  const std::vector<double> x(pass.x.data(), pass.x.data() + pass.x.size());
  testing::expectCloseToSums(pass.dw.data(), testing::convWeightGradientSums(g, COUT, gq, x), 2e-5,
                             "weight gradient, stride " + std::to_string(stride));
}

TEST(BlockScaledConv, SquareGradientBlocksSpanNeighbouringValuesOfTheOutputGradient) {
  checkSquareGradientBlocks(1);
  checkSquareGradientBlocks(2);
}

// The X-ray measures a convolution's operands where they are quantized, before their gathers:
// measured steps train as the others do (ResNet-18: gathered and lowered backward products).
TEST(BlockScaledConv, XrayChangesNoBitOfABlockScaledRun) {
  for (const char* preset : {"mxfp8", "nvfp4"})
    testing::expectXrayChangesNoBit({"resnet18", 1, 28, 28, 10, 8, {}}, preset);
}

}  // namespace
}  // namespace paritylab::nn
