// Churn between prediction vectors, precision churn over seed-matched
// pairs vs the seed churn floor with seeded bootstrap CIs (deterministic for a seed), the
// plain-words headline, and McNemar's exact test per seed-matched pair with Holm (statsmodels
// 0.13.5 mcnemar(table, exact=True) values).
#include "core/stats/churn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/stats/bootstrap.h"
#include "core/stats/mcnemar.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using Preds = std::vector<std::int32_t>;

TEST(Churn, FractionOfDifferingPredictions) {
  const Preds p1 = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, p2 = {0, 1, 2, 3, 4, 5, 6, 7, 9, 8};
  EXPECT_DOUBLE_EQ(churn(p1, p2), 0.2);
  EXPECT_DOUBLE_EQ(churn(p1, p1), 0.0);
  const Preds short_p = {0, 1};
  EXPECT_THROW(churn(p1, short_p), std::invalid_argument);
  EXPECT_THROW(churn(Preds{}, Preds{}), std::invalid_argument);
}

// Three seeds per backend on 10 examples; A differs from B at the same seed in 1, 0 and 2 places
// (precision churn (0.1 + 0 + 0.2) / 3 = 0.1); B's runs differ pairwise in 2, 4 and 2 places (seed
// churn (0.2 + 0.4 + 0.2) / 3 = 0.2667): the seed changes the model about 2.7 times more.
struct Fixture {
  std::vector<SeededPredictions> a = {
      {1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 0}},  // seed 1: one change against b
      {2, {1, 1, 2, 0, 4, 5, 6, 7, 8, 9}},  // seed 2: identical to b
      {3, {0, 2, 2, 3, 4, 5, 6, 1, 8, 9}},  // seed 3: two changes
  };
  std::vector<SeededPredictions> b = {
      {3, {0, 2, 2, 3, 4, 5, 6, 7, 8, 1}},
      {1, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
      {2, {1, 1, 2, 0, 4, 5, 6, 7, 8, 9}},
  };
};

TEST(Churn, PrecisionChurnAgainstTheSeedFloor) {
  const Fixture f;
  // Seed-matched pairs by ascending seed: (a0, b1), (a1, b2), (a2, b0).
  const auto pairs = seedMatchedPairs(f.a, f.b);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0], std::make_pair(std::size_t{0}, std::size_t{1}));
  EXPECT_EQ(pairs[2], std::make_pair(std::size_t{2}, std::size_t{0}));
  const ChurnEstimate precision = precisionChurn(f.a, f.b);
  EXPECT_EQ(precision.pairs, 3u);
  EXPECT_DOUBLE_EQ(precision.values[0], 0.1);
  EXPECT_DOUBLE_EQ(precision.values[1], 0.0);
  EXPECT_DOUBLE_EQ(precision.values[2], 0.2);
  EXPECT_NEAR(precision.mean, 0.1, 1e-15);
  EXPECT_LE(precision.ci.ci_low, precision.mean);
  EXPECT_GE(precision.ci.ci_high, precision.mean);
  EXPECT_GE(precision.ci.ci_low, 0.0);
  EXPECT_LE(precision.ci.ci_high, 0.2 + 1e-15);

  const ChurnEstimate floor = seedChurn(f.b);
  EXPECT_EQ(floor.pairs, 3u);
  EXPECT_NEAR(floor.mean, 0.8 / 3.0, 1e-15);
  EXPECT_GE(floor.ci.ci_low, 0.2 - 1e-15);  // every replicate averages churns of 0.2 and 0.4
  EXPECT_LE(floor.ci.ci_high, 0.4 + 1e-15);

  const ChurnComparison c = compareChurn("tpu-bf16", f.a, "cpu-fp32", f.b);
  EXPECT_NEAR(c.seed_to_precision_ratio, 0.8 / 0.3, 1e-12);
  EXPECT_EQ(c.headline,
            "tpu-bf16 changes 10% of test predictions against cpu-fp32 at the same seed; two "
            "cpu-fp32 runs with different seeds disagree on 27%: the precision changes the model "
            "about 2.7 times less than the seed does.");
}

TEST(Churn, HeadlineWithoutPairsOrFloorAndIdenticalModels) {
  const Fixture f;
  std::vector<SeededPredictions> other_seeds = f.a;
  for (auto& r : other_seeds) r.seed += 100;
  EXPECT_EQ(compareChurn("x", other_seeds, "y", f.b).headline,
            "No run of x shares a seed with a run of y: precision churn needs seed-matched runs.");
  const std::vector<SeededPredictions> one = {f.b[1]};
  const std::vector<SeededPredictions> a_one = {f.a[0]};
  const ChurnComparison lonely = compareChurn("x", a_one, "y", one);
  EXPECT_TRUE(std::isnan(lonely.seed_to_precision_ratio));
  EXPECT_NE(lonely.headline.find("no seed noise floor"), std::string::npos) << lonely.headline;
  // A deterministic backend against itself: churn 0 at the same seed.
  const ChurnComparison same = compareChurn("y", f.b, "y", f.b);
  EXPECT_EQ(same.precision.mean, 0.0);
  EXPECT_NE(same.headline.find("the precision changes no prediction at the same seed"),
            std::string::npos)
      << same.headline;
  std::vector<SeededPredictions> repeated = f.b;
  repeated[1].seed = 3;
  EXPECT_THROW(seedMatchedPairs(f.a, repeated), std::invalid_argument);
}

