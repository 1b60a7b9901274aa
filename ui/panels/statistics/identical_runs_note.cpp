#include "ui/panels/statistics/identical_runs_note.h"

#include <cmath>

#include "core/study/analysis/identical_runs.h"
#include "ui/session/run_data.h"

namespace paritylab::ui {

QStringList identicalRunsNotes(const RunData& data, const QStringList& backends) {
  std::vector<study::RunCurve> curves;
  for (const ShownRun& run : data.runs()) {
    if (!backends.contains(run.backend)) continue;
    study::RunCurve curve;
    curve.backend = run.backend.toStdString();
    curve.name = run.runName.isEmpty() ? run.label().toStdString() : run.runName.toStdString();
    for (const EpochPoint& e : run.epochs)
      curve.epochs.push_back({e.epoch, e.trainLoss, e.testLoss, e.testAccuracy, NAN});
    curve.finalAccuracy = run.state == study::RunState::Completed ? run.finalAccuracy : NAN;
    curves.push_back(std::move(curve));
  }
  QStringList notes;
  for (const std::string& line :
       study::describeIdenticalRuns(study::findIdenticalRuns(curves), curves))
    notes << QString::fromStdString(line);
  return notes;
}

}  // namespace paritylab::ui
