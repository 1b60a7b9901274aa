#include "core/study/analysis/sweep_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "core/stats/descriptive.h"
#include "core/stats/verdict.h"

namespace paritylab::study {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t indexOf(const std::vector<std::string>& names, const std::string& name,
                    const char* option) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return std::size_t(it - names.begin());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument(std::string(option) + " '" + name +
                              "': not a backend of the sweep (" + list + ")");
}

double defaultLrDistance(ComparedMetric metric) {
  switch (metric) {
    case ComparedMetric::Accuracy:
      return 0.01;
    case ComparedMetric::TestLoss:
    case ComparedMetric::ValidationLoss:
      return 0.1;
    case ComparedMetric::Perplexity:
      return 1.0;
  }
  return 0.1;
}

// The cells' values: each backend's finished runs per cell.
void fillCells(const StudySpec& spec, const std::vector<RunRecord>& runs, SweepAnalysis& s,
               std::vector<std::vector<double>>& values) {
  const std::size_t cellCount = s.cellNames.size();
  s.cells.resize(s.backends.size() * cellCount);
  values.assign(s.cells.size(), {});
  for (std::size_t i = 0; i < s.cells.size(); ++i)
    s.cells[i].backend = i / cellCount, s.cells[i].cell = i % cellCount;
  for (const BackendEntry& e : spec.backends) {
    if (e.cell.empty() || e.perturbation != Perturbation::None) continue;
    const std::size_t backend = indexOf(s.backends, e.sweptFrom, "backend");
    const auto cell = std::find(s.cellNames.begin(), s.cellNames.end(), cellName(e.cell));
    const std::size_t at = backend * cellCount + std::size_t(cell - s.cellNames.begin());
    for (const RunRecord& r : runs) {
      if (r.backend != e.name) continue;
      ++s.cells[at].runs;
      const double v = finalMetricOf(r, s.metric);
      if (r.status == RunState::Completed && std::isfinite(v)) values[at].push_back(v);
    }
  }
  for (std::size_t i = 0; i < s.cells.size(); ++i) {
    SweepCell& c = s.cells[i];
    c.finished = values[i].size();
    c.mean = c.sd = c.ciLow = c.ciHigh = kNaN;
    if (values[i].empty()) continue;
    const stats::Summary sum = stats::summarize(values[i], s.alpha);
    c.mean = sum.mean;
    c.sd = sum.sd;
    c.ciLow = sum.ci_low;
    c.ciHigh = sum.ci_high;
  }
}

void analyseVariance(const std::vector<std::vector<double>>& values, stats::SumsOfSquares type,
                     SweepAnalysis& s) {
  const std::size_t cellCount = s.cellNames.size();
  for (std::size_t c = 0; c < cellCount; ++c) {
    std::string shortOf;
    for (std::size_t b = 0; b < s.backends.size(); ++b) {
      const SweepCell& cell = s.at(b, c);
      if (cell.finished < 2)
        shortOf += (shortOf.empty() ? "" : ", ") + s.backends[b] + ": " +
                   std::to_string(cell.finished) + " of " + std::to_string(cell.runs) +
                   " runs finished";
    }
    if (shortOf.empty())
      s.analysedCells.push_back(c);
    else
      s.cellsLeftOut.push_back(s.cellNames[c] + " (" + shortOf + ")");
  }
  if (s.backends.size() < 2) {
    s.anovaMissing = "one backend: nothing to cross the sweep with";
    return;
  }
  if (s.analysedCells.size() < 2) {
    s.anovaMissing = "fewer than two cells where every backend has at least 2 finished runs";
    return;
  }
  std::vector<stats::FactorialObservation> observations;
  for (std::size_t level = 0; level < s.analysedCells.size(); ++level)
    for (std::size_t b = 0; b < s.backends.size(); ++b)
      for (double y : values[b * cellCount + s.analysedCells[level]])
        observations.push_back({level, b, y});
  std::string factors;  // the swept factor's name: "lr", or "batch_size*weight_decay"
  for (const SweepFactor& f : s.factors) factors += (factors.empty() ? "" : "*") + f.field;
  s.anova = stats::twoWayAnova(observations, s.analysedCells.size(), s.backends.size(), type,
                               factors, "backend");
  s.simpleEffects = stats::simpleEffects(observations, s.analysedCells.size(), s.b, s.a, s.alpha);
}

