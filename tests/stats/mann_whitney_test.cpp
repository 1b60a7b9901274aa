// Mann-Whitney U agrees with scipy.stats.mannwhitneyu (SciPy 1.10 defaults:
// method='auto', use_continuity=True) to 1e-9 relative: exact (small, no ties) and asymptotic
// (ties, or both samples > 8) cases, all tails.
#include "core/stats/mann_whitney.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

struct MwCase {
  Tail tail;
  double u, p;
};

void expectCases(const std::vector<double>& x, const std::vector<double>& y,
                 MannWhitneyMethod method, MannWhitneyMethod expected_method,
                 std::initializer_list<MwCase> cases, bool continuity = true) {
  for (const MwCase& c : cases) {
    SCOPED_TRACE(tailName(c.tail));
    const MannWhitneyResult r = mannWhitneyU(x, y, c.tail, method, continuity);
    EXPECT_EQ(r.method, expected_method);
    EXPECT_EQ(r.u, c.u);
    EXPECT_EQ(r.u + r.u_b, static_cast<double>(x.size() * y.size()));
    EXPECT_REL(r.p_value, c.p);
  }
}

const std::vector<double> kX = {0.712, 0.698, 0.705, 0.721, 0.689, 0.701};
const std::vector<double> kY = {0.702, 0.691, 0.688, 0.695, 0.699, 0.684, 0.693};

// for alt in ['two-sided', 'less', 'greater']: stats.mannwhitneyu(X, Y, alternative=alt)
//                                              stats.mannwhitneyu(Y, X, alternative=alt)
TEST(MannWhitney, ExactSmallSamplesNoTies) {
  expectCases(kX, kY, MannWhitneyMethod::Auto, MannWhitneyMethod::Exact,
              {{Tail::TwoSided, 34.0, 0.07342657342657342},
               {Tail::Less, 34.0, 0.9743589743589745},
               {Tail::Greater, 34.0, 0.03671328671328671}});
  expectCases(kY, kX, MannWhitneyMethod::Auto, MannWhitneyMethod::Exact,
              {{Tail::TwoSided, 8.0, 0.07342657342657342},
               {Tail::Less, 8.0, 0.03671328671328671},
               {Tail::Greater, 8.0, 0.9743589743589745}});
  const MannWhitneyResult r = mannWhitneyU(kX, kY);
  EXPECT_FALSE(r.ties);
  EXPECT_REL(r.rank_biserial, 2.0 * 34.0 / 42.0 - 1.0);
}

// rng = np.random.default_rng(7)
// P = list(np.round(rng.normal(0.70, 0.01, 8), 6)); Q = list(np.round(rng.normal(0.695, 0.01, 20),
// 6)) stats.mannwhitneyu(P, Q, alternative=alt); stats.mannwhitneyu(P, Q, alternative=alt,
// method='asymptotic')
const std::vector<double> kP = {0.700012, 0.702987, 0.697259, 0.691094,
                                0.695453, 0.690084, 0.700601, 0.713402};
const std::vector<double> kQ = {0.690078, 0.688795, 0.699898, 0.698569, 0.696054,
                                0.685695, 0.694707, 0.701953, 0.681558, 0.690424,
                                0.675988, 0.682105, 0.676583, 0.692649, 0.682326,
                                0.697713, 0.696568, 0.693131, 0.669832, 0.689613};

TEST(MannWhitney, AutoIsExactWhenOneSampleHasEightValues) {
  expectCases(kP, kQ, MannWhitneyMethod::Auto, MannWhitneyMethod::Exact,
              {{Tail::TwoSided, 129.0, 0.011370915718741804},
               {Tail::Less, 129.0, 0.9951912821478037},
               {Tail::Greater, 129.0, 0.005685457859370902}});
  expectCases(kP, kQ, MannWhitneyMethod::Asymptotic, MannWhitneyMethod::Asymptotic,
              {{Tail::TwoSided, 129.0, 0.013645749445483076},
               {Tail::Less, 129.0, 0.9940872761426114},
               {Tail::Greater, 129.0, 0.006822874722741538}});
}

// R = list(np.round(rng.normal(0.70, 0.01, 9), 6)); S = list(np.round(rng.normal(0.694, 0.01, 9),
// 6)) (continuing the same rng); stats.mannwhitneyu(R, S, alternative=alt)
TEST(MannWhitney, AutoIsAsymptoticWhenBothSamplesExceedEight) {
  const std::vector<double> r = {0.699515, 0.701133, 0.684699, 0.695222, 0.690215,
                                 0.691912, 0.710609, 0.691925, 0.699675};
  const std::vector<double> s = {0.702844, 0.688164, 0.692883, 0.695105, 0.694638,
                                 0.681749, 0.694761, 0.707588, 0.678529};
  expectCases(r, s, MannWhitneyMethod::Auto, MannWhitneyMethod::Asymptotic,
              {{Tail::TwoSided, 48.0, 0.5364994693194564},
               {Tail::Less, 48.0, 0.7600356539270214},
               {Tail::Greater, 48.0, 0.2682497346597282}});
}

