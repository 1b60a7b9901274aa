// Self-attention's two products (Q K^T and P V) follow the policy's Attention products, apart
// from the projections' Linear ones: compared with a reference that computes attention by hand in
// double from the same projections (nn::Linear under the same policy), rounding its Q, K, P and V
// operands only where the policy's Attention kind says.

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "attention_test_support.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;
using testing::randomTensor;

using namespace testing;  // the attention under test and its shape

numerics::RoundingSpec bf16() {
  return {*numerics::parseFormat("bf16")};
}

backends::GemmPolicy roundsTo(const numerics::RoundingSpec& s) {
  backends::GemmPolicy g;
  g.operands = s;
  return g;
}

void setAll(backends::ProductPolicy& p, const backends::GemmPolicy& g) {
  p.forward = p.backwardData = p.backwardWeight = g;
}

struct Outputs {
  Tensor y, p;  // [B, T, C], [B, H, T, T]
};

// The layer under `policy` with fixed parameters and input; its output and probabilities.
struct Attention : AttentionUnderTest {
  explicit Attention(const backends::PrecisionPolicy& policy) : AttentionUnderTest(policy, 0.6) {}
  Outputs forward() {
    const Tensor& y = run();
    return {y, layer.probabilities()};
  }
};

// Attention by hand: the projections through nn::Linear under `policy` (the layer's own
// parameters), Q K^T, the causal softmax and P V in double with their operands rounded by
// `attention` when set.
Outputs reference(Attention& a, const std::optional<numerics::RoundingSpec>& attention) {
  Fixture f;
  f.policy = a.f.policy;
  Linear cAttn(f.builder, "c_attn", kC, 3 * kC), cProj(f.builder, "c_proj", kC, kC);
  f.params.finalize(false);
  f.params.masterData() = a.f.params.masterData();  // registered in the same order
  const numerics::Rounder rounder(attention.value_or(bf16()));
  auto r = [&](float v) { return attention ? double(rounder.round(v)) : double(v); };
  StepContext ctx = f.ctx();
  const Tensor qkv = cAttn.forward(a.x, ctx);
  Outputs out{Tensor({kBatch, kT, kC}), Tensor({kBatch, kHeads, kT, kT})};
  const double scale = 1.0 / std::sqrt(double(kHeadDim));
  for (int b = 0; b < kBatch; ++b)
    for (int h = 0; h < kHeads; ++h) {
      auto at = [&](int t, int part, int d) {
        return qkv[(std::size_t(b) * kT + t) * 3 * kC + part * kC + h * kHeadDim + d];
      };
      float* p = out.p.data() + (std::size_t(b) * kHeads + h) * kT * kT;
      for (int i = 0; i < kT; ++i) {
        double s[kT], max = -1e300, sum = 0.0;
        for (int j = 0; j <= i; ++j) {
          s[j] = 0.0;
          for (int d = 0; d < kHeadDim; ++d) s[j] += r(at(i, 0, d)) * r(at(j, 1, d));
          s[j] *= scale;
          max = std::max(max, s[j]);
        }
        for (int j = 0; j <= i; ++j) sum += std::exp(s[j] - max);
        for (int j = 0; j < kT; ++j) p[i * kT + j] = j <= i ? float(std::exp(s[j] - max) / sum) : 0;
        for (int d = 0; d < kHeadDim; ++d) {
          double o = 0.0;
          for (int j = 0; j <= i; ++j) o += r(p[i * kT + j]) * r(at(j, 2, d));
          out.y[(std::size_t(b) * kT + i) * kC + h * kHeadDim + d] = float(o);
        }
      }
    }
  out.y = cProj.forward(out.y, ctx);
  return out;
}

double maxDifference(const Tensor& a, const Tensor& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - b[i]));
  return m;
}

TEST(AttentionPolicyProducts, AttentionKindRoundsTheOperandsOfBothProducts) {
  backends::PrecisionPolicy policy;  // Linear fp32
  setAll(policy.attention, roundsTo(bf16()));
  Attention rounded(policy);
  const Outputs got = rounded.forward();
  Attention fp32{backends::PrecisionPolicy{}};
  const Outputs plain = fp32.forward();
  EXPECT_GT(maxDifference(got.y, plain.y), 1e-4);  // bf16 operands moved the output

  const Outputs want = reference(rounded, bf16());
  EXPECT_LT(maxDifference(got.p, want.p), 2e-6);
  EXPECT_LT(maxDifference(got.y, want.y), 2e-6);
  const Outputs unrounded = reference(rounded, std::nullopt);
  EXPECT_LT(maxDifference(plain.y, unrounded.y), 2e-6);  // the reference itself, in fp32
  EXPECT_GT(maxDifference(got.y, unrounded.y), 1e-4);
}

