#pragma once
// Shared helpers of the nn tests that train the language model: random token windows, and the
// check that a step the X-ray measures trains the bits of one it does not.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/nn/optimizer.h"
#include "core/nn/training_session.h"

namespace paritylab::nn::testing {

// The language model of `shape` over a vocabulary of 11 tokens.
inline ModelSpec gptSpec(const GptShape& shape) {
  ModelSpec spec;
  spec.name = "gpt";
  spec.numClasses = 11;
  spec.gpt = shape;
  return spec;
}

// `windows` windows of t token ids below `vocab` ([windows, t]) and as many targets.
struct TokenWindows {
  int windows = 0;
  std::vector<float> tokens;
  std::vector<std::int32_t> targets;
};

inline TokenWindows randomWindows(int windows, int t, int vocab, unsigned seed) {
  std::mt19937 gen(seed);
  TokenWindows w;
  w.windows = windows;
  w.tokens.resize(std::size_t(windows) * std::size_t(t));
  w.targets.resize(w.tokens.size());
  for (std::size_t i = 0; i < w.tokens.size(); ++i) {
    w.tokens[i] = float(gen() % unsigned(vocab));
    w.targets[i] = std::int32_t(gen() % unsigned(vocab));
  }
  return w;
}

// Trains 3 steps on the same windows twice, with the X-ray measuring every step and without:
// the same losses and the same weights.
inline void expectMeasuredStepsTrainTheSameBits(const ModelSpec& spec,
                                                const backends::PrecisionPolicy& policy,
                                                const TokenWindows& w, const std::string& what) {
  TrainingSession measured(spec, policy, 3), plain(spec, policy, 3);
  measured.enableXray(1);
  auto optMeasured = makeOptimizer(OptimizerConfig{});
  auto optPlain = makeOptimizer(OptimizerConfig{});
  const auto ranges = plain.model().params.weightRanges(false);
  for (std::uint64_t step = 0; step < 3; ++step) {
    const StepOutcome a = measured.step(w.tokens.data(), w.targets.data(), w.windows, step,
                                        *optMeasured, 1e-2, ranges, 1.0);
    const StepOutcome b = plain.step(w.tokens.data(), w.targets.data(), w.windows, step, *optPlain,
                                     1e-2, ranges, 1.0);
    EXPECT_EQ(a.loss, b.loss) << what << " step " << step;
    EXPECT_FALSE(measured.takeXray().empty()) << what << " step " << step;
  }
  EXPECT_EQ(measured.model().params.masterData(), plain.model().params.masterData()) << what;
}

}  // namespace paritylab::nn::testing
