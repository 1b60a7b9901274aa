// McNemar's exact test: do two classifiers make different errors on the same test examples?
// With b = examples only the first gets right and c = examples only the second gets right, the
// exact two-sided p value is min(1, 2 P(X <= min(b, c))), X ~ Binomial(b + c, 1/2):
// statsmodels.stats.contingency_tables.mcnemar(table, exact=True) (statistic = min(b, c);
// no discordant examples gives p = 1). Per seed-matched pair of runs, Holm-adjusted across pairs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/stats/churn.h"

namespace paritylab::stats {

struct McNemarResult {
  std::size_t only_first_correct = 0;   // b
  std::size_t only_second_correct = 0;  // c
  double statistic = 0.0;               // min(b, c)
  double p_value = 1.0;                 // exact, two-sided
};

McNemarResult mcnemarExact(std::size_t only_first_correct, std::size_t only_second_correct);

// labels[i] the true class of example i, predicted_1/2 the two models' predictions (all the same
// non-zero length; std::invalid_argument otherwise).
McNemarResult mcnemarExact(std::span<const std::int32_t> labels,
                           std::span<const std::int32_t> predicted_1,
                           std::span<const std::int32_t> predicted_2);

struct SeedPairMcNemar {
  std::uint64_t seed = 0;
  McNemarResult test;     // first = run of a, second = run of b
  double p_holm = 1.0;    // Holm-adjusted across the seed-matched pairs
  bool rejected = false;  // the two models' errors differ at family-wise level alpha
};

// One test per seed-matched pair (seedMatchedPairs order), Holm across pairs at alpha.
std::vector<SeedPairMcNemar> mcnemarSeedPairs(std::span<const std::int32_t> labels,
                                              std::span<const SeededPredictions> a,
                                              std::span<const SeededPredictions> b,
                                              double alpha = 0.05);

}  // namespace paritylab::stats
