#pragma once
// Three AdamW steps of a model under a preset, reduced to bits: each step's loss and a hash of
// every master weight and gradient after the last step. Pinned tests hold training to these bits
// per OpenBLAS kernel set (sgemm's summation order is the kernel set's).

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/nn/optimizer.h"
#include "core/nn/training_session.h"
#include "nn_test_support.h"

namespace paritylab::nn::testing {

// FNV-1a over the bits of the floats.
inline std::uint64_t hashFloats(const std::vector<float>& v,
                                std::uint64_t h = 0xcbf29ce484222325ull) {
  for (float f : v) {
    h ^= std::bit_cast<std::uint32_t>(f);
    h *= 0x100000001b3ull;
  }
  return h;
}

struct Trace {
  std::uint64_t lossBits[3];  // bits of each step's loss (a double)
  std::uint64_t stateHash;    // FNV-1a of the master weights, then the gradients, after step 3
};

// `model` on batches of 32 synthetic images [channels, side, side] of 10 classes, seed 3: three
// AdamW steps (lr 1e-3) under preset `backend`.
inline Trace trainThreeSteps(const ModelSpec& model, const std::string& backend) {
  const data::Dataset d = syntheticImages(32, model.channels, model.height, 10, 5);
  TrainingSession s(model, backends::presetPolicy(backend), 3);
  OptimizerConfig adamw;
  adamw.kind = "adamw";
  auto opt = makeOptimizer(adamw);
  const auto ranges = s.model().params.weightRanges(false);
  Trace t{};
  for (std::uint64_t i = 0; i < 3; ++i) {
    const StepOutcome o = s.step(d.images.data(), d.labels.data(), 32, i, *opt, 1e-3, ranges, 0.0);
    t.lossBits[i] = std::bit_cast<std::uint64_t>(o.loss);
  }
  t.stateHash = hashFloats(s.model().params.gradData(), hashFloats(s.model().params.masterData()));
  return t;
}

// `model` trained three steps under preset `backend` twice, one session measuring every other
// step with the X-ray: measuring must change no bit of the weights or gradients.
inline void expectXrayChangesNoBit(const ModelSpec& model, const std::string& backend) {
  const data::Dataset d = syntheticImages(32, model.channels, model.height, 10, 5);
  const backends::PrecisionPolicy policy = backends::presetPolicy(backend);
  TrainingSession on(model, policy, 3), off(model, policy, 3);
  on.enableXray(2);
  auto optOn = makeOptimizer(OptimizerConfig{}), optOff = makeOptimizer(OptimizerConfig{});
  const auto ranges = on.model().params.weightRanges(false);
  for (std::uint64_t i = 0; i < 3; ++i) {
    on.step(d.images.data(), d.labels.data(), 32, i, *optOn, 1e-3, ranges, 0.0);
    off.step(d.images.data(), d.labels.data(), 32, i, *optOff, 1e-3, ranges, 0.0);
    EXPECT_EQ(on.takeXray().empty(), i % 2 == 1) << backend << " step " << i;
  }
  EXPECT_EQ(on.model().params.masterData(), off.model().params.masterData()) << backend;
  EXPECT_EQ(on.model().params.gradData(), off.model().params.gradData()) << backend;
}

}  // namespace paritylab::nn::testing
