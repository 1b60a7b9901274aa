// A study with "lockstep" keeps its lockstep comparisons: before the runs, each mode trains the
// backend and the reference side by side from the first seed's start, and the database holds
// exactly what nn::runLockstep gives for that training; a resumed study does not run them again,
// a cancelled one stores none, and merging shards carries them over.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/study/cluster/results_merge.h"
#include "core/study/run/study_runner.h"
#include "core/study/store/results_store.h"
#include "tests/study/same_bits.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::sameBits;

using testing::freshTempPath;

StudySpec lockstepSpec() {
  return parseStudySpec(R"({"name": "lockstep",
    "dataset": {"source": "synthetic", "train_size": 96, "test_size": 32},
    "model": "mlp", "epochs": 2, "batch_size": 16, "backends": ["cpu-fp32", "tpu-bf16"],
    "seeds": [4, 5], "chaos_floor": false, "threads": 1, "serve": false,
    "lockstep": {"backend": "tpu-bf16", "steps": 5, "every": 2}})");
}

TEST(LockstepStudy, EachModeIsStoredAsTheLockstepOfTheFirstSeedsTraining) {
  const std::string path = freshTempPath("lockstep-study.db");
  const StudySpec spec = lockstepSpec();
  auto store = ResultsStore::open(path, true);
  std::vector<std::string> told;
  std::mutex mutex;
  RunnerCallbacks callbacks;
  callbacks.onLockstepStored = [&](const std::string& mode) {
    std::lock_guard lock(mutex);
    told.push_back(mode);
  };
  StudyRunner runner(spec, *store, callbacks);
  EXPECT_EQ(runner.run().completed, 4);
  EXPECT_EQ(told, (std::vector<std::string>{"resync", "free"}));

  const std::vector<LockstepRecord> stored = store->loadLockstep();
  ASSERT_EQ(stored.size(), 2u);
  const data::DataSplit data = data::loadDataset(spec.dataset);
  nn::TrainConfig config = spec.train;
  config.seed = 4;
  for (const LockstepRecord& r : stored) {
    EXPECT_EQ(r.backend, "tpu-bf16");
    EXPECT_EQ(r.reference, "cpu-fp32");
    EXPECT_EQ(r.seed, 4u);
    nn::LockstepOptions options;
    options.mode = *nn::parseLockstepMode(r.mode);
    options.steps = 5;
    options.everySteps = 2;
    const nn::LockstepResult direct =
        nn::runLockstep(config, backends::presetPolicy("tpu-bf16"),
                        backends::presetPolicy("cpu-fp32"), data, options);
    ASSERT_EQ(r.result.steps.size(), direct.steps.size()) << r.mode;
    ASSERT_EQ(r.result.steps.size(), 3u);  // steps 1, 3 and 5
    for (std::size_t s = 0; s < direct.steps.size(); ++s) {
      EXPECT_EQ(r.result.steps[s].step, direct.steps[s].step);
      for (std::size_t l = 0; l < direct.layers.size(); ++l)
        for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k)
          EXPECT_TRUE(
              sameBits(r.result.steps[s].difference[l][k], direct.steps[s].difference[l][k]))
              << r.mode << " step " << s << " layer " << l << " quantity " << k;
    }
  }
  // Re-synchronised, the weights before each step are the reference's; free-running they drift:
  // by the last compared step the free-running weight difference is the larger.
  const auto lastWeight = [](const LockstepRecord& r) {
    return r.result.steps.back().difference.front()[std::size_t(nn::LockstepQuantity::Weight)];
  };
  EXPECT_GT(lastWeight(stored[1]), lastWeight(stored[0]));
}

TEST(LockstepStudy, AResumedStudyKeepsItsComparisonsAndACancelledOneStoresNone) {
  const std::string path = freshTempPath("lockstep-resume.db");
  const StudySpec spec = lockstepSpec();
  {
    auto store = ResultsStore::open(path, true);
    StudyRunner runner(spec, *store);
    runner.cancel();
    runner.run();
    EXPECT_TRUE(store->loadLockstep().empty());
  }
  double seconds = 0.0;
  {
    auto store = ResultsStore::open(path);
    StudyRunner runner(spec, *store);
    runner.run(true);
    ASSERT_EQ(store->loadLockstep().size(), 2u);
    seconds = store->loadLockstep().front().result.seconds;
  }
  auto store = ResultsStore::open(path);
  std::vector<std::string> told;
  RunnerCallbacks callbacks;
  callbacks.onLockstepStored = [&](const std::string& mode) { told.push_back(mode); };
  StudyRunner runner(spec, *store, callbacks);
  runner.run(true);
  EXPECT_TRUE(told.empty());
  EXPECT_EQ(store->loadLockstep().front().result.seconds, seconds);  // the same record
}

TEST(LockstepStudy, MergingShardsCarriesTheComparisonsOver) {
  const StudySpec spec = lockstepSpec();
  std::vector<std::string> shards;
  for (int k = 1; k <= 2; ++k) {
    shards.push_back(freshTempPath("lockstep-shard-" + std::to_string(k) + ".db"));
    auto store = ResultsStore::open(shards.back(), true);
    StudyRunner runner(spec, *store);
    runner.setShard({k, 2});
    runner.run();
    EXPECT_EQ(store->loadLockstep().size(), k == 1 ? 2u : 0u);  // the first shard runs them
  }
  const std::string merged = freshTempPath("lockstep-merged.db");
  mergeResults(shards, merged);
  EXPECT_EQ(ResultsStore::openReadOnly(merged)->loadLockstep().size(), 2u);
}

}  // namespace
}  // namespace paritylab::study
