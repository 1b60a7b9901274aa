// The divergence analysis as analyseDivergence wires it from a results database: a hand-made
// store whose churn, McNemar counts, paired t, per-class accuracies and weight distances are worked
// out by hand below; and every missing piece turning into a note (imported runs, a diverged run,
// keep_weights none, a seed without both runs, a database without predictions).
#include "core/study/analysis/divergence_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

bool hasNote(const DivergenceReport& r, const std::string& part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

std::string allNotes(const DivergenceReport& r) {
  std::string s;
  for (const auto& n : r.notes) s += n + "\n";
  return s;
}

std::string specJson(const std::string& keepWeights) {
  return R"({"version": 1, "name": "hand", "dataset": {"source": "synthetic"}, "model": "mlp",
    "backends": ["cpu-fp32", "tpu-bf16", "gpu-tf32"], "seeds": 3, "keep_weights": ")" +
         keepWeights + "\"}";
}

std::int64_t addCompleted(ResultsStore& store, const std::string& backend, std::uint64_t seed,
                          double accuracy) {
  RunRecord r;
  r.backend = backend;
  r.seed = seed;
  r.status = RunState::Completed;
  r.epochsDone = 2;
  r.finalAccuracy = accuracy;
  return store.addRun(r);
}

void addPredictions(ResultsStore& store, std::int64_t id, std::vector<std::int32_t> predicted) {
  nn::TestPredictions p;
  p.trueClassProbability.assign(predicted.size(), 0.5f);
  p.predicted = std::move(predicted);
  store.addPredictions(id, p);
}

// Labels: five of class 0 ("cat"), five of class 1 ("dog").
//   cpu-fp32 (B): B0 all right; B1 wrong at 4, 9; B2 wrong at 3, 8.
//   tpu-bf16 (A): A0 = B0 but wrong at 0; A1 = B1; A2 = B2 but also wrong at 5.
// Seed churn of B: churn(B0,B1) = 0.2, (B0,B2) = 0.2, (B1,B2) = 0.4 -> 0.8 / 3.
// Precision churn A vs B: 0.1, 0, 0.1 -> 0.2 / 3; ratio 4.
// Final accuracies A 0.9, 0.8, 0.7; B 1.0, 0.8, 0.8.
// Weights (epochs 1 and 2, seeds 0 and 1): layer w: B0 [3, 4], A0 [3, 5] (0.2), B1 [0, 5],
// A1 [0, 5.5] (0.1); layer b: B0 [2], A0 [1] (0.5), B1 [4], A1 [5] (0.25); epoch 2 = 2 x epoch 1.
// Floor (B0, B1): w |[-3, 1]| / 5 = sqrt(10) / 5, b 2 / 2 = 1.
std::string handMadeStudy(const std::string& name) {
  const std::string path = freshTempPath(name);
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(specJson("epochs"));
  store->saveTestSet({0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {"cat", "dog"});
  const std::vector<std::vector<std::int32_t>> b = {{0, 0, 0, 0, 0, 1, 1, 1, 1, 1},
                                                    {0, 0, 0, 0, 1, 1, 1, 1, 1, 0},
                                                    {0, 0, 0, 1, 0, 1, 1, 1, 0, 1}};
  const std::vector<std::vector<std::int32_t>> a = {{1, 0, 0, 0, 0, 1, 1, 1, 1, 1},
                                                    {0, 0, 0, 0, 1, 1, 1, 1, 1, 0},
                                                    {0, 0, 0, 1, 0, 0, 1, 1, 0, 1}};
  const double accB[] = {1.0, 0.8, 0.8}, accA[] = {0.9, 0.8, 0.7};
  const std::vector<std::vector<float>> wB = {{3, 4}, {0, 5}}, wA = {{3, 5}, {0, 5.5f}};
  const std::vector<std::vector<float>> bB = {{2}, {4}}, bA = {{1}, {5}};
  for (std::uint64_t seed = 0; seed < 3; ++seed) {
    const std::int64_t idB = addCompleted(*store, "cpu-fp32", seed, accB[seed]);
    addPredictions(*store, idB, b[seed]);
    const std::int64_t idA = addCompleted(*store, "tpu-bf16", seed, accA[seed]);
    addPredictions(*store, idA, a[seed]);
    if (seed == 2) continue;  // no weights kept for seed 2 (as if trained before the table)
    for (int epoch = 1; epoch <= 2; ++epoch) {
      const auto times = [&](const std::vector<float>& v) {
        std::vector<float> out = v;
        for (float& x : out) x *= float(epoch);
        return out;
      };
      store->addWeightSnapshot(idB, epoch, {{"w", times(wB[seed])}, {"b", times(bB[seed])}});
      store->addWeightSnapshot(idA, epoch, {{"w", times(wA[seed])}, {"b", times(bA[seed])}});
    }
  }
  RunRecord diverged;
  diverged.backend = "gpu-tf32";
  diverged.seed = 0;
  diverged.status = RunState::Diverged;
  diverged.divergedEpoch = 2;
  store->addRun(diverged);
  RunRecord imported;
  imported.backend = "gpu-tf32";
  imported.source = "imported";
  imported.status = RunState::Completed;
  imported.finalAccuracy = 0.85;
  imported.message = "prod_1@2025-01-01";
  store->addRun(imported);
  return path;
}

TEST(DivergenceAnalysis, HandMadeStudyGivesTheHandWorkedFigures) {
  const std::string path = handMadeStudy("hand.db");
  const auto store = ResultsStore::openReadOnly(path);
  DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport r = analyseDivergence(*store, options);

  // Churn: the churn matrix over the backends with predictions (gpu-tf32 has none).
  ASSERT_EQ(r.backends, (std::vector<std::string>{"cpu-fp32", "tpu-bf16"}));
  ASSERT_EQ(r.churnMatrix.size(), 4u);
  EXPECT_EQ(r.churnMatrix[0].row, "cpu-fp32");
  EXPECT_EQ(r.churnMatrix[0].column, "cpu-fp32");
  EXPECT_NEAR(r.churnMatrix[0].churn.mean, 0.8 / 3, 1e-12);  // seed churn of cpu-fp32
  EXPECT_EQ(r.churnMatrix[0].churn.pairs, 3u);
  EXPECT_NEAR(r.churnMatrix[1].churn.mean, 0.2 / 3, 1e-12);  // cpu-fp32 vs tpu-bf16
  EXPECT_NEAR(r.churnMatrix[2].churn.mean, 0.2 / 3, 1e-12);
  EXPECT_NEAR(r.churnMatrix[3].churn.mean, 1.2 / 3, 1e-12);  // A: 0.3, 0.4, 0.5
  ASSERT_TRUE(r.churn);
  EXPECT_NEAR(r.churn->precision.mean, 0.2 / 3, 1e-12);
  EXPECT_NEAR(r.churn->seed_floor.mean, 0.8 / 3, 1e-12);
  EXPECT_NEAR(r.churn->seed_to_precision_ratio, 4.0, 1e-12);
  EXPECT_NE(r.churn->headline.find("4 times less"), std::string::npos) << r.churn->headline;

  // McNemar per seed: seed 0, A wrong where B is right at example 0 (b = 0, c = 1, p = 1);
  // seed 1 identical; seed 2, A also wrong at example 5.
  ASSERT_EQ(r.mcnemar.size(), 3u);
  EXPECT_EQ(r.mcnemar[0].seed, 0u);
  EXPECT_EQ(r.mcnemar[0].test.only_first_correct, 0u);
  EXPECT_EQ(r.mcnemar[0].test.only_second_correct, 1u);
  EXPECT_EQ(r.mcnemar[1].test.only_first_correct + r.mcnemar[1].test.only_second_correct, 0u);
  EXPECT_EQ(r.mcnemar[2].test.only_second_correct, 1u);
  EXPECT_DOUBLE_EQ(r.mcnemar[0].test.p_value, 1.0);

  // Paired tests: differences -0.1, 0, -0.1: mean -1/15, sd 0.057735, t = -2, df 2; the two-sided p
  // of t = 2 with 2 df is 1 - 2 / sqrt(6).
  EXPECT_EQ(r.pairedSeeds, (std::vector<std::uint64_t>{0, 1, 2}));
  ASSERT_TRUE(r.pairedT);
  EXPECT_NEAR(r.pairedT->mean_diff, -0.2 / 3, 1e-12);
  EXPECT_NEAR(r.pairedT->t, -2.0, 1e-9);
  EXPECT_NEAR(r.pairedT->p_value, 1.0 - 2.0 / std::sqrt(6.0), 1e-9);
  ASSERT_TRUE(r.wilcoxon);
  EXPECT_EQ(r.wilcoxon->n, 3u);
  EXPECT_EQ(r.wilcoxon->zeros, 1u);
  ASSERT_TRUE(r.welch);
  EXPECT_NEAR(r.welch->mean_a, 0.8, 1e-12);
  EXPECT_NEAR(r.welch->mean_b, 2.6 / 3, 1e-12);

  // Per-class accuracy (cat = 0-4, dog = 5-9).
  ASSERT_EQ(r.classes.size(), 2u);
  EXPECT_EQ(r.classNames, (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(r.classes[0].className, "cat");
  EXPECT_EQ(r.classes[1].className, "dog");
  EXPECT_NEAR(r.classes[0].meanA, 0.8, 1e-12);
  EXPECT_NEAR(r.classes[0].meanB, 2.6 / 3, 1e-12);
  EXPECT_NEAR(r.classes[1].meanA, 2.4 / 3, 1e-12);
  EXPECT_NEAR(r.classes[1].meanB, 2.6 / 3, 1e-12);
  EXPECT_NEAR(r.classes[1].difference.welch.mean_diff, -0.2 / 3, 1e-12);

  // Weight divergence per layer, epochs 1 and 2 (seed 2 kept none: only seeds 0 and 1 pair).
  EXPECT_EQ(r.weightsKept, "epochs");
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].layer, "w");
  EXPECT_EQ(r.layers[1].layer, "b");
  for (const LayerDivergence& l : r.layers) {
    EXPECT_EQ(l.epochs, (std::vector<int>{1, 2}));
    EXPECT_EQ(l.precisionPairs, 2u);
    EXPECT_EQ(l.seedPairs, 1u);
    ASSERT_EQ(l.precision.size(), 2u);
    ASSERT_EQ(l.seedFloor.size(), 2u);
  }
  for (std::size_t e = 0; e < 2; ++e) {
    EXPECT_NEAR(r.layers[0].precision[e], 0.15, 1e-7);
    EXPECT_NEAR(r.layers[1].precision[e], 0.375, 1e-7);
    EXPECT_NEAR(r.layers[0].seedFloor[e], std::sqrt(10.0) / 5, 1e-7);
    EXPECT_NEAR(r.layers[1].seedFloor[e], 1.0, 1e-7);
  }

  // What is missing, in words.
  EXPECT_TRUE(hasNote(r, "gpu-tf32 seed 0 diverged in epoch 2: excluded")) << allNotes(r);
  EXPECT_TRUE(hasNote(r, "gpu-tf32: 1 imported run(s) carry no per-example predictions"))
      << allNotes(r);
}

TEST(DivergenceAnalysis, SameSeedSameBackendHasNoChurn) {
  const auto store = ResultsStore::openReadOnly(handMadeStudy("self.db"));
  DivergenceOptions options;
  options.a = options.b = "cpu-fp32";
  const DivergenceReport r = analyseDivergence(*store, options);
  ASSERT_TRUE(r.churn);
  EXPECT_EQ(r.churn->precision.mean, 0.0);
  EXPECT_EQ(r.churn->precision.pairs, 3u);
  for (const LayerDivergence& l : r.layers)
    for (double d : l.precision) EXPECT_EQ(d, 0.0);
}

TEST(DivergenceAnalysis, UnknownBackendIsNamed) {
  const auto store = ResultsStore::openReadOnly(handMadeStudy("unknown.db"));
  DivergenceOptions options;
  options.a = "tpu-bf17";
  options.b = "cpu-fp32";
  try {
    analyseDivergence(*store, options);
    FAIL() << "an unknown backend was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'tpu-bf17'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu-fp32, tpu-bf16, gpu-tf32"), std::string::npos)
        << e.what();
  }
}

