#include "core/study/analysis/sequential_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace paritylab::study {
namespace {

std::string pText(double p) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, p < 0.0001 ? "%.1e" : "%.2g", p);
  return buffer;
}

// The completed runs' values of `backend` at the first `seeds` seeds; nullopt while one of those
// runs has not ended.
std::optional<std::vector<double>> valuesAt(const StudySpec& spec,
                                            const std::vector<RunRecord>& runs,
                                            const std::string& backend, std::size_t seeds,
                                            ComparedMetric metric) {
  std::vector<double> values;
  for (std::size_t i = 0; i < seeds && i < spec.seeds.size(); ++i) {
    const auto run = std::find_if(runs.begin(), runs.end(), [&](const RunRecord& r) {
      return r.backend == backend && r.seed == spec.seeds[i];
    });
    if (run == runs.end() || run->status == RunState::Pending || run->status == RunState::Running ||
        run->status == RunState::Cancelled)
      return std::nullopt;
    const double v = finalMetricOf(*run, metric);
    if (run->status == RunState::Completed && std::isfinite(v)) values.push_back(v);
  }
  return values;
}

std::string spendingWords(stats::AlphaSpending s) {
  return s == stats::AlphaSpending::Pocock ? "Lan-DeMets Pocock-like"
                                           : "Lan-DeMets O'Brien-Fleming-like";
}

void sayWords(SequentialAnalysis& s) {
  const stats::MetricWords w = metricWords(s.metric);
  const stats::SequentialDesign& d = s.plan.design;
  s.words.push_back(
      "Sequential design: " + s.a + " against " + s.b + " on " + w.name + ", a look after " +
      std::to_string(s.plan.looks.front()) +
      (s.plan.looks.size() > 1 ? " seeds and every " + std::to_string(d.lookEvery) + " more"
                               : " seeds") +
      " up to " + std::to_string(d.maxSeeds) + " (" + std::to_string(s.plan.looks.size()) +
      " looks), equivalence within +-" + w.difference(d.margin) + ", alpha " + pText(d.alpha) +
      " for each claim over " + "the looks (" + spendingWords(d.spending) +
      " spending); each look's p-values are read against its own boundary.");
  if (s.looks.empty()) {
    s.words.push_back("No look yet: the first needs " + std::to_string(s.plan.looks.front()) +
                      " finished runs of each.");
    return;
  }
  const stats::SequentialLook& l = s.looks.back();
  const std::string at = "look " + std::to_string(l.look + 1) + " of " +
                         std::to_string(s.plan.looks.size()) + " (" + std::to_string(l.seeds) +
                         " seeds each)";
  const std::string tostSaid =
      "TOST p = " + pText(l.tost.p_value) + " against the boundary " + pText(l.equivalenceP);
  const std::string diffSaid =
      "Welch p = " + pText(l.pDifference) + " against the boundary " + pText(l.differenceP);
  // Why a look could not test: no run-to-run variation, or too few completed runs.
  std::string untested;
  if (!l.tost.defined) {
    const double diff = l.tost.mean_diff;
    untested = "every run of each gave the same " + w.name +
               (diff == 0.0 ? ", the same for both"
                            : ", " + s.a + " " + w.difference(std::abs(diff)) +
                                  (diff < 0 ? " lower" : " higher") + " than " + s.b) +
               ", so there is no run-to-run variation to test against";
  } else if (std::isnan(l.tost.p_value)) {
    untested = "fewer than 2 runs of each completed (the others diverged)";
  }
  if (!untested.empty() && l.decision == stats::SequentialDecision::Inconclusive) {
    s.words.push_back("Ended at the last look, " + at + ", with nothing shown: " + untested + ".");
    return;
  }
  if (!untested.empty() && l.decision == stats::SequentialDecision::Continue) {
    s.words.push_back("After " + at + ": nothing tested yet, " + untested +
                      "; the next look at " + std::to_string(s.plan.looks[l.look + 1]) +
                      " seeds.");
    return;
  }
  switch (l.decision) {
    case stats::SequentialDecision::Equivalent:
      s.words.push_back("Stopped at " + at + ": " + s.a + " is equivalent to " + s.b +
                        " within +-" + w.difference(d.margin) + " (" + tostSaid + ").");
      break;
    case stats::SequentialDecision::Different:
      s.words.push_back(
          "Stopped at " + at + ": " + s.a + " is " + w.difference(std::abs(l.tost.mean_diff)) +
          (l.tost.mean_diff < 0 ? " lower" : " higher") + " than " + s.b + " (" + diffSaid + ").");
      break;
    case stats::SequentialDecision::Inconclusive:
      s.words.push_back("Ended at the last look, " + at +
                        ", with neither equivalence nor a difference shown (" + tostSaid + "; " +
                        diffSaid + ").");
      break;
    case stats::SequentialDecision::Continue:
      s.words.push_back("After " + at + ": neither shown yet (" + tostSaid + "; " + diffSaid +
                        "); the next look at " + std::to_string(s.plan.looks[l.look + 1]) +
                        " seeds.");
      break;
  }
}

}  // namespace

SequentialAnalysis analyseSequential(const StudySpec& spec, const std::vector<RunRecord>& runs) {
  if (!spec.sequential) throw std::invalid_argument("the study has no sequential design");
  SequentialAnalysis s;
  s.plan = stats::planSequential(spec.sequential->design);
  std::tie(s.a, s.b) = sequentialBackends(spec);
  s.metric = defaultComparedMetric(spec);
  for (std::size_t k = 0; k < s.plan.looks.size(); ++k) {
    const auto a = valuesAt(spec, runs, s.a, s.plan.looks[k], s.metric);
    const auto b = valuesAt(spec, runs, s.b, s.plan.looks[k], s.metric);
    if (!a || !b) break;
    s.ended = k + 1;
    if (a->size() < 2 || b->size() < 2) {  // diverged runs: no look possible here
      if (k + 1 == s.plan.looks.size()) {
        stats::SequentialLook none;
        none.look = k;
        none.seeds = s.plan.looks[k];
        none.decision = stats::SequentialDecision::Inconclusive;
        none.tost.p_value = none.pDifference = std::nan("");
        s.looks.push_back(none);
        s.stoppedAt = k;
      }
      continue;
    }
    s.looks.push_back(stats::sequentialLook(*a, *b, s.plan, k));
    if (s.looks.back().decision != stats::SequentialDecision::Continue) {
      s.stoppedAt = k;
      break;
    }
  }
  sayWords(s);
  return s;
}

std::optional<std::size_t> seedsForNextLook(const SequentialAnalysis& s) {
  if (s.stoppedAt || s.ended >= s.plan.looks.size()) return std::nullopt;
  return s.plan.looks[s.ended];
}

}  // namespace paritylab::study
