// Power analysis for comparing two backends with n runs each (equal group sizes, common sd).
//
// t-test power is exact (noncentral t), as statsmodels TTestIndPower().power(effect_size =
// delta / sd, nobs1 = n, alpha, ratio = 1, alternative) with df = 2n - 2.
//
// TOST power: both one-sided statistics share the same estimated standard error, so the exact
// power needs the bivariate noncentral t (Owen's Q). We use instead the Bonferroni bound
//   power >= P(T1 > t_c) + P(T2 < -t_c) - 1,   T1 ~ nct(df, (delta + margin) / s),
//                                               T2 ~ nct(df, (delta - margin) / s),
// with s = sd sqrt(2 / n), df = 2n - 2, t_c = t_{1-alpha, df}. Each marginal is exact, so the value
// is a guaranteed LOWER bound on the true power (clamped at 0) and the sample size derived from it
// is conservative; it is tight when the power is high (the two failure events rarely coincide).
// tests/stats checks it against a Monte-Carlo simulation of the actual pooled-variance TOST.
#pragma once

#include <cstddef>

#include "core/stats/tail.h"

namespace paritylab::stats {

struct SampleSizeResult {
  std::size_t n_per_group = 0;  // smallest n >= 2 with power >= target_power (or the search cap)
  double achieved_power = 0.0;  // power at n_per_group
  double target_power = 0.0;
  bool reachable = true;  // false if even n = max_n does not reach the target (e.g. delta = 0)
};

// Power of a t-test whose statistic follows the noncentral t with `df` degrees of freedom and
// noncentrality `noncentrality` (effect size x sqrt(effective n)) under the alternative; df > 0,
// alpha in (0, 1). The building block of every power figure here (statsmodels' ttest_power).
double tTestPowerAt(double noncentrality, double df, double alpha, Tail tail);

// Power of the two-sample (pooled) t-test with n_per_group >= 2 runs per group when the true
// difference of means is delta (a - b, same units as sd; the sign matters for one-sided tails:
// Greater needs delta > 0 to have power) and the common standard deviation is sd > 0.
double tTestPower(std::size_t n_per_group, double delta, double sd, double alpha = 0.05,
                  Tail tail = Tail::TwoSided);

// Smallest n per group with tTestPower(n, ...) >= target_power (target in (0, 1)).
SampleSizeResult tTestSampleSize(double delta, double sd, double target_power = 0.8,
                                 double alpha = 0.05, Tail tail = Tail::TwoSided,
                                 std::size_t max_n = 1'000'000);

// Lower bound (see above) on the power of TOST with bounds +-margin (margin > 0), n_per_group >= 2
// runs per group, true difference true_diff and common sd > 0; alpha in (0, 0.5).
double tostPower(std::size_t n_per_group, double true_diff, double sd, double margin,
                 double alpha = 0.05);

// Smallest n per group whose tostPower reaches target_power (unreachable if |true_diff| >= margin
// and the target exceeds what the bound can give).
SampleSizeResult tostSampleSize(double true_diff, double sd, double margin,
                                double target_power = 0.8, double alpha = 0.05,
                                std::size_t max_n = 1'000'000);

}  // namespace paritylab::stats
