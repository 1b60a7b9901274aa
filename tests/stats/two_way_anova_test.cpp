// Two-way ANOVA with interaction: type II and type III sums of squares of an unbalanced 2 x 3
// design against an exact rational computation (tests/stats/two_way_anova_reference.py: the
// normal equations of each effect-coded model solved in fractions), a balanced design against
// the textbook closed forms (where the two types agree), p-values against the closed form of
// the F distribution's tail for 2 numerator degrees of freedom, and the refusals.
#include "core/stats/two_way_anova.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace paritylab::stats {
namespace {

std::vector<FactorialObservation> unbalanced() {
  return {{0, 0, 5.1}, {0, 0, 4.8}, {0, 0, 5.6}, {0, 1, 6.2}, {0, 1, 6.9}, {0, 2, 7.1},
          {0, 2, 7.4}, {0, 2, 6.8}, {0, 2, 7.9}, {1, 0, 4.2}, {1, 0, 4.9}, {1, 1, 5.0},
          {1, 1, 5.4}, {1, 1, 4.7}, {1, 2, 8.3}, {1, 2, 8.8}, {1, 2, 7.9}};
}

// P(F(2, d) >= f) = (d / (d + 2 f))^(d / 2): the tail for 2 numerator degrees of freedom.
double tailOfF2(double f, double d) {
  return std::pow(d / (d + 2 * f), d / 2);
}

void expectRelative(double actual, double expected, const std::string& what) {
  EXPECT_NEAR(actual, expected, 1e-10 * std::max(1.0, std::abs(expected))) << what;
}

TEST(TwoWayAnova, UnbalancedTypeIIAgreesWithExactArithmetic) {
  const TwoWayAnovaResult r =
      twoWayAnova(unbalanced(), 2, 3, SumsOfSquares::TypeII, "weight_decay", "backend");
  EXPECT_FALSE(r.balanced);
  ASSERT_EQ(r.rows.size(), 4u);
  EXPECT_EQ(r.rows[0].effect, "weight_decay");
  EXPECT_EQ(r.rows[1].effect, "backend");
  EXPECT_EQ(r.interaction().effect, "weight_decay:backend");
  EXPECT_EQ(r.rows[3].effect, "residual");
  expectRelative(r.rows[0].sumOfSquares, 0.15114285714285713, "A");
  expectRelative(r.rows[1].sumOfSquares, 26.109555555555556, "B");
  expectRelative(r.rows[2].sumOfSquares, 4.896, "A:B");
  expectRelative(r.rows[3].sumOfSquares, 2.13, "residual");
  EXPECT_EQ(r.rows[0].df, 1.0);
  EXPECT_EQ(r.rows[1].df, 2.0);
  EXPECT_EQ(r.rows[2].df, 2.0);
  EXPECT_EQ(r.rows[3].df, 11.0);
  const double ms = 2.13 / 11;
  expectRelative(r.rows[1].f, 26.109555555555556 / 2 / ms, "F of B");
  expectRelative(r.interaction().f, 4.896 / 2 / ms, "F of A:B");
  expectRelative(r.rows[1].p_value, tailOfF2(r.rows[1].f, 11), "p of B");
  expectRelative(r.interaction().p_value, tailOfF2(r.interaction().f, 11), "p of A:B");
  EXPECT_TRUE(std::isnan(r.rows[3].f));
}

TEST(TwoWayAnova, UnbalancedTypeIIIAgreesWithExactArithmetic) {
  const TwoWayAnovaResult r = twoWayAnova(unbalanced(), 2, 3, SumsOfSquares::TypeIII);
  expectRelative(r.rows[0].sumOfSquares, 0.5377777777777778, "A");
  expectRelative(r.rows[1].sumOfSquares, 26.924277777777778, "B");
  expectRelative(r.rows[2].sumOfSquares, 4.896, "A:B");
  expectRelative(r.rows[3].sumOfSquares, 2.13, "residual");
}

TEST(TwoWayAnova, BalancedDesignMatchesTheClosedFormsAndBothTypesAgree) {
  // 3 x 2 cells of 4: y = a + 2 b + (a == 2 && b == 1) + noise, the noise fixed.
  const double noise[] = {0.3, -0.1, 0.4, -0.6};
  std::vector<FactorialObservation> obs;
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 2; ++b)
      for (int i = 0; i < 4; ++i)
        obs.push_back({a, b,
                       double(a) + 2.0 * double(b) + (a == 2 && b == 1 ? 1.5 : 0.0) +
                           noise[(i + a + b) % 4]});
  // Textbook sums of squares from the cell, row, column and grand means.
  double grand = 0, cell[3][2] = {}, rowMean[3] = {}, colMean[2] = {};
  for (const FactorialObservation& o : obs) {
    grand += o.y / 24;
    cell[o.a][o.b] += o.y / 4;
    rowMean[o.a] += o.y / 8;
    colMean[o.b] += o.y / 12;
  }
  double ssA = 0, ssB = 0, ssAB = 0, ssE = 0;
  for (std::size_t a = 0; a < 3; ++a) ssA += 8 * std::pow(rowMean[a] - grand, 2);
  for (std::size_t b = 0; b < 2; ++b) ssB += 12 * std::pow(colMean[b] - grand, 2);
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 2; ++b)
      ssAB += 4 * std::pow(cell[a][b] - rowMean[a] - colMean[b] + grand, 2);
  for (const FactorialObservation& o : obs) ssE += std::pow(o.y - cell[o.a][o.b], 2);
  for (SumsOfSquares type : {SumsOfSquares::TypeII, SumsOfSquares::TypeIII}) {
    const TwoWayAnovaResult r = twoWayAnova(obs, 3, 2, type);
    EXPECT_TRUE(r.balanced);
    expectRelative(r.rows[0].sumOfSquares, ssA, "A");
    expectRelative(r.rows[1].sumOfSquares, ssB, "B");
    expectRelative(r.rows[2].sumOfSquares, ssAB, "A:B");
    expectRelative(r.rows[3].sumOfSquares, ssE, "residual");
    EXPECT_EQ(r.rows[3].df, 18.0);
    expectRelative(r.interaction().p_value, tailOfF2(r.interaction().f, 18), "p of A:B");
  }
}

