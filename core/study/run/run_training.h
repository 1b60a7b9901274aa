#pragma once
// Trains one claimed run of a study and records what it measures through a RunRecorder: the same
// code on every transport, so a run trains bit-identically wherever it runs.

#include <atomic>
#include <functional>
#include <string>

#include "core/nn/trainer.h"
#include "core/study/run/run_events.h"
#include "core/study/run/run_recorder.h"
#include "core/study/run/run_scheduler.h"

namespace paritylab::study {

using TrainFunction =
    std::function<nn::TrainResult(const nn::TrainConfig&, const backends::PrecisionPolicy&,
                                  const data::DataSplit&, const nn::TrainCallbacks&)>;

// Step-level training loss and learning rate kept per run in the results database: every k-th
// step (steps k, 2k, 3k, ...), k = ceil(plannedSteps / kMaxStoredSteps), so at most 2,000 points
// whatever the run's length; plannedSteps = epochs x ceil(train examples / batch size).
constexpr std::int64_t kMaxStoredSteps = 2000;
std::int64_t stepSamplingInterval(std::int64_t plannedSteps);

// What every run of a study in this process shares. All references must outlive the runs.
struct RunContext {
  const StudySpec& spec;
  const data::DataSplit& data;
  const TrainFunction& train;
  const std::atomic<bool>& cancel;  // polled once per training step
  std::string backboneCheckpoint;   // the pretrained backbone ("" without a pretrain stage)
  std::function<void(const StepEvent&)> onStep;  // throttled live steps; may be empty
  double stepInterval = 0.25;  // minimum seconds between two step events of one run
};

// Trains `job` and records it: sampled steps with each epoch (and when the run stops early), each
// epoch, X-ray samples, then the final record (finishRun). A run that throws is recorded as
// failed with the exception's message; a StoreError from the recorder (the results cannot be
// recorded) is the study's failure, not the run's, and propagates.
void trainRun(const RunContext& context, const RunJob& job, RunRecorder& recorder);

// Trains the spec's pretrain stage once into DB.backbone.ckpt beside the database (kept from an
// earlier, resumed run) and returns its path; "" when cancelled. Throws std::runtime_error when
// the stage diverges.
std::string pretrainBackbone(const StudySpec& spec, const std::string& databasePath,
                             const TrainFunction& train, const std::atomic<bool>& cancel);

}  // namespace paritylab::study
