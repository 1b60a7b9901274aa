// AdamW / SGD (momentum, Nesterov, weight decay) one- and two-step values against
// torch.optim's formulas computed by hand; learning-rate schedules; gradient clipping.

#include <gtest/gtest.h>

#include <cmath>

#include "core/nn/grad_clip.h"
#include "core/nn/lr_schedule.h"
#include "core/nn/optimizer.h"

namespace paritylab::nn {
namespace {

struct OneParam {
  ParamStore params;
  int id;
  OneParam(std::initializer_list<float> values) {
    id = params.add("w", {int(values.size())}, ParamKind::Weight, true);
    params.finalize(false);
    std::copy(values.begin(), values.end(), params.master(id));
  }
  void setGrad(std::initializer_list<float> g) { std::copy(g.begin(), g.end(), params.grad(id)); }
  float at(int i) { return params.master(id)[i]; }
  std::vector<ParamStore::Range> all() { return params.weightRanges(false); }
};

TEST(AdamW, TwoStepsMatchTorchFormula) {
  OptimizerConfig c;
  c.kind = "adamw";
  c.lr = 0.01;
  c.weightDecay = 0.1;
  OneParam p{1.0f, -2.0f};
  auto opt = makeOptimizer(c);
  // torch: p *= 1 - lr*wd; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2;
  //        p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps)
  double ref[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  const double grads[2][2] = {{0.5, -0.25}, {0.1, 0.3}};
  for (int t = 1; t <= 2; ++t) {
    p.setGrad({float(grads[t - 1][0]), float(grads[t - 1][1])});
    opt->step(p.params, p.all(), c.lr, std::nullopt);
    for (int i = 0; i < 2; ++i) {
      const double g = grads[t - 1][i];
      ref[i] *= 1.0 - c.lr * c.weightDecay;
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      ref[i] -= c.lr / (1 - std::pow(0.9, t)) * m[i] /
                (std::sqrt(v[i]) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
      EXPECT_NEAR(p.at(i), ref[i], 2e-7) << "step " << t << " i " << i;
    }
  }
}

TEST(Sgd, MomentumNesterovAndWeightDecay) {
  OptimizerConfig c;
  c.kind = "sgd";
  c.lr = 0.1;
  c.momentum = 0.9;
  c.weightDecay = 0.01;
  for (bool nesterov : {false, true}) {
    c.nesterov = nesterov;
    OneParam p{1.0f};
    auto opt = makeOptimizer(c);
    double w = 1.0, buf = 0.0;
    const double gs[3] = {0.5, -1.0, 0.25};
    for (int t = 0; t < 3; ++t) {
      p.setGrad({float(gs[t])});
      opt->step(p.params, p.all(), c.lr, std::nullopt);
      const double g = gs[t] + 0.01 * w;
      buf = t == 0 ? g : 0.9 * buf + g;
      w -= 0.1 * (nesterov ? g + 0.9 * buf : buf);
      EXPECT_NEAR(p.at(0), w, 1e-6) << "nesterov " << nesterov << " step " << t;
    }
  }
  // Plain SGD without momentum: w - lr * g.
  c.momentum = 0.0;
  c.nesterov = false;
  c.weightDecay = 0.0;
  OneParam p{2.0f};
  auto opt = makeOptimizer(c);
  p.setGrad({3.0f});
  opt->step(p.params, p.all(), c.lr, std::nullopt);
  EXPECT_FLOAT_EQ(p.at(0), 2.0f - 0.3f);
}

TEST(Optimizer, UnknownKindIsNamed) {
  OptimizerConfig c;
  c.kind = "adagrad";
  try {
    makeOptimizer(c);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("adagrad"), std::string::npos);
  }
}

TEST(LrSchedule, ConstantStepCosineWithWarmup) {
  ScheduleConfig s;
  LrSchedule constant(s, 0.1, 10, 3);
  EXPECT_DOUBLE_EQ(constant.at(0), 0.1);
  EXPECT_DOUBLE_EQ(constant.at(29), 0.1);

  s.kind = "step";
  s.stepEpochs = 2;
  s.gamma = 0.5;
  LrSchedule step(s, 0.1, 10, 6);
  EXPECT_DOUBLE_EQ(step.at(19), 0.1);
  EXPECT_DOUBLE_EQ(step.at(20), 0.05);
  EXPECT_DOUBLE_EQ(step.at(45), 0.025);

  s.kind = "cosine";
  s.warmupEpochs = 1.0;
  LrSchedule cosine(s, 0.1, 10, 5);      // 10 warmup steps, 40 cosine steps
  EXPECT_DOUBLE_EQ(cosine.at(0), 0.01);  // linear warmup, first batch at 1/10
  EXPECT_DOUBLE_EQ(cosine.at(4), 0.05);
  EXPECT_DOUBLE_EQ(cosine.at(10), 0.1);     // peak after warmup
  EXPECT_NEAR(cosine.at(30), 0.05, 1e-15);  // halfway through the cosine
  EXPECT_NEAR(cosine.at(49), 0.1 * 0.5 * (1 + std::cos(M_PI * 39.0 / 40.0)), 1e-15);
  s.kind = "linear";
  EXPECT_THROW(LrSchedule(s, 0.1, 10, 5), std::invalid_argument);
}

TEST(GradClip, ScalesToMaxNormOnlyWhenAbove) {
  OneParam p{0.0f, 0.0f};
  p.setGrad({3.0f, 4.0f});
  EXPECT_DOUBLE_EQ(clipGradNorm(p.params, p.all(), 10.0), 5.0);
  EXPECT_FLOAT_EQ(p.params.grad(p.id)[0], 3.0f);
  clipGradNorm(p.params, p.all(), 1.0);
  EXPECT_NEAR(p.params.grad(p.id)[0], 0.6f, 1e-6f);
  EXPECT_NEAR(p.params.grad(p.id)[1], 0.8f, 1e-6f);
}

}  // namespace
}  // namespace paritylab::nn
