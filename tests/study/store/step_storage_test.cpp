// Step-level training loss and learning rate are stored in the results
// database, sampled so a run keeps at most 2,000 points (every k-th step, k = ceil(T / 2000)),
// written with each epoch, removed when a resumed run starts again.

#include <gtest/gtest.h>

#include <filesystem>

#include "core/study/run/study_runner.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string tempDb(const std::string& name) {
  auto p = fs::temp_directory_path() /
           ("paritylab-steps-test-" + std::to_string(::getpid()) + "-" + name);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

TEST(StepStorage, SamplingIntervalKeepsAtMost2000Points) {
  EXPECT_EQ(stepSamplingInterval(0), 1);
  EXPECT_EQ(stepSamplingInterval(1), 1);
  EXPECT_EQ(stepSamplingInterval(2000), 1);
  EXPECT_EQ(stepSamplingInterval(2001), 2);
  EXPECT_EQ(stepSamplingInterval(4000), 2);
  EXPECT_EQ(stepSamplingInterval(4001), 3);
  for (std::int64_t t : {1, 1999, 2000, 2001, 3000, 4001, 123457, 10'000'000})
    EXPECT_LE(t / stepSamplingInterval(t), 2000) << t;
}

// A stand-in for nn::train that reports `loss = 1 / step` and `lr = 0.5 / epoch` for every step of
// the configured epochs, so the stored sample can be checked exactly.
nn::TrainResult fakeTrain(const nn::TrainConfig& c, const backends::PrecisionPolicy&,
                          const data::DataSplit& d, const nn::TrainCallbacks& cb) {
  const std::int64_t perEpoch =
      (std::int64_t(d.train.size()) + c.batchSize - 1) / std::int64_t(c.batchSize);
  nn::TrainResult r;
  std::int64_t step = 0;
  for (int e = 1; e <= c.epochs; ++e) {
    for (std::int64_t i = 0; i < perEpoch; ++i) {
      ++step;
      cb.onStep(e, step, 1.0 / double(step), 0.5 / e);
    }
    nn::EpochMetrics m;
    m.epoch = e;
    m.trainLoss = 1.0;
    m.testLoss = 1.0;
    m.testAccuracy = 0.5;
    r.epochs.push_back(m);
    cb.onEpoch(m);
  }
  r.steps = step;
  return r;
}

TEST(StepStorage, RunnerStoresEveryKthStepWithItsLearningRate) {
  // 1000 examples, batch 1: 1000 steps per epoch, 3 epochs = 3000 steps, so k = 2, 1500 points.
  StudySpec spec = parseStudySpec(R"({"version": 1, "name": "steps",
    "dataset": {"source": "synthetic", "train_size": 1000, "test_size": 100},
    "model": "mlp", "epochs": 3, "batch_size": 1, "backends": ["cpu-fp32"], "seeds": 1,
    "threads": 1})");
  const std::string path = tempDb("sample.db");
  auto store = ResultsStore::open(path, true);
  StudyRunner runner(spec, *store, {}, &fakeTrain);
  runner.run();
  const auto steps = store->loadAllSteps();
  ASSERT_EQ(steps.size(), 1u);
  const std::vector<StepRecord>& run = steps.begin()->second;
  ASSERT_EQ(run.size(), 1500u);
  for (std::size_t i = 0; i < run.size(); ++i) {
    const std::int64_t step = 2 * std::int64_t(i + 1);
    ASSERT_EQ(run[i].step, step);
    EXPECT_EQ(run[i].epoch, int((step - 1) / 1000) + 1);
    EXPECT_DOUBLE_EQ(run[i].trainLoss, 1.0 / double(step));
    EXPECT_DOUBLE_EQ(run[i].lr, 0.5 / run[i].epoch);
  }
  // Resuming redoes an unfinished run from scratch: its old steps go with its epochs.
  store->deleteEpochs(steps.begin()->first);
  EXPECT_TRUE(store->loadAllSteps().empty());
}

TEST(StepStorage, RealTrainingStoresStepsInEveryRun) {
  StudySpec spec = parseStudySpec(R"({"version": 1, "name": "tiny",
    "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
    "model": "mlp", "epochs": 2, "batch_size": 50, "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"],
    "seeds": 1, "threads": 1, "schedule": {"kind": "cosine"}})");
  const std::string path = tempDb("real.db");
  auto store = ResultsStore::open(path, true);
  StudyRunner runner(spec, *store);
  runner.run();
  const auto steps = store->loadAllSteps();
  ASSERT_EQ(steps.size(), 2u);
  for (const auto& [id, run] : steps) {
    ASSERT_EQ(run.size(), 8u);  // 4 steps per epoch, 2 epochs, k = 1
    EXPECT_EQ(run.front().step, 1);
    EXPECT_EQ(run.back().step, 8);
    EXPECT_EQ(run.back().epoch, 2);
    EXPECT_DOUBLE_EQ(run.front().lr, 1e-3);  // cosine starts at the base lr
    EXPECT_LT(run.back().lr, run.front().lr);
    for (const StepRecord& s : run) EXPECT_TRUE(std::isfinite(s.trainLoss));
  }
}

}  // namespace
}  // namespace paritylab::study
