// Holm's step-down correction and pairwise t-tests of every group against a reference group.
// Holm matches statsmodels.stats.multitest.multipletests(p, alpha, method='holm').
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/stats/t_test.h"

namespace paritylab::stats {

struct HolmResult {
  double alpha = 0.05;
  std::vector<double> adjusted;  // same order as the input; monotone in the sorted order, <= 1
  std::vector<bool> rejected;    // H0 rejected at family-wise level alpha
};

// p_values: each in [0, 1] (throws std::invalid_argument naming the index otherwise); may be empty.
HolmResult holm(std::span<const double> p_values, double alpha = 0.05);

struct NamedSample {
  std::string name;            // e.g. backend name "tpu-bf16"
  std::vector<double> values;  // e.g. final accuracies, fractions in [0, 1]
};

struct PairwiseComparison {
  std::string name;  // the group compared (sample a)
  std::string
      reference;  // the reference group (sample b); mean_diff = mean(name) - mean(reference)
  TTestResult test;
  double p_adjusted = 0.0;  // Holm-adjusted over the defined comparisons; NaN if !test.defined
  bool rejected = false;    // p_adjusted <= alpha (Holm's step-down decision)
};

// Tests each group other than `reference` against it (tTest(group, reference, kind, tail, alpha))
// and Holm-adjusts the p-values over the family of comparisons whose test is defined.
// Throws std::invalid_argument if `reference` is not one of the names, names repeat, there are
// fewer than 2 groups, or a group fails tTest's checks (message names the group).
std::vector<PairwiseComparison> compareAgainstReference(std::span<const NamedSample> groups,
                                                        std::string_view reference,
                                                        TTestKind kind = TTestKind::Welch,
                                                        Tail tail = Tail::TwoSided,
                                                        double alpha = 0.05);

}  // namespace paritylab::stats
