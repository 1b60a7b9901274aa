// Group-sequential boundaries against an independent computation (group_sequential_reference.py:
// the Z-scale joint normal by nested quadrature; the two-look values are also gsDesign's
// published 2.9626 and 1.9686 for Lan-DeMets O'Brien-Fleming spending at one-sided 0.025), and by
// simulation: a sequential equivalence design keeps each claim's type I error at alpha over its
// looks, and with no true difference stops before its last look in most studies.

#include "core/stats/group_sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace paritylab::stats {
namespace {

TEST(GroupSequential, SpendingIsZeroAtTheStartAndAlphaAtTheEnd) {
  for (AlphaSpending s : {AlphaSpending::OBrienFleming, AlphaSpending::Pocock}) {
    EXPECT_EQ(alphaSpent(s, 0.05, 0.0), 0.0);
    EXPECT_NEAR(alphaSpent(s, 0.05, 1.0), 0.05, 1e-15);
    EXPECT_LT(alphaSpent(s, 0.05, 0.5), 0.05);
  }
  // O'Brien-Fleming-like spends little early: 2 - 2 Phi(2.241403 / sqrt(0.5)) at alpha 0.025.
  EXPECT_NEAR(alphaSpent(AlphaSpending::OBrienFleming, 0.025, 0.5), 0.0015253, 1e-6);
}

TEST(GroupSequential, BoundariesMatchTheIndependentQuadrature) {
  const std::vector<double> two = {0.5, 1.0};
  const SequentialBoundaries b2 = oneSidedBoundaries(two, 0.025);
  ASSERT_EQ(b2.z.size(), 2u);
  EXPECT_NEAR(b2.z[0], 2.962588, 2e-5);
  EXPECT_NEAR(b2.z[1], 1.968596, 2e-4);
  const std::vector<double> thirds = {1.0 / 3, 2.0 / 3, 1.0};
  const SequentialBoundaries b3 = oneSidedBoundaries(thirds, 0.05);
  EXPECT_NEAR(b3.z[0], 3.200102, 2e-5);
  EXPECT_NEAR(b3.z[1], 2.140815, 2e-4);
  EXPECT_NEAR(b3.z[2], 1.694812, 2e-4);
  const std::vector<double> uneven = {0.25, 0.6, 1.0};
  const SequentialBoundaries b4 = oneSidedBoundaries(uneven, 0.05);
  EXPECT_NEAR(b4.z[0], 3.749552, 2e-5);
  EXPECT_NEAR(b4.z[1], 2.277935, 2e-4);
  EXPECT_NEAR(b4.z[2], 1.679574, 2e-4);
  EXPECT_NEAR(b4.nominalP[2], 0.5 * std::erfc(b4.z[2] / std::sqrt(2.0)), 1e-15);
  // One look is the fixed design.
  const std::vector<double> one = {1.0};
  EXPECT_NEAR(oneSidedBoundaries(one, 0.05).z[0], 1.6448536, 1e-6);
}

TEST(GroupSequential, BadDesignsAreRefused) {
  const std::vector<double> notEnding = {0.5, 0.9};
  EXPECT_THROW(oneSidedBoundaries(notEnding, 0.05), std::invalid_argument);
  const std::vector<double> decreasing = {0.6, 0.5, 1.0};
  EXPECT_THROW(oneSidedBoundaries(decreasing, 0.05), std::invalid_argument);
  const std::vector<double> ok = {1.0};
  EXPECT_THROW(oneSidedBoundaries(ok, 0.5), std::invalid_argument);
  SequentialDesign noMargin;
  EXPECT_THROW(planSequential(noMargin), std::invalid_argument);
}

TEST(GroupSequential, LooksAfterEveryRoundAndAtTheMaximum) {
  SequentialDesign d;
  d.maxSeeds = 12;
  d.lookEvery = 5;
  EXPECT_EQ(d.looks(), (std::vector<std::size_t>{5, 10, 12}));
  d.lookEvery = 1;
  d.maxSeeds = 3;
  EXPECT_EQ(d.looks(), (std::vector<std::size_t>{2, 3}));  // a t-test needs 2 values a side
}

struct Outcome {
  double equivalent = 0, different = 0, earlyStops = 0, meanSeeds = 0;
};

// 2000 simulated studies: backend a ~ N(shift, 1), b ~ N(0, 1), looked at as the design says.
Outcome simulate(const SequentialPlan& plan, double shift, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  const int studies = 2000;
  Outcome o;
  std::vector<double> a(plan.design.maxSeeds), b(plan.design.maxSeeds);
  for (int s = 0; s < studies; ++s) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = shift + normal(rng), b[i] = normal(rng);
    for (std::size_t look = 0; look < plan.looks.size(); ++look) {
      const std::size_t n = plan.looks[look];
      const SequentialLook l =
          sequentialLook(std::span(a).first(n), std::span(b).first(n), plan, look);
      if (l.decision == SequentialDecision::Continue) continue;
      o.equivalent += l.decision == SequentialDecision::Equivalent;
      o.different += l.decision == SequentialDecision::Different;
      o.earlyStops += look + 1 < plan.looks.size();
      o.meanSeeds += double(l.seeds);
      break;
    }
  }
  o.equivalent /= studies, o.different /= studies, o.earlyStops /= studies;
  o.meanSeeds /= studies;
  return o;
}

TEST(GroupSequential, EachClaimsTypeOneErrorStaysAtAlphaOverTheLooks) {
  SequentialDesign d;
  d.margin = 1.0;  // in sds of one run's value
  d.alpha = 0.05;
  d.maxSeeds = 30;
  d.lookEvery = 5;
  const SequentialPlan plan = planSequential(d);
  // Monte Carlo error of a rate near 0.05 over 2000 studies: sqrt(0.05 * 0.95 / 2000) = 0.0049.
  const double allowed = d.alpha + 3 * 0.0049;
  const Outcome none = simulate(plan, 0.0, 1);
  EXPECT_LE(none.different, allowed);  // a difference claimed where there is none
  EXPECT_GT(none.equivalent, 0.9);
  EXPECT_GT(none.earlyStops, 0.5);  // most studies stop before the 30th seed
  EXPECT_LT(none.meanSeeds, 25.0);
  const Outcome atMargin = simulate(plan, d.margin, 2);
  EXPECT_LE(atMargin.equivalent, allowed);  // equivalence claimed at the margin itself
  std::printf(
      "no difference: equivalent %.3f, different %.3f, stopped early %.3f, mean seeds "
      "%.2f of %zu\nat the margin: equivalent %.3f\n",
      none.equivalent, none.different, none.earlyStops, none.meanSeeds, d.maxSeeds,
      atMargin.equivalent);
}

}  // namespace
}  // namespace paritylab::stats
