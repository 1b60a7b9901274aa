// A layer's bias is added inside its product's one output rounding, as cuBLASLt and cuDNN bias
// epilogues do: y = round(fp32(XW + b)), not round(round(XW) + b). Under autocast the bias is
// first cast to the autocast dtype with the product's other arguments (torch.addmm, linear and
// convNd are on autocast's lower-precision list): y = round(fp32(XW + round(b))). Inputs and
// weights are multiples of 2^-6 and 2^-7 in [-1, 1] (exact in bf16 and fp16), so XW (multiples of
// 2^-13 below 32) is exact in fp32 whatever the summation order, yet has more bits than fp16 or
// bf16 keep; the bias is a random fp32. The reference adds in double, rounds once to fp32 (the
// epilogue's fp32 add) and then to the output format with an enumerating reference
// (tests/numerics/format_reference.h), independent of the rounding code.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "conv_reference.h"
#include "core/backends/precision_policy.h"
#include "core/nn/conv2d.h"
#include "core/nn/linear.h"
#include "nn_test_support.h"
#include "tests/numerics/format_reference.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;

// Multiples of 2^-shift in [-1, 1] (shift <= 7: exact in bf16 and fp16).
void fillDyadic(float* x, std::size_t n, std::uint64_t seed, int shift) {
  RandomStream rng(seed);
  const int steps = 1 << shift;
  for (std::size_t i = 0; i < n; ++i)
    x[i] = std::ldexp(float(int(rng.below(std::uint64_t(2 * steps + 1))) - steps), -shift);
}

struct Expected {
  std::vector<double> want;        // round(fp32(P + round_addend(b))): the policy's order
  std::vector<double> fp32Bias;    // round(fp32(P + b)): the bias added as it is
  std::vector<double> afterwards;  // round(fp32(round(P) + round_addend(b))): bias after rounding
};

// `products` are exact, `bias` per element; `gemm` is the policy's forward product.
Expected expectedOutputs(const std::vector<double>& products, const std::vector<float>& bias,
                         const backends::GemmPolicy& gemm) {
  Expected e;
  const auto rounding = [](const std::optional<numerics::RoundingSpec>& spec) {
    return [ref = spec ? std::optional<numerics::testing::FormatReference>(spec->format)
                       : std::nullopt,
            spec](double v) { return ref ? ref->round(v, *spec) : v; };
  };
  const auto output = rounding(gemm.output);
  const auto addend = rounding(gemm.addend);
  for (std::size_t i = 0; i < products.size(); ++i) {
    const double b = bias[i], rb = addend(b);
    e.want.push_back(output(double(float(products[i] + rb))));
    e.fp32Bias.push_back(output(double(float(products[i] + b))));
    e.afterwards.push_back(output(double(float(output(products[i]) + rb))));
  }
  return e;
}

// Every output equals `want.want`; where the policy rounds the bias or the output, the test values
// also tell the orders apart somewhere (so the check has teeth).
void expectPolicysBiasOrder(const float* got, const Expected& want,
                            const backends::GemmPolicy& gemm, const std::string& what) {
  std::size_t differFromFp32Bias = 0, differFromAfterwards = 0;
  for (std::size_t i = 0; i < want.want.size(); ++i) {
    ASSERT_EQ(double(got[i]), want.want[i]) << what << " output " << i;
    differFromFp32Bias += want.want[i] != want.fp32Bias[i];
    differFromAfterwards += want.want[i] != want.afterwards[i];
  }
  if (gemm.addend) {
    EXPECT_GT(differFromFp32Bias, 0U) << what << ": no value where an fp32 bias differs";
  }
  if (gemm.output) {
    EXPECT_GT(differFromAfterwards, 0U) << what << ": no value where adding after rounding differs";
  }
}

class BiasRounding : public ::testing::TestWithParam<std::string> {};