void findLearningRateRanges(SweepAnalysis& s) {
  const auto lr = std::find_if(s.factors.begin(), s.factors.end(),
                               [](const SweepFactor& f) { return f.field == "lr"; });
  if (lr == s.factors.end()) return;
  const std::size_t lrFactor = std::size_t(lr - s.factors.begin());
  const std::vector<std::vector<SweptValue>> grid = sweepCells(s.factors);
  const bool lower = metricWords(s.metric).lowerIsBetter;
  for (std::size_t b = 0; b < s.backends.size(); ++b) {
    LearningRateRange range;
    range.backend = s.backends[b];
    range.tried = lr->values.size();
    std::vector<double> meanAt(lr->values.size(), kNaN);
    for (std::size_t level = 0; level < lr->values.size(); ++level) {
      double sum = 0.0;
      std::size_t n = 0;
      bool all = true;
      for (std::size_t c = 0; c < grid.size(); ++c) {
        if (grid[c][lrFactor].value != lr->values[level]) continue;
        const SweepCell& cell = s.at(b, c);
        all &= cell.finished == cell.runs && cell.finished > 0;
        if (cell.finished > 0) sum += cell.mean, ++n;
      }
      if (all && n > 0) meanAt[level] = sum / double(n);
    }
    range.bestLr = range.bestValue = range.low = range.high = range.decades = kNaN;
    for (std::size_t level = 0; level < meanAt.size(); ++level) {
      const double v = meanAt[level];
      if (!std::isfinite(v)) continue;
      if (!std::isfinite(range.bestValue) || (lower ? v < range.bestValue : v > range.bestValue))
        range.bestValue = v, range.bestLr = lr->values[level].get<double>();
    }
    for (std::size_t level = 0; level < meanAt.size(); ++level) {
      const double v = meanAt[level];
      if (!std::isfinite(v) || std::abs(v - range.bestValue) > s.lrDistance) continue;
      const double rate = lr->values[level].get<double>();
      ++range.usable;
      range.low = std::isfinite(range.low) ? std::min(range.low, rate) : rate;
      range.high = std::isfinite(range.high) ? std::max(range.high, rate) : rate;
    }
    if (range.usable > 0) range.decades = std::log10(range.high / range.low);
    s.lrRanges.push_back(range);
  }
}

std::string factorNames(const std::vector<SweepFactor>& factors) {
  std::string out;
  for (std::size_t i = 0; i < factors.size(); ++i)
    out += (i == 0 ? "" : i + 1 == factors.size() ? " and " : ", ") + factors[i].field;
  return out;
}

std::string decadesText(double decades) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g decade%s", decades, decades == 1.0 ? "" : "s");
  return buffer;
}

