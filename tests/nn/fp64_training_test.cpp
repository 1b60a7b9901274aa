// The fp64 reference of a lockstep comparison against hand-written double loops: a one-layer
// linear model's output, loss, gradients and AdamW and SGD updates over two steps agree to 1e-15
// (relative); each binary64 layer's backward agrees with central differences of its own forward;
// whole models' first steps (mlp, small-cnn, resnet18, gpt) are within fp32's error of cpu-fp32's
// at every call site; a model with a layer it does not compute is refused, saying what it
// computes.

#include "core/nn/fp64_training.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/nn/activation_probe.h"
#include "core/nn/flatten.h"
#include "core/nn/fp64_conv_layers.h"
#include "core/nn/fp64_dense_layers.h"
#include "core/nn/fp64_gpt.h"
#include "core/nn/fp64_residual_layers.h"
#include "core/nn/linear.h"
#include "core/nn/lockstep.h"
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

// ---- Each binary64 layer's backward against central differences of its own forward ----

constexpr double kStep = 1e-5;  // the central differences' step

int addRandom(Fp64Params& params, std::size_t n, std::uint64_t seed, double lo = -1.0,
              double hi = 1.0) {
  RandomStream rng(seed);
  std::vector<double> values(n);
  for (double& v : values) v = rng.uniform(lo, hi);
  return params.add(values);
}

DoubleTensor randomDoubles(const Shape& shape, std::uint64_t seed, double lo = -1.0,
                           double hi = 1.0) {
  DoubleTensor t;
  t.resize(shape);
  RandomStream rng(seed);
  for (double& v : t.values) v = rng.uniform(lo, hi);
  return t;
}

// The relative error (relative()) of the gradients backward() gives of sum(layer(x) .* R), R
// random, with respect to every value of x (unless `differentiableInput` is false) and of every
// parameter the layer reads, against central differences of the layer's own forward.
double finiteDifferenceError(Fp64Layer& layer, Fp64Params& params, DoubleTensor x,
                             bool differentiableInput = true) {
  DoubleTensor r = randomDoubles(layer.forward(x, params).shape, 99);
  const std::vector<double> dx = layer.backward(r, params).values;
  const std::vector<double> grads = params.grads;
  const auto objective = [&] {
    const DoubleTensor& y = layer.forward(x, params);
    double sum = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += y.values[i] * r.values[i];
    return sum;
  };
  std::vector<double> analytic, numeric;
  const auto check = [&](double& value, double expected) {
    const double saved = value;
    value = saved + kStep;
    const double plus = objective();
    value = saved - kStep;
    const double minus = objective();
    value = saved;
    numeric.push_back((plus - minus) / (2.0 * kStep));
    analytic.push_back(expected);
  };
  if (differentiableInput) {
    EXPECT_EQ(dx.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) check(x.values[i], dx[i]);
  }
  for (int id : layer.paramIds())
    for (std::size_t j = params.offsets[std::size_t(id)];
         j < params.offsets[std::size_t(id)] + params.size(id); ++j)
      check(params.values[j], grads[j]);
  const double error = relative(analytic, numeric);
  std::printf("finite differences, %zu values: relative error %.3g\n", numeric.size(), error);
  return error;
}

TEST(Fp64Layers, LinearBackwardMatchesFiniteDifferencesPerItemAndPerPosition) {
  Fp64Params params;
  const int w = addRandom(params, 4 * 5, 1), b = addRandom(params, 4, 2);
  Fp64Linear perItem(0, 5, 4, w, b);
  EXPECT_LT(finiteDifferenceError(perItem, params, randomDoubles({3, 5}, 3)), 1e-6);
  Fp64Linear perPosition(0, 5, 4, w, -1);  // [B, T, in] -> [B, T, out], no bias
  EXPECT_LT(finiteDifferenceError(perPosition, params, randomDoubles({2, 3, 5}, 4)), 1e-6);
  EXPECT_EQ(perPosition.forward(randomDoubles({2, 3, 5}, 4), params).shape, (Shape{2, 3, 4}));
  Fp64Linear flattening(0, 12, 4, addRandom(params, 4 * 12, 5), b);  // [N, 3, 2, 2] -> [N, 4]
  EXPECT_LT(finiteDifferenceError(flattening, params, randomDoubles({2, 3, 2, 2}, 6)), 1e-6);
}

