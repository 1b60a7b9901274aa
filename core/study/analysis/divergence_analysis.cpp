#include "core/study/analysis/divergence_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>

#include "core/nn/training_choices.h"
#include "core/stats/frequency_bands.h"
#include "core/study/analysis/chaos_floor.h"
#include "core/study/analysis/divergence_runs.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {
namespace {

std::string listOf(const std::vector<BackendRuns>& all) {
  std::string list;
  for (const BackendRuns& b : all) list += (list.empty() ? "" : ", ") + b.name;
  return list;
}

// Paired and unpaired tests on final accuracies.
void accuracyTests(const BackendRuns& a, const BackendRuns& b, const DivergenceOptions& options,
                   DivergenceReport& report) {
  std::vector<double> pairedA, pairedB;
  std::set<std::uint64_t> seeds;
  for (const RunRecord& r : a.completed) seeds.insert(r.seed);
  for (const RunRecord& r : b.completed) seeds.insert(r.seed);
  for (std::uint64_t seed : seeds) {
    const auto atSeed = [&](const BackendRuns& x) -> const RunRecord* {
      for (const RunRecord& r : x.completed)
        if (r.seed == seed) return &r;
      return nullptr;
    };
    const RunRecord* ra = atSeed(a);
    const RunRecord* rb = atSeed(b);
    if (!ra || !rb) {
      report.notes.push_back("seed " + std::to_string(seed) + " has no completed " +
                             (ra ? b.name : a.name) + " run: not paired");
      continue;
    }
    const RunRecord* unknown =
        std::isfinite(ra->finalAccuracy) ? (std::isfinite(rb->finalAccuracy) ? nullptr : rb) : ra;
    if (unknown) {
      report.notes.push_back("seed " + std::to_string(seed) + ": " + unknown->backend + " run " +
                             std::to_string(unknown->id) + " has no final accuracy: not paired");
      continue;
    }
    report.pairedSeeds.push_back(seed);
    pairedA.push_back(ra->finalAccuracy);
    pairedB.push_back(rb->finalAccuracy);
  }
  if (pairedA.size() >= 2) {
    const stats::PairedTTestResult t =
        stats::pairedTTest(pairedA, pairedB, options.tail, options.alpha);
    if (t.defined) {
      report.pairedT = t;
    } else {
      report.notes.emplace_back(
          "paired t-test undefined: every seed-matched pair differs by the same "
          "amount");
    }
  } else {
    report.notes.push_back("paired tests need at least 2 seeds with completed runs of both " +
                           a.name + " and " + b.name + " (" + std::to_string(pairedA.size()) +
                           " here)");
  }
  if (!pairedA.empty()) {
    try {
      report.wilcoxon = stats::wilcoxonSignedRank(pairedA, pairedB, options.tail);
    } catch (const std::invalid_argument&) {
      report.notes.emplace_back(
          "Wilcoxon signed-rank undefined: every seed-matched pair has equal "
          "final accuracies");
    }
  }
  if (a.allFinalAccuracies.size() >= 2 && b.allFinalAccuracies.size() >= 2) {
    report.welch = stats::tTest(a.allFinalAccuracies, b.allFinalAccuracies, stats::TTestKind::Welch,
                                options.tail, options.alpha);
  } else {
    report.notes.emplace_back("Welch's t-test needs at least 2 completed runs of each backend");
  }
}

// "space e t o a h n s r (9 symbols, 34.2% of the positions)": a band's symbols, the most
// frequent first, at most kShownSymbols of them named.
std::string bandMembers(const stats::FrequencyBands& bands, std::size_t band,
                        const std::vector<std::string>& symbolNames, std::size_t positions) {
  constexpr std::size_t kShownSymbols = 12;
  const std::vector<int>& symbols = bands.symbols[band];
  std::string text;
  for (std::size_t i = 0; i < symbols.size() && i < kShownSymbols; ++i) {
    const auto s = std::size_t(symbols[i]);
    text += (i ? " " : "") + (s < symbolNames.size() ? symbolNames[s] : std::to_string(s));
  }
  if (symbols.size() > kShownSymbols) text += " ...";
  char share[64];
  std::snprintf(share, sizeof share, "%.1f%% of the positions",
                100.0 * double(bands.positions[band]) / double(positions));
  return text + " (" + std::to_string(symbols.size()) +
         (symbols.size() == 1 ? " symbol, " : " symbols, ") + share + ")";
}

// Per-class accuracy of A and B; for a language model, per token-frequency band.
void classTable(const BackendRuns& a, const BackendRuns& b, const ResultsStore::TestSet& testSet,
                const DivergenceOptions& options, DivergenceReport& report) {
  const std::size_t classes = testSet.classNames.size();
  std::optional<stats::FrequencyBands> bands;
  if (report.grouping == ClassGrouping::TokenFrequencyBands)
    bands = stats::frequencyBands(testSet.labels, classes);
  const auto perRun = [&](const BackendRuns& x) {
    std::vector<std::vector<double>> out;
    for (const stats::SeededPredictions& p : x.withPredictions) {
      out.push_back(bands ? stats::perBandAccuracy(testSet.labels, p.predicted, *bands)
                          : stats::perClassAccuracy(testSet.labels, p.predicted, classes));
    }
    return out;
  };
  const std::vector<std::vector<double>> runsA = perRun(a), runsB = perRun(b);
  std::vector<stats::ClassDifference> differences;
  try {
    differences = stats::compareClasses(runsA, runsB, options.alpha);
  } catch (const std::invalid_argument& e) {
    report.notes.push_back(
        std::string(bands ? "no per-band comparison: " : "no per-class comparison: ") + e.what());
    return;
  }
  for (const stats::ClassDifference& d : differences) {
    ClassRow row;
    row.classIndex = d.class_index;
    if (bands) {
      row.className = bands->names[d.class_index] + " tokens";
      row.members = bandMembers(*bands, d.class_index, testSet.classNames, testSet.labels.size());
      row.examples = bands->positions[d.class_index];
    } else {
      row.examples = std::size_t(
          std::count(testSet.labels.begin(), testSet.labels.end(), std::int32_t(d.class_index)));
      row.className = d.class_index < classes ? testSet.classNames[d.class_index]
                                              : std::to_string(d.class_index);
    }
    for (const auto& r : runsA) row.meanA += r[d.class_index] / double(runsA.size());
    for (const auto& r : runsB) row.meanB += r[d.class_index] / double(runsB.size());
    row.difference = d;
    report.classes.push_back(row);
  }
}

}  // namespace

