// Early warnings of a study: loss spikes against the running median on hand-made curves (where
// each spike is by construction), and the per-run peaks of the stored signals with their steps
// and layers.

#include "core/study/analysis/early_warnings.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

std::vector<StepRecord> curve(const std::vector<double>& losses) {
  std::vector<StepRecord> steps;
  for (std::size_t i = 0; i < losses.size(); ++i)
    steps.push_back({std::int64_t(2 * (i + 1)), 1, losses[i], 1e-3});
  return steps;
}

TEST(LossSpikes, AStepAboveKTimesTheRunningMedianIsASpike) {
  // Median of the five before step 12 is 1.0: 3.5 > 3 x 1.0; 2.9 is not.
  const auto spikes = lossSpikes(curve({1.0, 1.2, 0.9, 1.1, 0.8, 3.5, 1.0, 2.9, 1.0}), 3.0);
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].step, 12);
  EXPECT_DOUBLE_EQ(spikes[0].loss, 3.5);
  EXPECT_DOUBLE_EQ(spikes[0].runningMedian, 1.0);
}

TEST(LossSpikes, NoneIsJudgedBeforeEnoughHistoryAndNonFiniteLossesAreSkipped) {
  // A jump at the 5th step has only four before it; NaN and inf are not losses to compare.
  const double kNan = std::nan("");
  EXPECT_TRUE(lossSpikes(curve({1, 1, 1, 1, 9}), 3.0).empty());
  const auto spikes = lossSpikes(curve({1, 1, kNan, 1, 1, INFINITY, 1, 4}), 3.0);
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].step, 16);
}

TEST(LossSpikes, TheMedianIsOfTheWindowBeforeTheStepOnly) {
  // 30 losses of 10, then 25 of 1: the window has forgotten the 10s by the last step, so 3.5
  // there is a spike; at the first 1s the median is still 10 and nothing is.
  std::vector<double> losses(30, 10.0);
  losses.insert(losses.end(), 25, 1.0);
  losses.push_back(3.5);
  const auto spikes = lossSpikes(curve(losses), 3.0);
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].step, 2 * 56);
  EXPECT_DOUBLE_EQ(spikes[0].runningMedian, 1.0);
  EXPECT_THROW(lossSpikes(curve(losses), 1.0), std::invalid_argument);
}

TEST(EarlyWarnings, PeaksNameTheirStepAndLayerPerRun) {
  auto store = ResultsStore::open(testing::freshTempPath("warnings.db"), true);
  RunRecord run;
  run.backend = "tpu-bf16";
  run.seed = 4;
  run.id = store->addRun(run);
  store->addSteps(run.id, {{1, 1, 2.0, 1e-3}, {2, 1, 1.9, 1e-3}});
  store->addSignals(run.id, {"fc1.weight", "fc2.weight"},
                    {{1, 1, 4.0, std::nan(""), 10.0, {1e-3f, 2e-3f}},
                     {2, 1, 6.0, std::nan(""), 12.0, {5e-3f, 1e-4f}},
                     {3, 1, 5.0, std::nan(""), 11.0, {1e-3f, 1e-3f}}});
  const EarlyWarnings w = analyseEarlyWarnings(*store, 3.0);
  ASSERT_EQ(w.runs.size(), 1u);
  const RunWarnings& r = w.runs[0];
  EXPECT_EQ(r.backend, "tpu-bf16");
  EXPECT_EQ(r.seed, 4u);
  EXPECT_EQ(r.measuredSteps, 3u);
  EXPECT_DOUBLE_EQ(r.gradNorm.value, 6.0);
  EXPECT_EQ(r.gradNorm.step, 2);
  EXPECT_DOUBLE_EQ(r.medianGradNorm, 5.0);
  EXPECT_FLOAT_EQ(float(r.updateRatio.value), 5e-3f);
  EXPECT_EQ(r.updateRatio.layer, "fc1.weight");
  EXPECT_EQ(r.updateRatio.step, 2);
  EXPECT_FLOAT_EQ(float(r.medianUpdateRatio), 1e-3f);  // of 1, 2, 5, 0.1, 1, 1 (x 1e-3)
  EXPECT_TRUE(std::isnan(r.attentionLogit.value));     // no attention
  EXPECT_DOUBLE_EQ(r.outputLogitNorm.value, 12.0);
  EXPECT_TRUE(r.spikes.empty());
  EXPECT_TRUE(w.notes.empty());
}

}  // namespace
}  // namespace paritylab::study
