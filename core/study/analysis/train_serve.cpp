#include "core/study/analysis/train_serve.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "core/nn/training_choices.h"
#include "core/study/analysis/divergence_runs.h"

namespace paritylab::study {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

std::string percent(double fraction) {
  return std::isnan(fraction) ? std::string("?") : stats::churnPercent(fraction);
}

std::string scientific(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

}  // namespace

TrainServeMatrix analyseTrainServe(const ResultsStore& store) {
  std::optional<StudySpec> spec;
  std::vector<std::string> specBackends;
  if (store.hasStudy()) {
    spec = store.loadStudySpec();
    for (const BackendEntry& e : spec->backends) specBackends.push_back(e.name);
  }
  const std::optional<ResultsStore::TestSet> testSet = store.loadTestSet();
  std::vector<std::string> ignored;
  return trainServeMatrix(
      store, spec ? &*spec : nullptr,
      collectBackendRuns(store, specBackends, testSet ? testSet->labels.size() : 0, ignored));
}

TrainServeMatrix trainServeMatrix(const ResultsStore& store, const StudySpec* spec,
                                  const std::vector<BackendRuns>& all) {
  TrainServeMatrix m;
  std::vector<std::string> specBackends;
  if (spec) {
    for (const BackendEntry& e : spec->backends)
      if (e.perturbation == Perturbation::None) specBackends.push_back(e.name);
    if (nn::isLanguageModel(spec->train.model)) m.predictions = "next-token predictions";
    if (!spec->serve)
      m.notes.push_back("the study was run with \"serve\": false: no run was served otherwise");
  }
  for (const BackendRuns& b : all)
    if (std::find(specBackends.begin(), specBackends.end(), b.name) != specBackends.end())
      m.backends.push_back(b.name);
  const auto serving = store.loadAllServing();
  const std::size_t n = m.backends.size();
  m.cells.resize(n * n);
  m.seedFloor.resize(n);
  bool any = false;
  for (std::size_t t = 0; t < n; ++t) {
    const BackendRuns& runs = *findBackendRuns(all, m.backends[t]);
    for (std::size_t s = 0; s < n; ++s) {
      ServeCell& c = m.cells[t * n + s];
      c.trainedBy = m.backends[t];
      c.servedBy = m.backends[s];
      double flips = 0.0, kl = 0.0, change = 0.0, accuracy = 0.0;
      for (const RunRecord& run : runs.completed) {
        const auto it = serving.find(run.id);
        if (it == serving.end()) continue;
        for (const ServingRecord& r : it->second) {
          // Served by its own backend only one at a time (the diagonal: batch invariance).
          if (r.servedBy != c.servedBy || r.predictions == 0) continue;
          ++c.runs;
          c.batchSize = r.batchSize;
          c.predictions = r.predictions;
          flips += double(r.flips) / double(r.predictions);
          kl += r.meanKl;
          change += r.meanAbsLogProbChange;
          accuracy += r.accuracy - run.finalAccuracy;
        }
      }
      any = any || c.runs > 0;
      const double k = c.runs > 0 ? double(c.runs) : kNan;
      c.flipRate = flips / k;
      c.meanKl = kl / k;
      c.meanAbsLogProbChange = change / k;
      c.accuracyChange = accuracy / k;
    }
    if (runs.withPredictions.size() >= 2) m.seedFloor[t] = stats::seedChurn(runs.withPredictions);
  }
  if (!any) {
    if (m.notes.empty())
      m.notes.push_back(
          "no run was served by another backend: the study was run by a ParityLab that did not "
          "serve its models, or none of its runs completed");
    return m;
  }
  for (std::size_t t = 0; t < n; ++t) {
    std::string line = "trained on " + m.backends[t] + ":";
    bool first = true;
    for (std::size_t s = 0; s < n; ++s) {
      const ServeCell& c = m.cell(t, s);
      if (s == t || c.runs == 0) continue;
      line += std::string(first ? " " : "; ") + "served on " + c.servedBy + ", " +
              percent(c.flipRate) + " of " + m.predictions + " flip (KL " + scientific(c.meanKl) +
              " nats)";
      first = false;
    }
    if (first) line += " served on no other backend";
    if (m.seedFloor[t])
      line += "; two " + m.backends[t] + " seeds differ on " + percent(m.seedFloor[t]->mean);
    const ServeCell& own = m.cell(t, t);
    if (own.runs > 0)
      line += "; one at a time instead of in batches, " + percent(own.flipRate) + " flip";
    m.headlines.push_back(line + ".");
  }
  return m;
}

}  // namespace paritylab::study
