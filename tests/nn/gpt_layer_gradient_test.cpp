// Finite-difference gradient checks of the GPT layers under cpu-fp32 (central differences, the
// tolerances of nn_test_support.h unless a test says otherwise), the causal mask of
// self-attention, and Linear applied to the rows of a [B, T, C] input.

#include <gtest/gtest.h>

#include "core/nn/causal_self_attention.h"
#include "core/nn/gelu.h"
#include "core/nn/layer_norm.h"
#include "core/nn/linear.h"
#include "core/nn/token_position_embedding.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::checkLayerGradients;
using testing::Fixture;
using testing::randomTensor;

// Every trained parameter of `f` uniform in [-bound, bound] (a less gentle start than GPT-2's
// N(0, 0.02), so that attention is far from uniform and LayerNorm's affine part matters).
void randomiseParameters(Fixture& f, double bound, std::uint64_t seed) {
  for (std::size_t id = 0; id < f.params.infos().size(); ++id)
    testing::fillUniform(f.params.master(int(id)), f.params.infos()[id].size, seed + id, -bound,
                         bound);
}

TEST(GptLayerGradient, LayerNormOverTheLastDimension) {
  Fixture f;
  LayerNorm layer(f.builder, "ln", 6);
  f.params.finalize(false);
  RandomStream rng(1);
  layer.init(f.params, rng);
  checkLayerGradients(layer, f, randomTensor({2, 3, 6}, 4, -2.0, 2.0), "layer norm at init");
  randomiseParameters(f, 1.0, 9);
  checkLayerGradients(layer, f, randomTensor({2, 3, 6}, 5, -2.0, 2.0), "layer norm affine");
  checkLayerGradients(layer, f, randomTensor({4, 6}, 6, -2.0, 2.0), "layer norm on [N, C]");
}

TEST(GptLayerGradient, LayerNormNormalisesEachRowAndStartsAsIdentityAffine) {
  Fixture f;
  LayerNorm layer(f.builder, "ln", 8);
  f.params.finalize(false);
  RandomStream rng(1);
  layer.init(f.params, rng);
  StepContext ctx = f.ctx();
  const Tensor x = randomTensor({2, 2, 8}, 3, -5.0, 5.0);
  const Tensor& y = layer.forward(x, ctx);
  for (int r = 0; r < 4; ++r) {
    double sum = 0.0, sq = 0.0;
    for (int i = 0; i < 8; ++i) sum += y[std::size_t(r) * 8 + i];
    for (int i = 0; i < 8; ++i) sq += double(y[std::size_t(r) * 8 + i]) * y[std::size_t(r) * 8 + i];
    EXPECT_NEAR(sum / 8.0, 0.0, 1e-6) << r;
    EXPECT_NEAR(sq / 8.0, 1.0, 1e-4) << r;  // eps 1e-5 against variances of about 8
  }
  EXPECT_THROW(layer.outputShape({2, 2, 7}), std::invalid_argument);
}

TEST(GptLayerGradient, GeluTanhForm) {
  Fixture f;
  f.params.finalize(false);
  Gelu layer;
  checkLayerGradients(layer, f, randomTensor({2, 3, 10}, 2, -4.0, 4.0), "gelu", 1e-2f,
                      {1e-2, 1e-3});
  // Hand values of 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  Tensor x({1, 3});
  x[0] = 1.0f, x[1] = -2.0f, x[2] = 0.0f;
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(x, ctx);
  EXPECT_NEAR(y[0], 0.8411919906082768, 1e-6);
  EXPECT_NEAR(y[1], -0.04540230591222494, 1e-6);
  EXPECT_EQ(y[2], 0.0f);
}

TEST(GptLayerGradient, TokenAndPositionEmbeddingTables) {
  Fixture f;
  TokenPositionEmbedding layer(f.builder, "transformer", 11, 6, 4);
  f.params.finalize(false);
  RandomStream rng(3);
  layer.init(f.params, rng);
  Tensor ids({3, 5});  // token 2 more than once: its gradient row sums several positions
  const float values[15] = {2, 0, 10, 2, 5, 7, 2, 3, 3, 1, 0, 9, 2, 4, 8};
  std::copy_n(values, 15, ids.data());
  checkLayerGradients(layer, f, ids, "token + position embedding", 1e-2f, {}, 100);
  StepContext ctx = f.ctx();
  const Tensor& y = layer.forward(ids, ctx);
  ASSERT_EQ(y.shape(), Shape({3, 5, 4}));
  const float* wte = f.params.value(layer.tokenWeightId());
  const float* wpe = f.params.value(layer.positionWeightId());
  for (int k = 0; k < 4; ++k)  // item 1, position 3: token 3
    EXPECT_EQ(y[(1 * 5 + 3) * 4 + std::size_t(k)], wte[3 * 4 + k] + wpe[3 * 4 + k]);
}