// The same seed gives the same bootstrap CIs.
TEST(Bootstrap, DeterministicForASeedAndSane) {
  std::vector<double> values;
  for (int i = 0; i < 40; ++i) values.push_back(0.7 + 0.001 * ((i * 37) % 23));
  BootstrapOptions o;
  o.seed = 7;
  const BootstrapCi first = bootstrapMeanCi(values, o);
  const BootstrapCi again = bootstrapMeanCi(values, o);
  EXPECT_EQ(first.ci_low, again.ci_low);  // bit-identical
  EXPECT_EQ(first.ci_high, again.ci_high);
  EXPECT_EQ(first.used, 2000u);
  o.seed = 8;
  const BootstrapCi other = bootstrapMeanCi(values, o);
  EXPECT_TRUE(other.ci_low != first.ci_low || other.ci_high != first.ci_high);
  // Close to the t interval of the mean for 40 roughly uniform values (within 15% of its width).
  double mean = 0.0, ss = 0.0;
  for (double v : values) mean += v / 40.0;
  for (double v : values) ss += (v - mean) * (v - mean);
  const double half = 2.0226909200367595 * std::sqrt(ss / 39.0 / 40.0);  // t.ppf(0.975, 39)
  EXPECT_DOUBLE_EQ(first.estimate, mean);
  EXPECT_NEAR(first.ci_low, mean - half, 0.15 * 2 * half);
  EXPECT_NEAR(first.ci_high, mean + half, 0.15 * 2 * half);
  // np.quantile([1, 2, 3, 4], 0.25) = 1.75
  const std::vector<double> sorted = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(sortedQuantile(sorted, 0.25), 1.75);
  EXPECT_THROW(bootstrapMeanCi(std::vector<double>{}, o), std::invalid_argument);
}

// mcnemar(np.array([[100, b], [c, 50]]), exact=True) -> statistic, pvalue
TEST(McNemar, ExactMatchesStatsmodels) {
  struct Case {
    std::size_t b, c;
    double statistic, p;
  };
  const Case cases[] = {{10, 3, 3.0, 0.09228515625},
                        {0, 0, 0.0, 1.0},
                        {5, 5, 5.0, 1.0},
                        {1, 12, 1.0, 0.00341796875},
                        {40, 25, 25.0, 0.08168153394154003},
                        {0, 7, 0.0, 0.015625}};
  for (const Case& c : cases) {
    const McNemarResult r = mcnemarExact(c.b, c.c);
    EXPECT_EQ(r.statistic, c.statistic);
    EXPECT_REL(r.p_value, c.p) << c.b << " vs " << c.c;
  }
}

TEST(McNemar, PerSeedPairWithHolm) {
  const Fixture f;
  const Preds labels = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};  // b's seed-1 run is always right
  // seed 1: a wrong on #9 only -> b = 0, c = 1 -> p 1; seed 2: identical -> p 1;
  // seed 3: a wrong on #1, #7, b wrong on #1, #9 -> only a right on #9, only b right on #7 -> 1.
  const auto tests = mcnemarSeedPairs(labels, f.a, f.b);
  ASSERT_EQ(tests.size(), 3u);
  EXPECT_EQ(tests[0].seed, 1u);
  EXPECT_EQ(tests[0].test.only_first_correct, 0u);
  EXPECT_EQ(tests[0].test.only_second_correct, 1u);
  EXPECT_EQ(tests[2].test.only_first_correct, 1u);
  EXPECT_EQ(tests[2].test.only_second_correct, 1u);
  for (const auto& t : tests) {
    EXPECT_EQ(t.test.p_value, 1.0);
    EXPECT_EQ(t.p_holm, 1.0);
    EXPECT_FALSE(t.rejected);
  }
  // Holm on real p values: a pair with 1 vs 12 discordant examples (p 0.00342) among three.
  std::vector<SeededPredictions> a(3), b(3);
  Preds lab(20, 0);
  for (int s = 0; s < 3; ++s) {
    a[s].seed = b[s].seed = static_cast<std::uint64_t>(s);
    a[s].predicted = b[s].predicted = lab;
  }
  for (int i = 0; i < 12; ++i) a[0].predicted[i] = 1;  // a wrong on 12 where b is right
  b[0].predicted[19] = 1;                              // b wrong on 1 where a is right
  const auto holm = mcnemarSeedPairs(lab, a, b);
  EXPECT_REL(holm[0].test.p_value, 0.00341796875);
  EXPECT_REL(holm[0].p_holm, 3 * 0.00341796875);  // multipletests([p, 1, 1], method='holm')
  EXPECT_TRUE(holm[0].rejected);
  EXPECT_FALSE(holm[1].rejected);
}

}  // namespace
}  // namespace paritylab::stats
