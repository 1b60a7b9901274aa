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
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/numerics/block_scaling.h"
#include "nn_test_support.h"
#include "pinned_steps.h"

namespace paritylab::nn {
namespace {

using numerics::BlockAxis;
using numerics::BlockScaling;
using testing::Fixture;
using testing::randomTensor;

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
  const int OH = (H + 2 * PAD - K) / stride + 1, OW = (W + 2 * PAD - K) / stride + 1;
  const int T = K * K;
  Fixture f;
  f.policy = blockScaledConvPolicy();
  const BlockScaling spec = *f.policy.conv.forward.scalingA;
  ASSERT_EQ(spec.blockSize, 32);
  Conv2d conv(f.builder, "conv", CIN, COUT, K, stride, PAD, false);
  f.params.finalize(false);
  RandomStream rng(5);
  conv.init(f.params, rng);
  const Tensor x = randomTensor({N, CIN, H, W}, 17);
  StepContext ctx = f.ctx();
  const Tensor y = conv.forward(x, ctx);
  const Tensor dy = randomTensor(y.shape(), 29);
  const Tensor dx = conv.backward(dy, ctx);
  const float* w = f.params.value(conv.weightId());
  const float* dw = f.params.grad(conv.weightId());

  // forward: x along its channels at each pixel, W along its input channels at each tap
  const auto xf = quantizedAlong(x.data(), N, CIN, H * W, spec);
  const auto wf = quantizedAlong(w, COUT, CIN, T, spec);
  // input gradient: dY along its channels at each pixel, W along its output channels
  const auto gd = quantizedAlong(dy.data(), N, COUT, OH * OW, spec);
  const auto wd = quantizedAlong(w, 1, COUT, CIN * T, spec);
  // weight gradient: dY and x along the batch at each channel and pixel
  const auto gw = quantizedAlong(dy.data(), 1, N, COUT * OH * OW, spec);
  const auto xw = quantizedAlong(x.data(), 1, N, CIN * H * W, spec);

  std::vector<double> ry(y.size(), 0.0), rdx(x.size(), 0.0), rdw(std::size_t(COUT) * CIN * T);
  for (int n = 0; n < N; ++n)
    for (int co = 0; co < COUT; ++co)
      for (int oy = 0; oy < OH; ++oy)
        for (int ox = 0; ox < OW; ++ox) {
          const std::size_t o = ((std::size_t(n) * COUT + co) * OH + oy) * OW + ox;
          for (int ci = 0; ci < CIN; ++ci)
            for (int ky = 0; ky < K; ++ky)
              for (int kx = 0; kx < K; ++kx) {
                const int iy = oy * stride + ky - PAD, ix = ox * stride + kx - PAD;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                const std::size_t i = ((std::size_t(n) * CIN + ci) * H + iy) * W + ix;
                const std::size_t wi = ((std::size_t(co) * CIN + ci) * K + ky) * K + kx;
                ry[o] += wf[wi] * xf[i];
                rdx[i] += wd[wi] * gd[o];
                rdw[wi] += gw[o] * xw[i];
              }
        }
  // fp32 accumulation of at most 360 (forward), 324 (input gradient) or 2240 (weight gradient)
  // terms; a value of an fp8 element grid off would be 2^-4 of its term.
  auto expectClose = [&](const float* got, const std::vector<double>& want, const char* what) {
    double scale = 0.0;
    for (double v : want) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 2e-5 * scale) << what << " " << i << ", stride " << stride;
  };
  expectClose(y.data(), ry, "forward");
  expectClose(dx.data(), rdx, "input gradient");
  expectClose(dw, rdw, "weight gradient");
}

TEST(BlockScaledConv, TheGatheredBackwardBlocksChannelsAtEachTapAndTheBatchAtEachPixel) {
  checkBlocks(1);
}

TEST(BlockScaledConv, TheLoweredBackwardBlocksTheSameValues) {
  checkBlocks(2);
}

// The X-ray measures a convolution's operands where they are quantized, before their gathers:
// measured steps train as the others do (ResNet-18: gathered and lowered backward products).
TEST(BlockScaledConv, XrayChangesNoBitOfABlockScaledRun) {
  for (const char* preset : {"mxfp8", "nvfp4"})
    testing::expectXrayChangesNoBit({"resnet18", 1, 28, 28, 10, 8, {}}, preset);
}

}  // namespace
}  // namespace paritylab::nn
