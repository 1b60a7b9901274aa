// The minimum detectable difference (MDD) for the chosen test, alpha,
// alternative, actual (possibly unequal) group sizes and power, and the runs needed to show
// equivalence within the user's margin. References from statsmodels 0.13.5 / SciPy 1.10.1.
#include "core/stats/detectable_difference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/stats/t_test.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;
using testing::relClose;

// The effect size solving statsmodels' power equation, two ways:
//   pw = TTestIndPower()
//   pw.solve_power(effect_size=None, nobs1=n1, ratio=n2/n1, alpha=a, power=p, alternative=alt)
//   brentq(lambda e: pw.power(e, n1, a, ratio=n2/n1, alternative=alt) - p, 1e-9, 50,
//          xtol=1e-15, rtol=1e-15)                 (the same root, polished)
// solve_power stops at its own tolerance (~1e-6 relative); the polished root is matched to 1e-9.
TEST(DetectableDifference, EffectSizeMatchesStatsmodelsTTestIndPower) {
  struct Case {
    std::size_t n_a, n_b;
    double alpha, power;
    Tail tail;
    double solve_power, polished;
  };
  const Case cases[] = {
      {5, 5, 0.05, 0.8, Tail::TwoSided, 2.0244402087492492, 2.024439339269012},
      {14, 14, 0.05, 0.8, Tail::TwoSided, 1.1000796072989854, 1.1000803940453965},
      {14, 12, 0.05, 0.8, Tail::TwoSided, 1.1487751311029164, 1.14877431966385},
      {5, 5, 0.05, 0.8, Tail::Greater, 1.7246074536750329, 1.7246073442408187},
      {10, 7, 0.01, 0.9, Tail::TwoSided, 2.14513921405198, 2.1451384754526073},
      {3, 20, 0.1, 0.5, Tail::Greater, 0.8094150685384811, 0.8094144538057786},
      {30, 30, 0.05, 0.95, Tail::TwoSided, 0.9466015565225452, 0.9466015573911906},
      {2, 2, 0.05, 0.8, Tail::TwoSided, 5.653489342112759, 5.653489266395665},
      // alternative='smaller': statsmodels returns -1.3080280142637941 (the direction tested)
      {8, 8, 0.05, 0.8, Tail::Less, 1.3080280142637941, 1.308028041344771},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.n_a << " vs " << c.n_b << " alpha " << c.alpha
                                      << " power " << c.power << " " << tailName(c.tail));
    const double na = static_cast<double>(c.n_a), nb = static_cast<double>(c.n_b);
    const double es =
        minimumDetectableEffectSize(na * nb / (na + nb), na + nb - 2.0, c.alpha, c.power, c.tail);
    EXPECT_TRUE(relClose(es, c.polished, 1e-9));
    EXPECT_TRUE(relClose(es, c.solve_power, 2e-6));
  }
}

// Paired: TTestPower().solve_power(effect_size=None, nobs=n, alpha, power, alternative), and the
// polished brentq root of TTestPower().power(e, n, alpha, alternative) - power.
TEST(DetectableDifference, PairedMatchesStatsmodelsTTestPower) {
  struct Case {
    std::size_t n;
    double alpha, power;
    Tail tail;
    double solve_power, polished;
  };
  const Case cases[] = {
      {5, 0.05, 0.8, Tail::TwoSided, 1.6819969613308459, 1.6819969659555574},
      {14, 0.05, 0.8, Tail::TwoSided, 0.8101466710230139, 0.8101466719184701},
      {10, 0.01, 0.9, Tail::Greater, 1.3540543501092004, 1.3540539674572163},
      {3, 0.05, 0.8, Tail::TwoSided, 3.264043553217225, 3.264043549814197},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.n << " pairs, alpha " << c.alpha);
    const DetectableDifference d =
        pairedMinimumDetectableDifference(c.n, 0.004, c.alpha, c.power, c.tail);
    EXPECT_EQ(d.design, DetectableDesign::Paired);
    EXPECT_EQ(d.df, static_cast<double>(c.n - 1));
    EXPECT_TRUE(relClose(d.effect_size, c.polished, 1e-9));
    EXPECT_TRUE(relClose(d.effect_size, c.solve_power, 2e-6));
    EXPECT_TRUE(relClose(d.difference, 0.004 * c.polished, 1e-9));
  }
}

