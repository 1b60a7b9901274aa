// Tests on paired samples (seed-matched final accuracies of two backends): the
// paired t-test and the Wilcoxon signed-rank test, with the CI of the mean paired difference.
// Pairing removes the seed's variance from the comparison: each pair shares the seed, so only the
// precision's effect (and its interaction with the seed) is left in the differences.
//   pairedTTest   = scipy.stats.ttest_rel(a, b, alternative=...) (SciPy 1.10), CI = mean(d) -+
//                   t_{1 - alpha/2, n-1} sd(d) / sqrt(n) (one-sided: one bound infinite).
//   wilcoxonSignedRank = scipy.stats.wilcoxon(a, b, alternative=...) with SciPy 1.10's defaults
//                   (zero_method='wilcox', correction=False, method='auto'): exact when n <= 50
//                   differences (zeros counted) and none is zero, else the normal approximation
//                   after dropping zero differences, with the tie correction of the variance. As
//                   SciPy, the exact path truncates a tied (half-integer) R+ to an integer.
//                   Its CI is pairedHodgesLehmann() (hodges_lehmann.h): the Walsh-average shift.
#pragma once

#include <cstddef>
#include <span>

#include "core/stats/tail.h"

namespace paritylab::stats {

struct PairedTTestResult {
  Tail tail = Tail::TwoSided;
  double alpha = 0.05;
  std::size_t n = 0;       // pairs
  double mean_diff = 0.0;  // mean of a_i - b_i
  double sd_diff = 0.0;    // sample SD of the differences (ddof = 1)
  double se = 0.0;         // sd_diff / sqrt(n)
  double t = 0.0;          // mean_diff / se
  double df = 0.0;         // n - 1
  double p_value = 0.0;    // for `tail`
  double ci_low = 0.0;     // 1 - alpha CI of the mean difference (one-sided: -inf or +inf)
  double ci_high = 0.0;
  bool defined = true;  // false when every difference is the same (sd 0): t, p, CI are NaN
};

// a, b: the same number (>= 2) of finite values, a[i] paired with b[i]; alpha in (0, 1).
PairedTTestResult pairedTTest(std::span<const double> a, std::span<const double> b,
                              Tail tail = Tail::TwoSided, double alpha = 0.05);

struct WilcoxonResult {
  Tail tail = Tail::TwoSided;
  std::size_t n = 0;       // pairs given
  std::size_t n_used = 0;  // differences ranked (zeros dropped on the normal path)
  std::size_t zeros = 0;   // zero differences
  bool exact = true;       // exact null distribution (else normal approximation)
  double r_plus = 0.0;     // sum of the ranks of |d| over positive d
  double r_minus = 0.0;
  double statistic = 0.0;  // SciPy's: min(r_plus, r_minus) two-sided, r_plus one-sided
  double z = 0.0;          // normal approximation only, else NaN
  double p_value = 0.0;
};

// a, b: the same number (>= 1) of finite values. Throws std::invalid_argument when every
// difference is zero (as SciPy: the 'wilcox' zero method then has nothing to rank).
WilcoxonResult wilcoxonSignedRank(std::span<const double> a, std::span<const double> b,
                                  Tail tail = Tail::TwoSided);

// P(R+ <= k) under H0 for n untied non-zero differences, exact (n <= 62).
double wilcoxonExactCdf(long long k, std::size_t n);

}  // namespace paritylab::stats
