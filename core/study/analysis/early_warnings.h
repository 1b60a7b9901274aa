#pragma once
// Early warnings of a study's runs, from what each run stored per sampled step (the `steps` and
// `signals` tables): how large the gradients grew, how far one step moved each layer's weights,
// the largest attention logit, the output-logit norm, and loss spikes — a sampled step whose
// loss is above `spikeFactor` times the median of the sampled losses before it. What the signals
// mean and when they matter: docs/early-warnings.md.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {

// The sampled losses a spike is judged against: the median of up to this many sampled steps
// before it, and none is judged before this many are there.
inline constexpr int kSpikeWindow = 25;
inline constexpr int kSpikeMinHistory = 5;

struct LossSpike {
  std::int64_t step = 0;  // 1-based, a sampled step
  int epoch = 0;
  double loss = 0.0;
  double runningMedian = 0.0;  // of the sampled losses before it (kSpikeWindow at most)
};

// Sampled steps in step order; factor > 1.
std::vector<LossSpike> lossSpikes(const std::vector<StepRecord>& steps, double factor);

// A signal's largest value over a run's sampled steps, and where. NaN value: never measured.
struct SignalPeak {
  double value = std::numeric_limits<double>::quiet_NaN();
  std::int64_t step = 0;
  std::string layer;  // update ratios: the layer; "" otherwise
};

struct RunWarnings {
  std::int64_t runId = 0;
  std::string backend;
  std::uint64_t seed = 0;
  RunState status = RunState::Pending;
  std::size_t measuredSteps = 0;  // sampled steps with signals
  SignalPeak gradNorm, updateRatio, attentionLogit, outputLogitNorm;
  double medianGradNorm = std::numeric_limits<double>::quiet_NaN();
  // The median over steps and layers of the update ratios (a healthy step moves a weight
  // matrix by about 1e-3 of its norm under Adam at a usual learning rate).
  double medianUpdateRatio = std::numeric_limits<double>::quiet_NaN();
  std::vector<LossSpike> spikes;
};

struct EarlyWarnings {
  double spikeFactor = 3.0;
  std::vector<RunWarnings> runs;   // emulated runs with stored steps or signals, by run id
  std::vector<std::string> notes;  // what is missing (a database from before signals were kept)
};

// Throws StoreError when the database cannot be read; std::invalid_argument for a spikeFactor
// that is not above 1.
EarlyWarnings analyseEarlyWarnings(const ResultsStore& store, double spikeFactor);

}  // namespace paritylab::study