TEST(Fp64Layers, ConvolutionBackwardMatchesFiniteDifferencesWithStridePaddingAndOddSizes) {
  struct Case {
    Fp64Conv2d::Geometry geometry;
    bool bias;
    Shape input;
  };
  for (const Case& c : {Case{{2, 3, 3, 1, 1}, true, {2, 2, 5, 5}},     // "same", with bias
                        Case{{3, 2, 3, 2, 1}, false, {2, 3, 7, 6}},    // stride 2, odd sizes
                        Case{{2, 3, 1, 2, 0}, false, {2, 2, 5, 5}},    // the 1x1 projection
                        Case{{2, 2, 2, 1, 0}, true, {3, 2, 4, 5}}}) {  // even kernel, no padding
    Fp64Params params;
    const Fp64Conv2d::Geometry& g = c.geometry;
    const int w = addRandom(params, std::size_t(g.out * g.in * g.kernel * g.kernel), 7);
    const int b = c.bias ? addRandom(params, std::size_t(g.out), 8) : -1;
    Fp64Conv2d conv(0, g, w, b);
    EXPECT_LT(finiteDifferenceError(conv, params, randomDoubles(c.input, 9)), 1e-6)
        << "kernel " << g.kernel << " stride " << g.stride << " padding " << g.padding;
  }
}

TEST(Fp64Layers, BatchNormBackwardMatchesFiniteDifferencesOnABatchOfThree) {
  for (bool relu : {false, true})
    for (const Shape& input : {Shape{3, 4, 3, 2}, Shape{3, 4}}) {
      Fp64Params params;
      Fp64BatchNorm::Ids ids;
      ids.weight = addRandom(params, 4, 10, 0.5, 1.5);
      ids.bias = addRandom(params, 4, 11, -0.5, 0.5);
      ids.runningMean = params.add(std::vector<double>(4, 0.0));
      ids.runningVar = params.add(std::vector<double>(4, 1.0));
      Fp64BatchNorm bn(4, relu, 0.1, 1e-5, ids);
      EXPECT_LT(finiteDifferenceError(bn, params, randomDoubles(input, 12)), 1e-6)
          << (relu ? "with" : "without") << " ReLU, rank " << input.rank;
    }
}

TEST(Fp64Layers, PoolingBackwardMatchesFiniteDifferences) {
  Fp64Params params;
  Fp64MaxPool2d two(2), three(3);
  EXPECT_LT(finiteDifferenceError(two, params, randomDoubles({2, 2, 5, 4}, 13)), 1e-6);
  EXPECT_LT(finiteDifferenceError(three, params, randomDoubles({2, 1, 7, 6}, 14)), 1e-6);
  Fp64GlobalAvgPool average;
  EXPECT_LT(finiteDifferenceError(average, params, randomDoubles({2, 3, 3, 5}, 15)), 1e-6);
}

// A window of equal values gives its output and gradient to its first element in row-major
// order, a NaN to the NaN: the fp32 MaxPool2d's rule.
TEST(Fp64Layers, MaxPoolGivesATiedWindowToItsFirstMaximumAsTheFp32Layer) {
  Fp64Params params;
  Fp64MaxPool2d pool(2);
  DoubleTensor x;
  x.shape = Shape{1, 1, 2, 4};
  x.values = {0.0, 0.0, 1.0, NAN, 0.0, 0.0, 2.0, 2.0};
  const DoubleTensor& y = pool.forward(x, params);
  EXPECT_EQ(y.values[0], 0.0);
  EXPECT_TRUE(std::isnan(y.values[1]));
  DoubleTensor dy;
  dy.shape = y.shape;
  dy.values = {5.0, 7.0};
  EXPECT_EQ(pool.backward(dy, params).values,
            (std::vector<double>{5.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0, 0.0}));
}

