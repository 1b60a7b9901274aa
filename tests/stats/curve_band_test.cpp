// The simultaneous band for two backends' mean curves: a shift injected at a known step is found
// there; with no shift, the family-wise false alarm rate over 1,000 simulated studies is at most
// alpha (binomial slack); too few seeds are said to be too few; bad input is refused.
#include "core/stats/curve_band.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace paritylab::stats {
namespace {

// A seed's loss curve: a falling mean plus AR(1) noise (neighbouring steps correlated, as
// step losses of one run are), `shift` added from step `from` on.
std::vector<double> curve(std::mt19937_64& rng, int steps, double shift = 0.0, int from = 0) {
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<double> c(static_cast<std::size_t>(steps));
  double e = 0.0;
  for (int s = 0; s < steps; ++s) {
    e = 0.7 * e + noise(rng);
    c[std::size_t(s)] = 2.0 * std::exp(-s / 15.0) + 0.3 + e + (s >= from ? shift : 0.0);
  }
  return c;
}

std::vector<std::vector<double>> curves(std::mt19937_64& rng, int seeds, int steps,
                                        double shift = 0.0, int from = 0) {
  std::vector<std::vector<double>> out;
  for (int i = 0; i < seeds; ++i) out.push_back(curve(rng, steps, shift, from));
  return out;
}

TEST(CurveBand, AShiftInjectedAtAStepIsFirstFoundThere) {
  std::mt19937_64 rng(11);
  const int steps = 60, at = 35;
  const auto a = curves(rng, 8, steps);
  const auto b = curves(rng, 8, steps, 0.4, at);  // 0.4: several seed-to-seed spreads
  const CurveBandResult r = simultaneousCurveBand(a, b, 0.05, 3, 2000);
  ASSERT_TRUE(r.firstExit);
  EXPECT_EQ(*r.firstExit, std::size_t(at));
  EXPECT_FALSE(r.exhaustive);  // C(16, 8) = 12,870 > 2,000: sampled
  EXPECT_EQ(r.permutations, 2000);
  EXPECT_LT(r.pValue, 0.01);
  EXPECT_NEAR(r.fractionOutside, double(steps - at) / steps, 3.0 / steps);
  for (std::size_t s = 0; s < std::size_t(steps); ++s)
    EXPECT_EQ(std::fabs(r.meanB[s] - r.meanA[s]) > r.halfWidth[s],
              std::fabs(r.t[s]) > r.criticalValue)
        << s;
}

TEST(CurveBand, WithoutAShiftFalseAlarmsOverAllStepsTogetherStayWithinAlpha) {
  std::mt19937_64 rng(5);
  const int studies = 1000;
  int alarms = 0, pointwise = 0;
  for (int k = 0; k < studies; ++k) {
    const auto a = curves(rng, 5, 40), b = curves(rng, 5, 40);
    const CurveBandResult r = simultaneousCurveBand(a, b, 0.05);
    EXPECT_TRUE(r.exhaustive);  // C(10, 5) = 252 assignments
    if (r.firstExit) ++alarms;
    // A pointwise band (|t| > 2.306, Student's 97.5% point at 8 degrees of freedom) at any step.
    for (double t : r.t)
      if (std::fabs(t) > 2.306) {
        ++pointwise;
        break;
      }
  }
  const double rate = double(alarms) / studies;
  RecordProperty("false_alarms", alarms);
  RecordProperty("pointwise_false_alarms", pointwise);
  EXPECT_LE(rate, 0.05 + 3.0 * std::sqrt(0.05 * 0.95 / studies)) << alarms << " alarms";
  EXPECT_GT(double(pointwise) / studies, 0.2) << "a pointwise band would cry wolf";
}

TEST(CurveBand, TwoSeedsEachCanNeverLeaveTheBand) {
  std::mt19937_64 rng(2);
  const auto a = curves(rng, 2, 10);
  const auto b = curves(rng, 2, 10, 5.0, 0);
  const CurveBandResult r = simultaneousCurveBand(a, b, 0.05);
  EXPECT_EQ(r.permutations, 6);
  EXPECT_FALSE(r.canExit);
  EXPECT_FALSE(r.firstExit);
}

TEST(CurveBand, BadInputIsRefusedNamingIt) {
  std::mt19937_64 rng(1);
  const auto a = curves(rng, 3, 10);
  const auto one = curves(rng, 1, 10);
  EXPECT_THROW(simultaneousCurveBand(a, one), std::invalid_argument);
  auto ragged = curves(rng, 3, 10);
  ragged[1].pop_back();
  try {
    simultaneousCurveBand(a, ragged);
    ADD_FAILURE() << "accepted ragged curves";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("curve 4 has 9 steps"), std::string::npos) << e.what();
  }
  auto nan = curves(rng, 3, 10);
  nan[0][3] = std::nan("");
  EXPECT_THROW(simultaneousCurveBand(a, nan), std::invalid_argument);
  EXPECT_THROW(simultaneousCurveBand(a, a, 0.7), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
