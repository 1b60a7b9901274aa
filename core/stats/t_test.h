// Two-sample t-tests (Welch and Student), CI of the difference of means, Cohen's d and Hedges' g.
// Matches scipy.stats.ttest_ind (equal_var = Student) and statsmodels CompareMeans.tconfint_diff.
#pragma once

#include <cstddef>
#include <span>

#include "core/stats/tail.h"

namespace paritylab::stats {

struct TTestResult {
  TTestKind kind = TTestKind::Welch;
  Tail tail = Tail::TwoSided;
  double alpha = 0.05;
  std::size_t n_a = 0, n_b = 0;
  double mean_a = 0.0, mean_b = 0.0;
  double var_a = 0.0, var_b = 0.0;  // sample variances (ddof = 1)
  double sd_a = 0.0, sd_b = 0.0;
  double mean_diff = 0.0;  // mean_a - mean_b
  double se = 0.0;         // standard error of mean_diff (Welch: unpooled; Student: pooled)
  double t = 0.0;          // mean_diff / se
  double df = 0.0;         // Welch-Satterthwaite (Welch) or n_a + n_b - 2 (Student)
  double p_value = 0.0;    // for `tail`
  // CI of mean_diff at level 1 - alpha for `tail`: two-sided, or one-sided with an infinite bound
  // (Less: [-inf, high]; Greater: [low, +inf]), as SciPy's ttest_ind(...).confidence_interval.
  double ci_low = 0.0, ci_high = 0.0;
  double pooled_sd = 0.0;  // sqrt(((n_a-1) var_a + (n_b-1) var_b) / (n_a + n_b - 2)), for any kind
  double cohens_d = 0.0;   // mean_diff / pooled_sd
  double hedges_j =
      0.0;  // exact bias correction J(m) = G(m/2) / (sqrt(m/2) G((m-1)/2)), m = n_a+n_b-2
  double hedges_g = 0.0;  // J * cohens_d
  // False when both samples have zero variance: then se = 0 and t, p_value, the CI and the effect
  // sizes are NaN (the data cannot tell a difference from noise; verdict() says so in words).
  bool defined = true;
};

// a, b: at least 2 finite values each (throws std::invalid_argument naming the sample otherwise);
// alpha in (0, 1).
TTestResult tTest(std::span<const double> a, std::span<const double> b,
                  TTestKind kind = TTestKind::Welch, Tail tail = Tail::TwoSided,
                  double alpha = 0.05);

// The exact small-sample correction factor J(df) of Hedges' g (df > 1), via Boost's tgamma_ratio.
double hedgesCorrection(double df);

// p-value of a t statistic with df degrees of freedom for `tail` (t may be +-inf; NaN -> NaN).
double tTailProbability(double t, double df, Tail tail);

}  // namespace paritylab::stats
