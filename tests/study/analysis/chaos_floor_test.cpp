// The chaos floor as analyseDivergence reports it, on a hand-made store whose figures are worked
// out by hand below: the perturbed reference's churn, McNemar and paired accuracy, the part of
// the precision's churn beyond the floor, and the headline naming precision, chaos and seed churn.
#include "core/study/analysis/chaos_floor.h"

#include <gtest/gtest.h>

#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

std::int64_t addCompleted(ResultsStore& store, const std::string& backend, std::uint64_t seed,
                          double accuracy, std::vector<std::int32_t> predicted) {
  RunRecord r;
  r.backend = backend;
  r.seed = seed;
  r.status = RunState::Completed;
  r.epochsDone = 1;
  r.finalAccuracy = accuracy;
  const std::int64_t id = store.addRun(r);
  nn::TestPredictions p;
  p.trueClassProbability.assign(predicted.size(), 0.5f);
  p.predicted = std::move(predicted);
  store.addPredictions(id, p);
  return id;
}

// Ten examples, labels 0 0 0 0 0 1 1 1 1 1. Per seed s:
//   cpu-fp32 (B): seed 0 all right, seed 1 wrong at 4, seed 2 wrong at 3
//                 -> seed churn (0.1 + 0.1 + 0.2) / 3 = 13.3%;
//   tpu-bf16 (A): B_s with two more examples flipped (0 and 9): churn 0.2 at every seed;
//   nudged-cpu-fp32 (P): B_s with example `nudgedChurn` flipped at 9 when 0.1, at 0 and 9 when 0.2.
// Final accuracies: B 1.0, 0.9, 0.9; P 0.9, 0.85, 0.9 (differences -0.1, -0.05, 0).
std::string chaosStudy(const std::string& name, int nudgedFlips) {
  const std::string path = freshTempPath(name);
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(R"({"version": 1, "name": "chaos", "dataset": {"source": "synthetic"},
    "model": "mlp", "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 3,
    "chaos_floor": {"reference": "cpu-fp32", "perturbations": ["weight-ulp"]}})");
  const std::vector<std::int32_t> labels = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
  store->saveTestSet(labels, {"cat", "dog"});
  const std::vector<std::vector<std::int32_t>> b = {
      labels, {0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, {0, 0, 0, 1, 0, 1, 1, 1, 1, 1}};
  const double accB[] = {1.0, 0.9, 0.9}, accP[] = {0.9, 0.85, 0.9};
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    addCompleted(*store, "cpu-fp32", seed, accB[seed], b[seed]);
    std::vector<std::int32_t> a = b[seed], p = b[seed];
    a[0] = 1 - a[0], a[9] = 1 - a[9];
    p[9] = 1 - p[9];
    if (nudgedFlips == 2) p[0] = 1 - p[0];
    addCompleted(*store, "tpu-bf16", seed, 0.8, a);
    addCompleted(*store, "nudged-cpu-fp32", seed, accP[seed], p);
  }
  return path;
}

DivergenceReport analyse(const std::string& path) {
  const auto store = ResultsStore::openReadOnly(path);
  DivergenceOptions o;
  o.a = "tpu-bf16";
  o.b = "cpu-fp32";
  return analyseDivergence(*store, o);
}

TEST(ChaosFloor, PerturbedReferenceIsComparedLikeThePrecisionAndTheExcessIsNamed) {
  const DivergenceReport r = analyse(chaosStudy("chaos-floor.db", 1));
  ASSERT_TRUE(r.chaos.has_value());
  EXPECT_EQ(r.chaos->reference, "cpu-fp32");
  EXPECT_TRUE(r.chaos->ofPairReference);
  ASSERT_EQ(r.chaos->parts.size(), 1u);
  const ChaosFloorPart& p = r.chaos->parts[0];
  EXPECT_EQ(p.backend, "nudged-cpu-fp32");
  EXPECT_EQ(p.perturbation, "weight-ulp");
  EXPECT_EQ(p.churn.pairs, 3u);
  EXPECT_DOUBLE_EQ(p.churn.mean, 0.1);
  // McNemar: at every seed the nudged run alone is wrong at example 9 (B right there).
  ASSERT_EQ(p.mcnemar.size(), 3u);
  for (const auto& m : p.mcnemar) {
    EXPECT_EQ(m.test.only_first_correct, 0u);
    EXPECT_EQ(m.test.only_second_correct, 1u);
    EXPECT_FALSE(m.rejected);
  }
  ASSERT_TRUE(p.pairedT.has_value());
  EXPECT_NEAR(p.pairedT->mean_diff, -0.05, 1e-12);
  EXPECT_EQ(p.excessSeeds, 3u);
  EXPECT_NEAR(p.excess.estimate, 0.1, 1e-12);
  EXPECT_NEAR(p.excess.ci_low, 0.1, 1e-12);  // the same excess at every seed
  EXPECT_EQ(r.chaos->headline,
            "tpu-bf16 changes 20% of test predictions against cpu-fp32 at the same seed; a "
            "one-ulp nudge of one initial weight changes 10%; two seeds 13%: 10.0 of the "
            "precision's 20.0 points exceed the chaos floor [10.0, 10.0], about 2 times what a "
            "rounding-level perturbation changes: the precision's own effect.");
}

TEST(ChaosFloor, PrecisionNoLargerThanTheFloorIsSaidToBeHardlyLarger) {
  const DivergenceReport r = analyse(chaosStudy("chaos-floor-equal.db", 2));
  ASSERT_TRUE(r.chaos.has_value());
  const ChaosFloorPart& p = r.chaos->parts.at(0);
  EXPECT_DOUBLE_EQ(p.churn.mean, 0.2);
  EXPECT_NEAR(p.excess.estimate, 0.0, 1e-12);
  EXPECT_NE(r.chaos->headline.find("changes 20%; two seeds 13%: 0.0 of the precision's 20.0 "
                                   "points exceed the chaos floor"),
            std::string::npos)
      << r.chaos->headline;
  EXPECT_NE(r.chaos->headline.find("hardly larger than any rounding-level perturbation's"),
            std::string::npos)
      << r.chaos->headline;
}

TEST(ChaosFloor, StudyWithoutAChaosFloorSaysItIsNotMeasured) {
  const std::string path = freshTempPath("no-chaos.db");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(R"({"version": 1, "name": "plain", "dataset": {"source": "synthetic"},
      "model": "mlp", "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2, "chaos_floor": false})");
  }
  const DivergenceReport r = analyse(path);
  EXPECT_FALSE(r.chaos.has_value());
  bool said = false;
  for (const std::string& n : r.notes) said = said || n.find("no chaos floor") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace paritylab::study