// conv 3x3 (stride), bn + ReLU, conv 3x3; bn; projection conv 1x1 (stride) + bn, or the identity.
std::unique_ptr<Fp64BasicBlock> basicBlock(Fp64Params& params, int in, int out, int stride) {
  const auto bn = [&](bool relu) {
    Fp64BatchNorm::Ids ids;
    ids.weight = addRandom(params, std::size_t(out), 20, 0.5, 1.5);
    ids.bias = addRandom(params, std::size_t(out), 21, -0.5, 0.5);
    ids.runningMean = params.add(std::vector<double>(std::size_t(out), 0.0));
    ids.runningVar = params.add(std::vector<double>(std::size_t(out), 1.0));
    return std::make_unique<Fp64BatchNorm>(out, relu, 0.1, 1e-5, ids);
  };
  const auto conv = [&](int from, int kernel, int s, int pad, std::uint64_t seed) {
    const int w = addRandom(params, std::size_t(out * from * kernel * kernel), seed);
    return std::make_unique<Fp64Conv2d>(0, Fp64Conv2d::Geometry{from, out, kernel, s, pad}, w, -1);
  };
  auto main = std::make_unique<Fp64Sequential>();
  main->add(conv(in, 3, stride, 1, 22));
  main->add(bn(true));
  main->add(conv(out, 3, 1, 1, 23));
  std::unique_ptr<Fp64Sequential> projection;
  if (stride != 1 || in != out) {
    projection = std::make_unique<Fp64Sequential>();
    projection->add(conv(in, 1, stride, 0, 24));
    projection->add(bn(false));
  }
  return std::make_unique<Fp64BasicBlock>(std::move(main), bn(false), std::move(projection));
}

TEST(Fp64Layers, ResidualBlockBackwardMatchesFiniteDifferencesWithProjectionAndIdentity) {
  Fp64Params params;
  const auto projected = basicBlock(params, 2, 3, 2);
  EXPECT_LT(finiteDifferenceError(*projected, params, randomDoubles({3, 2, 5, 6}, 25)), 1e-6);
  Fp64Params identityParams;
  const auto identity = basicBlock(identityParams, 3, 3, 1);
  EXPECT_LT(finiteDifferenceError(*identity, identityParams, randomDoubles({3, 3, 4, 3}, 26)),
            1e-6);
}

// ---- Whole models: the first step against cpu-fp32's, call site by call site ----

// One step's outputs and input gradients per call site as the fp32 layers report them.
class SiteCapture : public ActivationProbe {
 public:
  void forward(int site, const float* values, std::size_t n) override {
    outputs[site].insert(outputs[site].end(), values, values + n);
  }
  void backward(int site, const float* values, std::size_t n, double scale) override {
    EXPECT_EQ(scale, 1.0);  // one shard, no loss scaling
    gradients[site].insert(gradients[site].end(), values, values + n);
  }
  std::map<int, std::vector<float>> outputs, gradients;
};

// The largest and smallest relative RMS differences of one quantity over the call sites.
struct Spread {
  double largest = 0.0, smallest = INFINITY;
  int sites = 0;
  void add(double d) {
    largest = std::max(largest, d);
    smallest = std::min(smallest, d);
    ++sites;
  }
};

struct FirstStep {
  double lossFp32 = 0.0, lossFp64 = 0.0;
  Spread outputs, inputGradients;
  double gradients = 0.0;  // every weight's gradient as one vector
  double buffers = 0.0;    // batch norm's running statistics after the step (0 when none)
};

