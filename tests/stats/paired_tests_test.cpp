// The paired t-test and the Wilcoxon signed-rank test on seed-matched
// accuracies, against SciPy 1.10.1 (ttest_rel with confidence_interval; wilcoxon with its
// defaults: zero_method='wilcox', correction=False, method='auto').
#include "core/stats/paired_tests.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

const std::vector<double> kPairedA = {0.712, 0.698, 0.705, 0.721, 0.689, 0.701, 0.715, 0.694};
const std::vector<double> kPairedB = {0.702, 0.691, 0.708, 0.695, 0.699, 0.684, 0.693, 0.690};

// r = ttest_rel(a, b, alternative=alt); r.confidence_interval(0.95). The CI bounds are compared
// to 1e-11 absolute, 1e-9 of the half-width (SciPy's t quantile and Boost's differ in the last
// ~1e-10, which a bound near 0 shows as a large relative error).
TEST(PairedTTest, MatchesScipyTtestRel) {
  const PairedTTestResult two = pairedTTest(kPairedA, kPairedB);
  EXPECT_EQ(two.n, 8u);
  EXPECT_EQ(two.df, 7.0);
  EXPECT_REL(two.mean_diff, 0.009124999999999994);
  EXPECT_REL(two.sd_diff, 0.012287479109123355);
  EXPECT_REL(two.t, 2.1004631856623623);
  EXPECT_REL(two.p_value, 0.07382069082807936);
  EXPECT_NEAR(two.ci_low, -0.00114758960678466, 1e-11);
  EXPECT_NEAR(two.ci_high, 0.01939758960678465, 1e-11);
  const PairedTTestResult less = pairedTTest(kPairedA, kPairedB, Tail::Less);
  EXPECT_REL(less.p_value, 0.9630896545859603);
  EXPECT_EQ(less.ci_low, -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(less.ci_high, 0.01735557975459482, 1e-11);
  const PairedTTestResult greater = pairedTTest(kPairedA, kPairedB, Tail::Greater);
  EXPECT_REL(greater.p_value, 0.03691034541403968);
  EXPECT_NEAR(greater.ci_low, 0.0008944202454051666, 1e-11);
  EXPECT_EQ(greater.ci_high, std::numeric_limits<double>::infinity());
  // alpha 0.10: confidence_interval(0.90)
  const PairedTTestResult ninety = pairedTTest(kPairedA, kPairedB, Tail::TwoSided, 0.10);
  EXPECT_NEAR(ninety.ci_low, 0.0008944202454051649, 1e-11);
  EXPECT_NEAR(ninety.ci_high, 0.01735557975459482, 1e-11);
}

TEST(PairedTTest, ConstantDifferencesAreUndefinedAndBadInputThrows) {
  const std::vector<double> a = {1.5, 2.5, 3.5}, b = {1.0, 2.0, 3.0};  // d = 0.5 exactly
  const PairedTTestResult r = pairedTTest(a, b);
  EXPECT_FALSE(r.defined);
  EXPECT_TRUE(std::isnan(r.p_value));
  const std::vector<double> short_b = {0.6, 0.7};
  EXPECT_THROW(pairedTTest(a, short_b), std::invalid_argument);
  const std::vector<double> one = {0.7};
  EXPECT_THROW(pairedTTest(one, one), std::invalid_argument);
}

// wilcoxon(a, b, alternative=alt). The differences hold +-0.010000000000000009 (tied |d|), so
// R+ = 30.5; SciPy's exact path truncates it to 30.
TEST(Wilcoxon, ExactMatchesScipy) {
  const WilcoxonResult two = wilcoxonSignedRank(kPairedA, kPairedB);
  EXPECT_TRUE(two.exact);
  EXPECT_EQ(two.r_plus, 30.5);
  EXPECT_EQ(two.statistic, 5.5);
  EXPECT_REL(two.p_value, 0.109375);
  const WilcoxonResult less = wilcoxonSignedRank(kPairedA, kPairedB, Tail::Less);
  EXPECT_EQ(less.statistic, 30.5);
  EXPECT_REL(less.p_value, 0.9609375);
  const WilcoxonResult greater = wilcoxonSignedRank(kPairedA, kPairedB, Tail::Greater);
  EXPECT_REL(greater.p_value, 0.0546875);

  // d = [0.5, -0.5, 1, 1, -0.5, 2]: ties, no zeros, exact.
  const std::vector<double> a = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0};
  const std::vector<double> b = {0.5, 2.5, 2.0, 3.0, 5.5, 4.0};
  EXPECT_EQ(wilcoxonSignedRank(a, b).statistic, 4.0);
  EXPECT_REL(wilcoxonSignedRank(a, b).p_value, 0.21875);
  EXPECT_REL(wilcoxonSignedRank(a, b, Tail::Greater).p_value, 0.109375);
  EXPECT_REL(wilcoxonSignedRank(a, b, Tail::Less).p_value, 0.921875);
}

TEST(Wilcoxon, NormalApproximationWithZerosAndForLargeSamples) {
  // A zero difference switches SciPy to the normal approximation, zeros dropped ('wilcox').
  std::vector<double> a = kPairedA, b = kPairedB;
  a.push_back(0.7);
  b.push_back(0.7);
  const WilcoxonResult z = wilcoxonSignedRank(a, b);
  EXPECT_FALSE(z.exact);
  EXPECT_EQ(z.zeros, 1u);
  EXPECT_EQ(z.n_used, 8u);
  EXPECT_EQ(z.statistic, 5.5);
  EXPECT_REL(z.p_value, 0.07968802567429142);
  // 60 pairs (3 zero differences, tied |d|): wilcoxon -> 793.0, p 0.7900769517467385;
  // alternative='greater' -> 860.0, p 0.39503847587336927.
  std::vector<double> a60, b60;
  for (int i = 0; i < 60; ++i) {
    a60.push_back(0.70 + ((i * 7919) % 1000) / 1e4);
    b60.push_back(0.70 + ((i * 104729) % 997) / 1e4);
  }
  const WilcoxonResult big = wilcoxonSignedRank(a60, b60);
  EXPECT_FALSE(big.exact);
  EXPECT_EQ(big.zeros, 3u);
  EXPECT_EQ(big.statistic, 793.0);
  EXPECT_REL(big.p_value, 0.7900769517467385);
  const WilcoxonResult big_greater = wilcoxonSignedRank(a60, b60, Tail::Greater);
  EXPECT_EQ(big_greater.statistic, 860.0);
  EXPECT_REL(big_greater.p_value, 0.39503847587336927);
}

TEST(Wilcoxon, ExactDistributionAndErrors) {
  // n = 3: R+ takes 0,1,2,3,3,4,5,6 over the 8 sign patterns.
  EXPECT_DOUBLE_EQ(wilcoxonExactCdf(3, 3), 5.0 / 8.0);
  EXPECT_DOUBLE_EQ(wilcoxonExactCdf(-1, 3), 0.0);
  EXPECT_DOUBLE_EQ(wilcoxonExactCdf(6, 3), 1.0);
  const std::vector<double> same = {0.7, 0.8};
  EXPECT_THROW(wilcoxonSignedRank(same, same), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
