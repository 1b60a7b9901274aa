// Welch/Student t-tests, all tails, CIs, Cohen's d, Hedges' g and the descriptive
// summary agree with SciPy 1.10 / statsmodels 0.13 to 1e-9 relative.
#include "core/stats/t_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/stats/descriptive.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;
constexpr double kInf = std::numeric_limits<double>::infinity();

// import numpy as np; from scipy import stats
// np.mean(A), np.std(A, ddof=1), np.var(A, ddof=1), stats.sem(A), np.median(A), np.median(B)
// stats.t.interval(0.95, len(A)-1, loc=np.mean(A), scale=stats.sem(A))
TEST(Summary, MatchesNumpyAndScipy) {
  const Summary s = summarize(kA);
  EXPECT_EQ(s.n, 12u);
  EXPECT_REL(s.mean, 0.7051666666666666);
  EXPECT_REL(s.sd, 0.009721890326225228);
  EXPECT_REL(s.variance, 9.451515151515166e-05);
  EXPECT_REL(s.sem, 0.002806467998439077);
  EXPECT_REL(s.median, 0.704);
  EXPECT_REL(s.ci_low, 0.6989896722498545);
  EXPECT_REL(s.ci_high, 0.7113436610834787);
  EXPECT_EQ(s.min, 0.689);
  EXPECT_EQ(s.max, 0.721);
  EXPECT_REL(summarize(kB).median, 0.693);  // odd n
}

TEST(Summary, SingleValueHasNoSpread) {
  const double one[] = {0.5};
  const Summary s = summarize(one);
  EXPECT_EQ(s.mean, 0.5);
  EXPECT_EQ(s.median, 0.5);
  EXPECT_TRUE(std::isnan(s.sd));
  EXPECT_TRUE(std::isnan(s.ci_low));
}

struct TCase {
  TTestKind kind;
  Tail tail;
  double t, p, df, ci_low, ci_high;
};

// cm = CompareMeans.from_data(np.array(A), np.array(B))   (statsmodels.stats.weightstats)
// for eq, uv in [(False, 'unequal'), (True, 'pooled')]:
//   for alt, smalt in [('two-sided','two-sided'), ('less','smaller'), ('greater','larger')]:
//     t = stats.ttest_ind(A, B, equal_var=eq, alternative=alt)
//     ci = cm.tconfint_diff(alpha=0.05, alternative=smalt, usevar=uv)
//     df = cm.ttest_ind(alternative=smalt, usevar=uv)[2]
const TCase kCases[] = {
    {TTestKind::Welch, Tail::TwoSided, 3.533666710710909, 0.0023569102710784343, 18.095219739494368,
     0.004845618578503985, 0.01904327031038531},
    {TTestKind::Welch, Tail::Less, 3.533666710710909, 0.9988215448644608, 18.095219739494368, -kInf,
     0.017804228367089586},
    {TTestKind::Welch, Tail::Greater, 3.533666710710909, 0.0011784551355392171, 18.095219739494368,
     0.0060846605217997046, kInf},
    {TTestKind::Student, Tail::TwoSided, 3.280747768857988, 0.003932169703858837, 19.0,
     0.004324227560941986, 0.019564661327947305},
    {TTestKind::Student, Tail::Less, 3.280747768857988, 0.9980339151480706, 19.0, -kInf,
     0.018239817407990806},
    {TTestKind::Student, Tail::Greater, 3.280747768857988, 0.0019660848519294184, 19.0,
     0.0056490714808984845, kInf},
};

TEST(TTest, MatchesScipyAndStatsmodelsForBothKindsAndAllTails) {
  for (const TCase& c : kCases) {
    SCOPED_TRACE(std::string(kindName(c.kind)) + " " + tailName(c.tail));
    const TTestResult r = tTest(kA, kB, c.kind, c.tail, 0.05);
    EXPECT_TRUE(r.defined);
    EXPECT_EQ(r.n_a, 12u);
    EXPECT_EQ(r.n_b, 9u);
    EXPECT_REL(r.t, c.t);
    EXPECT_REL(r.p_value, c.p);
    EXPECT_REL(r.df, c.df);
    EXPECT_REL(r.ci_low, c.ci_low);
    EXPECT_REL(r.ci_high, c.ci_high);
    EXPECT_REL(r.mean_diff, r.mean_a - r.mean_b);
  }
}