void sayVerdict(SweepAnalysis& s, stats::SumsOfSquares type) {
  const stats::MetricWords words = metricWords(s.metric);
  const std::string& nameA = s.backends[s.a];
  const std::string& nameB = s.backends[s.b];
  if (!s.anova) {
    s.verdict.push_back("No interaction test: " + s.anovaMissing + ".");
  } else {
    const stats::AnovaRow& interaction = s.anova->interaction();
    const std::string how =
        " (two-way ANOVA of backend x " + factorNames(s.factors) + ", type " +
        (type == stats::SumsOfSquares::TypeII ? "II" : "III") + " sums of squares" +
        (s.anova->balanced ? "" : "; the cells hold unequal numbers of runs") + ")";
    const std::string who = s.backends.size() == 2
                                ? "the " + words.name + " of " + nameA + " and " + nameB
                                : "the backends' " + words.name;
    if (interaction.p_value <= s.alpha)
      s.verdict.push_back("The backends' " + words.name + " depends on " + factorNames(s.factors) +
                          " differently: interaction " + stats::pEquals(interaction.p_value) + how +
                          ".");
    else
      s.verdict.push_back("No evidence that " + factorNames(s.factors) +
                          (s.factors.size() == 1 ? " affects " : " affect ") + who +
                          " differently: interaction " + stats::pEquals(interaction.p_value) + how +
                          ".");
    std::string cellsSaid;
    for (const stats::SimpleEffect& e : s.simpleEffects) {
      const std::string& cell = s.cellNames[s.analysedCells[e.levelA]];
      const double d = e.test.mean_diff;  // a - b
      std::string said;
      if (!e.rejected)
        said = "at " + cell + " they do not differ (Holm " + stats::pEquals(e.p_holm) + ")";
      else
        said = "at " + cell + " " + nameA + " is " + words.difference(std::abs(d)) + " " +
               (d < 0 ? "lower" : "higher") + " (Holm " + stats::pEquals(e.p_holm) + ")";
      cellsSaid += (cellsSaid.empty() ? "" : "; ") + said;
    }
    if (!cellsSaid.empty())
      s.verdict.push_back(nameA + " against " + nameB + ": " + cellsSaid + ".");
  }
  if (!s.cellsLeftOut.empty()) {
    std::string list;
    for (const std::string& c : s.cellsLeftOut) list += (list.empty() ? "" : "; ") + c;
    s.verdict.push_back("Left out of the tests (fewer than 2 finished runs): " + list + ".");
  }
  const LearningRateRange* reference = nullptr;
  for (const LearningRateRange& r : s.lrRanges)
    if (r.backend == nameB) reference = &r;
  for (const LearningRateRange& r : s.lrRanges) {
    std::string said;
    if (r.usable == 0) {
      said = r.backend + " finished every run at none of the " + std::to_string(r.tried) +
             " learning rates";
    } else {
      said = r.backend + " trains within " + words.difference(s.lrDistance) + " of its best (" +
             words.value(r.bestValue) + " at lr " + sweptValueText(r.bestLr) + ") from lr " +
             sweptValueText(r.low) + " to " + sweptValueText(r.high) + " (" +
             decadesText(r.decades) + ", " + std::to_string(r.usable) + " of " +
             std::to_string(r.tried) + " rates)";
      if (reference && &r != reference && std::isfinite(reference->decades))
        said += r.decades < reference->decades   ? ": narrower than " + nameB + "'s"
                : r.decades > reference->decades ? ": wider than " + nameB + "'s"
                                                 : ": as wide as " + nameB + "'s";
    }
    s.verdict.push_back(said + ".");
  }
}

}  // namespace

SweepAnalysis analyseSweep(const StudySpec& spec, const std::vector<RunRecord>& runs,
                           const SweepOptions& options) {
  if (spec.sweep.empty()) throw std::invalid_argument("the study has no sweep");
  SweepAnalysis s;
  s.metric = options.metric;
  s.alpha = options.alpha;
  s.factors = spec.sweep;
  for (const BackendEntry& e : sweepBases(spec)) s.backends.push_back(e.name);
  for (const std::vector<SweptValue>& cell : sweepCells(spec.sweep))
    s.cellNames.push_back(cellName(cell));
  if (s.backends.size() >= 2) {
    s.b = options.b.empty() ? 0 : indexOf(s.backends, options.b, "--b");
    s.a = options.a.empty() ? (s.b == 0 ? 1 : 0) : indexOf(s.backends, options.a, "--a");
    if (s.a == s.b)
      throw std::invalid_argument("--a and --b name the same backend '" + s.backends[s.a] +
                                  "': compare it with another");
  } else {
    s.a = s.b = 0;
  }
  s.lrDistance = options.lrDistance.value_or(defaultLrDistance(options.metric));
  std::vector<std::vector<double>> values;
  fillCells(spec, runs, s, values);
  analyseVariance(values, options.type, s);
  findLearningRateRanges(s);
  sayVerdict(s, options.type);
  return s;
}

}  // namespace paritylab::study
