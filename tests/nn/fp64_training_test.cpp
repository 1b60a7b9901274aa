// The fp64 reference of a lockstep comparison against hand-written double loops: a one-layer
// linear model's output, loss, gradients and AdamW and SGD updates over two steps agree to 1e-15
// (relative); the mlp's first step is within fp32's error of cpu-fp32's; a model with other
// layers is refused, saying what the reference computes.

#include "core/nn/fp64_training.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/nn/flatten.h"
#include "core/nn/linear.h"
#include "core/nn/random.h"
#include "core/nn/sequential.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {
namespace {

constexpr int kIn = 12, kClasses = 4, kItems = 5;

// Flatten + one linear layer on [kItems, 3, 2, 2] inputs, initialised as PyTorch's default.
std::unique_ptr<Model> oneLayerLinear() {
  auto model = std::make_unique<Model>();
  model->name = "one-layer linear";
  model->input = Shape{1, 3, 2, 2};
  model->numClasses = kClasses;
  ModelBuilder builder;
  builder.params = &model->params;
  model->net = std::make_unique<Sequential>(builder);
  model->net->add<Flatten>();
  model->net->add<Linear>(builder, "fc", kIn, kClasses);
  model->gemmSites = builder.nextSite;
  model->params.finalize(false);
  model->init(7);
  return model;
}

double relative(const std::vector<double>& a, const std::vector<double>& reference) {
  double error = 0.0, energy = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    error += (a[i] - reference[i]) * (a[i] - reference[i]);
    energy += reference[i] * reference[i];
  }
  return std::sqrt(error / energy);
}

// The whole step written out as loops over doubles, in the textbook's order.
struct HandWritten {
  std::vector<double> w, b, mw, vw, mb, vb, bufW, bufB;
  std::vector<double> y, dw, db;
  double loss = 0.0;
  std::int64_t t = 0;

  void step(const std::vector<float>& x, const std::vector<std::int32_t>& labels,
            const OptimizerConfig& c, double lr) {
    y.assign(kItems * kClasses, 0.0);
    dw.assign(kClasses * kIn, 0.0);
    db.assign(kClasses, 0.0);
    loss = 0.0;
    for (int i = 0; i < kItems; ++i) {
      double top = -INFINITY;
      for (int o = 0; o < kClasses; ++o) {
        double s = b[o];
        for (int k = 0; k < kIn; ++k) s += double(x[i * kIn + k]) * w[o * kIn + k];
        y[i * kClasses + o] = s;
        top = std::max(top, s);
      }
      double sum = 0.0;
      for (int o = 0; o < kClasses; ++o) sum += std::exp(y[i * kClasses + o] - top);
      loss += (std::log(sum) + top - y[i * kClasses + labels[i]]) / kItems;
      for (int o = 0; o < kClasses; ++o) {
        const double g =
            (std::exp(y[i * kClasses + o] - top) / sum - (o == labels[i] ? 1.0 : 0.0)) / kItems;
        db[o] += g;
        for (int k = 0; k < kIn; ++k) dw[o * kIn + k] += g * double(x[i * kIn + k]);
      }
    }
    ++t;
    if (c.kind == "adamw") {
      adamw(w, dw, mw, vw, c, lr);
      adamw(b, db, mb, vb, c, lr);
    } else {
      sgd(w, dw, bufW, c, lr);
      sgd(b, db, bufB, c, lr);
    }
  }
  void adamw(std::vector<double>& p, const std::vector<double>& g, std::vector<double>& m,
             std::vector<double>& v, const OptimizerConfig& c, double lr) const {
    m.resize(p.size(), 0.0);
    v.resize(p.size(), 0.0);
    const double bc1 = 1.0 - std::pow(c.beta1, double(t)), bc2 = 1.0 - std::pow(c.beta2, double(t));
    for (std::size_t i = 0; i < p.size(); ++i) {
      p[i] *= 1.0 - lr * c.weightDecay;
      m[i] = c.beta1 * m[i] + (1.0 - c.beta1) * g[i];
      v[i] = c.beta2 * v[i] + (1.0 - c.beta2) * g[i] * g[i];
      p[i] -= lr / bc1 * m[i] / (std::sqrt(v[i]) / std::sqrt(bc2) + c.eps);
    }
  }
  // The gradient is left as SGD uses it, with the weight decay added (as Sgd::step leaves it).
  void sgd(std::vector<double>& p, std::vector<double>& g, std::vector<double>& buf,
           const OptimizerConfig& c, double lr) const {
    buf.resize(p.size(), 0.0);
    for (std::size_t i = 0; i < p.size(); ++i) {
      g[i] += c.weightDecay * p[i];
      buf[i] = t == 1 ? g[i] : c.momentum * buf[i] + g[i];
      p[i] -= lr * (c.nesterov ? g[i] + c.momentum * buf[i] : buf[i]);
    }
  }
};

