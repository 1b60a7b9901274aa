#pragma once
// What the study runner reports while it works. Plain structs and callbacks (no Qt): the ui
// turns them into queued signals. CONTRACT (owned by core/study; ui relies on these names).

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"
#include "core/study/store/run_state.h"

namespace paritylab::study {

struct RunKey {
  std::int64_t runId = 0;  // the results database's id of the run
  std::string backend;     // backend (preset or custom policy) name
  std::uint64_t seed = 0;
};

struct StepEvent {  // throttled: at most a few per second per run
  RunKey run;
  int epoch = 0;
  std::int64_t step = 0;           // global step since the run started
  double loss = 0.0;               // training loss of that batch
  double lr = 0.0;                 // learning rate of that step
  std::int64_t stepsPerEpoch = 0;  // steps in one epoch of this run (0 = unknown)
  int totalEpochs = 0;             // epochs this run trains (0 = unknown)
};

struct EpochEvent {
  RunKey run;
  int epoch = 0;  // 1-based
  int totalEpochs = 0;
  double trainLoss = 0.0, testLoss = 0.0, testAccuracy = 0.0;  // accuracy: fraction in [0, 1]
  double seconds = 0.0;
  int skippedSteps = 0;  // loss scaling: optimizer steps skipped on inf/NaN in this epoch
};

struct RunStateEvent {
  RunKey run;
  RunState state = RunState::Pending;
  int epoch = 0;          // diverged: the epoch it happened in
  std::string message{};  // failed: why
  double finalAccuracy = 0.0;
  double wallSeconds = 0.0;
  double finalTestLoss = 0.0;  // completed: the last evaluation's loss (a language model's
                               // validation loss, nats per token)
};

// Early warnings of one sampled step as the charts draw them (docs/early-warnings.md); NaN
// where not measured (no attention, a non-finite value).
struct SignalPoint {
  std::int64_t step = 0;  // 1-based, the steps of StepEvent
  int epoch = 0;          // 1-based
  double gradNorm = std::numeric_limits<double>::quiet_NaN();
  double updateRatio = std::numeric_limits<double>::quiet_NaN();  // the largest over the layers
  double attentionLogit = std::numeric_limits<double>::quiet_NaN();
  double outputLogitNorm = std::numeric_limits<double>::quiet_NaN();
};
SignalPoint signalPointOf(const SignalRecord& record);

// A run's early warnings of the steps just stored (with each epoch's steps), in step order.
struct SignalsEvent {
  RunKey run;
  std::vector<SignalPoint> points;
};

// Called from worker threads; implementations must be thread-safe and quick.
struct RunnerCallbacks {
  std::function<void(const StepEvent&)> onStep;
  std::function<void(const EpochEvent&)> onEpoch;
  std::function<void(const SignalsEvent&)> onSignals;
  std::function<void(const RunStateEvent&)> onRunState;
  // A lockstep comparison of the spec's "lockstep" was stored (its mode: "resync" or "free").
  std::function<void(const std::string& mode)> onLockstepStored;
  std::function<void()> onStudyFinished;
};

}  // namespace paritylab::study
