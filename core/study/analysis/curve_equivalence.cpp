#include "core/study/analysis/curve_equivalence.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace paritylab::study {
namespace {

// "1,200"
std::string grouped(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string percentOf(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%%", 100 * fraction);
  return text;
}

// Each run's values at the keys every run has (in key order); the keys kept in `common`.
template <typename Key>
std::vector<std::vector<double>> aligned(const std::vector<std::map<Key, double>>& runs,
                                         std::vector<Key>& common) {
  common.clear();
  if (runs.empty()) return {};
  for (const auto& [key, value] : runs.front()) {
    bool everywhere = true;
    for (const auto& r : runs) {
      const auto it = r.find(key);
      if (it == r.end() || !std::isfinite(it->second)) everywhere = false;
    }
    if (everywhere) common.push_back(key);
  }
  std::vector<std::vector<double>> curves;
  for (const auto& r : runs) {
    std::vector<double> c;
    for (const Key& k : common) c.push_back(r.at(k));
    curves.push_back(std::move(c));
  }
  return curves;
}

std::string bandWords(const CurveEquivalence& e, const stats::CurveBandResult& r,
                      const std::string& what, const std::string& unit,
                      const std::vector<std::int64_t>& at) {
  const std::string band = "a simultaneous " + percentOf(1 - e.alpha) + " band of " + e.reference +
                           "'s seeds (" + std::to_string(e.runsReference) + " and " +
                           std::to_string(e.runsBackend) + " runs, " +
                           std::to_string(r.permutations) + " permutations)";
  if (!r.canExit)
    return e.backend + "'s " + what + ": with so few seeds no curve can leave " + band +
           "; run more seeds to tell.";
  if (!r.firstExit)
    return e.backend + "'s " + what + " stays inside " + band + " at all " +
           grouped(std::int64_t(at.size())) + " " + unit + "s.";
  return e.backend + "'s " + what + " leaves " + band + " at " + unit + " " +
         grouped(at[*r.firstExit]) + " and is outside at " + percentOf(r.fractionOutside) +
         " of the " + grouped(std::int64_t(at.size())) + " " + unit + "s.";
}

}  // namespace

CurveEquivalence analyseCurveEquivalence(const ResultsStore& store, const std::string& reference,
                                         const std::string& backend, double alpha,
                                         std::optional<ComparedMetric> comparedMetric) {
  CurveEquivalence e;
  e.reference = reference;
  e.backend = backend;
  e.alpha = alpha;
  const std::vector<RunRecord> runs = store.loadRuns();
  const auto steps = store.loadAllSteps();
  const auto epochs = store.loadAllEpochs();
  std::vector<std::map<std::int64_t, double>> stepsA, stepsB;
  std::vector<std::map<int, double>> epochsA, epochsB;
  const ComparedMetric metric = comparedMetric.value_or(defaultComparedMetric(store));
  e.metric = metricWords(metric).name;
  for (const RunRecord& r : runs) {
    // Emulated or imported alike: the band needs curves of completed runs, not their source.
    if (r.status != RunState::Completed) continue;
    const bool isA = r.backend == reference, isB = r.backend == backend;
    if (!isA && !isB) continue;
    (r.source == "imported" ? e.imported : e.emulated) = true;
    std::map<std::int64_t, double> s;
    if (const auto it = steps.find(r.id); it != steps.end())
      for (const StepRecord& p : it->second) s[p.step] = p.trainLoss;
    std::map<int, double> ep;
    if (const auto it = epochs.find(r.id); it != epochs.end())
      for (const EpochRecord& p : it->second)
        ep[p.epoch] = metricValue(metric, p.testAccuracy, p.testLoss);
    (isA ? stepsA : stepsB).push_back(std::move(s));
    (isA ? epochsA : epochsB).push_back(std::move(ep));
  }
  e.runsReference = int(stepsA.size());
  e.runsBackend = int(stepsB.size());
  if (reference == backend) {
    e.notes.push_back("a backend compared with itself: choose two different backends");
  } else if (e.runsReference < 2 || e.runsBackend < 2) {
    e.notes.push_back("the band needs at least 2 completed runs of each backend (" + reference +
                      ": " + std::to_string(e.runsReference) + ", " + backend + ": " +
                      std::to_string(e.runsBackend) + ")");
  } else {
    std::vector<std::map<std::int64_t, double>> all = stepsA;
    all.insert(all.end(), stepsB.begin(), stepsB.end());
    const std::vector<std::vector<double>> curves = aligned(all, e.steps);
    if (e.steps.empty()) {
      e.notes.push_back("no sampled training step is stored for every run");
    } else {
      const std::vector<std::vector<double>> a(curves.begin(), curves.begin() + e.runsReference);
      const std::vector<std::vector<double>> b(curves.begin() + e.runsReference, curves.end());
      e.trainLoss = stats::simultaneousCurveBand(a, b, alpha);
    }
    std::vector<std::map<int, double>> allEpochs = epochsA;
    allEpochs.insert(allEpochs.end(), epochsB.begin(), epochsB.end());
    const std::vector<std::vector<double>> perEpoch = aligned(allEpochs, e.epochs);
    if (e.epochs.empty()) {
      e.notes.push_back("no epoch's " + e.metric + " is stored for every run");
    } else {
      const std::vector<std::vector<double>> a(perEpoch.begin(),
                                               perEpoch.begin() + e.runsReference);
      const std::vector<std::vector<double>> b(perEpoch.begin() + e.runsReference, perEpoch.end());
      e.testMetric = stats::simultaneousCurveBand(a, b, alpha);
    }
  }
  if (e.trainLoss) e.trainLossWords = bandWords(e, *e.trainLoss, "training loss", "step", e.steps);
  if (e.testMetric) {
    const std::vector<std::int64_t> at(e.epochs.begin(), e.epochs.end());
    e.testMetricWords = bandWords(e, *e.testMetric, e.metric, "epoch", at);
  }
  std::string words = e.trainLossWords;
  if (!e.testMetricWords.empty()) words += (words.empty() ? "" : " ") + e.testMetricWords;
  if (words.empty())
    words = "No curve band of " + backend + " against " + reference + ": " +
            (e.notes.empty() ? std::string("nothing to compare") : e.notes.front()) + ".";
  e.headline = words;
  return e;
}

}  // namespace paritylab::study
