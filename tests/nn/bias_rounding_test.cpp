// A layer's bias is added inside its product's one output rounding, as cuBLASLt
// and cuDNN bias epilogues and torch.addmm under autocast do: y = round(fp32(XW + b)), not
// round(round(XW) + b). Inputs and weights are multiples of 2^-6 and 2^-7 in [-1, 1] (exact in
// bf16 and fp16), so XW (multiples of 2^-13 below 32) is exact in fp32 whatever the summation
// order, yet has more bits than fp16 or bf16 keep; the bias is a random fp32. The reference adds in
// double, rounds once to fp32 (the epilogue's fp32 add) and then to the output format with an
// enumerating reference (tests/numerics/format_reference.h), independent of the rounding code.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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
  std::vector<double> once;   // round(fp32(P + b)): the bias inside the output rounding
  std::vector<double> twice;  // round(fp32(round(P) + b)): the old order, bias after rounding
};

// `products` are exact, `bias` per element; `output` is the policy's output rounding (if any).
Expected expectedOutputs(const std::vector<double>& products, const std::vector<float>& bias,
                         const std::optional<numerics::RoundingSpec>& output) {
  Expected e;
  std::optional<numerics::testing::FormatReference> ref;
  if (output) ref.emplace(output->format);
  auto round = [&](double v) { return ref ? ref->round(v, *output) : v; };
  for (std::size_t i = 0; i < products.size(); ++i) {
    const double b = bias[i];
    e.once.push_back(round(double(float(products[i] + b))));
    e.twice.push_back(round(double(float(round(products[i]) + b))));
  }
  return e;
}

// Every output equals `want.once`; for rounding policies, the test values also tell the two orders
// apart somewhere (so the check has teeth).
void expectBiasInsideRounding(const float* got, const Expected& want, bool rounds,
                              const std::string& what) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < want.once.size(); ++i) {
    ASSERT_EQ(double(got[i]), want.once[i]) << what << " output " << i;
    differ += want.once[i] != want.twice[i];
  }
  if (rounds) {
    EXPECT_GT(differ, 0U) << what << ": no value where the two orders differ";
  }
}

class BiasRounding : public ::testing::TestWithParam<std::string> {};

TEST_P(BiasRounding, LinearRoundsProductPlusBiasOnce) {
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
  const auto& output = f.policy.gemmFor(backends::LayerKind::Linear, backends::Product::Forward);
  expectBiasInsideRounding(y.data(), expectedOutputs(products, bias, output.output),
                           output.output.has_value(), GetParam() + " linear");
}

TEST_P(BiasRounding, Conv2dRoundsProductPlusBiasOnce) {
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

  std::vector<double> products;
  std::vector<float> bias;
  for (int n = 0; n < N; ++n)
    for (int co = 0; co < COUT; ++co)
      for (int oy = 0; oy < H; ++oy)
        for (int ox = 0; ox < W; ++ox) {
          double p = 0.0;
          for (int ci = 0; ci < CIN; ++ci)
            for (int ky = 0; ky < K; ++ky)
              for (int kx = 0; kx < K; ++kx) {
                const int iy = oy + ky - 1, ix = ox + kx - 1;
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                p += double(x[((std::size_t(n) * CIN + ci) * H + iy) * W + ix]) *
                     w[((co * CIN + ci) * K + ky) * K + kx];
              }
          products.push_back(p);
          bias.push_back(b[co]);
        }
  const auto& output = f.policy.gemmFor(backends::LayerKind::Conv, backends::Product::Forward);
  expectBiasInsideRounding(y.data(), expectedOutputs(products, bias, output.output),
                           output.output.has_value(), GetParam() + " conv");
}

// cpu-fp32 (no output rounding: the fp32 sum), both autocast presets and pure bf16.
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
