#include "core/study/files/curves_export.h"

#include <stdexcept>

#include "core/input/atomic_file.h"
#include "core/input/csv.h"

namespace paritylab::study {

std::size_t writeStepCurves(const ResultsStore& store, const std::string& csvPath) {
  std::size_t rows = 0;
  input::writeFileAtomically(csvPath, [&](std::ostream& out) {
    input::CsvWriter w(out);
    w.writeRow({"run_id", "backend", "seed", "step", "epoch", "metric", "value"});
    const auto steps = store.loadAllSteps();
    for (const RunRecord& run : store.loadRuns()) {
      const auto it = steps.find(run.id);
      if (it == steps.end()) continue;
      const std::string id = std::to_string(run.id), seed = std::to_string(run.seed);
      for (const StepRecord& s : it->second) {
        const std::string step = std::to_string(s.step), epoch = std::to_string(s.epoch);
        w.writeRow(
            {id, run.backend, seed, step, epoch, "train_loss", input::csvNumber(s.trainLoss)});
        w.writeRow({id, run.backend, seed, step, epoch, "lr", input::csvNumber(s.lr)});
        rows += 2;
      }
    }
  });
  return rows;
}

std::size_t writeEpochCurves(const ResultsStore& store, const std::string& csvPath) {
  std::size_t rows = 0;
  input::writeFileAtomically(csvPath, [&](std::ostream& out) {
    input::CsvWriter w(out);
    w.writeRow({"run_id", "backend", "seed", "status", "epoch", "metric", "value"});
    const auto epochs = store.loadAllEpochs();
    for (const RunRecord& run : store.loadRuns()) {
      const auto it = epochs.find(run.id);
      if (it == epochs.end()) continue;
      const std::string id = std::to_string(run.id), seed = std::to_string(run.seed);
      const std::string status(toString(run.status));
      for (const EpochRecord& e : it->second) {
        const std::string epoch = std::to_string(e.epoch);
        for (const auto& [metric, value] : {std::pair{"train_loss", e.trainLoss},
                                            {"test_loss", e.testLoss},
                                            {"test_accuracy", e.testAccuracy}}) {
          w.writeRow({id, run.backend, seed, status, epoch, metric, input::csvNumber(value)});
          ++rows;
        }
      }
    }
  });
  return rows;
}

}  // namespace paritylab::study
