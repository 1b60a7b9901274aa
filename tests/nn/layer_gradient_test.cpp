// Finite-difference gradient checks for every layer and the loss (fp32, central
// differences with h = 1e-2, |analytic - numeric| <= 2e-3 + 2e-2 * |numeric|).

#include <gtest/gtest.h>

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "core/nn/flatten.h"
#include "core/nn/global_avg_pool.h"
#include "core/nn/linear.h"
#include "core/nn/maxpool.h"
#include "core/nn/relu.h"
#include "core/nn/residual_block.h"
#include "core/nn/softmax_cross_entropy.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::checkLayerGradients;
using testing::Fixture;
using testing::randomTensor;

template <class L, class... Args>
void checkParametrised(const std::string& what, const Shape& in, Args&&... args) {
  Fixture f;
  L layer(f.builder, "layer", std::forward<Args>(args)...);
  f.params.finalize(false);
  RandomStream rng(5);
  layer.init(f.params, rng);
  checkLayerGradients(layer, f, randomTensor(in, 11), what);
}

TEST(LayerGradient, Linear) {
  checkParametrised<Linear>("linear 7->5", {4, 7}, 7, 5);
  checkParametrised<Linear>("linear without bias", {3, 6}, 6, 4, false);
  checkParametrised<Linear>("linear on [N, C, H, W]", {2, 2, 2, 3}, 12, 3);
}

TEST(LayerGradient, Conv2d) {
  checkParametrised<Conv2d>("conv 3x3 s1 p1", {2, 3, 5, 5}, 3, 4, 3, 1, 1, true);
  checkParametrised<Conv2d>("conv 3x3 s2 p1", {2, 2, 6, 6}, 2, 3, 3, 2, 1, false);
  checkParametrised<Conv2d>("conv 1x1 s2 p0", {2, 3, 5, 5}, 3, 2, 1, 2, 0, false);
  checkParametrised<Conv2d>("conv 3x3 s1 p0", {1, 2, 5, 4}, 2, 2, 3, 1, 0, true);
}

TEST(LayerGradient, BatchNormTrainMode) {
  checkParametrised<BatchNorm>("batchnorm2d", {4, 3, 3, 3}, 3);
  checkParametrised<BatchNorm>("batchnorm1d", {6, 4}, 4);
}

TEST(LayerGradient, BatchNormFusedRelu) {
  Fixture f;
  BatchNorm layer(f.builder, "bn", 3, /*fusedRelu=*/true);
  f.params.finalize(false);
  RandomStream rng(1);
  layer.init(f.params, rng);
  // gamma/beta away from 1/0 so the clamp is exercised; values near the kink are unlikely.
  f.params.master(layer.weightId())[1] = 0.7f;
  f.params.master(layer.biasId())[2] = 0.3f;
  checkLayerGradients(layer, f, randomTensor({4, 3, 2, 3}, 3), "batchnorm+relu", 1e-3f,
                      {3e-2, 5e-3});
}

TEST(LayerGradient, BatchNormEvalMode) {
  Fixture f;
  BatchNorm layer(f.builder, "bn", 2);
  f.params.finalize(false);
  RandomStream rng(1);
  layer.init(f.params, rng);
  f.params.master(layer.runningMeanId())[0] = 0.3f;
  f.params.master(layer.runningVarId())[1] = 2.0f;
  StepContext ctx = f.ctx();
  ctx.training = false;
  Tensor x = randomTensor({3, 2, 2, 2}, 4);
  layer.forward(x, ctx);
  const Tensor r = randomTensor({3, 2, 2, 2}, 8);
  const Tensor dx = layer.backward(r, ctx);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int c = int(i / 4) % 2;
    const float var = c == 0 ? 1.0f : 2.0f;
    EXPECT_NEAR(dx[i], r[i] / std::sqrt(var + 1e-5f), 1e-6f);
  }
}

