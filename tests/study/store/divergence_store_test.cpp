// Per-example predictions stored compactly, and weight snapshots as keep_weights says:
// round trips through the database, the blobs' precision, a claimed run
// losing them, and read-only readers of older schema versions finding none.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <limits>

#include "core/study/files/divergence_export.h"
#include "core/study/files/results_import.h"
#include "core/study/run/study_runner.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_blobs.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

TEST(DivergenceStore, PredictionsRoundTripExactClassesAndQuantizedProbabilities) {
  auto store = ResultsStore::open(freshTempPath("predictions.db"), true);
  RunRecord run;
  run.backend = "cpu-fp32";
  run.id = store->addRun(run);
  nn::TestPredictions p;
  p.predicted = {0, 9, 3, 65535, 7};
  p.trueClassProbability = {0.0f, 1.0f, 0.5f, 1e-7f, 0.123456f};
  store->addPredictions(run.id, p);
  const auto loaded = store->loadPredictions();
  ASSERT_EQ(loaded.count(run.id), 1u);
  EXPECT_EQ(loaded.at(run.id).predicted, p.predicted);
  for (std::size_t i = 0; i < p.predicted.size(); ++i)  // uint16 steps of 1/65535
    EXPECT_NEAR(loaded.at(run.id).trueClassProbability[i], p.trueClassProbability[i],
                0.5 / 65535 + 1e-9)
        << i;
  EXPECT_EQ(loaded.at(run.id).trueClassProbability[0], 0.0f);
  EXPECT_EQ(loaded.at(run.id).trueClassProbability[1], 1.0f);
}

TEST(DivergenceStore, ClassesOutsideUint16AreRefusedNamingTheExample) {
  const std::vector<std::int32_t> classes = {1, 70000};
  try {
    encodeClasses(classes);
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("70000 of example 1"), std::string::npos) << e.what();
  }
}

TEST(DivergenceStore, DamagedBlobIsReportedNamingIt) {
  const std::vector<float> values = {1.0f, 2.0f, 3.0f};
  const std::string blob = encodeFloats(values);
  EXPECT_EQ(decodeFloats(blob, 3, "w"), values);
  EXPECT_THROW(decodeFloats(blob, 2, "w"), std::runtime_error);  // longer than expected
  EXPECT_THROW(decodeFloats(blob, 4, "w"), std::runtime_error);  // shorter
  try {
    decodeFloats("not zlib", 3, "weights of run 7");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("weights of run 7"), std::string::npos);
  }
}

TEST(DivergenceStore, WeightSnapshotsRoundTripBitExactInLayerOrder) {
  auto store = ResultsStore::open(freshTempPath("weights.db"), true);
  RunRecord run;
  run.backend = "tpu-bf16";
  run.id = store->addRun(run);
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<stats::LayerWeights> epoch1 = {{"fc2.weight", {1.5f, -0.0f, tiny}},
                                                   {"fc1.weight", {3.0f}}};
  const std::vector<stats::LayerWeights> epoch2 = {{"fc2.weight", {2.5f, 1e30f, -tiny}},
                                                   {"fc1.weight", {-3.0f}}};
  store->addWeightSnapshot(run.id, 2, epoch2);
  store->addWeightSnapshot(run.id, 1, epoch1);
  const auto loaded = store->loadWeightSnapshots(run.id);
  ASSERT_EQ(loaded.size(), 2u);
  for (const auto& [epoch, expected] : {std::pair{1, epoch1}, std::pair{2, epoch2}}) {
    ASSERT_EQ(loaded.at(epoch).size(), 2u);
    for (std::size_t l = 0; l < 2; ++l) {
      EXPECT_EQ(loaded.at(epoch)[l].name, expected[l].name);  // the order added, not sorted
      ASSERT_EQ(loaded.at(epoch)[l].values.size(), expected[l].values.size());
      for (std::size_t i = 0; i < expected[l].values.size(); ++i)
        EXPECT_EQ(std::signbit(loaded.at(epoch)[l].values[i]), std::signbit(expected[l].values[i]));
      EXPECT_EQ(loaded.at(epoch)[l].values, expected[l].values);
    }
  }
  EXPECT_TRUE(store->loadWeightSnapshots(run.id + 1).empty());
}

