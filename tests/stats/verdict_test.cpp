// The plain-language verdict names the backends, the test, p and alpha; says
// which backend is higher by how many accuracy points with the CI; reports equivalence (TOST);
// explains not-enough-data and zero-variance cases in words (never "nan"). When not
// significant it says what the design could detect (minimum detectable difference) and, with a
// margin, the runs per backend needed to show equivalence; never "observed power".
#include <gtest/gtest.h>

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/stats/statistics.h"
#include "tests/stats/relative_tolerance.h"

namespace paritylab::stats {
namespace {

using testing::kA;
using testing::kB;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

#define EXPECT_CONTAINS(text, part) EXPECT_TRUE(contains(text, part)) << (text)

void show(const Comparison& c) {
  if (std::getenv("PARITYLAB_SHOW_VERDICTS")) std::cout << c.verdict << "\n";
}

TEST(Verdict, FormatsPValues) {
  EXPECT_EQ(formatP(0.17344679058804213), "0.17");
  EXPECT_EQ(formatP(0.012), "0.012");
  EXPECT_EQ(formatP(0.0004), "< 0.001");
  EXPECT_EQ(formatP(std::numeric_limits<double>::quiet_NaN()), "undefined");
}

TEST(Verdict, SignificantDifferenceSaysWhichIsHigherAndByHowMuch) {
  // A - B = 1.19 points, Welch p = 0.0024, 95% CI 0.48 to 1.90 points (see t_test_test.cpp).
  const Comparison c = compareSamples("tpu-bf16", kA, "cpu-fp32", kB);
  show(c);
  EXPECT_CONTAINS(c.verdict, "tpu-bf16 is higher than cpu-fp32 by 1.19 accuracy points");
  EXPECT_CONTAINS(c.verdict, "95% CI 0.48 to 1.90 points");
  EXPECT_CONTAINS(c.verdict, "Welch p = 0.0024, alpha 0.05");
  EXPECT_FALSE(c.runs_needed.has_value());

  const Comparison swapped = compareSamples("cpu-fp32", kB, "tpu-bf16", kA);
  show(swapped);
  EXPECT_CONTAINS(swapped.verdict, "cpu-fp32 is lower than tpu-bf16 by 1.19 accuracy points");
  EXPECT_CONTAINS(swapped.verdict, "95% CI -1.90 to -0.48 points");

  CompareOptions with_margin;
  with_margin.margin = 0.02;  // TOST p = 0.014 (tost_test.cpp): a real but small difference
  const Comparison both = compareSamples("tpu-bf16", kA, "cpu-fp32", kB, with_margin);
  show(both);
  EXPECT_CONTAINS(both.verdict, "still equivalent within ±2 points (TOST p = 0.014)");
}

TEST(Verdict, OneSidedTestsReportABound) {
  CompareOptions greater;
  greater.tail = Tail::Greater;
  greater.kind = TTestKind::Student;
  const Comparison c = compareSamples("tpu-bf16", kA, "cpu-fp32", kB, greater);
  show(c);
  EXPECT_CONTAINS(c.verdict, "95% lower bound 0.56 points");
  EXPECT_CONTAINS(c.verdict, "Student one-sided p = 0.002");
}

TEST(Verdict, NotSignificantButEquivalent) {
  const std::vector<double> a = {0.700, 0.702, 0.698, 0.701, 0.699, 0.703, 0.697, 0.700};
  const std::vector<double> b = {0.701, 0.699, 0.700, 0.702, 0.698, 0.700, 0.699, 0.701};
  CompareOptions options;
  options.margin = 0.005;
  const Comparison c = compareSamples("tpu-bf16", a, "cpu-fp32", b, options);
  show(c);
  EXPECT_EQ(
      c.verdict.rfind("No significant difference between tpu-bf16 and cpu-fp32 (Welch p = ", 0), 0u)
      << c.verdict;
  EXPECT_CONTAINS(c.verdict, "; equivalent within ±0.5 points (TOST p < 0.001)");
  EXPECT_TRUE(c.runs_needed.has_value());  // margin set: always given, said only if not shown
  EXPECT_FALSE(contains(c.verdict, "runs per backend"));
}

// a and b: 4 runs each, Welch p = 0.556 (SciPy), df 5.636218916396772,
// sd_w 0.007345633623679677; statsmodels
//   brentq(lambda e: TTestIndPower().power(e, 4, 0.05, ratio=1, df=welch_df) - 0.8, ...) x sd_w
// = 0.017727034683102307 (1.77 points); runs for ±0.5 points at planning sd 0.007345633623679677:
// 38 (the SciPy loop in detectable_difference_test.cpp's RunsNeededForTheMargin).
TEST(Verdict, InconclusiveSaysWhatTheDesignCouldDetect) {
  const std::vector<double> a = {0.70, 0.69, 0.71, 0.702};
  const std::vector<double> b = {0.695, 0.705, 0.69, 0.699};
  CompareOptions options;
  options.margin = 0.005;
  const Comparison c = compareSamples("tpu-bf16", a, "cpu-fp32", b, options);
  show(c);
  ASSERT_TRUE(c.detectable.has_value());
  ASSERT_TRUE(c.runs_needed.has_value());
  EXPECT_TRUE(c.runs_needed->reachable);
  EXPECT_GE(c.runs_needed->achieved_power, 0.8);
  EXPECT_CONTAINS(c.verdict, ", and equivalence within ±0.5 points is not shown (TOST p = ");
  EXPECT_CONTAINS(c.verdict,
                  "). With 4 runs each, this study would detect a difference of 1.77"
                  " points or more 80% of the time; smaller differences could go unnoticed. To "
                  "show equivalence within ±0.5 points, about 38"
                  " runs per backend are needed (80% power if the backends truly agree).");
  EXPECT_FALSE(contains(c.verdict, "underpowered"));

  const Comparison no_margin = compareSamples("tpu-bf16", a, "cpu-fp32", b);
  show(no_margin);
  EXPECT_FALSE(no_margin.runs_needed.has_value());
  EXPECT_CONTAINS(no_margin.verdict,
                  "this study would detect a difference of 1.77 points or more 80%");
  EXPECT_CONTAINS(no_margin.verdict,
                  "could go unnoticed. Not significant is not the same as equivalent: give an "
                  "equivalence margin to test that.");
  EXPECT_FALSE(contains(no_margin.verdict, "runs per backend"));

  // Another power, one-sided, unequal groups: the sentence says so.
  CompareOptions greater;
  greater.tail = Tail::Greater;
  greater.target_power = 0.9;
  const std::vector<double> b5 = {0.695, 0.705, 0.69, 0.699, 0.701};
  const Comparison one_sided = compareSamples("tpu-bf16", a, "cpu-fp32", b5, greater);
  show(one_sided);
  EXPECT_CONTAINS(one_sided.verdict,
                  " With 4 runs of tpu-bf16 and 5 of cpu-fp32, this study would detect a "
                  "difference of ");
  EXPECT_CONTAINS(one_sided.verdict, " points or more with tpu-bf16 higher 90% of the time");
}

TEST(Verdict, NotEnoughDataIsSaidInWords) {
  const std::vector<double> one = {0.70};
  const Comparison c = compareSamples("tpu-bf16", one, "cpu-fp32", kB);
  show(c);
  EXPECT_FALSE(c.enough_data);
  EXPECT_FALSE(c.t_test.has_value());
  EXPECT_EQ(c.verdict,
            "Not enough data to compare tpu-bf16 and cpu-fp32: tpu-bf16 has 1 run and cpu-fp32 "
            "has 9 runs (at least 2 per backend are needed).");
}

TEST(Verdict, ZeroVarianceInBothGroupsIsExplainedNotNaN) {
  const std::vector<double> a = {0.70, 0.70, 0.70}, b = {0.69, 0.69, 0.69};
  CompareOptions options;
  options.margin = 0.005;
  const Comparison c = compareSamples("tpu-bf16", a, "cpu-fp32", b, options);
  show(c);
  EXPECT_CONTAINS(c.verdict, "every run of each gave the same accuracy");
  EXPECT_CONTAINS(c.verdict, "tpu-bf16 70.00%, cpu-fp32 69.00%");
  EXPECT_FALSE(contains(c.verdict, "nan"));
}

TEST(Verdict, BadOptionsThrow) {
  CompareOptions bad_margin;
  bad_margin.margin = 0.0;
  EXPECT_THROW(compareSamples("a", kA, "b", kB, bad_margin), std::invalid_argument);
  CompareOptions bad_alpha;
  bad_alpha.alpha = 0.0;
  EXPECT_THROW(compareSamples("a", kA, "b", kB, bad_alpha), std::invalid_argument);
  CompareOptions power_below_alpha;
  power_below_alpha.alpha = 0.2;
  power_below_alpha.target_power = 0.1;
  EXPECT_THROW(compareSamples("a", kA, "b", kB, power_below_alpha), std::invalid_argument);
  const std::vector<double> nan = {0.7, std::numeric_limits<double>::quiet_NaN()};
  EXPECT_THROW(compareSamples("a", nan, "b", kB), std::invalid_argument);
}

}  // namespace
}  // namespace paritylab::stats
