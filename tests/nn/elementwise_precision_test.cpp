// What lies between the products, held in the policy's `elementwise` formats: attention's softmax,
// layer norm's statistics, the loss and a transformer's residual stream. Each against a reference
// computed here from the same inputs, rounding with numerics::Rounder exactly where the policy's
// documentation says; an unset field (fp32) leaves every bit as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "attention_test_support.h"
#include "core/nn/gpt_block.h"
#include "core/nn/layer_norm.h"
#include "core/nn/linear.h"
#include "core/nn/softmax_cross_entropy.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;
using testing::randomTensor;

numerics::RoundingSpec bf16Held() {
  return {*numerics::parseFormat("bf16")};
}

bool allHeldIn(const float* x, std::size_t n, const numerics::RoundingSpec& format) {
  const numerics::Rounder r(format);
  for (std::size_t i = 0; i < n; ++i)
    if (r.round(x[i]) != x[i]) return false;
  return true;
}

double largestElementDifference(const Tensor& a, const Tensor& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

using namespace testing;  // the attention under test and its shape

// The attention layer's probabilities under `policy`, and the scores a reference recomputes from
// the same projection (nn::Linear under the same policy: fp32 here).
struct HeldSoftmaxAttention : AttentionUnderTest {
  explicit HeldSoftmaxAttention(const backends::PrecisionPolicy& policy)
      : AttentionUnderTest(policy, 0.9) {}
  Tensor probabilities() {
    run();
    return layer.probabilities();
  }
};

// The causal softmax with the scores, the exponentials, the row's sum and the probabilities held
// in `held` (the sum accumulated in double, then held).
Tensor referenceProbabilities(HeldSoftmaxAttention& a,
                              const std::optional<numerics::RoundingSpec>& held) {
  Fixture f;
  Linear cAttn(f.builder, "c_attn", kC, 3 * kC);
  f.params.finalize(false);
  std::copy_n(a.f.params.masterData().begin(), f.params.totalSize(), f.params.masterData().begin());
  StepContext ctx = f.ctx();
  const Tensor qkv = cAttn.forward(a.x, ctx);
  const numerics::Rounder rounder(held.value_or(bf16Held()));
  const auto r = [&](float v) { return held ? rounder.round(v) : v; };
  Tensor p({kBatch, kHeads, kT, kT});
  const double scale = 1.0 / std::sqrt(double(kHeadDim));
  for (int b = 0; b < kBatch; ++b)
    for (int h = 0; h < kHeads; ++h)
      for (int i = 0; i < kT; ++i) {
        const auto at = [&](int t, int part, int d) {
          return double(qkv[(std::size_t(b) * kT + t) * 3 * kC + part * kC + h * kHeadDim + d]);
        };
        float s[kT], e[kT], max = -1e30f;
        for (int j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (int d = 0; d < kHeadDim; ++d) dot += at(i, 0, d) * at(j, 1, d);
          s[j] = r(float(dot * scale));
          max = std::max(max, s[j]);
        }
        double sum = 0.0;
        for (int j = 0; j <= i; ++j) sum += e[j] = r(std::exp(s[j] - max));
        const float heldSum = r(float(sum));
        float* row = p.data() + ((std::size_t(b) * kHeads + h) * kT + i) * kT;
        for (int j = 0; j <= i; ++j) row[j] = r(e[j] * (1.0f / heldSum));
      }
  return p;
}

TEST(ElementwisePrecision, SoftmaxHeldInBf16RoundsScoresExponentialsSumAndProbabilities) {
  backends::PrecisionPolicy policy;
  policy.elementwise.softmax = bf16Held();
  HeldSoftmaxAttention held(policy);
  const Tensor got = held.probabilities();
  EXPECT_TRUE(allHeldIn(got.data(), got.size(), bf16Held()));
  const Tensor want = referenceProbabilities(held, bf16Held());
  EXPECT_LT(largestElementDifference(got, want), 1e-6);

  HeldSoftmaxAttention fp32{backends::PrecisionPolicy{}};
  const Tensor plain = fp32.probabilities();
  EXPECT_LT(largestElementDifference(plain, referenceProbabilities(fp32, std::nullopt)), 1e-6);
  EXPECT_GT(largestElementDifference(got, plain), 1e-4);  // bf16 moved the probabilities
  for (int row = 0; row < kBatch * kHeads * kT; ++row) {  // and each row still sums to about 1
    double sum = 0.0;
    for (int j = 0; j < kT; ++j) sum += got[std::size_t(row) * kT + j];
    EXPECT_NEAR(sum, 1.0, 0.02) << row;
  }
}

// Rows far from zero (mean about 100, spread 1): bf16 holds the mean to the nearest 0.5, which
// shifts every normalised value.
TEST(ElementwisePrecision, LayerNormStatisticsHeldInBf16RoundMeanVarianceAndInverseStd) {
  constexpr int kRows = 6;
  Tensor x = randomTensor({2, 3, kC}, 9, 99.0, 101.0);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += float(i / kC) * 0.3f;  // each row its own
  const auto normalise = [&](const std::optional<numerics::RoundingSpec>& held) {
    Fixture f;
    f.policy.elementwise.layerNormStatistics = held;
    LayerNorm ln(f.builder, "ln", kC);
    f.params.finalize(false);
    testing::fillUniform(f.params.master(ln.weightId()), kC, 3, 0.5, 1.5);
    testing::fillUniform(f.params.master(ln.biasId()), kC, 4, -0.5, 0.5);
    StepContext ctx = f.ctx();
    Tensor y = ln.forward(x, ctx);
    std::vector<float> w(f.params.master(ln.weightId()), f.params.master(ln.weightId()) + kC);
    std::vector<float> b(f.params.master(ln.biasId()), f.params.master(ln.biasId()) + kC);
    return std::tuple{y, w, b};
  };
  const auto [got, w, b] = normalise(bf16Held());
  const auto [plain, w32, b32] = normalise(std::nullopt);
  const numerics::Rounder r(bf16Held());
  Tensor want(x.shape());
  for (int row = 0; row < kRows; ++row) {
    const float* in = x.data() + row * kC;
    double sum = 0.0;
    for (int i = 0; i < kC; ++i) sum += in[i];
    const float mean = r.round(float(sum / kC));
    double sq = 0.0;
    for (int i = 0; i < kC; ++i) sq += (double(in[i]) - mean) * (double(in[i]) - mean);
    const float variance = r.round(float(sq / kC));
    const float invStd = r.round(float(1.0 / std::sqrt(double(variance) + 1e-5)));
    for (int i = 0; i < kC; ++i)
      want[std::size_t(row) * kC + i] = (in[i] - mean) * invStd * w[i] + b[i];
  }
  EXPECT_LT(largestElementDifference(got, want), 1e-5);
  EXPECT_GT(largestElementDifference(got, plain),
            0.05);  // a mean off by up to 0.25 moves the output
}

TEST(ElementwisePrecision, LossHeldInBf16RoundsWhatTheCrossEntropyReadsKeepsAndReturns) {
  const Tensor logits = randomTensor({5, 7}, 21, -4.0, 4.0);
  const std::int32_t labels[] = {0, 3, 6, 2, 2};
  Tensor plainGrad, heldGrad;
  const LossResult plain = softmaxCrossEntropy(logits, labels, &plainGrad);
  const LossResult unset =
      heldSoftmaxCrossEntropy(logits, labels, &heldGrad, 1.0f, std::nullopt, 0);
  EXPECT_EQ(unset.loss, plain.loss);  // fp32: the very same function
  EXPECT_EQ(largestElementDifference(heldGrad, plainGrad), 0.0);

  const LossResult held = heldSoftmaxCrossEntropy(logits, labels, &heldGrad, 1.0f, bf16Held(), 0);
  const numerics::Rounder r(bf16Held());
  double total = 0.0;
  Tensor want({5, 7});
  for (int i = 0; i < 5; ++i) {
    float z[7], e[7], max = -1e30f;
    for (int j = 0; j < 7; ++j) max = std::max(max, z[j] = r.round(logits[std::size_t(i) * 7 + j]));
    double sum = 0.0;
    for (int j = 0; j < 7; ++j) sum += e[j] = r.round(std::exp(z[j] - max));
    const float heldSum = r.round(float(sum));
    const float logSum = r.round(std::log(heldSum));
    total += r.round(logSum - (z[labels[i]] - max));
    for (int j = 0; j < 7; ++j) {
      const float p = r.round(e[j] / heldSum) - (j == labels[i] ? 1.0f : 0.0f);
      want[std::size_t(i) * 7 + j] = r.round(p * (1.0f / 5.0f));
    }
  }
  EXPECT_EQ(held.loss, double(r.round(float(total / 5))));
  EXPECT_TRUE(allHeldIn(heldGrad.data(), heldGrad.size(), bf16Held()));
  EXPECT_LT(largestElementDifference(heldGrad, want), 1e-7);
  EXPECT_NE(held.loss, plain.loss);
  EXPECT_NEAR(held.loss, plain.loss, 0.02 * plain.loss);
}

// Autocast's residual stream is fp32 while the branches' outputs are stored in bf16: a block's
// output is then a sum no bf16 holds; with the residual field set it is held in bf16.
TEST(ElementwisePrecision, ResidualStreamIsHeldInItsOwnFormatNotTheActivations) {
  const Tensor x = randomTensor({2, 4, kC}, 31, -2.0, 2.0);
  const auto blockOutput = [&](const backends::PrecisionPolicy& policy) {
    Fixture f;
    f.policy = policy;
    GptBlock block(f.builder, "h0", kC, kHeads, 1);
    f.params.finalize(false);
    for (std::size_t id = 0; id < f.params.infos().size(); ++id)
      testing::fillUniform(f.params.master(int(id)), f.params.infos()[id].size, 60 + id, -0.5, 0.5);
    StepContext ctx = f.ctx();
    Tensor y = block.forward(x, ctx);
    block.backward(randomTensor(y.shape(), 8), ctx);
    for (float g : f.params.gradData()) EXPECT_TRUE(std::isfinite(g));
    return y;
  };
  backends::PrecisionPolicy stream32;
  stream32.storage.activations = bf16Held();
  const Tensor y32 = blockOutput(stream32);
  EXPECT_FALSE(allHeldIn(y32.data(), y32.size(), bf16Held()));

  backends::PrecisionPolicy stream16 = stream32;
  stream16.elementwise.residual = bf16Held();
  const Tensor y16 = blockOutput(stream16);
  EXPECT_TRUE(allHeldIn(y16.data(), y16.size(), bf16Held()));
  EXPECT_GT(largestElementDifference(y16, y32), 1e-4);
  EXPECT_LT(largestElementDifference(y16, y32), 0.1);
}

}  // namespace
}  // namespace paritylab::nn
