// Per-step curve equivalence on a stored study: a backend whose runs' step losses shift from a
// known step leaves the reference's simultaneous band there, one that trains like the reference
// stays inside, and a backend with too few runs gets a note instead of a band.
#include "core/study/analysis/curve_equivalence.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/study/store/results_store.h"
#include "tests/study/analysis/stored_curves.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

std::string study() {
  const std::string path = freshTempPath("curve-equivalence.db");
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(R"({"version": 1, "name": "curves", "dataset": {"source": "synthetic"},
    "model": "mlp", "backends": ["cpu-fp32", "tpu-bf16", "pure-bf16", "gpu-tf32"], "seeds": 6})");
  std::mt19937_64 rng(7);
  testing::addCurveRuns(*store, "cpu-fp32", 6, rng);
  testing::addCurveRuns(*store, "tpu-bf16", 6, rng);
  testing::addCurveRuns(*store, "pure-bf16", 6, rng, 0.25, 120);
  testing::addCurveRuns(*store, "gpu-tf32", 1, rng);
  return path;
}

TEST(CurveEquivalence, AShiftedBackendLeavesTheBandWhereItsLossesShift) {
  const auto store = ResultsStore::openReadOnly(study());
  const CurveEquivalence e = analyseCurveEquivalence(*store, "cpu-fp32", "pure-bf16");
  ASSERT_TRUE(e.trainLoss) << e.headline;
  EXPECT_EQ(e.steps.size(), 40u);
  ASSERT_TRUE(e.trainLoss->firstExit);
  EXPECT_EQ(e.steps[*e.trainLoss->firstExit], 120);
  EXPECT_NE(e.headline.find("pure-bf16's training loss leaves a simultaneous 95% band of "
                            "cpu-fp32's seeds (6 and 6 runs"),
            std::string::npos)
      << e.headline;
  EXPECT_NE(e.headline.find("at step 120"), std::string::npos) << e.headline;
  ASSERT_TRUE(e.testMetric);
  EXPECT_EQ(e.metric, "accuracy");  // an image study's compared metric
  EXPECT_EQ(e.epochs, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_FALSE(e.testMetric->firstExit);
}

TEST(CurveEquivalence, ABackendThatTrainsLikeTheReferenceStaysInside) {
  const auto store = ResultsStore::openReadOnly(study());
  const CurveEquivalence e = analyseCurveEquivalence(*store, "cpu-fp32", "tpu-bf16");
  ASSERT_TRUE(e.trainLoss);
  EXPECT_FALSE(e.trainLoss->firstExit);
  EXPECT_NE(e.headline.find("stays inside"), std::string::npos) << e.headline;
  EXPECT_NE(e.headline.find("at all 40 steps"), std::string::npos) << e.headline;
}

TEST(CurveEquivalence, TheChosenMetricIsTheOnePerEpoch) {
  const auto store = ResultsStore::openReadOnly(study());
  const CurveEquivalence e =
      analyseCurveEquivalence(*store, "cpu-fp32", "tpu-bf16", 0.05, ComparedMetric::TestLoss);
  ASSERT_TRUE(e.testMetric);
  EXPECT_EQ(e.metric, "test loss");
  // The reference's mean test loss at epoch 1 is about 1/1, not an accuracy near 0.8.
  EXPECT_NEAR(e.testMetric->meanA.front(), 1.0, 0.05);
}

TEST(CurveEquivalence, RunsImportedFromHardwareHaveTheirBandToo) {
  const std::string path = freshTempPath("curve-equivalence-imported.db");
  {
    auto store = ResultsStore::open(path, true);
    std::mt19937_64 rng(11);
    testing::addCurveRuns(*store, "xla", 6, rng, 0.0, 0, true);
    testing::addCurveRuns(*store, "cuda", 6, rng, 0.25, 120, true);
  }
  const auto store = ResultsStore::openReadOnly(path);
  const CurveEquivalence e = analyseCurveEquivalence(*store, "xla", "cuda");
  EXPECT_EQ(e.runsReference, 6);
  EXPECT_EQ(e.runsBackend, 6);
  EXPECT_TRUE(e.imported);
  EXPECT_FALSE(e.emulated);
  ASSERT_TRUE(e.trainLoss && e.trainLoss->firstExit) << e.headline;
  EXPECT_EQ(e.steps[*e.trainLoss->firstExit], 120);
}

TEST(CurveEquivalence, TooFewRunsGiveANoteAndNoBand) {
  const auto store = ResultsStore::openReadOnly(study());
  const CurveEquivalence e = analyseCurveEquivalence(*store, "cpu-fp32", "gpu-tf32");
  EXPECT_FALSE(e.trainLoss);
  ASSERT_EQ(e.notes.size(), 1u);
  EXPECT_NE(e.notes[0].find("at least 2 completed runs of each backend (cpu-fp32: 6, gpu-tf32: 1)"),
            std::string::npos)
      << e.notes[0];
  EXPECT_NE(e.headline.find("No curve band of gpu-tf32"), std::string::npos) << e.headline;
  EXPECT_FALSE(analyseCurveEquivalence(*store, "cpu-fp32", "cpu-fp32").trainLoss);
}

}  // namespace
}  // namespace paritylab::study
