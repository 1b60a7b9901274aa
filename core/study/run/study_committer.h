#pragma once
// The one place a study's results are committed: what runs record (RunRecorder),
// from a thread of this process or from an MPI worker through rank 0, goes into the results
// database and out as RunnerCallbacks events, and the runs' outcomes are counted.

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "core/study/run/run_events.h"
#include "core/study/run/run_recorder.h"
#include "core/study/run/run_scheduler.h"

namespace paritylab::study {

// What a study's runs ended as (RunnerSummary's outcome counts).
struct RunOutcomes {
  int completed = 0, diverged = 0, failed = 0, cancelled = 0;
};

class StudyCommitter final : public RunRecorder {
 public:
  // spec, store, callbacks and data must outlive the committer. Thread-safe. `data`: the study's
  // data, for the epochs a run counted in steps trains (null: the spec's epochs).
  StudyCommitter(const StudySpec& spec, ResultsStore& store, const RunnerCallbacks& callbacks,
                 const data::DataSplit* data = nullptr);

  // Every run about to be (re)done is pending from now on (a resumed run starts from scratch).
  void announcePending(const std::vector<RunJob>& jobs);
  // A claimed run starts training (here or on a worker): the Running event.
  void runStarted(const RunJob& job);
  // Runs never started because the study was cancelled: they stay pending in the store (another
  // process may run them) and are reported and counted as cancelled.
  void cancelledBeforeStart(const std::vector<RunJob>& jobs);

  void addSteps(std::int64_t runId, const std::vector<StepRecord>& steps) override;
  void addEpoch(std::int64_t runId, const EpochRecord& epoch) override;
  void addXraySample(std::int64_t runId, const nn::XraySample& sample) override;
  void addPredictions(std::int64_t runId, const nn::TestPredictions& predictions) override;
  void addSample(std::int64_t runId, const nn::TextSample& sample) override;
  void addSignals(std::int64_t runId, const std::vector<std::string>& layers,
                  const std::vector<SignalRecord>& steps) override;
  void addServing(std::int64_t runId, const std::vector<ServingRecord>& rows) override;
  void addWeightSnapshot(std::int64_t runId, int epoch,
                         const std::vector<stats::LayerWeights>& layers) override;
  void finishRun(const RunRecord& run) override;  // updates the run, counts it, reports it

  RunOutcomes outcomes() const;

 private:
  struct StartedRun {
    RunKey key;
    int totalEpochs = 0;
  };
  RunKey keyOf(const RunJob& job) const;
  StartedRun startedRun(std::int64_t runId) const;

  const StudySpec& spec_;
  ResultsStore& store_;
  const RunnerCallbacks& callbacks_;
  const data::DataSplit* data_;
  mutable std::mutex mutex_;
  std::map<std::int64_t, StartedRun> started_;
  RunOutcomes outcomes_;
};

}  // namespace paritylab::study
