#pragma once
// What a run records while it trains, as one interface. The thread transport hands
// its runs the StudyCommitter, which writes the results database directly; the MPI transport hands
// a worker's runs a WireRecorder (run_record_wire.h) that sends every record to rank 0, where the
// same StudyCommitter commits it. Adding a record kind: a method here, its body in StudyCommitter,
// and its tag and serializer in run_record_wire.cpp.

#include <cstdint>
#include <vector>

#include "core/nn/gemm_xray.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

class RunRecorder {
 public:
  virtual ~RunRecorder() = default;
  // Sampled training steps (StepRecord: 1-based steps) of one epoch, or of an epoch cut short.
  virtual void addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) = 0;
  virtual void addEpoch(std::int64_t runId, const EpochRecord& epoch) = 0;
  virtual void addXraySample(std::int64_t runId, const nn::XraySample& sample) = 0;
  // For the divergence analysis: a finished run's test predictions, and one epoch's weights
  // (1-based epoch) as the study's keep_weights asks.
  virtual void addPredictions(std::int64_t runId, const nn::TestPredictions& predictions) = 0;
  virtual void addWeightSnapshot(std::int64_t runId, int epoch,
                                 const std::vector<stats::LayerWeights>& layers) = 0;
  // A language-model run that completed: the text its model writes from the study's prompt.
  virtual void addSample(std::int64_t runId, const nn::TextSample& sample) = 0;
  // Early warnings of sampled steps (1-based, as addSteps'), written with each epoch's steps;
  // `layers` names every record's update ratios.
  virtual void addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                          const std::vector<SignalRecord>& steps) = 0;
  // A completed run's model served by the study's backends (nn/serving_comparison.h).
  virtual void addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) = 0;
  // The run's final record (status, final losses and accuracy, wall time, message); its last one.
  virtual void finishRun(const RunRecord& run) = 0;
};

}  // namespace paritylab::study
