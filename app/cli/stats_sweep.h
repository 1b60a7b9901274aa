#pragma once
// `paritylab-cli stats DB --sweep`: a sweep's analysis (core/study/analysis/sweep_analysis.h) as
// a table and the verdict, or as JSON.

#include <optional>
#include <string>

namespace paritylab::cli {

struct SweepStatsArgs {
  std::string db, metric, a, b;  // "" = the study's default metric, the sweep's first backends
  int sumsOfSquaresType = 2;     // 2 or 3
  double alpha = 0.05;
  std::optional<double> lrDistance;
  bool json = false;
};

// Throws CommandError naming the database, an unknown backend or a study without a sweep.
void printSweepStats(const SweepStatsArgs& args);

}  // namespace paritylab::cli