// T1 = [0.70, 0.71, 0.69, 0.70, 0.72, 0.70, 0.68]; T2 = [0.69, 0.70, 0.68, 0.69, 0.67, 0.69]
// stats.mannwhitneyu(T1, T2, alternative=alt[, use_continuity=False])
TEST(MannWhitney, TiesUseTheNormalApproximationWithTieCorrection) {
  const std::vector<double> t1 = {0.70, 0.71, 0.69, 0.70, 0.72, 0.70, 0.68};
  const std::vector<double> t2 = {0.69, 0.70, 0.68, 0.69, 0.67, 0.69};
  expectCases(t1, t2, MannWhitneyMethod::Auto, MannWhitneyMethod::Asymptotic,
              {{Tail::TwoSided, 33.5, 0.0773984831761555},
               {Tail::Less, 33.5, 0.9721355518392889},
               {Tail::Greater, 33.5, 0.03869924158807775}});
  expectCases(t1, t2, MannWhitneyMethod::Auto, MannWhitneyMethod::Asymptotic,
              {{Tail::TwoSided, 33.5, 0.06583183628525166},
               {Tail::Less, 33.5, 0.9670840818573742},
               {Tail::Greater, 33.5, 0.03291591814262583}},
              /*continuity=*/false);
  EXPECT_TRUE(mannWhitneyU(t1, t2).ties);
}

TEST(MannWhitney, ExactDistributionSumsToOneAndIsSymmetric) {
  // C(10, 5) = 252 arrangements; P(U <= 0) = 1/252; symmetric: P(U <= k) = 1 - P(U <= 24 - k).
  EXPECT_REL(mannWhitneyExactCdf(0, 5, 5), 1.0 / 252.0);
  EXPECT_EQ(mannWhitneyExactCdf(25, 5, 5), 1.0);
  for (long long k = 0; k < 25; ++k) {
    EXPECT_NEAR(mannWhitneyExactCdf(k, 5, 5) + mannWhitneyExactCdf(24 - k, 5, 5), 1.0, 1e-15);
  }
  EXPECT_EQ(mannWhitneyExactCdf(7, 3, 9), mannWhitneyExactCdf(7, 9, 3));
  // A large exact case (8 x 400: C(408, 8) ~ 2.6e15 arrangements) stays finite and in [0, 1].
  const double mid = mannWhitneyExactCdf(1600, 8, 400);
  EXPECT_GT(mid, 0.5);
  EXPECT_LT(mid, 0.52);
}

TEST(MannWhitney, ExactFeasibilityAndAutoFallback) {
  EXPECT_TRUE(mannWhitneyExactFeasible(8, 100000));
  EXPECT_TRUE(mannWhitneyExactFeasible(60, 60));
  EXPECT_FALSE(mannWhitneyExactFeasible(70, 70));     // C(140, 70) > 2^126
  EXPECT_FALSE(mannWhitneyExactFeasible(8, 250000));  // C(250008, 8) > 2^126 (and > 2e6 cells)
  std::vector<double> small = {0.1, 0.2}, large(250000);
  for (std::size_t i = 0; i < large.size(); ++i) large[i] = 0.3 + 1e-7 * static_cast<double>(i);
  EXPECT_EQ(mannWhitneyU(small, large).method, MannWhitneyMethod::Exact);  // C(250002, 2) fits
  std::vector<double> eight(8);
  for (std::size_t i = 0; i < 8; ++i) eight[i] = 0.01 * static_cast<double>(i);
  EXPECT_EQ(mannWhitneyU(eight, large).method, MannWhitneyMethod::Asymptotic);
  EXPECT_THROW(mannWhitneyU(eight, large, Tail::TwoSided, MannWhitneyMethod::Exact),
               std::invalid_argument);
}

TEST(MannWhitney, AllValuesTiedGivesPOne) {
  const std::vector<double> a = {0.7, 0.7, 0.7}, b = {0.7, 0.7};
  const MannWhitneyResult r = mannWhitneyU(a, b);
  EXPECT_EQ(r.p_value, 1.0);
  EXPECT_EQ(r.rank_biserial, 0.0);
}

TEST(MannWhitney, RejectsEmptyAndNaN) {
  const std::vector<double> empty, nan = {0.7, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(mannWhitneyU(empty, kY), std::invalid_argument);
  EXPECT_THROW(mannWhitneyU(kX, nan), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
