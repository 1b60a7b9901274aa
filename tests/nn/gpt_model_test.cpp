// The whole GPT under cpu-fp32: finite-difference gradients of every parameter of a tiny model
// (tied and untied head), the tied weight's gradient as the sum of the embedding's and the head's
// shares, causality of the logits, and nanoGPT's parameter names.

#include "core/nn/gpt_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/backends/precision_policy.h"
#include "core/numerics/rounding.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::checkLayerGradients;
using testing::Fixture;
using testing::randomTensor;

GptConfig tinyConfig(bool tied) {
  GptConfig c;
  c.vocab = 7;
  c.blockSize = 5;
  c.nLayer = 2;
  c.nHead = 2;
  c.nEmbd = 8;
  c.tieWeights = tied;
  return c;
}

// Every trained parameter uniform in [-bound, bound]: far from GPT-2's gentle start, so that
// attention, LayerNorm's affine part and both residual branches all matter.
void randomiseGptParameters(Fixture& f, double bound, std::uint64_t seed) {
  for (std::size_t id = 0; id < f.params.infos().size(); ++id)
    testing::fillUniform(f.params.master(int(id)), f.params.infos()[id].size, seed + id, -bound,
                         bound);
}

Tensor tokenIds(int b, int t, int vocab, std::uint64_t seed) {
  Tensor ids({b, t});
  RandomStream rng(seed);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = float(rng.below(std::uint64_t(vocab)));
  return ids;
}

int paramId(const ParamStore& params, const std::string& name) {
  for (std::size_t id = 0; id < params.infos().size(); ++id)
    if (params.infos()[id].name == name) return int(id);
  ADD_FAILURE() << "no parameter " << name;
  return -1;
}

TEST(GptModel, FiniteDifferenceGradientOfEveryParameterWithTiedHead) {
  Fixture f;
  GptModel model(f.builder, tinyConfig(true));
  f.params.finalize(false);
  RandomStream rng(5);
  model.init(f.params, rng);
  randomiseGptParameters(f, 0.5, 41);
  checkLayerGradients(model, f, tokenIds(2, 5, 7, 3), "tied gpt", 1e-2f, {}, 12);
}

TEST(GptModel, FiniteDifferenceGradientOfEveryParameterWithSeparateHead) {
  Fixture f;
  GptModel model(f.builder, tinyConfig(false));
  f.params.finalize(false);
  RandomStream rng(6);
  model.init(f.params, rng);
  randomiseGptParameters(f, 0.5, 43);
  checkLayerGradients(model, f, tokenIds(2, 4, 7, 4), "untied gpt", 1e-2f, {}, 12);
}

TEST(GptModel, TiedWeightGradientSumsTheEmbeddingAndHeadShares) {
  // The untied model with lm_head.weight = wte computes the same function; its two gradients are
  // the two shares the tied weight's gradient must sum.
  Fixture tied, untied;
  GptModel a(tied.builder, tinyConfig(true));
  GptModel b(untied.builder, tinyConfig(false));
  tied.params.finalize(false);
  untied.params.finalize(false);
  randomiseGptParameters(tied, 0.5, 51);
  for (std::size_t id = 0; id < tied.params.infos().size(); ++id)
    std::copy_n(tied.params.master(int(id)), tied.params.infos()[id].size,
                untied.params.master(paramId(untied.params, tied.params.infos()[id].name)));
  const int wte = a.embedding().tokenWeightId();
  const int head = paramId(untied.params, "lm_head.weight");
  const std::size_t n = tied.params.info(wte).size;
  std::copy_n(tied.params.master(wte), n, untied.params.master(head));

  const Tensor ids = tokenIds(3, 5, 7, 8);
  StepContext ca = tied.ctx(), cb = untied.ctx();
  const Tensor ya = a.forward(ids, ca);
  const Tensor& yb = b.forward(ids, cb);
  for (std::size_t i = 0; i < ya.size(); ++i) ASSERT_FLOAT_EQ(ya[i], yb[i]) << i;
  const Tensor r = randomTensor(ya.shape(), 9);
  a.backward(r, ca);
  b.backward(r, cb);
  const float* gTied = tied.params.grad(wte);
  const float* gEmbedding = untied.params.grad(b.embedding().tokenWeightId());
  const float* gHead = untied.params.grad(head);
  double headShare = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double sum = double(gEmbedding[i]) + double(gHead[i]);
    EXPECT_NEAR(gTied[i], sum, 1e-6 + 1e-5 * std::abs(sum)) << i;
    headShare += std::abs(gHead[i]);
  }
  EXPECT_GT(headShare, 1e-2);  // the head's share is not negligible: the test would see it missing
  // Every other parameter's gradient is the untied model's.
  for (std::size_t id = 0; id < tied.params.infos().size(); ++id) {
    if (int(id) == wte) continue;
    const ParamInfo& p = tied.params.infos()[id];
    const float* g = untied.params.grad(paramId(untied.params, p.name));
    for (std::size_t i = 0; i < p.size; ++i)
      EXPECT_NEAR(tied.params.grad(int(id))[i], g[i], 1e-6 + 1e-5 * std::abs(g[i])) << p.name;
  }
}