TEST(GptLayerGradient, EmbeddingRefusesIdsThatAreNotTokens) {
  Fixture f;
  TokenPositionEmbedding layer(f.builder, "transformer", 11, 6, 4);
  f.params.finalize(false);
  StepContext ctx = f.ctx();
  for (float bad : {11.0f, -1.0f, 2.5f, std::nanf("")}) {
    Tensor ids({1, 2});
    ids[0] = 1.0f, ids[1] = bad;
    EXPECT_THROW(layer.forward(ids, ctx), std::invalid_argument) << bad;
  }
  EXPECT_THROW(layer.outputShape({1, 7}), std::invalid_argument);  // longer than the block
}

TEST(GptLayerGradient, CausalSelfAttentionInputAndEveryParameter) {
  Fixture f;
  CausalSelfAttention layer(f.builder, "attn", 8, 2);
  f.params.finalize(false);
  RandomStream rng(7);
  layer.init(f.params, rng);
  randomiseParameters(f, 0.5, 21);
  checkLayerGradients(layer, f, randomTensor({2, 5, 8}, 8), "causal self-attention", 1e-2f, {}, 60);
}

TEST(GptLayerGradient, CausalSelfAttentionOneHeadAndOneToken) {
  Fixture f;
  CausalSelfAttention layer(f.builder, "attn", 6, 1);
  f.params.finalize(false);
  randomiseParameters(f, 0.5, 4);
  checkLayerGradients(layer, f, randomTensor({3, 4, 6}, 9), "one head");
  checkLayerGradients(layer, f, randomTensor({2, 1, 6}, 10), "T = 1");
}

TEST(GptLayerGradient, CausalMaskHidesLaterTokens) {
  Fixture f;
  CausalSelfAttention layer(f.builder, "attn", 8, 2);
  f.params.finalize(false);
  randomiseParameters(f, 0.5, 33);
  const int t = 6;
  const Tensor x = randomTensor({2, t, 8}, 12);
  StepContext ctx = f.ctx();
  const Tensor y0 = layer.forward(x, ctx);
  for (int changed = 0; changed < t; ++changed) {
    Tensor x1 = x;
    for (int k = 0; k < 8; ++k) x1[std::size_t(changed) * 8 + k] += 0.75f;  // item 0 only
    const Tensor& y1 = layer.forward(x1, ctx);
    for (int pos = 0; pos < changed; ++pos)
      for (int k = 0; k < 8; ++k)
        EXPECT_EQ(y1[std::size_t(pos) * 8 + k], y0[std::size_t(pos) * 8 + k])
            << "token " << changed << " moved position " << pos;
    EXPECT_NE(y1[std::size_t(changed) * 8], y0[std::size_t(changed) * 8]) << changed;
    for (std::size_t i = std::size_t(t) * 8; i < y0.size(); ++i)  // item 1 untouched
      EXPECT_EQ(y1[i], y0[i]);
  }
  // Backward: a gradient at position s reaches no input after s.
  layer.forward(x, ctx);
  const Tensor& p = layer.probabilities();
  for (int bh = 0; bh < 4; ++bh)
    for (int i = 0; i < t; ++i)
      for (int j = i + 1; j < t; ++j) EXPECT_EQ(p[(std::size_t(bh) * t + i) * t + j], 0.0f);
  for (int s = 0; s < t; ++s) {
    Tensor dy({2, t, 8});
    dy.setZero();
    for (int k = 0; k < 8; ++k) dy[std::size_t(s) * 8 + k] = 1.0f;
    const Tensor& dx = layer.backward(dy, ctx);
    for (int pos = s + 1; pos < t; ++pos)
      for (int k = 0; k < 8; ++k) EXPECT_EQ(dx[std::size_t(pos) * 8 + k], 0.0f) << s << " " << pos;
    EXPECT_NE(dx[std::size_t(s) * 8], 0.0f);
  }
}

TEST(GptLayerGradient, LinearActsOnTheRowsOfABatchOfSequences) {
  Fixture f;
  Linear layer(f.builder, "fc", 6, 4);
  f.params.finalize(false);
  RandomStream rng(2);
  layer.init(f.params, rng);
  EXPECT_EQ(layer.outputShape({2, 3, 6}), Shape({2, 3, 4}));
  EXPECT_EQ(layer.outputShape({2, 6}), Shape({2, 4}));
  EXPECT_EQ(layer.outputShape({2, 2, 3}), Shape({2, 4}));  // flattened per item, as before
  checkLayerGradients(layer, f, randomTensor({2, 3, 6}, 3), "linear on [B, T, C]");
  // Each row of [B, T, C] is what the same row alone as [1, C] gives.
  StepContext ctx = f.ctx();
  const Tensor x = randomTensor({2, 3, 6}, 4);
  const Tensor y = layer.forward(x, ctx);
  for (int r = 0; r < 6; ++r) {
    Tensor row({1, 6});
    std::copy_n(x.data() + r * 6, 6, row.data());
    const Tensor& yr = layer.forward(row, ctx);
    for (int k = 0; k < 4; ++k) EXPECT_FLOAT_EQ(yr[std::size_t(k)], y[std::size_t(r) * 4 + k]);
  }
}

}  // namespace
}  // namespace paritylab::nn
