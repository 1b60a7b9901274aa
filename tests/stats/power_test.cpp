// Power analysis. t-test power agrees with statsmodels 0.13 TTestIndPower to
// 1e-9 relative; sample sizes are the ceiling of statsmodels' solve_power; TOST power (a
// Bonferroni lower bound built from exact noncentral-t marginals) agrees with its closed form in
// statsmodels terms and with a Monte-Carlo simulation of the actual TOST.
#include "core/stats/power.h"

#include <gtest/gtest.h>

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "core/stats/descriptive.h"
#include "core/stats/noncentral_t.h"
#include "core/stats/tost.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

// Reference: statsmodels' ttest_power formula, evaluated in SciPy 1.10 with an accurate critical
// value. statsmodels itself calls stats.t.isf, which in SciPy 1.10 (cdflib) is accurate to ~1e-9
// only: t.sf(t.isf(0.05, 38), 38) = 0.05000000024. Boost's quantile is exact to the last bits, so
// the critical value is polished with Newton steps on the accurate t.sf before use:
//   def crit(p, df):
//       c = stats.t.isf(p, df)
//       for _ in range(3): c += (stats.t.sf(c, df) - p) / stats.t.pdf(c, df)
//       return c
//   def power(es, n, alpha, alt):   # = statsmodels.stats.power.ttest_power, nobs = n/2, df = 2n-2
//       df = 2*n - 2; nc = es*np.sqrt(n/2); a = alpha/2 if alt == 'two-sided' else alpha
//       p = 0
//       if alt in ('two-sided', 'larger'): p += stats.nct.sf(crit(a, df), df, nc)
//       if alt in ('two-sided', 'smaller'): p += stats.nct.cdf(-crit(a, df), df, nc)
//       return p
// and, unpolished, TTestIndPower().power(es, n, 0.05, ratio=1, alternative=alt) (1e-8 relative).
TEST(Power, TTestMatchesStatsmodels) {
  struct Case {
    std::size_t n;
    double es;
    Tail tail;
    double power;              // formula above, accurate critical value
    double statsmodels_power;  // TTestIndPower().power(...) as printed by statsmodels 0.13.5
  };
  const Case cases[] = {
      {20, 0.5, Tail::TwoSided, 0.33793902892504113, 0.33793902869253206},
      {20, 0.5, Tail::Greater, 0.46337434929640875, 0.46337435027193596},
      {20, -0.5, Tail::Less, 0.46337434929640875, 0.46337435027193596},
      {5, 1.2, Tail::TwoSided, 0.38643726101220877, 0.386437261065177},
      {100, 0.3, Tail::TwoSided, 0.5600592535808472, 0.5600592535817961},
      {14, 0.467, Tail::TwoSided, 0.22154257972438338, 0.22154257972438388},
      {300, 0.2, Tail::Greater, 0.7886841530521904, 0.7886841530521914},
      {20, 0.5, Tail::Less, 0.0006909466675297793, 0.000690946673033932},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.n) + " " + std::to_string(c.es) + " " + tailName(c.tail));
    const double p = tTestPower(c.n, c.es, 1.0, 0.05, c.tail);
    EXPECT_REL(p, c.power);
    EXPECT_TRUE(testing::relClose(p, c.statsmodels_power, 1e-8));
  }
  // Only delta / sd matters: accuracy units (sd 0.8 points, delta 0.4 points).
  EXPECT_REL(tTestPower(20, 0.004, 0.008), 0.33793902892504113);
  // power(0.8, 12, 0.01, 'two-sided')
  EXPECT_REL(tTestPower(12, 0.8, 1.0, 0.01), 0.22319600177101676);
  // No true difference: power is alpha.
  EXPECT_NEAR(tTestPower(10, 0.0, 1.0, 0.05), 0.05, 1e-12);
}

// pw.solve_power(es, None, 0.05, 0.8, ratio=1, alternative=alt) -> 63.77, 50.15, 16.71, 393.41
TEST(Power, SampleSizeIsTheCeilingOfStatsmodelsSolvePower) {
  struct Case {
    double es;
    Tail tail;
    std::size_t n;
  };
  for (const Case& c : {Case{0.5, Tail::TwoSided, 64}, Case{0.5, Tail::Greater, 51},
                        Case{1.0, Tail::TwoSided, 17}, Case{0.2, Tail::TwoSided, 394}}) {
    const SampleSizeResult r = tTestSampleSize(c.es, 1.0, 0.8, 0.05, c.tail);
    EXPECT_TRUE(r.reachable);
    EXPECT_EQ(r.n_per_group, c.n);
    EXPECT_GE(r.achieved_power, 0.8);
    EXPECT_LT(tTestPower(c.n - 1, c.es, 1.0, 0.05, c.tail), 0.8);
  }
  const SampleSizeResult none = tTestSampleSize(0.0, 1.0, 0.8, 0.05, Tail::TwoSided, 1000);
  EXPECT_FALSE(none.reachable);
  // A one-sided test in the wrong direction never gets power: searched up to the cap quickly.
  const SampleSizeResult wrong_way = tTestSampleSize(0.5, 1.0, 0.8, 0.05, Tail::Less);
  EXPECT_FALSE(wrong_way.reachable);
  EXPECT_EQ(wrong_way.n_per_group, 1'000'000u);
}