TEST(TwoWayAnova, SimpleEffectsAreEachLevelsWelchTestHolmAdjusted) {
  const std::vector<FactorialObservation> obs = unbalanced();
  // B level 2 against level 0 at each level of A.
  const std::vector<SimpleEffect> effects = simpleEffects(obs, 2, 0, 2);
  ASSERT_EQ(effects.size(), 2u);
  const std::vector<double> at0b0 = {5.1, 4.8, 5.6}, at0b2 = {7.1, 7.4, 6.8, 7.9};
  const std::vector<double> at1b0 = {4.2, 4.9}, at1b2 = {8.3, 8.8, 7.9};
  const TTestResult t0 = tTest(at0b2, at0b0), t1 = tTest(at1b2, at1b0);
  EXPECT_EQ(effects[0].levelA, 0u);
  EXPECT_DOUBLE_EQ(effects[0].test.mean_diff, 7.3 - 5.166666666666667);
  EXPECT_DOUBLE_EQ(effects[0].test.p_value, t0.p_value);
  EXPECT_DOUBLE_EQ(effects[1].test.p_value, t1.p_value);
  // Holm over two: the smaller p doubled, the larger at least that (and its own).
  const double lo = std::min(t0.p_value, t1.p_value), hi = std::max(t0.p_value, t1.p_value);
  const double holmLo = std::min(1.0, 2 * lo), holmHi = std::max(holmLo, hi);
  EXPECT_DOUBLE_EQ(std::min(effects[0].p_holm, effects[1].p_holm), holmLo);
  EXPECT_DOUBLE_EQ(std::max(effects[0].p_holm, effects[1].p_holm), holmHi);
  EXPECT_THROW(simpleEffects(obs, 2, 1, 1), std::invalid_argument);
  std::vector<FactorialObservation> thin = obs;
  std::erase_if(thin, [](const FactorialObservation& o) { return o.a == 1 && o.b == 0; });
  thin.push_back({1, 0, 4.4});
  EXPECT_THROW(simpleEffects(thin, 2, 0, 2), std::invalid_argument);
}

TEST(TwoWayAnova, RefusesWhatItCannotTestNamingIt) {
  std::vector<FactorialObservation> obs = unbalanced();
  std::erase_if(obs, [](const FactorialObservation& o) { return o.a == 1 && o.b == 1; });
  try {
    twoWayAnova(obs, 2, 3, SumsOfSquares::TypeII, "batch_size", "backend");
    ADD_FAILURE() << "an empty cell was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no observation at batch_size level 1, backend level 1"),
              std::string::npos)
        << e.what();
  }
  const std::vector<FactorialObservation> onePerCell = {{0, 0, 1}, {0, 1, 2}, {1, 0, 3}, {1, 1, 5}};
  EXPECT_THROW(twoWayAnova(onePerCell, 2, 2, SumsOfSquares::TypeII), std::invalid_argument);
  std::vector<FactorialObservation> nan = unbalanced();
  nan[3].y = std::nan("");
  EXPECT_THROW(twoWayAnova(nan, 2, 3, SumsOfSquares::TypeIII), std::invalid_argument);
  EXPECT_THROW(twoWayAnova(unbalanced(), 1, 3, SumsOfSquares::TypeII), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
