// A study's size and time said before it starts: the runs every cell, backend and seed train,
// their steps, and the wall time of those steps with several runs at once.

#include "core/study/run/study_time.h"

#include <gtest/gtest.h>

#include "core/data/dataset.h"

namespace paritylab::study {
namespace {

// 200 synthetic training images; batch 64 -> 4 steps an epoch, batch 128 -> 2.
const char* kSweep = R"({"version": 1, "name": "grid",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 50},
  "model": "mlp", "epochs": 3, "batch_size": 64, "backends": ["cpu-fp32", "tpu-bf16"],
  "sweep": {"batch_size": [64, 128], "lr": [0.1, 0.01]}, "seeds": 3, "threads": 2})";

TEST(StudyTime, CountsEveryCellBackendSeedAndChaosFloorRun) {
  const StudySpec spec = parseStudySpec(kSweep);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  // One second per step of batch 64, two per step of batch 128 (the same per image); evaluating
  // costs nothing here (see below).
  const SettingCost seconds = [](const BackendEntry&, const nn::TrainConfig& c) {
    return SettingSeconds{c.batchSize / 64.0, 0.0, 0.0};
  };
  const StudyTimeEstimate e = studyTimeFromCosts(spec, data, 0, seconds);
  // 4 cells x 2 backends + the chaos floor's 2 entries of the first cell, x 3 seeds.
  EXPECT_EQ(e.runs, (4 * 2 + 2) * 3);
  // batch 64: 3 epochs x 4 steps; batch 128: 3 x 2. Cells of batch 64: 2 per backend, and the
  // chaos floor (the first cell is batch 64).
  EXPECT_EQ(e.steps, (2 * 2 + 2) * 3 * 12 + 2 * 2 * 3 * 6);
  // Every run takes 12 s (12 steps of 1 s, or 6 of 2 s): 30 runs on 2 threads = 15 x 12 s.
  EXPECT_EQ(e.threads, 2);
  EXPECT_DOUBLE_EQ(e.seconds, 15 * 12.0);
  EXPECT_FALSE(e.atMost);
  EXPECT_EQ(describeStudyTime(spec, e),
            "24 runs (4 cells x 2 backends x 3 seeds) + 6 chaos floor runs; about 3 min with 2 "
            "runs at once (training, evaluation and serving)");
}

TEST(StudyTime, PlacesTheLongestRunsFirstOnTheThreadThatFreesFirst) {
  StudySpec spec = parseStudySpec(kSweep);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  spec.seeds = {0};
  // Run lengths 3, 3, 2, 2, 2 (x 12 steps): on 2 threads 3+2+2 | 3+2 -> 7 x 12 s.
  spec.backends.resize(5);
  const SettingCost seconds = [&](const BackendEntry& e, const nn::TrainConfig&) {
    return SettingSeconds{&e < &spec.backends[2] ? 3.0 : 2.0, 0.0, 0.0};
  };
  for (BackendEntry& e : spec.backends) e.overrides.batchSize = 64;
  EXPECT_DOUBLE_EQ(studyTimeFromCosts(spec, data, 2, seconds).seconds, 7 * 12.0);
  EXPECT_DOUBLE_EQ(studyTimeFromCosts(spec, data, 1, seconds).seconds, 12 * 12.0);
}

// Each run evaluates its test set after every epoch; served, once more under its own policy,
// once under each other policy of the study (a sweep's cells of one backend count once), and its
// first items one at a time. The chaos floor's runs are not served.
TEST(StudyTime, CountsEveryEvaluationAndTheServingOfEachRun) {
  StudySpec spec = parseStudySpec(kSweep);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  spec.seeds = {0};
  const SettingCost seconds = [](const BackendEntry&, const nn::TrainConfig&) {
    return SettingSeconds{0.0, 1.0, 10.0};  // a second per test item, ten alone
  };
  const double items = 50;  // the test set
  // Every run: 3 epochs x 50 items; the spec's 8 runs also 50 under their own model's policy,
  // 50 under each policy of the other entries (cpu-fp32's and tpu-bf16's: the other cells of its
  // own backend and the other backend's cells) and 50 items alone.
  const double served = 3 * items + items + 2 * items + 10 * items;
  const double floor = 3 * items;
  EXPECT_DOUBLE_EQ(studyTimeFromCosts(spec, data, 1, seconds).seconds, 8 * served + 2 * floor);
  spec.serve = false;
  EXPECT_DOUBLE_EQ(studyTimeFromCosts(spec, data, 1, seconds).seconds, 10 * floor);
}

TEST(StudyTime, TimesEachPolicyAndBatchSizeOnceOnTheStudysData) {
  StudySpec spec = parseStudySpec(kSweep);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  const StudyTimeEstimate e = estimateStudyTime(spec, data, 2, 1);
  // cpu-fp32 and tpu-bf16 at batch 64 and 128, which the lr cells share, and the chaos floor's
  // other summation order (its one-ulp nudge trains as cpu-fp32 does).
  EXPECT_EQ(e.settingsTimed, 5);
  EXPECT_EQ(e.stepsTimed, 1);
  EXPECT_TRUE(e.complete);
  EXPECT_GT(e.seconds, 0.0);
  EXPECT_EQ(e.runs, 30);
  EXPECT_NE(describeStudyTime(spec, e).find("(training, evaluation and serving; 1 step timed per "
                                            "backend and batch size)"),
            std::string::npos);
}

TEST(StudyTime, ACancelledEstimateSaysItIsIncomplete) {
  const StudySpec spec = parseStudySpec(kSweep);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  int asked = 0;
  const StudyTimeEstimate e = estimateStudyTime(spec, data, 2, 1, [&] { return ++asked > 1; });
  EXPECT_FALSE(e.complete);
  EXPECT_EQ(e.settingsTimed, 1);
}

TEST(StudyTime, ASequentialStudyCountsItsLargestDesignAsAtMost) {
  const StudySpec spec = parseStudySpec(R"({"version": 1, "name": "seq",
    "dataset": {"source": "synthetic", "train_size": 200, "test_size": 50},
    "model": "mlp", "epochs": 1, "batch_size": 100, "backends": ["cpu-fp32", "tpu-bf16"],
    "chaos_floor": false, "sequential": {"margin": 0.01, "max_seeds": 10, "look_every": 5}})");
  const data::DataSplit data = data::loadDataset(spec.dataset);
  const StudyTimeEstimate e = studyTimeFromCosts(spec, data, 1, [](const auto&, const auto&) {
    return SettingSeconds{0.5, 0.0, 0.0};
  });
  EXPECT_TRUE(e.atMost);
  EXPECT_EQ(e.runs, 20);
  EXPECT_DOUBLE_EQ(e.seconds, 20 * 2 * 0.5);
  EXPECT_EQ(describeStudyTime(spec, e),
            "at most 20 runs (2 backends x 10 seeds); about 20 s with 1 run at once (training, "
            "evaluation and serving)");
}

TEST(StudyTime, DurationsInWordsRoundToTheirUnit) {
  EXPECT_EQ(durationWords(0.2), "about 1 s");
  EXPECT_EQ(durationWords(44.6), "about 45 s");
  EXPECT_EQ(durationWords(719), "about 12 min");
  EXPECT_EQ(durationWords(3.5 * 3600), "about 3.5 h");
  EXPECT_EQ(durationWords(3 * 86400), "about 3.0 days");
}

}  // namespace
}  // namespace paritylab::study
