// Early warnings in the results database (tables signals and signal_layers, schema version 8):
// round trips bit for bit, refuses records that do not match their layers, are cleared (with the
// serving rows of version 9) with a run that starts again, are found by nothing in a version-7
// database, and a real run stores one record per sampled step, the same steps as its losses.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "core/study/run/study_runner.h"
#include "core/study/store/results_store.h"
#include "tests/study/same_bits.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::sameBits;

using testing::freshTempPath;

TEST(SignalStore, SignalsRoundTripBitForBitWithTheirLayers) {
  auto store = ResultsStore::open(freshTempPath("signals.db"), true);
  RunRecord run;
  run.backend = "cpu-fp32";
  run.id = store->addRun(run);
  const double kNan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::string> layers = {"h0.attn.c_attn.weight", "lm_head.weight"};
  store->addSignals(run.id, layers,
                    {{2, 1, 1.0 / 3.0, 7.25, 12.5, {1e-3f, 2.5e-4f}},
                     {4, 1, 0.5, kNan, 11.0, {std::numeric_limits<float>::denorm_min(), 0.0f}}});
  store->addSignals(run.id, layers, {{6, 2, 0.25, -1.5, 10.0, {0.125f, kNan}}});
  store->addSignals(run.id, layers, {{4, 1, 0.75, 1.0, 9.0, {1.0f, 1.0f}}});  // replaces step 4
  const auto loaded = store->loadAllSignals();
  ASSERT_EQ(loaded.count(run.id), 1u);
  const RunSignals& s = loaded.at(run.id);
  EXPECT_EQ(s.layers, layers);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.steps[0].step, 2);
  EXPECT_TRUE(sameBits(s.steps[0].gradNorm, 1.0 / 3.0));
  EXPECT_EQ(s.steps[0].updateRatios, (std::vector<float>{1e-3f, 2.5e-4f}));
  EXPECT_TRUE(sameBits(s.steps[1].gradNorm, 0.75));
  EXPECT_EQ(s.steps[2].epoch, 2);
  EXPECT_TRUE(sameBits(s.steps[2].attentionLogitMax, -1.5));
  EXPECT_TRUE(std::isnan(s.steps[2].updateRatios[1]));
}

TEST(SignalStore, RecordsThatDoNotMatchTheirLayersAreRefused) {
  auto store = ResultsStore::open(freshTempPath("signals-bad.db"), true);
  RunRecord run;
  run.backend = "cpu-fp32";
  run.id = store->addRun(run);
  EXPECT_THROW(store->addSignals(run.id, {"fc.weight"}, {{1, 1, 1.0, 1.0, 1.0, {}}}),
               std::invalid_argument);
  EXPECT_THROW(store->addSignals(run.id, {"a\nb"}, {{1, 1, 1.0, 1.0, 1.0, {1.0f}}}),
               std::invalid_argument);
  EXPECT_TRUE(store->loadAllSignals().empty());
}

TEST(SignalStore, ARunClaimedAgainLosesItsSignalsAndServing) {
  auto store = ResultsStore::open(freshTempPath("signals-claim.db"), true);
  RunRecord run;
  run.backend = "cpu-fp32";
  run.status = RunState::Failed;
  const std::int64_t id = store->addRun(run);
  store->addSignals(id, {"fc.weight"}, {{1, 1, 1.0, 1.0, 1.0, {0.5f}}});
  store->addServing(id, {{"tpu-bf16", 100, 1000, 4, 0.01, 1e-4, 0.9}});
  EXPECT_EQ(store->loadAllServing().at(id).at(0).flips, 4);
  store->setRunStatus(id, RunState::Pending);
  ASSERT_TRUE(store->claimRun(id, "someone:2"));
  EXPECT_TRUE(store->loadAllSignals().empty());
  EXPECT_TRUE(store->loadAllServing().empty());
}

TEST(SignalStore, Version7DatabaseReadsAsNoSignalsAndGainsTheTablesForWriting) {
  const std::string path = freshTempPath("v7.db");
  {
    auto store = ResultsStore::open(path, true);
    RunRecord run;
    run.backend = "cpu-fp32";
    store->addRun(run);
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "DROP TABLE signals; DROP TABLE signal_layers; DROP TABLE serving; DROP "
                           "TABLE lockstep; "
                           "UPDATE paritylab_meta "
                           "SET value = '7' WHERE key = 'schema_version';",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  EXPECT_TRUE(ResultsStore::openReadOnly(path)->loadAllSignals().empty());
  auto store = ResultsStore::open(path);  // migrated
  store->addSignals(1, {"fc.weight"}, {{3, 1, 2.0, 1.0, 1.0, {0.5f}}});
  EXPECT_EQ(store->loadAllSignals().at(1).steps.at(0).step, 3);
}

TEST(SignalStore, AStudyStoresSignalsAtEverySampledStepOfItsLosses) {
  const std::string path = freshTempPath("signals-study.db");
  const StudySpec spec = parseStudySpec(R"({"name": "signals",
    "dataset": {"source": "synthetic", "train_size": 96, "test_size": 32},
    "model": "small-cnn", "epochs": 2, "batch_size": 32, "backends": ["cpu-fp32"], "seeds": 1,
    "chaos_floor": false, "threads": 1})");
  auto store = ResultsStore::open(path, true);
  std::vector<SignalPoint> reported;  // what the runner tells a live view
  std::mutex mutex;
  RunnerCallbacks callbacks;
  callbacks.onSignals = [&](const SignalsEvent& e) {
    std::lock_guard lock(mutex);
    EXPECT_EQ(e.run.backend, "cpu-fp32");
    reported.insert(reported.end(), e.points.begin(), e.points.end());
  };
  StudyRunner runner(spec, *store, callbacks);
  runner.run();
  const auto steps = store->loadAllSteps();
  const auto signals = store->loadAllSignals();
  ASSERT_EQ(steps.size(), 1u);
  ASSERT_EQ(signals.size(), 1u);
  const std::vector<StepRecord>& losses = steps.begin()->second;
  const RunSignals& s = signals.begin()->second;
  ASSERT_EQ(s.steps.size(), losses.size());
  EXPECT_EQ(s.steps.size(), 6u);  // 3 steps an epoch, every one kept
  EXPECT_FALSE(s.layers.empty());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_EQ(s.steps[i].step, losses[i].step);
    EXPECT_EQ(s.steps[i].epoch, losses[i].epoch);
    EXPECT_GT(s.steps[i].gradNorm, 0.0);
    EXPECT_GT(s.steps[i].outputLogitNorm, 0.0);
    EXPECT_TRUE(std::isnan(s.steps[i].attentionLogitMax));  // small-cnn has no attention
    ASSERT_EQ(s.steps[i].updateRatios.size(), s.layers.size());
    for (float r : s.steps[i].updateRatios) EXPECT_GT(r, 0.0f);
  }
  ASSERT_EQ(reported.size(), s.steps.size());
  for (std::size_t i = 0; i < reported.size(); ++i) {
    EXPECT_EQ(reported[i].step, s.steps[i].step);
    EXPECT_EQ(reported[i].gradNorm, s.steps[i].gradNorm);
    EXPECT_EQ(reported[i].updateRatio, double(*std::max_element(s.steps[i].updateRatios.begin(),
                                                                s.steps[i].updateRatios.end())));
  }
}

}  // namespace
}  // namespace paritylab::study
