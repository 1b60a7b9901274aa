#pragma once
// Shared helpers of the nn tests: a step context over a plain fp32 policy, deterministic random
// tensors, finite-difference gradient checks, and a small synthetic image dataset.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "core/data/dataset.h"
#include "core/nn/layer.h"
#include "core/nn/random.h"

namespace paritylab::nn::testing {

// Everything a layer needs, with all-fp32 products and storage (a default PrecisionPolicy).
struct Fixture {
  backends::PrecisionPolicy policy;
  GemmWorkspace workspace;
  LayerScratch scratch;
  ParamStore params;
  ModelBuilder builder{&params};
  StepContext ctx() {
    StepContext c;
    c.policy = &policy;
    c.workspace = &workspace;
    c.scratch = &scratch;
    c.params = &params;
    return c;
  }
};

inline void fillUniform(float* x, std::size_t n, std::uint64_t seed, double lo = -1.0,
                        double hi = 1.0) {
  RandomStream rng(seed);
  for (std::size_t i = 0; i < n; ++i) x[i] = float(rng.uniform(lo, hi));
}

inline Tensor randomTensor(const Shape& s, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  Tensor t(s);
  fillUniform(t.data(), t.size(), seed, lo, hi);
  return t;
}

inline double weightedSum(const Tensor& y, const Tensor& r) {
  double s = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) s += double(y[i]) * double(r[i]);
  return s;
}

// Central-difference check of one analytic gradient entry: |num - ana| <= atol + rtol*|ana|.
struct Tolerance {
  double rtol = 2e-2;
  double atol = 2e-3;
};

// Checks d(sum(layer(x) .* R))/dx and /dparams against central differences with step h on
// (up to `samples` evenly spread) entries. The layer's parameters must be registered in
// f.params (finalised and initialised).
inline void checkLayerGradients(Layer& layer, Fixture& f, Tensor x, const std::string& what,
                                float h = 1e-2f, Tolerance tol = {}, int samples = 40) {
  StepContext ctx = f.ctx();
  const Tensor& y0 = layer.forward(x, ctx);
  const Tensor r = randomTensor(y0.shape(), 777);
  const Tensor dx = layer.backward(r, ctx);  // copy
  const std::vector<float> grads = f.params.gradData();
  auto objective = [&]() {
    StepContext c = f.ctx();
    return weightedSum(layer.forward(x, c), r);
  };
  auto check = [&](float& value, double analytic, const std::string& name) {
    const float saved = value;
    value = saved + h;
    const double plus = objective();
    value = saved - h;
    const double minus = objective();
    value = saved;
    const double numeric = (plus - minus) / (2.0 * double(h));
    EXPECT_NEAR(analytic, numeric, tol.atol + tol.rtol * std::abs(numeric)) << what << ": " << name;
  };
  if (dx.size() == x.size()) {
    const std::size_t stride = std::max<std::size_t>(1, x.size() / std::size_t(samples));
    for (std::size_t i = 0; i < x.size(); i += stride)
      check(x[i], dx[i], "dx[" + std::to_string(i) + "]");
  }
  for (std::size_t id = 0; id < f.params.infos().size(); ++id) {
    const ParamInfo& p = f.params.infos()[id];
    if (p.kind != ParamKind::Weight) continue;
    const std::size_t stride = std::max<std::size_t>(1, p.size / std::size_t(samples));
    for (std::size_t i = 0; i < p.size; i += stride)
      check(f.params.master(int(id))[i], grads[p.offset + i],
            p.name + "[" + std::to_string(i) + "]");
  }
}

// A small, learnable image set: class k has a bright k-th horizontal band plus noise.
inline data::Dataset syntheticImages(int n, int channels, int size, int classes,
                                     std::uint64_t seed) {
  data::Dataset d;
  d.channels = channels;
  d.height = d.width = size;
  d.numClasses = classes;
  d.images.resize(std::size_t(n) * channels * size * size);
  d.labels.resize(std::size_t(n));
  RandomStream rng(seed);
  for (int i = 0; i < n; ++i) {
    const int label = int(rng.below(std::uint64_t(classes)));
    d.labels[std::size_t(i)] = label;
    float* img = d.images.data() + std::size_t(i) * d.imageSize();
    for (int c = 0; c < channels; ++c)
      for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x) {
          const bool band = (y * classes / size) == label;
          img[(c * size + y) * size + x] = float((band ? 1.0 : 0.0) + 0.5 * rng.normal());
        }
  }
  for (int k = 0; k < classes; ++k) d.classNames.push_back("class" + std::to_string(k));
  return d;
}

}  // namespace paritylab::nn::testing