// The bound in the same terms (an independent evaluation of the same formula):
//   power((d+m)/sd, n, 0.05, 'larger') + power((d-m)/sd, n, 0.05, 'smaller') - 1
TEST(Power, TostBoundMatchesItsClosedForm) {
  struct Case {
    std::size_t n;
    double d, sd, m, power;
  };
  for (const Case& c :
       {Case{10, 0.0, 1.0, 1.0, 0.3871149838733223}, Case{10, 0.3, 1.0, 1.0, 0.3197964589917537},
        Case{20, 0.0, 0.006, 0.005, 0.654313469497092},
        Case{30, -0.001, 0.006, 0.005, 0.8032102485396457}}) {
    EXPECT_REL(tostPower(c.n, c.d, c.sd, c.m), c.power);
  }
  // Large n: the normal limit 2 Phi(margin / s - z_{1-alpha}) - 1 (t -> z as df = 3998).
  const double s = std::sqrt(2.0 / 2000.0);
  const double z = 1.6448536269514722;
  const double limit = std::erf((0.1 / s - z) / std::sqrt(2.0));  // = 2 Phi(x) - 1
  EXPECT_NEAR(tostPower(2000, 0.0, 1.0, 0.1), limit, 2e-3);
}

// Monte-Carlo simulation of the pooled-variance TOST: the bound is below the simulated power
// (up to simulation error) and close to it.
TEST(Power, TostBoundAgreesWithSimulation) {
  struct Case {
    std::size_t n;
    double d, sd, m;
  };
  std::mt19937_64 rng(20261122);
  constexpr int kReps = 20000;
  for (const Case& c :
       {Case{10, 0.0, 1.0, 1.0}, Case{20, 0.0, 0.006, 0.005}, Case{30, -0.001, 0.006, 0.005}}) {
    std::normal_distribution<double> da(c.d, c.sd), db(0.0, c.sd);
    std::vector<double> a(c.n), b(c.n);
    // The pooled-variance TOST decision, computed directly for speed; the first reps check it
    // against tost() itself.
    const double df = 2.0 * static_cast<double>(c.n) - 2.0;
    const double crit =
        boost::math::quantile(boost::math::complement(boost::math::students_t(df), 0.05));
    int passed = 0;
    for (int rep = 0; rep < kReps; ++rep) {
      for (auto& v : a) v = da(rng);
      for (auto& v : b) v = db(rng);
      const double diff = mean(a) - mean(b);
      const double se =
          std::sqrt((sampleVariance(a) + sampleVariance(b)) / 2.0 * 2.0 / static_cast<double>(c.n));
      const bool equivalent = (diff + c.m) / se > crit && (diff - c.m) / se < -crit;
      if (rep < 300) {
        ASSERT_EQ(equivalent, tost(a, b, c.m, 0.05, TTestKind::Student).equivalent);
      }
      passed += equivalent ? 1 : 0;
    }
    const double simulated = static_cast<double>(passed) / kReps;
    const double bound = tostPower(c.n, c.d, c.sd, c.m);
    const double mc_se = std::sqrt(simulated * (1.0 - simulated) / kReps);
    SCOPED_TRACE("n " + std::to_string(c.n) + " simulated " + std::to_string(simulated) +
                 " bound " + std::to_string(bound));
    EXPECT_LE(bound, simulated + 4.0 * mc_se);
    EXPECT_LT(simulated - bound, 0.02);
  }
}

TEST(Power, TostSampleSize) {
  // sd 0.6 points, margin 0.5 points, no true difference.
  const SampleSizeResult r = tostSampleSize(0.0, 0.006, 0.005, 0.8);
  EXPECT_TRUE(r.reachable);
  EXPECT_GE(r.achieved_power, 0.8);
  EXPECT_LT(tostPower(r.n_per_group - 1, 0.0, 0.006, 0.005), 0.8);
  EXPECT_GE(tostPower(r.n_per_group, 0.0, 0.006, 0.005), 0.8);
  // A true difference at or beyond the margin can never be shown equivalent.
  EXPECT_FALSE(tostSampleSize(0.005, 0.006, 0.005, 0.8).reachable);
}

TEST(Power, NoncentralTIntegralAgreesWithBoostAndCoversHugeNoncentrality) {
  for (double df : {2.0, 8.0, 38.0, 400.0}) {
    for (double nc : {-3.0, 0.0, 1.58, 6.0}) {
      for (double x : {-2.0, 1.686, 4.0}) {
        SCOPED_TRACE(std::to_string(df) + " " + std::to_string(nc) + " " + std::to_string(x));
        const double upper = noncentralTUpper(x, df, nc), lower = noncentralTLower(x, df, nc);
        EXPECT_NEAR(noncentralTByIntegration(x, df, nc, true), upper, 1e-10 * upper + 1e-15);
        EXPECT_NEAR(noncentralTByIntegration(x, df, nc, false), lower, 1e-10 * lower + 1e-15);
      }
    }
  }
  // Boost throws for |nc| > ~6.5e4; the power functions still answer (delta / sd = 1e6).
  EXPECT_NEAR(tTestPower(2, 1.0, 1e-6), 1.0, 1e-12);
  EXPECT_NEAR(tostPower(5, 0.0, 1e-6, 1.0), 1.0, 1e-12);
  // df = 2, nc = 1e5, x = 7e4: P(T <= x) = P(V / 2 >= ((Z + nc) / x)^2) ~ exp(-(1e5/7e4)^2) with
  // Z negligible (relative spread 1e-5).
  EXPECT_NEAR(noncentralTLower(7e4, 2.0, 1e5), std::exp(-std::pow(1e5 / 7e4, 2)), 1e-4);
}

TEST(Power, RejectsBadArguments) {
  EXPECT_THROW(tTestPower(1, 0.5, 1.0), std::invalid_argument);
  EXPECT_THROW(tTestPower(10, 0.5, 0.0), std::invalid_argument);
  EXPECT_THROW(tTestPower(10, 0.5, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(tTestSampleSize(0.5, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(tostPower(10, 0.0, 1.0, 0.0), std::invalid_argument);
  EXPECT_THROW(tostSampleSize(0.0, 1.0, -1.0), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