TEST_P(BiasRounding, LinearAddsTheBiasAsTheBackendCastsItInsideOneOutputRounding) {
  constexpr int N = 64, IN = 4, OUT = 8;
  Fixture f;
  f.policy = backends::presetPolicy(GetParam());
  Linear layer(f.builder, "fc", IN, OUT, true);
  f.params.finalize(false);
  RandomStream rng(3);
  layer.init(f.params, rng);
  float* w = f.params.master(layer.weightId());
  fillDyadic(w, std::size_t(OUT) * IN, 5, 7);
  const float* b = f.params.master(layer.biasId());  // init: U(-1/2, 1/2), full fp32 bits
  Tensor x({N, IN});
  fillDyadic(x.data(), x.size(), 7, 6);
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(x, ctx);

  std::vector<double> products;
  std::vector<float> bias;
  for (int r = 0; r < N; ++r)
    for (int o = 0; o < OUT; ++o) {
      double p = 0.0;
      for (int i = 0; i < IN; ++i) p += double(x[std::size_t(r) * IN + i]) * w[o * IN + i];
      products.push_back(p);
      bias.push_back(b[o]);
    }
  const auto& gemm = f.policy.gemmFor(backends::LayerKind::Linear, backends::Product::Forward);
  expectPolicysBiasOrder(y.data(), expectedOutputs(products, bias, gemm), gemm,
                         GetParam() + " linear");
}

TEST_P(BiasRounding, Conv2dAddsTheBiasAsTheBackendCastsItInsideOneOutputRounding) {
  constexpr int N = 3, CIN = 2, H = 5, W = 5, COUT = 4, K = 3;
  Fixture f;
  f.policy = backends::presetPolicy(GetParam());
  Conv2d conv(f.builder, "conv", CIN, COUT, K, 1, 1, true);
  f.params.finalize(false);
  RandomStream rng(9);
  conv.init(f.params, rng);
  float* w = f.params.master(conv.weightId());
  fillDyadic(w, std::size_t(COUT) * CIN * K * K, 11, 7);
  float* b = f.params.master(conv.biasId());
  testing::fillUniform(b, COUT, 13);  // full fp32 bits
  Tensor x({N, CIN, H, W});
  fillDyadic(x.data(), x.size(), 15, 6);
  StepContext ctx = f.ctx();
  const Tensor& y = conv.forward(x, ctx);

  const ConvGeometry g{N, CIN, H, W, K, 1, 1};
  const std::vector<double> products =
      testing::convForwardSums(g, COUT, std::vector<double>(w, w + std::size_t(COUT) * CIN * K * K),
                               std::vector<double>(x.data(), x.data() + x.size()));
  std::vector<float> bias;  // each output's channel's
  for (std::size_t o = 0; o < products.size(); ++o)
    bias.push_back(b[o / std::size_t(H * W) % COUT]);
  const auto& gemm = f.policy.gemmFor(backends::LayerKind::Conv, backends::Product::Forward);
  expectPolicysBiasOrder(y.data(), expectedOutputs(products, bias, gemm), gemm,
                         GetParam() + " conv");
}

// Autocast casts the bias to its dtype (its forward products round the addend), and so do the
// block-scaled presets, which run inside bf16 autocast; every other preset adds the bias as it is
// stored.
TEST(BiasRoundingPresets, OnlyAutocastCastsTheBiasToItsDtype) {
  for (const auto& policy : backends::presetPolicies()) {
    for (const auto kind : {backends::LayerKind::Linear, backends::LayerKind::Conv}) {
      const auto& addend = policy.gemmFor(kind, backends::Product::Forward).addend;
      const bool bf16Autocast =
          policy.name == "gpu-amp-bf16" || policy.linear.forward.blockScaled();
      if (bf16Autocast || policy.name == "gpu-amp-fp16") {
        ASSERT_TRUE(addend.has_value()) << policy.name;
        EXPECT_EQ(addend->format.name, bf16Autocast ? "bf16" : "fp16");
        EXPECT_EQ(addend->mode, numerics::RoundingMode::NearestEven) << policy.name;
      } else {
        EXPECT_FALSE(addend.has_value()) << policy.name;
      }
      // Backward products add nothing to a product: no addend anywhere.
      EXPECT_FALSE(policy.gemmFor(kind, backends::Product::BackwardData).addend) << policy.name;
      EXPECT_FALSE(policy.gemmFor(kind, backends::Product::BackwardWeight).addend) << policy.name;
    }
  }
}

// cpu-fp32 (no output rounding: the fp32 sum), both autocast presets (bias cast to their dtype)
// and pure bf16 (an fp32 bias inside a bf16 output rounding).
INSTANTIATE_TEST_SUITE_P(Presets, BiasRounding,
                         ::testing::Values("cpu-fp32", "gpu-amp-bf16", "gpu-amp-fp16", "pure-bf16"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace paritylab::nn
