#pragma once
// The ui-side picture of a study: every run with its epoch metrics, (throttled) step losses and
// the early warnings of its stored steps.
// Fed by StudySession events, by a results database or by an imported CSV; read by the models,
// the charts and the statistics panel. Changes are batched: views redraw on `updated()`, which
// fires at most every `batchIntervalMs` however many events arrive (never once per event).

#include <QObject>
#include <QStringList>
#include <QTimer>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/study/analysis/compared_metric.h"
#include "core/study/run/run_events.h"

namespace paritylab::ui {

struct EpochPoint {
  int epoch = 0;                                               // 1-based
  double trainLoss = 0.0, testLoss = 0.0, testAccuracy = 0.0;  // accuracy: fraction in [0, 1]
  int skippedSteps = 0;  // loss scaling: optimizer steps skipped on inf/NaN
};

struct StepPoint {
  std::int64_t step = 0;  // global step since the run started, 1-based
  double loss = 0.0;      // that batch's training loss
  double lr = std::numeric_limits<double>::quiet_NaN();  // its learning rate (NaN unknown)
  int epoch = 0;                                         // 1-based (0 unknown)
};

// A run as the window shows it: the database row (study::RunRecord) with its curves and what it is
// doing now.
struct ShownRun {
  std::int64_t runId = 0;  // < 0: planned, not in a database yet (adopts the runner's id)
  QString backend;
  std::uint64_t seed = 0;
  study::RunState state = study::RunState::Pending;
  int epoch = 0;                   // last finished epoch (diverged: the epoch it happened in)
  int totalEpochs = 0;             // 0 when unknown
  double currentLoss = 0.0;        // latest step loss (NaN when none yet)
  int currentEpoch = 0;            // the epoch in progress (0 when not training)
  std::int64_t currentStep = 0;    // latest global step reported
  std::int64_t stepsPerEpoch = 0;  // 0 when unknown
  double finalAccuracy = 0.0;      // meaningful when state == Completed
  // The last evaluation's loss (nats per example or token); NaN when unknown.
  double finalTestLoss = std::numeric_limits<double>::quiet_NaN();
  double wallSeconds = 0.0;
  QString message;        // failed: why
  QString runName;        // imported: the run's name in the source (e.g. "prod_42")
  bool seedGiven = true;  // imported: false when the source gives no seed (seed is then 0..n-1)
  // Running in another live process (read from the database): its owner "host:pid"; "" when not.
  QString runningElsewhere;
  // "running" in the database, but its process is gone: read as Cancelled, labelled interrupted.
  bool ownerGone = false;
  std::vector<EpochPoint> epochs;
  std::vector<StepPoint> steps;
  std::vector<study::SignalPoint> warnings;  // early warnings of the stored sampled steps

  bool finished() const {
    return state == study::RunState::Completed || state == study::RunState::Diverged ||
           state == study::RunState::Failed || state == study::RunState::Cancelled;
  }
  QString label() const;  // "cuda seed 3" / "tpu-bf16 #17"
  // Fraction of the run done in [0, 1]: by step while it trains (steps per epoch known), else by
  // finished epochs; 1 when completed.
  double progress() const;
};

class RunData : public QObject {
  Q_OBJECT

 public:
  explicit RunData(QObject* parent = nullptr);

  const std::vector<ShownRun>& runs() const { return runs_; }
  int rowOf(std::int64_t runId) const;  // -1 when unknown
  QStringList backends() const;         // in order of first appearance
  // The final values of `metric` of the completed runs of `backend` that have one, in run order.
  std::vector<double> finalValues(const QString& backend, study::ComparedMetric metric) const;
  int completedCount() const;
  // The runs as the results database's records (id, backend, seed, state, final values): what
  // core's analyses of a study read.
  std::vector<study::RunRecord> records() const;
  QString title() const { return title_; }

  // Replaces everything (a database was opened or a CSV imported); emits reset() now.
  void setRuns(std::vector<ShownRun> runs, const QString& title);
  void clear(const QString& title = {});
  // Adds a run known before it starts (pending), or updates it when already known.
  void upsertRun(const ShownRun& run);

  void applyStep(const study::StepEvent& event);
  void applyEpoch(const study::EpochEvent& event);
  void applyState(const study::RunStateEvent& event);
  void applySignals(const study::SignalsEvent& event);

  // Flushes pending changes at once (tests, exports).
  void flush();
  void setBatchInterval(int ms) { timer_.setInterval(ms); }

 signals:
  void reset();                            // the set of runs was replaced
  void rowsAppended(int first, int last);  // batched
  void updated();                          // batched: metrics/states changed
  void runFinished();                      // batched: at least one run finished since last flush

 private:
  ShownRun& ensureRun(const study::RunKey& key);
  void scheduleFlush();

  std::vector<ShownRun> runs_;
  QString title_;
  QTimer timer_;
  int firstNewRow_ = -1;
  bool dirty_ = false;
  bool finishedDirty_ = false;
};

}  // namespace paritylab::ui
