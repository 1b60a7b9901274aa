// A sweep's analysis on runs whose values are known: the cells' means and intervals, the
// interaction found where one backend alone falls at one learning rate and not found where both
// move together, the backend difference at each cell in the metric's words, a cell with a
// diverged run left out of the tests and named, and each backend's usable learning rates.

#include "core/study/analysis/sweep_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace paritylab::study {
namespace {

StudySpec lrSweep() {
  return parseStudySpec(R"({"version": 1, "name": "lr", "model": "mlp",
    "dataset": {"source": "synthetic"}, "backends": ["cpu-fp32", "pure-bf16"], "seeds": 3,
    "chaos_floor": false, "sweep": {"lr": [0.01, 0.1, 1]}})");
}

// Runs of `backend` (an entry name) with these final accuracies; NaN: a diverged run.
void addRuns(std::vector<RunRecord>& runs, const std::string& backend,
             const std::vector<double>& accuracies) {
  for (std::size_t i = 0; i < accuracies.size(); ++i) {
    RunRecord r;
    r.id = std::int64_t(runs.size() + 1);
    r.backend = backend;
    r.seed = i;
    r.finalAccuracy = accuracies[i];
    r.finalTestLoss = 1.0;
    r.status = std::isnan(accuracies[i]) ? RunState::Diverged : RunState::Completed;
    runs.push_back(r);
  }
}

TEST(SweepAnalysis, OneBackendFallingAtOneRateIsAnInteractionSaidCellByCell) {
  std::vector<RunRecord> runs;
  addRuns(runs, "cpu-fp32 lr=0.01", {0.90, 0.91, 0.92});
  addRuns(runs, "cpu-fp32 lr=0.1", {0.90, 0.91, 0.92});
  addRuns(runs, "cpu-fp32 lr=1", {0.50, 0.52, 0.54});
  addRuns(runs, "pure-bf16 lr=0.01", {0.90, 0.91, 0.92});
  addRuns(runs, "pure-bf16 lr=0.1", {0.80, 0.81, 0.82});
  addRuns(runs, "pure-bf16 lr=1", {0.50, 0.52, std::nan("")});
  const SweepAnalysis s = analyseSweep(lrSweep(), runs, {});
  EXPECT_EQ(s.backends, (std::vector<std::string>{"cpu-fp32", "pure-bf16"}));
  EXPECT_EQ(s.cellNames, (std::vector<std::string>{"lr=0.01", "lr=0.1", "lr=1"}));
  EXPECT_EQ(s.a, 1u);
  EXPECT_EQ(s.b, 0u);
  const SweepCell& fell = s.at(1, 1);
  EXPECT_EQ(fell.runs, 3u);
  EXPECT_EQ(fell.finished, 3u);
  EXPECT_NEAR(fell.mean, 0.81, 1e-12);
  EXPECT_NEAR(fell.sd, 0.01, 1e-12);
  // t(0.975, 2) = 4.302652729911275 (scipy.stats.t.ppf), sem = 0.01 / sqrt(3).
  EXPECT_NEAR(fell.ciHigh - fell.mean, 4.302652729911275 * 0.01 / std::sqrt(3.0), 1e-9);
  EXPECT_EQ(s.at(1, 2).finished, 2u);
  ASSERT_EQ(s.analysedCells, (std::vector<std::size_t>{0, 1, 2}));
  ASSERT_TRUE(s.anova);
  EXPECT_FALSE(s.anova->balanced);  // the diverged run
  EXPECT_LT(s.anova->interaction().p_value, 1e-4);
  ASSERT_EQ(s.simpleEffects.size(), 3u);
  EXPECT_FALSE(s.simpleEffects[0].rejected);
  EXPECT_TRUE(s.simpleEffects[1].rejected);
  EXPECT_NEAR(s.simpleEffects[1].test.mean_diff, -0.10, 1e-12);
  ASSERT_GE(s.verdict.size(), 2u);
  EXPECT_EQ(s.verdict[0].rfind(
                "The backends' accuracy depends on lr differently: interaction p < 0.001 (", 0),
            0u)
      << s.verdict[0];
  EXPECT_NE(s.verdict[0].find("type II sums of squares; the cells hold unequal numbers of runs"),
            std::string::npos);
  EXPECT_NE(s.verdict[1].find("at lr=0.01 they do not differ"), std::string::npos) << s.verdict[1];
  EXPECT_NE(s.verdict[1].find("at lr=0.1 pure-bf16 is 10.00 points lower"), std::string::npos)
      << s.verdict[1];
}

