#pragma once
// The divergence analysis as JSON (`paritylab-cli compare --json`) and as the report's
// CSV files. Fractions stay fractions (churn, accuracies, relative weight distances); NaN and
// infinite values are JSON null and empty CSV cells.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/study/analysis/divergence_analysis.h"
#include "core/study/files/study_report.h"

namespace paritylab::study {

// Everything in the report, weight divergence at every stored epoch.
nlohmann::json divergenceJson(const DivergenceReport& report, const DivergenceOptions& options);

// The note shown beside the paired tests: what pairing buys.
inline constexpr const char* kPairingNote =
    "pairing removes the seed's variance: each pair shares its initial weights and batches, so "
    "only the precision's effect is left in the differences";

// Writes, beside runsCsvPath ("out/report.csv" -> "out/report-divergence-churn.csv", ...):
//   -divergence-churn.csv    the churn matrix (once, from the first report);
//   -divergence-summary.csv  per pair: headline, precision and seed churn, paired t, Wilcoxon,
//                            Welch, and the notes;
//   -divergence-mcnemar.csv  per pair and seed;
//   -divergence-classes.csv  per pair and class;
//   -divergence-weights.csv  per pair, layer and epoch.
// Returns the paths written, in that order. `reports` holds one report per (A, B) pair.
std::vector<std::string> writeDivergenceCsvs(const std::vector<DivergenceReport>& reports,
                                             const std::string& runsCsvPath);

// The report's divergence tables (`paritylab-cli report --csv`): for the pair options.a against
// options.b, else every other backend (or options.tests) against the reference, at options.alpha
// and options.tail. `written`: the files (writeDivergenceCsvs); `skipped`: why none were written
// (no per-example predictions or weights in the database, or a single backend), else "".
struct DivergenceFiles {
  std::vector<std::string> written;
  std::string skipped;
};
DivergenceFiles writeDivergenceReport(const ResultsStore& store, const std::string& runsCsvPath,
                                      const ReportOptions& options);

}  // namespace paritylab::study
