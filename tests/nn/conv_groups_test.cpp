// Convolution products split into cache-sized groups of images. With 32
// input channels on 28x28 images each group holds one image, so a batch of 5 runs as 5 forward and
// 5 backward-data products. Forward, weight and input gradients must match direct sums over the
// operands as the policy rounds them (fp32: as they are; tpu-bf16: bf16-rounded x, W and dY),
// i.e. every group's product is rounded and none is skipped. The weight gradient is one product
// split along its reduction for operand-only policies, and whole for output-rounding ones.
// These same convolutions take the gathered backward (conv2d_gathered_backward.cpp);
// the wide-output geometry (48 output channels) runs it in 5 groups of one image, and the 5x5
// kernel checks its kernel flip. Per-image products split in two for OpenBLAS's small-matrix
// kernels (smallKernelParts, SkylakeX): the narrow-output geometry's forward and data products,
// and a ResNet's first stage (16 -> 16 channels) in all three. A wide ResNet's last stage (256
// channels on 2x2 planes, 40 images) has weights wider than a cache-sized group's columns: its
// groups take at least 400 columns (imagesPerGroup), here the whole batch instead of 28 + 12.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "conv_reference.h"
#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/numerics/rounding.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {


struct Geometry {
  int cin, cout, k;
  int n = 5, h = 28, w = 28;  // input [n, cin, h, w]
};
constexpr Geometry kNarrowOutput{32, 6, 3}, kWideOutput{8, 48, 3}, kFiveByFive{4, 6, 5},
    kResNetStage1{16, 16, 3}, kWideWeights{256, 256, 3, 40, 2, 2};
constexpr Geometry kGeometries[] = {kNarrowOutput, kWideOutput, kFiveByFive, kResNetStage1,
                                    kWideWeights};

std::vector<double> asRounded(const float* x, std::size_t n, const numerics::Rounder* r) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = r ? r->round(x[i]) : x[i];
  return out;
}

void checkAgainstDirectSums(const std::string& preset, Geometry geo, double relTol = 2e-5) {
  const int CIN = geo.cin, COUT = geo.cout, K = geo.k, P = (geo.k - 1) / 2;
  const int N = geo.n, H = geo.h, W = geo.w;
  const backends::PrecisionPolicy policy = backends::presetPolicy(preset);
  const ConvGeometry g{N, CIN, H, W, K, 1, P};
  const testing::ConvPass pass = testing::convForwardBackward(policy, g, COUT, 11, 21, 31);
  const Tensor &x = pass.x, &y = pass.y, &dy = pass.dy, &dx = pass.dx;
  const float* dw = pass.dw.data();

  const auto& products = policy.conv;
  std::optional<numerics::Rounder> round;
  if (products.forward.operands) round.emplace(*products.forward.operands);
  const numerics::Rounder* r = round ? &*round : nullptr;
  const auto xs = asRounded(x.data(), x.size(), r);
  const auto ws = asRounded(pass.w.data(), pass.w.size(), r);
  const auto gs = asRounded(dy.data(), dy.size(), r);
  // fp32 accumulation over up to 2304 (forward, input gradient) or 3920 (weight gradient) terms.
  const std::string at = " (" + std::to_string(CIN) + "->" + std::to_string(COUT) + ", " +
                         std::to_string(K) + "x" + std::to_string(K) + ")";
  testing::expectCloseToSums(y.data(), testing::convForwardSums(g, COUT, ws, xs), relTol,
                             preset + " forward" + at);
  testing::expectCloseToSums(dx.data(), testing::convInputGradientSums(g, COUT, ws, gs), relTol,
                             preset + " input gradient" + at);
  testing::expectCloseToSums(dw, testing::convWeightGradientSums(g, COUT, gs, xs), relTol,
                             preset + " weight gradient" + at);
}

TEST(ConvGroups, Fp32MatchesDirectSums) {
  for (Geometry geo : kGeometries) checkAgainstDirectSums("cpu-fp32", geo);
}

TEST(ConvGroups, Bf16OperandsAreRoundedInEveryGroup) {
  for (Geometry geo : kGeometries) checkAgainstDirectSums("tpu-bf16", geo);
}

// Autocast rounds each product's output to bf16 once: the weight gradient's image groups are
// summed in fp32 and rounded at the last group, the other products are grouped. Outputs within one
// bf16 rounding (2^-8 of the largest value) of the direct sums.
TEST(ConvGroups, OutputRoundedProductsKeepTheirReduction) {
  for (Geometry geo : kGeometries) checkAgainstDirectSums("gpu-amp-bf16", geo, 1.0 / 256);
}

}  // namespace
}  // namespace paritylab::nn