void expectSameAsHandWritten(const OptimizerConfig& config) {
  const auto model = oneLayerLinear();
  const int site = dynamic_cast<const Linear&>(*model->net->layers()[1]).site();
  Fp64Training reference(*model, config);
  HandWritten hand;
  const float* w = model->params.master(0);
  hand.w.assign(w, w + kClasses * kIn);
  hand.b.assign(model->params.master(1), model->params.master(1) + kClasses);
  RandomStream rng(3);
  for (int step = 0; step < 2; ++step) {
    std::vector<float> x(kItems * kIn);
    for (float& v : x) v = float(rng.uniform(-1.0, 1.0));
    const std::vector<std::int32_t> labels = {0, 3, 1, 1, 2};
    const double loss = reference.step(x.data(), labels.data(), kItems, 0.01, 0.0);
    hand.step(x, labels, config, 0.01);
    EXPECT_NEAR(loss, hand.loss, 1e-15 * hand.loss) << "step " << step;
    EXPECT_LT(relative(reference.output(site), hand.y), 1e-15) << "step " << step;
    const std::vector<double> dw(reference.grads().begin(),
                                 reference.grads().begin() + kClasses * kIn);
    const std::vector<double> db(reference.grads().begin() + kClasses * kIn,
                                 reference.grads().end());
    EXPECT_LT(relative(dw, hand.dw), 1e-15) << "step " << step;
    EXPECT_LT(relative(db, hand.db), 1e-15) << "step " << step;
    const std::vector<double> mw(reference.master().begin(),
                                 reference.master().begin() + kClasses * kIn);
    const std::vector<double> mb(reference.master().begin() + kClasses * kIn,
                                 reference.master().end());
    EXPECT_LT(relative(mw, hand.w), 1e-15) << "step " << step;
    EXPECT_LT(relative(mb, hand.b), 1e-15) << "step " << step;
  }
  EXPECT_TRUE(reference.inputGradient(site).empty());  // the first layer passes no gradient back
}

TEST(Fp64Training, OneLayerLinearWithAdamWMatchesAHandWrittenDoubleLoop) {
  OptimizerConfig adamw;
  adamw.kind = "adamw";
  adamw.weightDecay = 0.1;
  expectSameAsHandWritten(adamw);
}

TEST(Fp64Training, OneLayerLinearWithNesterovSgdMatchesAHandWrittenDoubleLoop) {
  OptimizerConfig sgd;
  sgd.kind = "sgd";
  sgd.momentum = 0.9;
  sgd.nesterov = true;
  sgd.weightDecay = 5e-4;
  expectSameAsHandWritten(sgd);
}

// The mlp's first step from the same weights: cpu-fp32's outputs and weights are within a few
// fp32 roundings of the exact ones, and not equal to them.
TEST(Fp64Training, MlpStepIsWithinFp32ErrorOfCpuFp32) {
  ModelSpec spec;
  spec.name = "mlp";
  TrainingSession fp32(spec, backends::presetPolicy("cpu-fp32"), 0);
  fp32.model().init(0);
  fp32.weightsChanged(0);
  OptimizerConfig config;
  config.kind = "adamw";
  Fp64Training reference(fp32.model(), config);
  RandomStream rng(5);
  std::vector<float> x(16 * 784);
  for (float& v : x) v = float(rng.uniform(0.0, 1.0));
  std::vector<std::int32_t> labels(16);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int32_t(i % 10);
  const auto optimizer = makeOptimizer(config);
  const auto ranges = fp32.model().params.weightRanges(false);
  const StepOutcome out = fp32.step(x.data(), labels.data(), 16, 0, *optimizer, 1e-3, ranges, 0.0);
  const double loss = reference.step(x.data(), labels.data(), 16, 1e-3, 0.0);
  EXPECT_NEAR(out.loss, loss, 1e-6);
  const std::vector<float>& g = fp32.model().params.gradData();
  const std::vector<double> g32(g.begin(), g.end());
  const double gradError = relative(g32, reference.grads());
  EXPECT_GT(gradError, 0.0);
  EXPECT_LT(gradError, 1e-5);
}

TEST(Fp64Training, ModelWithOtherLayersIsRefusedSayingWhatItComputes) {
  ModelSpec spec;
  spec.name = "small-cnn";
  const auto model = makeModel(spec, false);
  try {
    Fp64Training reference(*model, OptimizerConfig{});
    FAIL() << "small-cnn accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("flatten, linear and ReLU layers (the mlp); model "
                                         "'small-cnn' has other layers"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace paritylab::nn
