#pragma once
// How long a study would take on this machine, said before it starts: how many runs it trains
// (every cell of a sweep x backend x seed, the chaos floor's runs included) and their wall time:
// each run's training steps, its evaluation after every epoch and its serving comparison (the
// test set under every other policy of the study and the first items one at a time), from a few
// steps and evaluation batches of each policy and batch size timed here as a study runs them
// (single-threaded BLAS, one run per worker thread). A lockstep and a pretraining stage are not
// counted, nor writing the results.

#include <cstdint>
#include <functional>
#include <string>

#include "core/data/dataset.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {

struct StudyTimeEstimate {
  std::int64_t runs = 0;   // runs the study trains (a sequential study: at most)
  std::int64_t steps = 0;  // training steps of all of them
  // Wall time of those steps with `threads` runs at once, each run on one thread (the longest
  // runs placed first, each on the thread that frees first).
  double seconds = 0.0;
  int threads = 1;
  int settingsTimed = 0;  // distinct (backend policy, batch size) settings timed
  int stepsTimed = 0;     // timed steps per setting (after one untimed)
  bool atMost = false;    // a sequential study may stop at an earlier look
  bool complete = true;   // false: cancelled before every setting was timed (not an estimate)
};

// What the work of one backend entry costs, in seconds.
struct SettingSeconds {
  double step = 0.0;        // one training step at the entry's batch size
  double evalItem = 0.0;    // one test item (a text: validation window) in evaluation batches
  double singleItem = 0.0;  // one item evaluated alone (a batch of 1)
};
using SettingCost =
    std::function<SettingSeconds(const BackendEntry& entry, const nn::TrainConfig& config)>;

// The estimate from the costs of each entry: every entry x seed of `spec` trains
// nn::plannedSteps(trainConfigFor(spec, entry), data) steps and evaluates the test set after each
// of its nn::plannedEpochs; with spec.serve, each run of the spec's own entries (not the chaos
// floor's) is also evaluated once more under its own policy and once under the policy of every
// other entry (entries of one policy counted once, the other cells of its own backend's
// included), and its first kBatchInvarianceItems items one at a time. `threads` <= 0: the
// spec's, else one per core.
StudyTimeEstimate studyTimeFromCosts(const StudySpec& spec, const data::DataSplit& data,
                                     int threads, const SettingCost& cost);

// The estimate with costs measured here: `stepsTimed` training steps (after one untimed) of each
// distinct policy and batch size, and one evaluation batch and a few single items of each
// policy, on `data` as the study would use it. Throws
// std::invalid_argument when a run cannot train on the data (as the study would refuse it).
// `cancelled` (optional) is asked before each timing; once it returns true nothing more is timed
// and the result has `complete` false (its figures count the untimed settings as free).
StudyTimeEstimate estimateStudyTime(const StudySpec& spec, const data::DataSplit& data, int threads,
                                    int stepsTimed = 2,
                                    const std::function<bool()>& cancelled = {});

// "about 12 min", "about 40 s", "about 3.5 h".
std::string durationWords(double seconds);

// "40 runs (2 cells x 2 backends x 10 seeds) + 20 chaos floor runs; about 12 min with 2 runs at
// once (training, evaluation and serving; 2 steps timed per backend and batch size)".
std::string describeStudyTime(const StudySpec& spec, const StudyTimeEstimate& estimate);

}  // namespace paritylab::study