TEST(DivergenceStore, TestSetIsStoredOnceAndAnotherOneIsRefused) {
  const std::string path = freshTempPath("testset.db");
  auto store = ResultsStore::open(path, true);
  EXPECT_FALSE(store->loadTestSet());
  store->saveTestSet({0, 1, 2, 1}, {"T-shirt/top", "Trouser", "Pullover"});
  store->saveTestSet({0, 1, 2, 1}, {"T-shirt/top", "Trouser", "Pullover"});  // the same: no-op
  try {
    store->saveTestSet({0, 1, 2, 2}, {"T-shirt/top", "Trouser", "Pullover"});
    FAIL() << "a different test set was accepted";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("another test set"), std::string::npos) << e.what();
  }
  const auto reader = ResultsStore::openReadOnly(path);
  const auto testSet = reader->loadTestSet();
  ASSERT_TRUE(testSet);
  EXPECT_EQ(testSet->labels, (std::vector<std::int32_t>{0, 1, 2, 1}));
  EXPECT_EQ(testSet->classNames, (std::vector<std::string>{"T-shirt/top", "Trouser", "Pullover"}));
}

TEST(DivergenceStore, ClaimingARunAgainClearsItsPredictionsAndWeights) {
  auto store = ResultsStore::open(freshTempPath("claim.db"), true);
  RunRecord run;
  run.backend = "cpu-fp32";
  run.seed = 4;
  const std::int64_t id = store->ensureRun(run);
  ASSERT_TRUE(store->claimRun(id, "someone:1"));
  store->addPredictions(id, {{1, 2}, {0.5f, 0.25f}});
  store->addWeightSnapshot(id, 1, {{"fc1.weight", {1.0f}}});
  store->setRunStatus(id, RunState::Pending);  // e.g. released after its process died
  ASSERT_TRUE(store->claimRun(id, "someone:2"));
  EXPECT_TRUE(store->loadPredictions().empty());
  EXPECT_TRUE(store->loadWeightSnapshots(id).empty());
}

// A database as schema version 5 left it (no test_set/predictions/weights tables).
TEST(DivergenceStore, Version5DatabaseReadsAsNothingStoredAndGainsTheTablesForWriting) {
  const std::string path = freshTempPath("v5.db");
  {
    auto store = ResultsStore::open(path, true);
    RunRecord run;
    run.backend = "cpu-fp32";
    store->addRun(run);
  }
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(
            db,
            "DROP TABLE test_set; DROP TABLE predictions; DROP TABLE weights; DROP TABLE samples; "
            "DROP TABLE signals; DROP TABLE signal_layers; DROP TABLE serving; DROP TABLE "
            "lockstep; "
            "UPDATE paritylab_meta SET value = '5' WHERE key = 'schema_version';",
            nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
  }
  {
    const auto reader = ResultsStore::openReadOnly(path);
    EXPECT_FALSE(reader->loadTestSet());
    EXPECT_TRUE(reader->loadPredictions().empty());
    EXPECT_TRUE(reader->loadWeightSnapshots(1).empty());
    EXPECT_TRUE(reader->loadSamples().empty());
  }
  auto store = ResultsStore::open(path);  // migrated to the current version
  store->addPredictions(1, {{3}, {0.75f}});
  EXPECT_EQ(store->loadPredictions().at(1).predicted, std::vector<std::int32_t>{3});
  store->addSample(1, {"\n", "to be", 0.8});  // version 7's language-model samples
  EXPECT_EQ(store->loadSamples().at(1).text, "to be");
}