TEST(AttentionPolicyProducts, Fp32AttentionKeepsScoresExactWhileProjectionsRound) {
  backends::PrecisionPolicy policy;  // Attention fp32
  setAll(policy.linear, roundsTo(bf16()));
  Attention layer(policy);
  const Outputs got = layer.forward();
  // Q and K come out of the bf16 projection; their products are not rounded again.
  const Outputs exact = reference(layer, std::nullopt);
  EXPECT_LT(maxDifference(got.p, exact.p), 1e-6);
  EXPECT_LT(maxDifference(got.y, exact.y), 2e-6);
  const Outputs roundedScores = reference(layer, bf16());
  EXPECT_GT(maxDifference(got.p, roundedScores.p), 1e-4);
}

// dQ = dS K and dP = dO V^T read backwardData; dK = dS^T Q and dV = dO^T P read backwardWeight.
TEST(AttentionPolicyProducts, EachBackwardProductReadsItsOwnField) {
  Attention fp32{backends::PrecisionPolicy{}};
  const Tensor dy = randomTensor({kBatch, kT, kC}, 77);
  StepContext ctx = fp32.f.ctx();
  const Tensor y0 = fp32.layer.forward(fp32.x, ctx);
  const Tensor dx0 = fp32.layer.backward(dy, ctx);
  const std::vector<float> grads0 = fp32.f.params.gradData();
  for (const bool data : {true, false}) {
    backends::PrecisionPolicy policy;
    (data ? policy.attention.backwardData : policy.attention.backwardWeight) = roundsTo(bf16());
    Attention a(policy);
    StepContext c = a.f.ctx();
    const Tensor& y = a.layer.forward(a.x, c);
    EXPECT_EQ(maxDifference(y, y0), 0.0) << "forward is the fp32 one";
    const Tensor& dx = a.layer.backward(dy, c);
    EXPECT_GT(maxDifference(dx, dx0), 1e-5) << (data ? "backwardData" : "backwardWeight");
    const std::vector<float>& grads = a.f.params.gradData();
    const ParamInfo& proj = a.f.params.info(a.layer.outputProjection().weightId());
    const ParamInfo& qkv = a.f.params.info(a.layer.qkvProjection().weightId());
    for (std::size_t i = 0; i < proj.size; ++i)  // c_proj's gradient comes before attention's
      EXPECT_EQ(grads[proj.offset + i], grads0[proj.offset + i]);
    double moved = 0.0;
    for (std::size_t i = 0; i < qkv.size; ++i)
      moved = std::max(moved, double(std::abs(grads[qkv.offset + i] - grads0[qkv.offset + i])));
    EXPECT_GT(moved, 1e-5);
  }
}

// Under autocast, Q, K, V and P go through the activation store step in bf16, the format their
// products round them to, so gemm reads them as they are. Rounding a representable value leaves it
// as it is: the same bits as a policy whose store step differs only in flushing subnormals (none
// here), for which gemm rounds every operand again.
TEST(AttentionPolicyProducts, OperandsStoredInTheProductsFormatAreReadAsTheyAre) {
  const backends::PrecisionPolicy amp = backends::presetPolicy("gpu-amp-bf16");
  backends::PrecisionPolicy rounding = amp;
  rounding.storage.activations->subnormals = numerics::SubnormalMode::Flush;
  const Tensor dy = randomTensor({kBatch, kT, kC}, 91);
  std::vector<Tensor> outputs;
  std::vector<std::vector<float>> grads;
  for (const backends::PrecisionPolicy& policy : {amp, rounding}) {
    Attention a(policy);
    StepContext ctx = a.f.ctx();
    outputs.push_back(a.layer.forward(a.x, ctx));
    outputs.push_back(a.layer.backward(dy, ctx));
    grads.push_back(a.f.params.gradData());
  }
  EXPECT_EQ(maxDifference(outputs[0], outputs[2]), 0.0);
  EXPECT_EQ(maxDifference(outputs[1], outputs[3]), 0.0);
  EXPECT_EQ(grads[0], grads[1]);
  EXPECT_GT(maxDifference(outputs[0], Attention(backends::PrecisionPolicy{}).forward().y), 1e-4);
}

}  // namespace
}  // namespace paritylab::nn
