#include "core/study/analysis/divergence_runs.h"

#include <algorithm>
#include <cmath>

namespace paritylab::study {

const BackendRuns* findBackendRuns(const std::vector<BackendRuns>& all, const std::string& name) {
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const BackendRuns& b) { return b.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::vector<BackendRuns> collectBackendRuns(const ResultsStore& store,
                                            const std::vector<std::string>& specBackends,
                                            std::size_t testExamples,
                                            std::vector<std::string>& notes) {
  const std::vector<RunRecord> runs = store.loadRuns();
  const std::map<std::int64_t, nn::TestPredictions> predictions = store.loadPredictions();
  std::vector<BackendRuns> out;
  for (const std::string& name : specBackends) out.push_back({name, {}, {}, {}});
  for (const RunRecord& r : runs)
    if (std::none_of(out.begin(), out.end(),
                     [&](const BackendRuns& b) { return b.name == r.backend; }))
      out.push_back({r.backend, {}, {}, {}});

  for (BackendRuns& backend : out) {
    std::size_t imported = 0, withoutPredictions = 0;
    for (const RunRecord& r : runs) {
      if (r.backend != backend.name) continue;
      if (r.status == RunState::Completed && !std::isnan(r.finalAccuracy))
        backend.allFinalAccuracies.push_back(r.finalAccuracy);
      // An imported run takes part when predictions were imported with it (prediction_files.h);
      // without them only its final accuracy counts.
      const auto p = predictions.find(r.id);
      const bool predicted =
          p != predictions.end() && p->second.predicted.size() == testExamples && testExamples > 0;
      if (r.source == "imported" && !(predicted && r.status == RunState::Completed)) {
        ++imported;
        continue;
      }
      const std::string run = backend.name + " seed " + std::to_string(r.seed);
      if (r.status == RunState::Diverged) {
        notes.push_back(
            run + " diverged" +
            (r.divergedEpoch > 0 ? " in epoch " + std::to_string(r.divergedEpoch) : std::string()) +
            ": excluded");
        continue;
      }
      if (r.status == RunState::Failed) {
        notes.push_back(run + " failed: excluded");
        continue;
      }
      if (r.status != RunState::Completed) continue;  // pending, running, cancelled: not yet
      backend.completed.push_back(r);
      if (!predicted) {
        ++withoutPredictions;
        continue;
      }
      backend.withPredictions.push_back({r.seed, p->second.predicted});
    }
    const auto bySeed = [](const auto& x, const auto& y) { return x.seed < y.seed; };
    std::sort(backend.completed.begin(), backend.completed.end(), bySeed);
    std::sort(backend.withPredictions.begin(), backend.withPredictions.end(), bySeed);
    if (imported > 0)
      notes.push_back(backend.name + ": " + std::to_string(imported) +
                      " imported run(s) carry no per-example predictions (their final accuracies "
                      "count in the Welch test only; import --predictions attaches them)");
    if (withoutPredictions > 0)
      notes.push_back(backend.name + ": " + std::to_string(withoutPredictions) +
                      " completed run(s) have no stored predictions (trained before ParityLab "
                      "stored them)");
  }
  return out;
}

}  // namespace paritylab::study
