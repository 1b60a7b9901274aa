// TOST equivalence agrees with statsmodels 0.13 ttost_ind (usevar 'unequal' and
// 'pooled') to 1e-9 relative, and its (1 - 2 alpha) CI with CompareMeans.tconfint_diff.
#include "core/stats/tost.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;

struct TostCase {
  double margin;
  TTestKind kind;
  double p, t_lower, p_lower, t_upper, p_upper, df, ci_low, ci_high;
  bool equivalent;
};

// from statsmodels.stats.weightstats import ttost_ind, CompareMeans
// for m in [0.005, 0.02]:
//   for uv in ['unequal', 'pooled']:
//     p, lo, up = ttost_ind(A, B, -m, m, usevar=uv)   # lo/up = (t, p, df)
// CompareMeans.from_data(np.array(A), np.array(B)).tconfint_diff(alpha=0.10, usevar=uv)
const TostCase kTostCases[] = {
    {0.005, TTestKind::Welch, 0.9726674280187686, 5.012876031473683, 4.4459959568818104e-05,
     2.054457389948266, 0.9726674280187686, 18.095219739494368, 0.006084660521799706,
     0.017804228367089586, false},
    {0.005, TTestKind::Student, 0.9641500487268267, 4.6540840441939535, 8.64793353586879e-05,
     1.9074114935221447, 0.9641500487268267, 19.0, 0.005649071480898487, 0.018239817407990806,
     false},
    {0.02, TTestKind::Welch, 0.014163224995714077, 9.450503993761808, 1.008919471787404e-08,
     -2.3831705723398593, 0.014163224995714077, 18.095219739494368, 0.006084660521799706,
     0.017804228367089586, true},
    {0.02, TTestKind::Student, 0.01968367008090685, 8.774092870201667, 2.0700668963071926e-08,
     -2.212597332485568, 0.01968367008090685, 19.0, 0.005649071480898487, 0.018239817407990806,
     true},
};

TEST(Tost, MatchesStatsmodelsTtostInd) {
  for (const TostCase& c : kTostCases) {
    SCOPED_TRACE(std::string(kindName(c.kind)) + " margin " + std::to_string(c.margin));
    const TostResult r = tost(kA, kB, c.margin, 0.05, c.kind);
    EXPECT_TRUE(r.defined);
    EXPECT_REL(r.p_value, c.p);
    EXPECT_REL(r.t_lower, c.t_lower);
    EXPECT_REL(r.p_lower, c.p_lower);
    EXPECT_REL(r.t_upper, c.t_upper);
    EXPECT_REL(r.p_upper, c.p_upper);
    EXPECT_REL(r.df, c.df);
    EXPECT_REL(r.ci_low, c.ci_low);
    EXPECT_REL(r.ci_high, c.ci_high);
    EXPECT_EQ(r.equivalent, c.equivalent);
    // Equivalence at alpha <=> the (1 - 2 alpha) CI lies inside the margins.
    EXPECT_EQ(r.equivalent, r.ci_low > -c.margin && r.ci_high < c.margin);
  }
}

TEST(Tost, RejectsBadMarginAndAlpha) {
  EXPECT_THROW(tost(kA, kB, 0.0, 0.05), std::invalid_argument);
  EXPECT_THROW(tost(kA, kB, -0.01, 0.05), std::invalid_argument);
  EXPECT_THROW(tost(kA, kB, 0.01, 0.5), std::invalid_argument);
  EXPECT_THROW(tost(kA, kB, std::numeric_limits<double>::infinity(), 0.05), std::invalid_argument);
  try {
    tost(kA, kB, -0.01, 0.05);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("margin = -0.01"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace paritylab::stats
