#include "app/cli/stats_sweep.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/command_registry.h"
#include "core/study/analysis/sweep_analysis.h"
#include "core/study/files/sweep_export.h"

namespace paritylab::cli {

void printSweepStats(const SweepStatsArgs& args) {
  study::SweepAnalysis s;
  try {
    auto store = study::ResultsStore::openReadOnly(args.db);
    if (!store->hasStudy())
      throw CommandError(args.db + ": holds imported runs, not a study: it has no sweep");
    const study::StudySpec spec = store->loadStudySpec();
    if (spec.sweep.empty())
      throw CommandError(args.db + ": the study '" + spec.name +
                         "' has no sweep (\"sweep\" in its spec); compare two backends with "
                         "--a and --b");
    study::SweepOptions o;
    o.metric = args.metric.empty() ? study::defaultComparedMetric(spec)
                                   : study::comparedMetricNamed(args.metric);
    o.type =
        args.sumsOfSquaresType == 3 ? stats::SumsOfSquares::TypeIII : stats::SumsOfSquares::TypeII;
    o.a = args.a;
    o.b = args.b;
    o.alpha = args.alpha;
    o.lrDistance = args.lrDistance;
    s = study::analyseSweep(spec, store->loadRuns(), o);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  if (args.json) {
    std::cout << study::sweepAnalysisJson(s).dump(2) << "\n";
    return;
  }
  stats::MetricWords w = study::metricWords(s.metric);
  w.decimals += 2;  // a table is for reading off values
  std::printf("Sweep of %zu cells x %zu backends on %s%s, alpha %g\n", s.cellNames.size(),
              s.backends.size(), w.name.c_str(), w.lowerIsBetter ? " (lower is better)" : "",
              s.alpha);
  int backendWidth = 7, cellWidth = 4;  // as wide as the longest name
  for (const std::string& b : s.backends) backendWidth = std::max(backendWidth, int(b.size()));
  for (const std::string& c : s.cellNames) cellWidth = std::max(cellWidth, int(c.size()));
  std::printf("  %-*s %-*s %5s %14s  %s\n", backendWidth, "backend", cellWidth, "cell", "runs",
              "mean", "CI");
  for (const study::SweepCell& c : s.cells) {
    const std::string runs = std::to_string(c.finished) + "/" + std::to_string(c.runs);
    std::printf("  %-*s %-*s %5s %14s  [%s, %s]\n", backendWidth, s.backends[c.backend].c_str(),
                cellWidth, s.cellNames[c.cell].c_str(), runs.c_str(),
                c.finished ? w.value(c.mean).c_str() : "-",
                c.finished > 1 ? w.amount(c.ciLow).c_str() : "-",
                c.finished > 1 ? w.amount(c.ciHigh).c_str() : "-");
  }
  if (s.anova) {
    std::printf("Two-way ANOVA, type %s sums of squares%s:\n",
                s.anova->type == stats::SumsOfSquares::TypeII ? "II" : "III",
                s.anova->balanced ? "" : " (unbalanced)");
    std::printf("  %-30s %14s %6s %14s %10s %10s\n", "effect", "sum_sq", "df", "mean_sq", "F", "p");
    const auto shown = [](double v) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.4g", v);
      return std::isfinite(v) ? std::string(buffer) : std::string();
    };
    for (const stats::AnovaRow& r : s.anova->rows)
      std::printf("  %-30s %14.6g %6g %14.6g %10s %10s\n", r.effect.c_str(), r.sumOfSquares, r.df,
                  r.meanSquare, shown(r.f).c_str(), shown(r.p_value).c_str());
  }
  for (const std::string& sentence : s.verdict) std::printf("%s\n", sentence.c_str());
}

}  // namespace paritylab::cli
