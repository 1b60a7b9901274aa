#pragma once
// Training throughput: times real training steps of one model under one precision policy, the way
// a study runs them (one TrainingSession per worker, single-threaded BLAS, parallelism across
// runs). `paritylab-cli bench` and bench/ report it; users size their studies with it.

#include <cstdint>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/nn/model.h"
#include "core/nn/trainer.h"

namespace paritylab::study {

struct ThroughputConfig {
  nn::ModelSpec model;  // channels/height/width/classes are taken from the dataset
  nn::OptimizerConfig optimizer;
  int batchSize = 128;
  int warmupSteps = 5;  // untimed steps first (caches, workspace growth, first-touch pages)
  int steps = 50;       // timed steps per worker
  int threads = 1;      // independent sessions trained at once, one per worker thread
  std::uint64_t seed = 0;
  int xrayEverySteps = 0;  // > 0: the X-ray measures every N-th step (records taken, not stored)
  // > 0: the early warnings (nn/step_signals.h) measured on every N-th step, as a study measures
  // them on the steps whose losses it keeps (every step up to 2,000 steps)
  int signalsEverySteps = 0;
};

struct ThroughputResult {
  int threads = 0, batchSize = 0, steps = 0;
  double wallSeconds = 0.0;      // timed part, from the common start to the last worker's end
  double imagesPerSecond = 0.0;  // all workers together: threads * steps * batch / wallSeconds
                                 // (a language model: windows per second)
  double tokensPerSecond = 0.0;  // a language model: imagesPerSecond x block size (0 for images)
  std::vector<double> workerImagesPerSecond;  // [threads], each worker on its own
  double stepMilliseconds = 0.0;              // median over workers of their mean step time
  std::int64_t skippedSteps = 0;              // loss-scaling overflows (still timed)
  bool diverged = false;                      // a loss became NaN/inf (timing continued)
};

// Trains `config.threads` sessions on batches cycled through a seeded permutation of `train`
// (images [n, C, H, W]), warm-up first, then `steps` timed steps each after a common start.
// Throws std::invalid_argument naming a bad field (batch < 1, steps < 1, threads < 1, empty data,
// batch larger than the data) or an unknown model/optimizer.
ThroughputResult measureTrainingThroughput(const ThroughputConfig& config,
                                           const backends::PrecisionPolicy& policy,
                                           const data::Dataset& train);
// The same on either kind of data: data.train's images, or for the language model (gpt) batches
// of data.text's windows drawn per (worker seed, step) as training draws them; its vocabulary and
// block size are the text's.
ThroughputResult measureTrainingThroughput(const ThroughputConfig& config,
                                           const backends::PrecisionPolicy& policy,
                                           const data::DataSplit& data);

// A policy's speed as a fraction of a reference policy's, both measured on this machine at the
// same time: one session of each (the same model, seed and batches) trained on one thread, after
// both warm up, in `rounds` rounds of config.steps steps each, the reference first in even rounds
// and the policy first in odd ones. A shared machine's busy spells (other tenants, frequency
// changes) slow both sessions of a round alike, so the ratio of a round is steadier than the
// quotient of two separate measurements, and the median over rounds steadier still.
struct RelativeThroughput {
  ThroughputResult policy, reference;  // each over all its timed steps (threads 1)
  std::vector<double> ratios;          // [rounds]: the policy's throughput / the reference's
  double medianRatio = 0.0;
};

// Throws std::invalid_argument as measureTrainingThroughput does, and for rounds < 1 or threads
// other than 1 (the two sessions take turns on one thread).
RelativeThroughput measureRelativeThroughput(const ThroughputConfig& config, int rounds,
                                             const backends::PrecisionPolicy& policy,
                                             const backends::PrecisionPolicy& reference,
                                             const data::DataSplit& data);

}  // namespace paritylab::study