TEST(DivergenceAnalysis, MissingPartsBecomeNotesNotFailures) {
  const std::string path = freshTempPath("bare.db");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(specJson("none"));
    addCompleted(*store, "cpu-fp32", 0, 0.9);
    addCompleted(*store, "cpu-fp32", 1, 0.8);
    addCompleted(*store, "tpu-bf16", 0, 0.85);
  }
  const auto store = ResultsStore::openReadOnly(path);
  DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport r = analyseDivergence(*store, options);
  EXPECT_TRUE(r.backends.empty());
  EXPECT_TRUE(r.churnMatrix.empty());
  EXPECT_FALSE(r.churn);
  EXPECT_TRUE(r.classes.empty());
  EXPECT_TRUE(r.layers.empty());
  EXPECT_FALSE(r.pairedT);
  EXPECT_EQ(r.pairedSeeds, (std::vector<std::uint64_t>{0}));
  EXPECT_TRUE(hasNote(r, "no per-example predictions")) << allNotes(r);
  EXPECT_TRUE(hasNote(r, "keep_weights is none: no weight divergence")) << allNotes(r);
  EXPECT_TRUE(hasNote(r, "seed 1 has no completed tpu-bf16 run")) << allNotes(r);
  EXPECT_TRUE(hasNote(r, "paired tests need at least 2 seeds")) << allNotes(r);
}

