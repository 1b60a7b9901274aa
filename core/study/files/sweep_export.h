#pragma once
// A sweep's analysis as `stats --sweep --json` prints it and as the CSV report writes it beside
// the runs CSV: <name>-sweep-anova.csv (effect, sum_sq, df, mean_sq, F, p, the sums-of-squares
// type), <name>-sweep-cells.csv (per backend and cell: the factors' values, runs, the metric's
// mean, sd and interval, and for the compared backend its difference from the reference with the
// Holm-adjusted p) and, for a learning-rate sweep, <name>-sweep-lr.csv (each backend's usable
// rates). Values in the metric's units (accuracy as a fraction, losses in nats).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/study/analysis/sweep_analysis.h"

namespace paritylab::study {

nlohmann::json sweepAnalysisJson(const SweepAnalysis& sweep);

// The paths the files of a runs CSV path would have ("out/r.csv" -> "out/r-sweep-anova.csv", ...),
// the learning-rate file included.
std::vector<std::string> sweepCsvPaths(const std::string& runsCsvPath);
// Writes them (each whole or not at all); returns the paths written.
std::vector<std::string> writeSweepCsv(const SweepAnalysis& sweep, const std::string& runsCsvPath);

}  // namespace paritylab::study
