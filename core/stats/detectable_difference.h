// What a study could detect: the minimum detectable difference (MDD) of a t-test with the study's
// actual group sizes, alpha, alternative and a chosen power, and the runs per group needed to show
// equivalence within a margin the user cares about. This replaces "observed power" (power at the
// observed difference), a function of the p value alone (Hoenig & Heisey, The American
// Statistician 2001).
//
// The effect size solves statsmodels' power equation (noncentral t; alpha split over both tails
// for two-sided tests, as statsmodels' ttest_power):
//   two-sample  TTestIndPower().solve_power(effect_size=None, nobs1=n_a, ratio=n_b/n_a, alpha,
//               power, alternative): noncentrality = es sqrt(n_a n_b / (n_a + n_b));
//   paired      TTestPower().solve_power(effect_size=None, nobs=n, alpha, power, alternative):
//               noncentrality = es sqrt(n), df = n - 1;
// and the difference is es x SD, where the SD is
//   Student  the pooled SD, df = n_a + n_b - 2 (exactly statsmodels);
//   Welch    the SD that reproduces Welch's standard error at these sizes,
//            sqrt((var_a / n_a + var_b / n_b) / (1 / n_a + 1 / n_b)), with the noncentral t at
//            Welch's (Welch-Satterthwaite) df estimated from the data: an approximation, equal to
//            TTestIndPower().power(es, n_a, alpha, ratio, df=welch_df, alternative) = power;
//   Paired   the SD of the paired differences.
// One-sided tests: the difference in the tested direction (Greater: a above b, Less: a below b),
// returned as a magnitude (> 0).
#pragma once

#include <cstddef>

#include "core/stats/power.h"
#include "core/stats/t_test.h"

namespace paritylab::stats {

enum class DetectableDesign { Student, Welch, Paired };

// "pooled SD, Student df", "Welch SD, noncentral t at Welch's df", "SD of the paired differences".
const char* detectableDesignNote(DetectableDesign design);

struct DetectableDifference {
  DetectableDesign design = DetectableDesign::Welch;
  Tail tail = Tail::TwoSided;
  double alpha = 0.05;
  double power = 0.8;            // the power the difference is detected with
  std::size_t n_a = 0, n_b = 0;  // group sizes (paired: both the number of pairs)
  double sd = 0.0;               // the SD assumed (see above), units of the data
  double df = 0.0;               // degrees of freedom of the noncentral t
  double effect_size = 0.0;      // difference / sd (> 0)
  double difference = 0.0;       // the MDD, units of the data (accuracy fraction: 0.011 = 1.1 pts)
};

// The smallest effect size es > 0 whose t-test power, with noncentrality es sqrt(effective_n) and
// df degrees of freedom, reaches `power`. effective_n > 0, df > 0, alpha in (0, 1) and power in
// (alpha, 1) (a test has power alpha at no difference); std::invalid_argument otherwise.
double minimumDetectableEffectSize(double effective_n, double df, double alpha, double power,
                                   Tail tail);

// MDD of the two-sample test `t` describes (its kind, tail, alpha and group sizes) at `power`,
// using t's variances. Throws std::invalid_argument if t is undefined (zero variance in both
// groups: no SD to scale by) or has fewer than 2 runs in a group.
DetectableDifference minimumDetectableDifference(const TTestResult& t, double power = 0.8);

// MDD of a paired t-test on n_pairs >= 2 pairs whose differences have SD sd_diff > 0.
DetectableDifference pairedMinimumDetectableDifference(std::size_t n_pairs, double sd_diff,
                                                       double alpha = 0.05, double power = 0.8,
                                                       Tail tail = Tail::TwoSided);

// The SD for planning equal groups from the test `t`: Student the pooled SD, Welch
// sqrt((var_a + var_b) / 2) (Welch's standard error when both groups have the same size).
double planningSd(const TTestResult& t);

// Runs per group for `power` to show equivalence within +-margin with TOST at t's alpha, assuming
// no true difference and planningSd(t): tostSampleSize(0, planningSd(t), margin, power, alpha)
// (the TOST power is a guaranteed lower bound, see power.h, so the count is conservative).
// margin > 0 in the data's units; t must be defined.
SampleSizeResult runsNeededForMargin(const TTestResult& t, double margin, double power = 0.8,
                                     std::size_t max_n = 100'000);

}  // namespace paritylab::stats