// One AdamW step of cpu-fp32 and of the fp64 reference from the same weights on one batch.
FirstStep firstStepAgainstCpuFp32(const ModelSpec& spec, const std::vector<float>& items,
                                  const std::vector<std::int32_t>& labels, int n) {
  TrainingSession fp32(spec, backends::presetPolicy("cpu-fp32"), 3);
  OptimizerConfig config;
  config.kind = "adamw";
  Fp64Training reference(fp32.model(), config);
  SiteCapture capture;
  fp32.setProbe(&capture);
  const auto optimizer = makeOptimizer(config);
  const ParamStore& params = fp32.model().params;
  const auto ranges = params.weightRanges(false);
  FirstStep r;
  r.lossFp32 = fp32.step(items.data(), labels.data(), n, 0, *optimizer, 1e-3, ranges, 0.0).loss;
  r.lossFp64 = reference.step(items.data(), labels.data(), n, 1e-3, 0.0);
  for (int site = 0; site < fp32.model().gemmSites; ++site) {
    const std::vector<double>& out = reference.output(site);
    EXPECT_EQ(out.empty(), !capture.outputs.count(site)) << "site " << site;
    if (!out.empty()) {
      EXPECT_EQ(out.size(), capture.outputs[site].size()) << "site " << site;
      r.outputs.add(relativeRmsDifference(capture.outputs[site].data(), out.data(), out.size()));
    }
    const std::vector<double>& in = reference.inputGradient(site);
    EXPECT_EQ(in.empty(), !capture.gradients.count(site)) << "site " << site;
    if (!in.empty()) {
      EXPECT_EQ(in.size(), capture.gradients[site].size()) << "site " << site;
      r.inputGradients.add(
          relativeRmsDifference(capture.gradients[site].data(), in.data(), in.size()));
    }
  }
  std::vector<double> g32, g64;
  for (const ParamStore::Range& range : ranges)
    for (std::size_t j = range.offset; j < range.offset + range.size; ++j) {
      g32.push_back(params.gradData()[j]);
      g64.push_back(reference.grads()[j]);
    }
  r.gradients = relative(g32, g64);
  std::vector<double> b32, b64;
  for (const ParamInfo& info : params.infos())
    if (info.kind == ParamKind::Buffer)
      for (std::size_t j = info.offset; j < info.offset + info.size; ++j) {
        b32.push_back(params.masterData()[j]);
        b64.push_back(reference.master()[j]);
      }
  if (!b64.empty()) r.buffers = relative(b32, b64);
  std::printf(
      "%s: loss %.9g vs %.9g; outputs %.3g..%.3g (%d sites), input gradients %.3g..%.3g "
      "(%d sites), weight gradients %.3g, running statistics %.3g\n",
      spec.name.c_str(), r.lossFp32, r.lossFp64, r.outputs.smallest, r.outputs.largest,
      r.outputs.sites, r.inputGradients.smallest, r.inputGradients.largest, r.inputGradients.sites,
      r.gradients, r.buffers);
  return r;
}

// Within fp32's error of the exact step (a few of its unit roundoff 6e-8, more where sums cancel)
// and not equal to it: nothing computed in fp32 by mistake.
void expectWithinFp32Error(const FirstStep& r, int sites, int sitesPassingBack) {
  EXPECT_NEAR(r.lossFp32, r.lossFp64, 1e-6 * r.lossFp64);
  EXPECT_EQ(r.outputs.sites, sites);
  EXPECT_GT(r.outputs.smallest, 0.0);
  EXPECT_LT(r.outputs.largest, 1e-5);
  EXPECT_EQ(r.inputGradients.sites, sitesPassingBack);
  EXPECT_GT(r.inputGradients.smallest, 0.0);
  EXPECT_LT(r.inputGradients.largest, 1e-5);
  EXPECT_GT(r.gradients, 0.0);
  EXPECT_LT(r.gradients, 1e-5);
}

std::vector<float> randomItems(std::size_t n, std::uint64_t seed) {
  RandomStream rng(seed);
  std::vector<float> items(n);
  for (float& v : items) v = float(rng.uniform(0.0, 1.0));
  return items;
}