TEST(GptModel, ChangingATokenNeverChangesEarlierLogits) {
  Fixture f;
  GptModel model(f.builder, tinyConfig(true));
  f.params.finalize(false);
  randomiseGptParameters(f, 0.5, 61);
  const int t = 5, v = 7;
  const Tensor ids = tokenIds(2, t, v, 10);
  StepContext ctx = f.ctx();
  const Tensor y0 = model.forward(ids, ctx);
  ASSERT_EQ(y0.shape(), Shape({2, t, v}));
  for (int changed = 0; changed < t; ++changed) {
    Tensor ids1 = ids;
    ids1[std::size_t(changed)] = float((int(ids[std::size_t(changed)]) + 3) % v);  // item 0 only
    const Tensor& y1 = model.forward(ids1, ctx);
    for (int pos = 0; pos < changed; ++pos)
      for (int k = 0; k < v; ++k)
        EXPECT_EQ(y1[std::size_t(pos) * v + k], y0[std::size_t(pos) * v + k])
            << "token " << changed << " moved position " << pos;
    EXPECT_NE(y1[std::size_t(changed) * v], y0[std::size_t(changed) * v]) << changed;
    for (std::size_t i = std::size_t(t) * v; i < y0.size(); ++i) EXPECT_EQ(y1[i], y0[i]);
  }
}

TEST(GptModel, ParameterNamesFollowNanoGptsStateDict) {
  Fixture f;
  GptModel tied(f.builder, tinyConfig(true));
  f.params.finalize(false);
  std::vector<std::string> names;
  for (const auto& p : f.params.infos()) names.push_back(p.name);
  for (const char* name :
       {"transformer.wte.weight", "transformer.wpe.weight", "transformer.h.0.ln_1.weight",
        "transformer.h.0.attn.c_attn.weight", "transformer.h.0.attn.c_proj.bias",
        "transformer.h.1.ln_2.bias", "transformer.h.1.mlp.c_fc.weight",
        "transformer.h.1.mlp.c_proj.weight", "transformer.ln_f.weight", "transformer.ln_f.bias"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  EXPECT_EQ(std::find(names.begin(), names.end(), "lm_head.weight"), names.end());
  // nanoGPT's count for these sizes: wte + wpe + 2 blocks of 12 C^2 + 13 C + ln_f.
  const std::size_t c = 8;
  EXPECT_EQ(f.params.totalSize(), 7 * c + 5 * c + 2 * (12 * c * c + 13 * c) + 2 * c);
}

TEST(GptModel, InitFollowsNanoGpt) {
  Fixture f;
  GptConfig config = tinyConfig(true);
  config.nEmbd = 64;
  config.nHead = 4;
  GptModel model(f.builder, config);
  f.params.finalize(false);
  RandomStream rng(1);
  model.init(f.params, rng);
  auto stddev = [&](const std::string& name) {
    const int id = paramId(f.params, name);
    const float* w = f.params.master(id);
    double sq = 0.0;
    for (std::size_t i = 0; i < f.params.info(id).size; ++i) sq += double(w[i]) * w[i];
    return std::sqrt(sq / double(f.params.info(id).size));
  };
  EXPECT_NEAR(stddev("transformer.h.0.mlp.c_fc.weight"), 0.02, 0.002);
  EXPECT_NEAR(stddev("transformer.h.1.mlp.c_proj.weight"), 0.01, 0.001);  // 0.02 / sqrt(2 * 2)
  EXPECT_EQ(stddev("transformer.h.1.mlp.c_fc.bias"), 0.0);
  EXPECT_EQ(f.params.master(paramId(f.params, "transformer.ln_f.weight"))[3], 1.0f);
}

TEST(GptModel, LogitsGoThroughTheActivationStoreStep) {
  Fixture f;
  f.policy = backends::presetPolicy("gpu-amp-bf16");
  ASSERT_TRUE(f.policy.storage.activations);
  GptModel model(f.builder, tinyConfig(true));
  f.params.finalize(false);
  randomiseGptParameters(f, 0.5, 71);
  StepContext ctx = f.ctx();
  const Tensor ids = tokenIds(2, 5, 7, 12);
  const Tensor& y = model.forward(ids, ctx);
  const numerics::Rounder stored(*f.policy.storage.activations);
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_EQ(stored.round(y[i]), y[i]) << i;
  model.backward(randomTensor(y.shape(), 13), ctx);
  for (float g : f.params.gradData()) EXPECT_TRUE(std::isfinite(g));
}

}  // namespace
}  // namespace paritylab::nn
