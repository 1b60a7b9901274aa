// Churn: how often two trained models disagree on the predicted class of the same test examples
// and, from it, the precision's churn measured against the seed's noise floor.
//   churn(r1, r2)       fraction of test examples whose predicted class differs;
//   precision churn     mean churn over seed-matched pairs (A, s) vs (B, s);
//   seed churn of B     mean churn between B's runs with different seeds (every pair i < j).
// Each comes with a seeded percentile bootstrap CI over runs (bootstrap.h): precision churn
// resamples the seed-matched pairs; seed churn resamples runs and averages the churn of every pair
// of drawn runs with different seeds (replicates drawing a single seed are skipped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/stats/bootstrap.h"

namespace paritylab::stats {

// One finished run's test-set predictions: predicted[i] is the class predicted for example i.
struct SeededPredictions {
  std::uint64_t seed = 0;
  std::vector<std::int32_t> predicted;
};

// A churn fraction as the headlines write it: a percentage with 2 significant digits ("2.9%").
std::string churnPercent(double fraction);

// Fraction of positions where the two vectors differ, in [0, 1]. Same non-zero length required
// (std::invalid_argument naming both lengths otherwise).
double churn(std::span<const std::int32_t> predicted_1, std::span<const std::int32_t> predicted_2);

// Index pairs (i in a, j in b) of the runs with the same seed, by ascending seed. Seeds must be
// unique within each backend (std::invalid_argument naming the repeated seed otherwise).
std::vector<std::pair<std::size_t, std::size_t>> seedMatchedPairs(
    std::span<const SeededPredictions> a, std::span<const SeededPredictions> b);

struct ChurnEstimate {
  std::size_t pairs = 0;       // run pairs averaged (0: undefined, mean and CI NaN)
  double mean = 0.0;           // mean churn, fraction
  std::vector<double> values;  // churn of each pair (precision: in seedMatchedPairs order)
  BootstrapCi ci;              // over runs, seeded
};

ChurnEstimate precisionChurn(std::span<const SeededPredictions> a,
                             std::span<const SeededPredictions> b,
                             const BootstrapOptions& options = {});
ChurnEstimate seedChurn(std::span<const SeededPredictions> runs,
                        const BootstrapOptions& options = {});

struct ChurnComparison {
  std::string name_a, name_b;  // b is the reference whose seed churn is the floor
  ChurnEstimate precision;     // A vs B at the same seed
  ChurnEstimate seed_floor;    // B vs B across seeds
  // seed_floor.mean / precision.mean (> 1: the precision changes fewer predictions than the seed);
  // NaN when either is undefined, +inf when the precision changes none.
  double seed_to_precision_ratio = 0.0;
  std::string headline;  // the plain-words sentence, e.g. in churnHeadline()
};

// "tpu-bf16 changes 1.9% of test predictions against cpu-fp32 at the same seed; two cpu-fp32 runs
// with different seeds disagree on 7.8%: the precision changes the model about 4 times less than
// the seed does." (percentages with 2 significant digits, the ratio rounded to 2 significant
// digits; "about as much as" between 0.8 and 1.25; explains missing pairs in words).
// `predictions` names what is compared ("next-token predictions" for a language model).
ChurnComparison compareChurn(const std::string& name_a, std::span<const SeededPredictions> a,
                             const std::string& name_b, std::span<const SeededPredictions> b,
                             const BootstrapOptions& options = {},
                             const std::string& predictions = "test predictions");

}  // namespace paritylab::stats