std::vector<std::int32_t> cyclicLabels(std::size_t n, int classes) {
  std::vector<std::int32_t> labels(n);
  for (std::size_t i = 0; i < n; ++i) labels[i] = std::int32_t(i % std::size_t(classes));
  return labels;
}

// Measured: outputs 5.3e-08..6.0e-07, input gradients 7.3e-08..2.2e-07, weight gradients 4.7e-07,
// running statistics 3.3e-08 (relative RMS differences).
TEST(Fp64Training, SmallCnnStepIsWithinFp32ErrorOfCpuFp32AtEverySite) {
  ModelSpec spec;
  spec.name = "small-cnn";
  spec.height = spec.width = 8;
  const int n = 8;
  const FirstStep r = firstStepAgainstCpuFp32(spec, randomItems(n * 64, 5), cyclicLabels(n, 10), n);
  expectWithinFp32Error(r, 4, 3);  // conv1 passes no gradient back
  EXPECT_GT(r.buffers, 0.0);
  EXPECT_LT(r.buffers, 1e-6);
}

// Measured: outputs 6.9e-08..1.2e-06, input gradients 1.7e-07..8.8e-07, weight gradients 1.1e-06,
// running statistics 4.8e-08. (On 8x8 images the last stage's planes are 1x1: with a batch of 4
// its batch norms normalise over 4 values, and the gradients they pass back cancel so much that
// fp32's differ by 1.7e-05.)
TEST(Fp64Training, TinyResnet18StepIsWithinFp32ErrorOfCpuFp32AtEverySite) {
  ModelSpec spec;
  spec.name = "resnet18";
  spec.channels = 3;
  spec.height = spec.width = 16;
  spec.resnetWidth = 4;
  const int n = 8;
  const FirstStep r =
      firstStepAgainstCpuFp32(spec, randomItems(n * 3 * 256, 6), cyclicLabels(n, 10), n);
  expectWithinFp32Error(r, 21, 20);  // conv1, 16 block convolutions, 3 projections, fc
  EXPECT_GT(r.buffers, 0.0);
  EXPECT_LT(r.buffers, 1e-6);
}

// ---- The language model's layers ----

TEST(Fp64Layers, LayerNormAndGeluBackwardMatchFiniteDifferences) {
  Fp64Params params;
  Fp64LayerNorm norm(6, 1e-5, addRandom(params, 6, 30, 0.5, 1.5), addRandom(params, 6, 31));
  EXPECT_LT(finiteDifferenceError(norm, params, randomDoubles({2, 3, 6}, 32)), 1e-6);
  Fp64Gelu gelu;
  EXPECT_LT(finiteDifferenceError(gelu, params, randomDoubles({3, 7}, 33, -3.0, 3.0)), 1e-6);
}

// GELU's formula is gelu.h's tanh approximation (not erf): at x = 1, 0.841192 (erf: 0.841345).
TEST(Fp64Layers, GeluIsTheTanhApproximationAsTheFp32Layer) {
  Fp64Params params;
  Fp64Gelu gelu;
  DoubleTensor x;
  x.shape = Shape{1, 1};
  x.values = {1.0};
  EXPECT_NEAR(gelu.forward(x, params).values[0], 0.8411919906082768, 1e-15);
}

// Token ids [2, 5] of a 7-token vocabulary: the gradients of both tables (the ids have none).
TEST(Fp64Layers, EmbeddingBackwardMatchesFiniteDifferencesOfBothTables) {
  Fp64Params params;
  const int wte = addRandom(params, 7 * 4, 34), wpe = addRandom(params, 6 * 4, 35);
  Fp64TokenPositionEmbedding embedding(7, 4, wte, wpe);
  DoubleTensor ids;
  ids.shape = Shape{2, 5};
  ids.values = {0, 3, 3, 6, 1, 2, 3, 0, 5, 5};
  EXPECT_LT(finiteDifferenceError(embedding, params, ids, false), 1e-6);
  EXPECT_TRUE(embedding.backward(embedding.forward(ids, params), params).values.empty());
}