TEST(DivergenceStore, KeepWeightsIsParsedAndAWrongValueNamesTheField) {
  const std::string base =
      R"({"version": 1, "name": "k", "backends": ["cpu-fp32"], "dataset": {"source": "synthetic"})";
  EXPECT_EQ(parseStudySpec(base + "}", "k.json").keepWeights, "epochs");  // the default
  for (const char* value : {"epochs", "final", "none"}) {
    const StudySpec spec =
        parseStudySpec(base + R"(, "keep_weights": ")" + value + "\"}", "k.json");
    EXPECT_EQ(spec.keepWeights, value);
    EXPECT_EQ(parseStudySpec(studySpecToJson(spec).dump(), "k.json").keepWeights, value);
  }
  try {
    parseStudySpec(base + R"(, "keep_weights": "all"})", "k.json");
    FAIL() << "keep_weights 'all' was accepted";
  } catch (const SpecError& e) {
    EXPECT_EQ(e.field(), "keep_weights");
    EXPECT_NE(std::string(e.what()).find("'all'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("k.json"), std::string::npos) << e.what();
  }
}

// The runner stores, per finished run, its predictions and the weights keep_weights asks for, and
// the test set once.
TEST(DivergenceStore, StudyRunnerStoresPredictionsAndTheWeightsKeepWeightsAsksFor) {
  for (const char* keep : {"epochs", "final", "none"}) {
    SCOPED_TRACE(keep);
    const std::string path = freshTempPath(std::string("runner-") + keep + ".db");
    const StudySpec spec = parseStudySpec(std::string(R"({"version": 1, "name": "tiny",
      "dataset": {"source": "synthetic", "train_size": 120, "test_size": 60},
      "model": "mlp", "epochs": 2, "batch_size": 40, "chaos_floor": false, "backends": ["cpu-fp32", "pure-bf16"],
      "seeds": 2, "threads": 2, "keep_weights": ")") +
                                          keep + "\"}");
    auto store = ResultsStore::open(path, true);
    StudyRunner runner(spec, *store);
    const RunnerSummary summary = runner.run(false);
    ASSERT_EQ(summary.completed, 4);
    const auto testSet = store->loadTestSet();
    ASSERT_TRUE(testSet);
    EXPECT_EQ(testSet->labels.size(), 60u);
    const auto predictions = store->loadPredictions();
    EXPECT_EQ(predictions.size(), 4u);
    for (const RunRecord& r : store->loadRuns()) {
      ASSERT_EQ(predictions.count(r.id), 1u);
      std::size_t correct = 0;
      for (std::size_t i = 0; i < 60; ++i)
        correct += predictions.at(r.id).predicted[i] == testSet->labels[i] ? 1 : 0;
      EXPECT_DOUBLE_EQ(double(correct) / 60.0, r.finalAccuracy) << r.backend << " " << r.seed;
      const auto weights = store->loadWeightSnapshots(r.id);
      const std::size_t expected = std::string(keep) == "epochs" ? 2 : keep[0] == 'f' ? 1 : 0;
      ASSERT_EQ(weights.size(), expected);
      if (expected == 0) continue;
      EXPECT_EQ(weights.rbegin()->first, 2);  // the last epoch is always kept
      // The MLP's trained parameters (fc1-3 weights and biases), in the model's order.
      ASSERT_EQ(weights.rbegin()->second.size(), 6u);
      EXPECT_EQ(weights.rbegin()->second[0].name, "fc1.weight");
      EXPECT_EQ(weights.rbegin()->second[0].values.size(), 784u * 256u);  // synthetic: 28x28
    }
  }
}

// report on 200,000 imported runs of 20 backends took 15 s (1,000,000: minutes): the divergence
// analysis ran for every pair of backends over every run only to find no predictions. One query
// now finds that nothing is stored; the time no longer grows with backends x runs.
TEST(DivergenceStore, ReportOnManyImportedRunsFindsNothingToAnalyseInOneQuery) {
  const std::string path = freshTempPath("many-imported.db");
  auto store = ResultsStore::open(path, true);
  std::vector<ImportedRun> runs;
  for (int backend = 0; backend < 40; ++backend) {
    for (int seed = 0; seed < 1000; ++seed) {
      ImportedRun r;
      r.run.backend = "b" + std::to_string(backend);
      r.run.seed = std::uint64_t(seed);
      r.run.message = r.run.runName = "r" + std::to_string(seed);
      r.run.source = "imported";
      r.run.status = RunState::Completed;
      r.run.epochsDone = 1;
      r.run.finalAccuracy = 0.5 + 0.0001 * seed;
      r.epochs.push_back({1, 1.0, 1.0, r.run.finalAccuracy, 0.0, 0});
      runs.push_back(std::move(r));
    }
  }
  importRuns(*store, freshTempPath("many.csv"), runs);
  EXPECT_FALSE(store->holdsPredictionsOrWeights());
  const auto start = std::chrono::steady_clock::now();
  const DivergenceFiles files = writeDivergenceReport(*store, freshTempPath("many.csv"), {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(files.written.empty());
  EXPECT_NE(files.skipped.find("holds no per-example predictions or weight snapshots"),
            std::string::npos)
      << files.skipped;
  EXPECT_LT(seconds, 1.0) << "39 pairs x 40,000 runs analysed to find nothing";
}

}  // namespace
}  // namespace paritylab::study