TEST(SweepAnalysis, BackendsMovingTogetherShowNoInteraction) {
  std::vector<RunRecord> runs;
  addRuns(runs, "cpu-fp32 lr=0.01", {0.90, 0.92, 0.91, 0.93});
  addRuns(runs, "cpu-fp32 lr=0.1", {0.80, 0.83, 0.81, 0.82});
  addRuns(runs, "cpu-fp32 lr=1", {0.70, 0.71, 0.73, 0.72});
  addRuns(runs, "pure-bf16 lr=0.01", {0.91, 0.90, 0.93, 0.92});
  addRuns(runs, "pure-bf16 lr=0.1", {0.82, 0.80, 0.81, 0.83});
  addRuns(runs, "pure-bf16 lr=1", {0.72, 0.70, 0.71, 0.73});
  const SweepAnalysis s = analyseSweep(lrSweep(), runs, {});
  ASSERT_TRUE(s.anova);
  EXPECT_TRUE(s.anova->balanced);
  // The same values per cell in another order: no backend effect, no interaction at all.
  EXPECT_NEAR(s.anova->interaction().sumOfSquares, 0.0, 1e-12);
  EXPECT_GT(s.anova->interaction().p_value, 0.99);
  EXPECT_EQ(s.verdict[0].rfind("No evidence that lr affects the accuracy of pure-bf16 and "
                               "cpu-fp32 differently: interaction p = 1",
                               0),
            0u)
      << s.verdict[0];
}

TEST(SweepAnalysis, ACellShortOfFinishedRunsIsLeftOutAndNamed) {
  std::vector<RunRecord> runs;
  addRuns(runs, "cpu-fp32 lr=0.01", {0.90, 0.91, 0.92});
  addRuns(runs, "cpu-fp32 lr=0.1", {0.90, 0.91, 0.92});
  addRuns(runs, "cpu-fp32 lr=1", {0.50, 0.52, 0.54});
  addRuns(runs, "pure-bf16 lr=0.01", {0.90, 0.91, 0.92});
  addRuns(runs, "pure-bf16 lr=0.1", {0.80, 0.81, 0.82});
  addRuns(runs, "pure-bf16 lr=1", {std::nan(""), std::nan(""), 0.4});
  const SweepAnalysis s = analyseSweep(lrSweep(), runs, {});
  EXPECT_EQ(s.analysedCells, (std::vector<std::size_t>{0, 1}));
  ASSERT_EQ(s.cellsLeftOut.size(), 1u);
  EXPECT_EQ(s.cellsLeftOut[0], "lr=1 (pure-bf16: 1 of 3 runs finished)");
  ASSERT_TRUE(s.anova);
  EXPECT_EQ(s.anova->levelsA, 2u);
}

TEST(SweepAnalysis, UsableLearningRatesPerBackendAgainstTheReference) {
  std::vector<RunRecord> runs;
  addRuns(runs, "cpu-fp32 lr=0.01", {0.900, 0.910, 0.920});
  addRuns(runs, "cpu-fp32 lr=0.1", {0.905, 0.915, 0.925});
  addRuns(runs, "cpu-fp32 lr=1", {0.50, 0.52, 0.54});
  addRuns(runs, "pure-bf16 lr=0.01", {0.90, 0.91, 0.92});
  addRuns(runs, "pure-bf16 lr=0.1", {0.80, 0.81, 0.82});
  addRuns(runs, "pure-bf16 lr=1", {0.50, 0.52, std::nan("")});
  const SweepAnalysis s = analyseSweep(lrSweep(), runs, {});
  EXPECT_EQ(s.lrDistance, 0.01);
  ASSERT_EQ(s.lrRanges.size(), 2u);
  const LearningRateRange& cpu = s.lrRanges[0];
  EXPECT_EQ(cpu.bestLr, 0.1);
  EXPECT_NEAR(cpu.bestValue, 0.915, 1e-12);
  EXPECT_EQ(cpu.low, 0.01);
  EXPECT_EQ(cpu.high, 0.1);
  EXPECT_EQ(cpu.usable, 2u);
  EXPECT_NEAR(cpu.decades, 1.0, 1e-12);
  const LearningRateRange& bf16 = s.lrRanges[1];
  EXPECT_EQ(bf16.usable, 1u);
  EXPECT_EQ(bf16.low, 0.01);
  EXPECT_EQ(bf16.decades, 0.0);
  const std::string said = s.verdict.back();
  EXPECT_EQ(said,
            "pure-bf16 trains within 1.00 point of its best (91.00% at lr 0.01) from lr 0.01 to "
            "0.01 (0 decades, 1 of 3 rates): narrower than cpu-fp32's.");
}

TEST(SweepAnalysis, UnknownBackendsAndAStudyWithoutASweepAreRefused) {
  EXPECT_THROW(analyseSweep(parseStudySpec(R"({"version": 1, "name": "n", "model": "mlp",
    "dataset": {"source": "synthetic"}, "backends": ["cpu-fp32"]})"),
                            {}, {}),
               std::invalid_argument);
  SweepOptions o;
  o.a = "gpu-tf32";
  try {
    analyseSweep(lrSweep(), {}, o);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "--a 'gpu-tf32': not a backend of the sweep (cpu-fp32, pure-bf16)");
  }
}

}  // namespace
}  // namespace paritylab::study