std::unique_ptr<Fp64CausalSelfAttention> attention(Fp64Params& params, int embd, int heads,
                                                   std::uint64_t seed) {
  auto qkv = std::make_unique<Fp64Linear>(0, embd, 3 * embd,
                                          addRandom(params, std::size_t(3 * embd * embd), seed),
                                          addRandom(params, std::size_t(3 * embd), seed + 1));
  auto proj = std::make_unique<Fp64Linear>(1, embd, embd,
                                           addRandom(params, std::size_t(embd * embd), seed + 2),
                                           addRandom(params, std::size_t(embd), seed + 3));
  return std::make_unique<Fp64CausalSelfAttention>(
      embd, heads, Fp64CausalSelfAttention::Sites{2, 3}, std::move(qkv), std::move(proj));
}

TEST(Fp64Layers, AttentionBackwardMatchesFiniteDifferencesWithFivePositionsAndTwoHeads) {
  Fp64Params params;
  const auto attn = attention(params, 6, 2, 40);
  EXPECT_LT(finiteDifferenceError(*attn, params, randomDoubles({2, 5, 6}, 41)), 1e-6);
}

// The probabilities are causal (each row sums to 1 over j <= i, 0 above the diagonal); dP is
// dO V^T in every entry, above the diagonal too, as the fp32 layer's probe records it.
TEST(Fp64Layers, AttentionShowsCausalProbabilitiesAndTheWholeDp) {
  Fp64Params params;
  const auto attn = attention(params, 4, 2, 42);
  Fp64Sites sites;
  attn->sites(sites);
  attn->forward(randomDoubles({1, 3, 4}, 43), params);
  const std::vector<double>& p = *sites.outputs[2];
  ASSERT_EQ(p.size(), 2u * 3 * 3);
  for (int row = 0; row < 6; ++row) {
    const int i = row % 3;
    double sum = 0.0;
    for (int j = 0; j < 3; ++j) {
      if (j > i) {
        EXPECT_EQ(p[std::size_t(row * 3 + j)], 0.0);
      }
      sum += p[std::size_t(row * 3 + j)];
    }
    EXPECT_NEAR(sum, 1.0, 1e-15);
  }
  attn->backward(randomDoubles({1, 3, 4}, 44), params);
  const std::vector<double>& dp = *sites.inputGradients[3];
  ASSERT_EQ(dp.size(), 2u * 3 * 3);
  EXPECT_NE(dp[1], 0.0);                                   // row 0, column 1: above the diagonal
  EXPECT_EQ(sites.inputGradients[2]->size(), 3u * 3 * 4);  // dQ, dK, dV as [B, T, 3C]
  EXPECT_EQ(sites.outputs[3]->size(), 3u * 4);             // O [B, T, C]
}

std::unique_ptr<Fp64GptBlock> gptBlock(Fp64Params& params, int embd, std::uint64_t seed) {
  Fp64GptBlock::Parts parts;
  const auto norm = [&](std::uint64_t s) {
    return std::make_unique<Fp64LayerNorm>(embd, 1e-5,
                                           addRandom(params, std::size_t(embd), s, 0.5, 1.5),
                                           addRandom(params, std::size_t(embd), s + 1));
  };
  parts.ln1 = norm(seed);
  parts.attention = attention(params, embd, 2, seed + 2);
  parts.ln2 = norm(seed + 6);
  parts.fc = std::make_unique<Fp64Linear>(4, embd, 4 * embd,
                                          addRandom(params, std::size_t(4 * embd * embd), seed + 8),
                                          addRandom(params, std::size_t(4 * embd), seed + 9));
  parts.proj = std::make_unique<Fp64Linear>(
      5, 4 * embd, embd, addRandom(params, std::size_t(4 * embd * embd), seed + 10),
      addRandom(params, std::size_t(embd), seed + 11));
  return std::make_unique<Fp64GptBlock>(std::move(parts));
}