DivergenceReport analyseDivergence(const ResultsStore& store, const DivergenceOptions& options) {
  DivergenceReport report;
  report.a = options.a;
  report.b = options.b;
  std::vector<std::string> specBackends;
  std::vector<BackendEntry> entries;
  std::optional<StudySpec> spec;
  if (store.hasStudy()) {
    spec = store.loadStudySpec();
    report.weightsKept = spec->keepWeights;
    if (nn::isLanguageModel(spec->train.model)) {
      report.grouping = ClassGrouping::TokenFrequencyBands;
      report.predictions = "next-token predictions";
      report.examples = "positions";
    }
    entries = spec->backends;
    for (const BackendEntry& e : spec->backends) specBackends.push_back(e.name);
  } else {
    report.weightsKept = "none";
    report.notes.push_back(store.path() + " holds no study: its runs only");
  }

  const std::optional<ResultsStore::TestSet> testSet = store.loadTestSet();
  const std::size_t examples = testSet ? testSet->labels.size() : 0;
  const std::vector<BackendRuns> all =
      collectBackendRuns(store, specBackends, examples, report.notes);
  const BackendRuns* a = findBackendRuns(all, options.a);
  const BackendRuns* b = findBackendRuns(all, options.b);
  for (const auto& [name, found] : {std::pair{options.a, a}, std::pair{options.b, b}}) {
    if (!found) {
      throw std::invalid_argument("backend '" + name + "' is not in the study " + store.path() +
                                  " (its backends: " + listOf(all) + ")");
    }
  }

  if (!testSet) {
    report.notes.emplace_back(
        "the database holds no per-example predictions (a study recorded "
        "before ParityLab stored them, or imported runs): no churn, McNemar or "
        "per-class table");
  } else {
    report.classNames = testSet->classNames;
  }
  stats::BootstrapOptions boot = options.bootstrap;
  boot.alpha = options.alpha;  // every CI at 1 - alpha

  for (const BackendRuns& row : all) {
    report.completedRuns += row.allFinalAccuracies.size();
    if (!row.withPredictions.empty()) report.backends.push_back(row.name);
  }
  for (const std::string& row : report.backends) {
    for (const std::string& column : report.backends) {
      const BackendRuns& r = *findBackendRuns(all, row);
      const BackendRuns& c = *findBackendRuns(all, column);
      ChurnCell cell{row, column, {}};
      cell.churn = row == column
                       ? stats::seedChurn(r.withPredictions, boot)
                       : stats::precisionChurn(r.withPredictions, c.withPredictions, boot);
      report.churnMatrix.push_back(std::move(cell));
    }
  }

  if (!a->withPredictions.empty() && !b->withPredictions.empty()) {
    report.churn = stats::compareChurn(a->name, a->withPredictions, b->name, b->withPredictions,
                                       boot, report.predictions);
    report.mcnemar = stats::mcnemarSeedPairs(testSet->labels, a->withPredictions,
                                             b->withPredictions, options.alpha);
    classTable(*a, *b, *testSet, options, report);
  } else if (testSet) {
    for (const BackendRuns* x : {a, b}) {
      if (x->withPredictions.empty()) {
        report.notes.push_back(x->name +
                               " has no completed run with stored predictions: no churn, "
                               "McNemar or per-class table");
      }
    }
  }
  accuracyTests(*a, *b, options, report);
  report.layers = weightDivergence(store, *a, *b, report.weightsKept, report.notes);
  if (report.grouping == ClassGrouping::TokenFrequencyBands)
    report.samples = compareSamples(store, options.b);
  report.chaos =
      chaosFloor(store, all, entries, testSet ? testSet->labels : std::vector<std::int32_t>{},
                 options, report);
  if (!report.chaos)
    report.notes.emplace_back(
        "the study has no chaos floor (\"chaos_floor\": false, or it predates it): how much of "
        "the precision's effect any rounding-level perturbation would have had is not measured");
  report.lockstep = store.loadLockstep();
  TrainServeMatrix serving = trainServeMatrix(store, spec ? &*spec : nullptr, all);
  if (!serving.headlines.empty())
    report.serving = std::move(serving);
  else
    for (std::string& note : serving.notes) report.notes.push_back(std::move(note));
  return report;
}

}  // namespace paritylab::study
