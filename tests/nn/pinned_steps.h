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

// `model` trained `steps` steps (seeded `seed`) under `policy` on the first `batch` items of `d`
// twice, one session measuring every other step (0, 2, ...) with the X-ray; `seen(step,
// records)` gets each step's measurements. Measuring must change no bit of the weights or
// gradients.
template <typename Seen>
void expectXrayChangesNoBitOf(const ModelSpec& model, const backends::PrecisionPolicy& policy,
                              const data::Dataset& d, int batch, std::uint64_t seed, int steps,
                              Seen seen) {
  TrainingSession on(model, policy, seed), off(model, policy, seed);
  on.enableXray(2);
  auto optOn = makeOptimizer(OptimizerConfig{}), optOff = makeOptimizer(OptimizerConfig{});
  const auto ranges = on.model().params.weightRanges(false);
  for (std::uint64_t i = 0; i < std::uint64_t(steps); ++i) {
    on.step(d.images.data(), d.labels.data(), batch, i, *optOn, 1e-3, ranges, 0.0);
    off.step(d.images.data(), d.labels.data(), batch, i, *optOff, 1e-3, ranges, 0.0);
    seen(i, on.takeXray());
  }
  EXPECT_EQ(on.model().params.masterData(), off.model().params.masterData()) << policy.name;
  EXPECT_EQ(on.model().params.gradData(), off.model().params.gradData()) << policy.name;
}

// The same for three steps of 32 synthetic images under preset `backend`.
inline void expectXrayChangesNoBit(const ModelSpec& model, const std::string& backend) {
  const data::Dataset d = syntheticImages(32, model.channels, model.height, 10, 5);
  expectXrayChangesNoBitOf(model, backends::presetPolicy(backend), d, 32, 3, 3,
                           [&](std::uint64_t step, const std::vector<XrayRecord>& records) {
                             EXPECT_EQ(records.empty(), step % 2 == 1)
                                 << backend << " step " << step;
                           });
}

}  // namespace paritylab::nn::testing