TEST(Fp64Layers, TransformerBlockBackwardMatchesFiniteDifferences) {
  Fp64Params params;
  const auto block = gptBlock(params, 6, 50);
  EXPECT_LT(finiteDifferenceError(*block, params, randomDoubles({2, 5, 6}, 51)), 1e-6);
}

// Two blocks, tied and untied: every parameter's gradient (the tied head's share of wte's
// included) against finite differences of the logits.
TEST(Fp64Layers, LanguageModelBackwardMatchesFiniteDifferencesTiedAndUntied) {
  for (bool tied : {true, false}) {
    Fp64Params params;
    Fp64Gpt::Parts parts;
    const int vocab = 7, embd = 4;
    parts.embedding = std::make_unique<Fp64TokenPositionEmbedding>(
        vocab, embd, addRandom(params, vocab * embd, 60), addRandom(params, 5 * embd, 61));
    parts.blocks.push_back(gptBlock(params, embd, 62));
    parts.blocks.push_back(gptBlock(params, embd, 80));
    parts.lnF = std::make_unique<Fp64LayerNorm>(embd, 1e-5, addRandom(params, embd, 90, 0.5, 1.5),
                                                addRandom(params, embd, 91));
    if (!tied)
      parts.untiedHead =
          std::make_unique<Fp64Linear>(6, embd, vocab, addRandom(params, vocab * embd, 92), -1);
    Fp64Gpt gpt(std::move(parts), vocab, 6);
    DoubleTensor ids;
    ids.shape = Shape{2, 5};
    ids.values = {0, 3, 3, 6, 1, 2, 3, 0, 5, 5};
    EXPECT_LT(finiteDifferenceError(gpt, params, ids, false), 1e-6) << (tied ? "tied" : "untied");
  }
}

// Measured, tied: outputs 3.0e-08..1.7e-07, input gradients 6.4e-08..1.9e-07, weight gradients
// 1.2e-07; untied: input gradients 7.3e-08..2.0e-07, weight gradients 1.4e-07.
TEST(Fp64Training, TinyGptStepIsWithinFp32ErrorOfCpuFp32AtEverySite) {
  for (bool tied : {true, false}) {
    ModelSpec spec;
    spec.name = "gpt";
    spec.numClasses = 11;
    spec.gpt = {2, 2, 16, 8, tied};
    const int n = 4, t = 8;
    std::vector<float> ids(std::size_t(n * t));
    std::vector<std::int32_t> labels(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ids[i] = float((i * 7 + 3) % 11);
      labels[i] = std::int32_t((i * 5 + 1) % 11);
    }
    const FirstStep r = firstStepAgainstCpuFp32(spec, ids, labels, n);
    // per block: qkv, attention's proj, qk, pv, mlp fc and proj; then lm_head. Every one passes
    // a gradient back (the first block's to ln_1).
    expectWithinFp32Error(r, 13, 13);
  }
}

// A layer the fp64 reference has no counterpart of: y = x.
class PassThrough : public Layer {
 public:
  Shape outputShape(const Shape& in) const override { return in; }
  Tensor& forward(const Tensor& x, StepContext& /*ctx*/) override {
    y_ = x;
    return y_;
  }
  const Tensor& backward(const Tensor& dy, StepContext& /*ctx*/) override { return dy; }

 private:
  Tensor y_;
};

TEST(Fp64Training, ModelWithALayerItDoesNotComputeIsRefusedSayingWhatItComputes) {
  auto model = oneLayerLinear();
  model->name = "passed through";
  model->net->add<PassThrough>();
  try {
    Fp64Training reference(*model, OptimizerConfig{});
    FAIL() << "a model with an unknown layer accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the fp64 reference computes flatten, linear, ReLU, "
                                         "convolution, batch norm"),
              std::string::npos)
        << e.what();
    EXPECT_NE(
        std::string(e.what()).find("model 'passed through' has another kind of layer (layer 3)"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace paritylab::nn