TEST(LayerGradient, ReLU) {
  Fixture f;
  ReLU layer;
  f.params.finalize(false);
  Tensor x = randomTensor({3, 10}, 2);
  for (std::size_t i = 0; i < x.size(); ++i)  // stay away from the kink
    if (std::abs(x[i]) < 0.05f) x[i] = 0.5f;
  checkLayerGradients(layer, f, x, "relu");
}

TEST(LayerGradient, MaxPool) {
  Fixture f;
  MaxPool2d layer(2);
  f.params.finalize(false);
  // Distinct values (a shuffled ramp) so the maximum is unique in every window.
  Tensor x({2, 2, 4, 5});
  RandomStream rng(3);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * float(i);
  for (std::size_t i = x.size(); i > 1; --i) std::swap(x[i - 1], x[rng.below(i)]);
  checkLayerGradients(layer, f, x, "maxpool", 1e-2f, {1e-3, 1e-3});
  EXPECT_EQ(layer.outputShape(x.shape()), Shape({2, 2, 2, 2}));
}

TEST(LayerGradient, GlobalAvgPoolAndFlatten) {
  Fixture f;
  f.params.finalize(false);
  GlobalAvgPool pool;
  checkLayerGradients(pool, f, randomTensor({2, 3, 3, 2}, 6), "global average pool");
  Flatten flatten;
  checkLayerGradients(flatten, f, randomTensor({2, 3, 2, 2}, 7), "flatten");
}

TEST(LayerGradient, BasicBlockWithProjectionAndIdentity) {
  {
    Fixture f;
    BasicBlock block(f.builder, "block", 2, 3, 2);
    ASSERT_TRUE(block.hasProjection());
    f.params.finalize(false);
    RandomStream rng(9);
    block.init(f.params, rng);
    checkLayerGradients(block, f, randomTensor({3, 2, 4, 4}, 12), "basic block (projection)", 1e-3f,
                        {3e-2, 5e-3});
  }
  {
    Fixture f;
    BasicBlock block(f.builder, "block", 2, 2, 1);
    ASSERT_FALSE(block.hasProjection());
    f.params.finalize(false);
    RandomStream rng(10);
    block.init(f.params, rng);
    checkLayerGradients(block, f, randomTensor({3, 2, 3, 3}, 13), "basic block (identity)", 1e-3f,
                        {3e-2, 5e-3});
  }
}

TEST(LayerGradient, SoftmaxCrossEntropy) {
  Tensor logits = randomTensor({5, 4}, 21, -3.0, 3.0);
  const std::int32_t labels[5] = {0, 3, 1, 1, 2};
  Tensor grad;
  softmaxCrossEntropy(logits, labels, &grad);
  const float h = 1e-2f;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const float saved = logits[i];
    logits[i] = saved + h;
    const double plus = softmaxCrossEntropy(logits, labels, nullptr).loss;
    logits[i] = saved - h;
    const double minus = softmaxCrossEntropy(logits, labels, nullptr).loss;
    logits[i] = saved;
    const double numeric = (plus - minus) / (2.0 * h);
    EXPECT_NEAR(grad[i], numeric, 1e-4 + 1e-2 * std::abs(numeric)) << i;
  }
  // Hand value: one item, logits (1, 2, 3), label 2: log(e^1 + e^2 + e^3) - 3.
  Tensor one({1, 3});
  one[0] = 1.0f, one[1] = 2.0f, one[2] = 3.0f;
  const std::int32_t label = 2;
  EXPECT_NEAR(softmaxCrossEntropy(one, &label, nullptr).loss, 0.40760596444438, 1e-6);
  // Numerically stable for huge logits; loss scale multiplies the gradient only.
  one[0] = 1000.0f, one[1] = -1000.0f, one[2] = 999.0f;
  Tensor g;
  const LossResult big = softmaxCrossEntropy(one, &label, &g, 1024.0f);
  EXPECT_NEAR(big.loss, 1.31326168751822, 1e-5);
  EXPECT_NEAR(g[2], 1024.0 * (std::exp(-1.31326168751822) - 1.0), 1e-2);
}

}  // namespace
}  // namespace paritylab::nn
