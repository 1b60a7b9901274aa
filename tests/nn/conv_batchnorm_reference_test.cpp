// Conv forward against a naive direct convolution; batch norm train/eval against
// hand-computed values (biased variance to normalise, unbiased running variance, momentum 0.1).

#include <gtest/gtest.h>

#include "core/nn/batchnorm.h"
#include "core/nn/conv2d.h"
#include "nn_test_support.h"

namespace paritylab::nn {
namespace {

using testing::Fixture;
using testing::randomTensor;

struct ConvCase {
  int n, cin, h, w, cout, k, stride, pad;
  bool bias;
};

class ConvReference : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvReference, MatchesDirectConvolution) {
  const ConvCase cc = GetParam();
  Fixture f;
  Conv2d conv(f.builder, "conv", cc.cin, cc.cout, cc.k, cc.stride, cc.pad, cc.bias);
  f.params.finalize(false);
  RandomStream rng(3);
  conv.init(f.params, rng);
  const Tensor x = randomTensor({cc.n, cc.cin, cc.h, cc.w}, 17);
  StepContext ctx = f.ctx();
  const Tensor& y = conv.forward(x, ctx);
  const int oh = (cc.h + 2 * cc.pad - cc.k) / cc.stride + 1;
  const int ow = (cc.w + 2 * cc.pad - cc.k) / cc.stride + 1;
  ASSERT_EQ(y.shape(), Shape({cc.n, cc.cout, oh, ow}));
  const float* wt = f.params.master(conv.weightId());
  for (int n = 0; n < cc.n; ++n)
    for (int co = 0; co < cc.cout; ++co)
      for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox) {
          double acc = cc.bias ? f.params.master(conv.biasId())[co] : 0.0;
          for (int ci = 0; ci < cc.cin; ++ci)
            for (int ky = 0; ky < cc.k; ++ky)
              for (int kx = 0; kx < cc.k; ++kx) {
                const int iy = oy * cc.stride + ky - cc.pad, ix = ox * cc.stride + kx - cc.pad;
                if (iy < 0 || iy >= cc.h || ix < 0 || ix >= cc.w) continue;
                acc += double(wt[((co * cc.cin + ci) * cc.k + ky) * cc.k + kx]) *
                       x[((std::size_t(n) * cc.cin + ci) * cc.h + iy) * cc.w + ix];
              }
          const float got = y[((std::size_t(n) * cc.cout + co) * oh + oy) * ow + ox];
          ASSERT_NEAR(got, acc, 1e-5 * (1.0 + std::abs(acc)))
              << "n=" << n << " co=" << co << " oy=" << oy << " ox=" << ox;
        }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvReference,
                         ::testing::Values(ConvCase{2, 1, 28, 28, 4, 3, 1, 1, true},
                                           ConvCase{3, 4, 7, 9, 5, 3, 2, 1, false},
                                           ConvCase{2, 3, 8, 8, 6, 1, 2, 0, false},
                                           ConvCase{1, 2, 6, 5, 3, 3, 1, 0, true},
                                           ConvCase{2, 2, 5, 5, 2, 5, 1, 2, true}));

TEST(BatchNormReference, TrainAndEvalAgainstHandValues) {
  Fixture f;
  BatchNorm bn(f.builder, "bn", 2);
  f.params.finalize(false);
  RandomStream rng(0);
  bn.init(f.params, rng);
  f.params.master(bn.weightId())[0] = 2.0f;  // gamma
  f.params.master(bn.biasId())[1] = 0.5f;    // beta
  // x [N=2, C=2, 1, 2]: channel 0 = {1, 2, 3, 6}, channel 1 = {0, 0, 4, 4}
  Tensor x({2, 2, 1, 2});
  const float values[8] = {1, 2, 0, 0, 3, 6, 4, 4};
  std::copy(values, values + 8, x.data());
  StepContext ctx = f.ctx();
  const Tensor y = bn.forward(x, ctx);
  // channel 0: mean 3, biased var (4+1+0+9)/4 = 3.5; channel 1: mean 2, var 4.
  const float inv0 = 1.0f / std::sqrt(3.5f + 1e-5f), inv1 = 1.0f / std::sqrt(4.0f + 1e-5f);
  const float expected[8] = {2 * (1 - 3) * inv0,    2 * (2 - 3) * inv0,   (0 - 2) * inv1 + 0.5f,
                             (0 - 2) * inv1 + 0.5f, 2 * (3 - 3) * inv0,   2 * (6 - 3) * inv0,
                             (4 - 2) * inv1 + 0.5f, (4 - 2) * inv1 + 0.5f};
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(y[std::size_t(i)], expected[i], 1e-6f) << i;
  // running: 0.9 * init + 0.1 * batch, with the unbiased variance (n/(n-1) = 4/3).
  EXPECT_NEAR(f.params.master(bn.runningMeanId())[0], 0.3f, 1e-7f);
  EXPECT_NEAR(f.params.master(bn.runningMeanId())[1], 0.2f, 1e-7f);
  EXPECT_NEAR(f.params.master(bn.runningVarId())[0], 0.9f + 0.1f * 3.5f * 4.0f / 3.0f, 1e-6f);
  EXPECT_NEAR(f.params.master(bn.runningVarId())[1], 0.9f + 0.1f * 4.0f * 4.0f / 3.0f, 1e-6f);
  // eval: running statistics.
  ctx.training = false;
  const Tensor ye = bn.forward(x, ctx);
  const float rm0 = 0.3f, rv0 = 0.9f + 0.1f * 3.5f * 4.0f / 3.0f;
  EXPECT_NEAR(ye[0], 2.0f * (1.0f - rm0) / std::sqrt(rv0 + 1e-5f), 1e-5f);
  // A second replica's shard does not touch the running statistics.
  ctx.training = true;
  ctx.replica = 1;
  bn.forward(x, ctx);
  EXPECT_NEAR(f.params.master(bn.runningMeanId())[0], 0.3f, 1e-7f);
}

}  // namespace
}  // namespace paritylab::nn
