#pragma once
// How long a study would take on this machine, said before it starts: how many runs it trains
// (every cell of a sweep x backend x seed, the chaos floor's runs included) and the wall time of
// their training steps, from a few steps of each backend and batch size timed here as a study
// trains them (single-threaded BLAS, one run per worker thread). Evaluations, the serving
// comparison, a lockstep and a pretraining stage are not counted: the estimate says so.

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

// Seconds one training step of `entry` takes with `config` (its batch size and model).
using StepSeconds = std::function<double(const BackendEntry& entry, const nn::TrainConfig& config)>;

// The estimate from a step time per entry: every entry x seed of `spec` trains
// nn::plannedSteps(trainConfigFor(spec, entry), data) steps. `threads` <= 0: one per core.
StudyTimeEstimate studyTimeFromStepSeconds(const StudySpec& spec, const data::DataSplit& data,
                                           int threads, const StepSeconds& stepSeconds);

// The estimate with step times measured here: `stepsTimed` steps (after one untimed) of each
// distinct policy and batch size, on `data` as the study would train on it. Throws
// std::invalid_argument when a run cannot train on the data (as the study would refuse it).
// `cancelled` (optional) is asked before each timing; once it returns true nothing more is timed
// and the result has `complete` false (its figures count the untimed settings as free).
StudyTimeEstimate estimateStudyTime(const StudySpec& spec, const data::DataSplit& data, int threads,
                                    int stepsTimed = 2,
                                    const std::function<bool()>& cancelled = {});

// "about 12 min", "about 40 s", "about 3.5 h".
std::string durationWords(double seconds);

// "40 runs (2 cells x 2 backends x 10 seeds) + 20 chaos floor runs; about 12 min of training
// with 2 runs at once (2 steps timed per backend and batch size; evaluations not counted)".
std::string describeStudyTime(const StudySpec& spec, const StudyTimeEstimate& estimate);

}  // namespace paritylab::study
