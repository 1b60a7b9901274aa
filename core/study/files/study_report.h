#pragma once
// CSV report of a results database: one row per run, and <name>-summary.csv beside it with a
// per-backend summary and the comparisons the Statistics tab shows for the same choices: a pair
// (A against B) or every chosen backend against a reference (Holm-adjusted), with the t-test
// (Welch or Student) or Mann-Whitney, alpha, an optional TOST equivalence margin, the minimum
// detectable difference (fraction units, 80% power) and the runs needed for the margin.

#include <optional>
#include <string>
#include <vector>

#include "core/stats/tail.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

enum class ReportTest { Welch, Student, MannWhitney };

struct ReportOptions {
  // Pair mode when both are set: `a` tested against `b` (mean_diff = mean(a) - mean(b)).
  std::string a, b;
  // Otherwise every backend in `tests` (empty: every other backend) against `reference` (empty:
  // referenceBackend()), Holm-adjusted over the family.
  std::string reference;
  std::vector<std::string> tests;
  ReportTest test = ReportTest::Welch;
  stats::Tail tail = stats::Tail::TwoSided;
  double alpha = 0.05;
  std::optional<double> margin;  // TOST equivalence margin in the metric's units (accuracy: 0.01
                                 // = 1 point; a loss: nats)
  // The metric compared (the summary's "metric" column); unset: the study's default (accuracy, or
  // a language model's validation loss).
  std::optional<ComparedMetric> metric;
};

// The reference backend: "cpu-fp32" when present, else its first sweep cell ("cpu-fp32 lr=0.01"),
// else the first backend.
std::string referenceBackend(const std::vector<std::string>& backends);
// Writes runsCsvPath and, beside it, <stem>-summary.csv; returns the summary's path.
// per-backend summary and the comparisons the Statistics tab shows for the same choices: a pair
// (A against B) or every chosen backend against a reference (Holm-adjusted), with the t-test
// (Welch or Student) or Mann-Whitney, alpha, an optional TOST equivalence margin, the minimum
// detectable difference (fraction units, 80% power) and the runs needed for the margin.
std::string writeReport(const ResultsStore& store, const std::string& runsCsvPath,
                        const ReportOptions& options = {});
// The summary's path for a runs CSV path: "out/report.csv" -> "out/report-summary.csv".
std::string summaryPathFor(const std::string& runsCsvPath);

}  // namespace paritylab::study
