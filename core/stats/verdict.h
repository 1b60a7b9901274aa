// Plain-language verdicts on a two-backend comparison, and a one-call comparison that runs the
// t-test, the optional TOST, what the design could detect (minimum detectable difference) and the
// runs needed for the equivalence margin, and words the outcome. No "observed power" anywhere:
// see detectable_difference.h.
// Values are in the compared metric's units (accuracy: fractions in [0, 1]), and the sentences
// speak of them as its MetricWords say (accuracy: percent and percentage points, x 100).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "core/stats/detectable_difference.h"
#include "core/stats/metric_words.h"
#include "core/stats/power.h"
#include "core/stats/t_test.h"
#include "core/stats/tost.h"

namespace paritylab::stats {

struct VerdictInput {
  std::string name_a;              // e.g. "tpu-bf16"
  std::string name_b;              // e.g. "cpu-fp32"
  TTestResult t_test;              // tTest(a, b, ...)
  std::optional<TostResult> tost;  // tost(a, b, margin, ...), if an equivalence margin was given
  // Runs per backend needed to show equivalence within the margin (runsNeededForMargin); only
  // with `tost`, said when equivalence is not shown. Never for the observed difference.
  std::optional<SampleSizeResult> runs_needed;
  // What this design could detect (minimumDetectableDifference), said when not significant.
  std::optional<DetectableDifference> detectable;
  MetricWords words{};  // the metric compared (accuracy unless said)
};

// A few sentences, e.g. "No significant difference between tpu-bf16 and cpu-fp32 (Welch p = 0.26,
// alpha 0.05). With 5 runs each, this study would detect a difference of 1.10 points or more 80%
// of the time; smaller differences could go unnoticed. To show equivalence within ±0.5 points,
// about 23 runs per backend are needed (80% power if the backends truly agree)." Never prints
// NaN: an undefined test (zero variance in both groups) is explained in words.
std::string verdict(const VerdictInput& input);

struct CompareOptions {
  TTestKind kind = TTestKind::Welch;
  Tail tail = Tail::TwoSided;
  double alpha = 0.05;
  std::optional<double> margin;  // equivalence margin in the metric's units (accuracy: 0.005 =
                                 // 0.5 points)
  double target_power = 0.8;     // for `detectable` and runs_needed; in (alpha, 1)
  MetricWords words{};           // the metric compared (accuracy unless said)
};

struct Comparison {
  std::string name_a, name_b;
  std::size_t n_a = 0, n_b = 0;
  bool enough_data = false;  // both groups have >= 2 runs (else no tests were run)
  std::optional<TTestResult> t_test;
  std::optional<TostResult> tost;
  // Runs per backend to show equivalence within the margin at target_power (set with a margin
  // whenever the test is defined; null without a margin): runsNeededForMargin.
  std::optional<SampleSizeResult> runs_needed;
  // Minimum detectable difference at target_power for this test and these group sizes (set
  // whenever the test is defined), in accuracy units.
  std::optional<DetectableDifference> detectable;
  std::string verdict;
};

// Runs the comparison a vs b. Groups with fewer than 2 runs are not an error here: the result has
// enough_data = false and a verdict saying so. NaN/inf values, bad alpha, margin <= 0 or
// target_power outside (alpha, 1) throw std::invalid_argument.
Comparison compareSamples(const std::string& name_a, std::span<const double> a,
                          const std::string& name_b, std::span<const double> b,
                          const CompareOptions& options = {});

// "0.17", "0.012", "< 0.001", "undefined" (NaN): p-values as the verdicts print them (2 significant
// digits; the verdict prefixes "p = " or "p ").
std::string formatP(double p);
// "p = 0.17", "p < 0.001", "p undefined".
std::string pEquals(double p);

}  // namespace paritylab::stats