TEST(DivergenceAnalysis, DatabaseWithoutAStudyReadsItsRunsOnly) {
  const std::string path = freshTempPath("nostudy.db");
  {
    auto store = ResultsStore::open(path, true);
    addCompleted(*store, "cpu-fp32", 0, 0.9);
    addCompleted(*store, "tpu-bf16", 0, 0.85);
  }
  DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport r = analyseDivergence(*ResultsStore::openReadOnly(path), options);
  EXPECT_EQ(r.weightsKept, "none");
  EXPECT_EQ(r.pairedSeeds, (std::vector<std::uint64_t>{0}));
  EXPECT_TRUE(hasNote(r, "holds no study")) << allNotes(r);
}

// A completed run without a final accuracy (an import that had none) leaves its seed unpaired
// with the run named, instead of failing the paired tests on a NaN.
TEST(DivergenceAnalysis, RunWithoutFinalAccuracyIsLeftUnpairedAndNamed) {
  const std::string path = freshTempPath("nan.db");
  std::int64_t unknown = 0;
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(specJson("none"));
    for (std::uint64_t seed = 0; seed < 3; ++seed) addCompleted(*store, "cpu-fp32", seed, 0.9);
    addCompleted(*store, "tpu-bf16", 0, 0.85);
    addCompleted(*store, "tpu-bf16", 1, 0.8);
    unknown = addCompleted(*store, "tpu-bf16", 2, std::nan(""));
  }
  DivergenceOptions options;
  options.a = "tpu-bf16";
  options.b = "cpu-fp32";
  const DivergenceReport r = analyseDivergence(*ResultsStore::openReadOnly(path), options);
  EXPECT_EQ(r.pairedSeeds, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_TRUE(r.pairedT);
  EXPECT_TRUE(hasNote(
      r, "seed 2: tpu-bf16 run " + std::to_string(unknown) + " has no final accuracy: not paired"))
      << allNotes(r);
}

}  // namespace
}  // namespace paritylab::study