// MDD of a t-test result = effect size x SD. Student: pooled SD and statsmodels' solve_power as
// is. Welch: sd_w = se / sqrt(1/n_a + 1/n_b) and the root of
//   pw.power(e, n_a, alpha, ratio=n_b/n_a, df=welch_df, alternative) - power   (brentq, 1e-15).
// kA (12) vs kB (9): welch df 18.095219739494368, sd_w 0.0076655372780035265,
// pooled sd 0.00825648779102076.
TEST(DetectableDifference, StudentAndWelchOnUnequalGroups) {
  struct Case {
    double alpha, power;
    Tail tail;
    double welch_mdd, student_mdd;
  };
  const Case cases[] = {
      {0.05, 0.8, Tail::TwoSided, 0.010011296590787208, 0.010753319934979579},
      {0.05, 0.9, Tail::Greater, 0.010286474892334928, 0.011057961970800957},
      {0.01, 0.8, Tail::TwoSided, 0.012737124824211543, 0.013651572853093338},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "alpha " << c.alpha << " power " << c.power);
    const DetectableDifference w =
        minimumDetectableDifference(tTest(kA, kB, TTestKind::Welch, c.tail, c.alpha), c.power);
    EXPECT_EQ(w.design, DetectableDesign::Welch);
    EXPECT_EQ(w.n_a, 12u);
    EXPECT_EQ(w.n_b, 9u);
    EXPECT_TRUE(relClose(w.df, 18.095219739494368));
    EXPECT_TRUE(relClose(w.sd, 0.0076655372780035265));
    EXPECT_TRUE(relClose(w.difference, c.welch_mdd, 1e-8));
    // Student: statsmodels solve_power x pooled SD (solve_power's own tolerance).
    const DetectableDifference s =
        minimumDetectableDifference(tTest(kA, kB, TTestKind::Student, c.tail, c.alpha), c.power);
    EXPECT_EQ(s.design, DetectableDesign::Student);
    EXPECT_EQ(s.df, 19.0);
    EXPECT_TRUE(relClose(s.sd, 0.00825648779102076));
    EXPECT_TRUE(relClose(s.difference, c.student_mdd, 2e-6));
  }
}

// The MDD is what the design detects with the stated power: the power there is exactly the
// target, and it does not depend on the observed difference (shifting a sample changes nothing).
TEST(DetectableDifference, IsAPropertyOfTheDesignNotOfTheObservedDifference) {
  const DetectableDifference d = minimumDetectableDifference(tTest(kA, kB, TTestKind::Student));
  EXPECT_NEAR(
      tTestPowerAt(d.effect_size * std::sqrt(12.0 * 9.0 / 21.0), 19.0, 0.05, Tail::TwoSided), 0.8,
      1e-12);
  std::vector<double> shifted = kA;
  for (double& v : shifted) v -= 0.05;
  const DetectableDifference e =
      minimumDetectableDifference(tTest(shifted, kB, TTestKind::Student));
  EXPECT_TRUE(relClose(e.difference, d.difference, 1e-12));
}

// Runs needed for the margin: the smallest n whose TOST power bound reaches 80% at
// no true difference, with the planning SD. SciPy, for n = 2, 3, ...:
//   s = sd sqrt(2/n); tc = t.isf(0.05, 2n-2)
//   nct.sf(tc, 2n-2, m/s) + nct.cdf(-tc, 2n-2, -m/s) - 1 >= 0.8
// kA/kB Welch planning SD sqrt((var_a + var_b)/2) = 0.007951716668732478, margin 0.5 points: 45.
TEST(DetectableDifference, RunsNeededForTheMargin) {
  const TTestResult welch = tTest(kA, kB, TTestKind::Welch);
  EXPECT_TRUE(relClose(planningSd(welch), 0.007951716668732478));
  const SampleSizeResult r = runsNeededForMargin(welch, 0.005);
  EXPECT_TRUE(r.reachable);
  EXPECT_EQ(r.n_per_group, 45u);
  EXPECT_GE(r.achieved_power, 0.8);
  const TTestResult student = tTest(kA, kB, TTestKind::Student);
  EXPECT_EQ(planningSd(student), student.pooled_sd);
}

TEST(DetectableDifference, RejectsBadArguments) {
  EXPECT_THROW(minimumDetectableEffectSize(5.0, 8.0, 0.05, 0.05, Tail::TwoSided),
               std::invalid_argument);  // power must exceed alpha
  EXPECT_THROW(minimumDetectableEffectSize(5.0, 8.0, 0.05, 1.0, Tail::TwoSided),
               std::invalid_argument);
  EXPECT_THROW(minimumDetectableEffectSize(0.0, 8.0, 0.05, 0.8, Tail::TwoSided),
               std::invalid_argument);
  const std::vector<double> flat_a = {0.7, 0.7, 0.7}, flat_b = {0.6, 0.6, 0.6};
  EXPECT_THROW(minimumDetectableDifference(tTest(flat_a, flat_b)), std::invalid_argument);
  EXPECT_THROW(pairedMinimumDetectableDifference(1, 0.01), std::invalid_argument);
  EXPECT_THROW(pairedMinimumDetectableDifference(5, 0.0), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