// Swapping the samples flips t and the difference and swaps Less/Greater.
TEST(TTest, SwappingSamplesMirrorsTheResult) {
  const TTestResult ab = tTest(kA, kB, TTestKind::Welch, Tail::Greater);
  const TTestResult ba = tTest(kB, kA, TTestKind::Welch, Tail::Less);
  EXPECT_REL(ba.t, -ab.t);
  EXPECT_REL(ba.p_value, ab.p_value);
  EXPECT_REL(ba.ci_high, -ab.ci_low);
}

// na, nb = len(A), len(B); df = na + nb - 2
// sp = np.sqrt(((na-1)*np.var(A, ddof=1) + (nb-1)*np.var(B, ddof=1)) / df)
// d = (np.mean(A) - np.mean(B)) / sp
// J = special.gamma(df/2) / (np.sqrt(df/2) * special.gamma((df-1)/2)); g = d * J
TEST(TTest, CohensDAndHedgesGWithExactCorrection) {
  for (TTestKind kind : {TTestKind::Welch, TTestKind::Student}) {  // effect size is kind-free
    const TTestResult r = tTest(kA, kB, kind);
    EXPECT_REL(r.cohens_d, 1.4466737851213753);
    EXPECT_REL(r.hedges_j, 0.9599103529242536);
    EXPECT_REL(r.hedges_g, 1.3886771436421252);
  }
  // J(2) = 1 / sqrt(pi); J(100) = exp(gammaln(50) - gammaln(49.5)) / sqrt(50)
  EXPECT_REL(hedgesCorrection(2.0), 0.5641895835477563);
  EXPECT_REL(hedgesCorrection(100.0), 0.9924780549814028);
  EXPECT_NEAR(hedgesCorrection(1e6), 1.0 - 3.0 / (4.0 * 1e6 - 1.0), 1e-12);  // Hedges' approx.
}

TEST(TTest, ZeroVarianceInBothGroupsIsUndefinedNotACrash) {
  const double a[] = {0.7, 0.7, 0.7}, b[] = {0.69, 0.69};
  const TTestResult r = tTest(a, b);
  EXPECT_FALSE(r.defined);
  EXPECT_TRUE(std::isnan(r.p_value));
  EXPECT_EQ(r.se, 0.0);
  EXPECT_NEAR(r.mean_diff, 0.01, 1e-15);
}

TEST(TTest, ZeroVarianceInOneGroupStillWorks) {
  const double a[] = {0.7, 0.7, 0.7}, b[] = {0.69, 0.70, 0.68};
  const TTestResult r = tTest(a, b);
  EXPECT_TRUE(r.defined);
  EXPECT_NEAR(r.df, 2.0, 1e-12);  // all the variance comes from b
}

TEST(TTest, RejectsBadInputNamingTheArgument) {
  const double one[] = {0.7};
  const double nan_sample[] = {0.7, std::numeric_limits<double>::quiet_NaN(), 0.69};
  auto message = [](auto fn) {
    try {
      fn();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message([&] { tTest(one, kB); }).find("sample 'a' has 1 value"), std::string::npos);
  EXPECT_NE(message([&] { tTest(kA, nan_sample); }).find("sample 'b' value #1 is nan"),
            std::string::npos);
  EXPECT_NE(
      message([&] { tTest(kA, kB, TTestKind::Welch, Tail::TwoSided, 1.5); }).find("alpha = 1.5"),
      std::string::npos);
  EXPECT_THROW(tTest(kA, kB, TTestKind::Welch, Tail::TwoSided, 0.0), std::invalid_argument);
  EXPECT_THROW(summarize(std::span<const double>{}), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
