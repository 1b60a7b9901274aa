// Welch's ANOVA agrees with statsmodels 0.13 anova_oneway(use_var='unequal') and
// the classic one-way ANOVA with scipy.stats.f_oneway, to 1e-9 relative.
#include "core/stats/anova.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/stats/t_test.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;
const std::vector<double> kC = {0.700, 0.671, 0.722, 0.690, 0.659, 0.710, 0.685};

// from statsmodels.stats.oneway import anova_oneway
// w = anova_oneway([np.array(A), np.array(B), np.array(C)], use_var='unequal',
//                  welch_correction=True)   -> w.statistic, w.pvalue, w.df
// stats.f_oneway(A, B, C)
TEST(Anova, WelchMatchesStatsmodels) {
  const AnovaResult r = welchAnova(std::vector<std::vector<double>>{kA, kB, kC});
  EXPECT_TRUE(r.defined);
  EXPECT_EQ(r.groups, 3u);
  EXPECT_EQ(r.n_total, 28u);
  EXPECT_REL(r.f, 6.163025323908393);
  EXPECT_REL(r.p_value, 0.01376592622696231);
  EXPECT_EQ(r.df1, 2.0);
  EXPECT_REL(r.df2, 12.468715316540665);
}

TEST(Anova, ClassicMatchesScipyFOneway) {
  const AnovaResult r = oneWayAnova(std::vector<std::vector<double>>{kA, kB, kC});
  EXPECT_REL(r.f, 3.4967236701000997);
  EXPECT_REL(r.p_value, 0.04581283076882136);
  EXPECT_EQ(r.df1, 2.0);
  EXPECT_EQ(r.df2, 25.0);
}

// With two groups Welch's F is the square of Welch's t and has the same p-value.
// anova_oneway([A, B], use_var='unequal') -> 12.486800422386452, 0.00235691027107844, df2
TEST(Anova, WelchWithTwoGroupsIsTheWelchTTest) {
  const AnovaResult r = welchAnova(std::vector<std::vector<double>>{kA, kB});
  EXPECT_REL(r.f, 12.486800422386452);
  EXPECT_REL(r.p_value, 0.00235691027107844);
  EXPECT_REL(r.df2, 18.095219739494368);
  const TTestResult t = tTest(kA, kB);
  EXPECT_REL(r.f, t.t * t.t);
  EXPECT_REL(r.p_value, t.p_value);
}

TEST(Anova, RejectsTooFewGroupsOrValues) {
  EXPECT_THROW(welchAnova(std::vector<std::vector<double>>{kA}), std::invalid_argument);
  EXPECT_THROW(oneWayAnova(std::vector<std::vector<double>>{kA, {0.7}}), std::invalid_argument);
}

TEST(Anova, ZeroVarianceGroupMakesWelchUndefined) {
  const AnovaResult r = welchAnova(std::vector<std::vector<double>>{kA, {0.7, 0.7, 0.7}});
  EXPECT_FALSE(r.defined);
  EXPECT_TRUE(std::isnan(r.p_value));
}

}  // namespace
}  // namespace paritylab::stats
