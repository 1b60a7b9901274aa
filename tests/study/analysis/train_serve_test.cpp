// Train under one backend, serve under another, through a real study: every completed run is
// served by the study's other backends and by its own one item at a time, the matrix averages
// them per pair beside the seed floor, and "serve": false leaves it out with a note.

#include "core/study/analysis/train_serve.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "core/study/run/study_runner.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

const char* kServeSpec = R"({"name": "serve",
    "dataset": {"source": "synthetic", "train_size": 128, "test_size": 64},
    "model": "mlp", "epochs": 1, "batch_size": 32, "eval_batch_size": 32,
    "backends": ["cpu-fp32", "pure-bf16"], "seeds": 2, "threads": 1)";

TEST(TrainServe, EveryRunIsServedByTheOtherBackendsAndOneAtATime) {
  auto store = ResultsStore::open(testing::freshTempPath("serve.db"), true);
  StudyRunner runner(parseStudySpec(std::string(kServeSpec) + "}"), *store);
  runner.run();
  // Four runs of the study and its chaos floor's four (which are not served).
  const auto serving = store->loadAllServing();
  ASSERT_EQ(serving.size(), 4u);
  for (const auto& [id, rows] : serving) {
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].batchSize, 32);  // by the other backend, in the evaluation's batches
    EXPECT_EQ(rows[1].batchSize, 1);   // by its own, one at a time
    for (const ServingRecord& r : rows) {
      EXPECT_EQ(r.predictions, 64);
      EXPECT_LE(r.flips, r.predictions);
      EXPECT_GE(r.meanKl, 0.0);
    }
  }
  const TrainServeMatrix m = analyseTrainServe(*store);
  ASSERT_EQ(m.backends, (std::vector<std::string>{"cpu-fp32", "pure-bf16"}));
  for (std::size_t t = 0; t < 2; ++t) {
    for (std::size_t s = 0; s < 2; ++s) {
      const ServeCell& c = m.cell(t, s);
      EXPECT_EQ(c.runs, 2u) << t << s;
      EXPECT_EQ(c.batchSize, t == s ? 1 : 32);
      EXPECT_TRUE(c.flipRate >= 0.0 && c.flipRate <= 1.0);
    }
    ASSERT_TRUE(m.seedFloor[t]);
    EXPECT_EQ(m.seedFloor[t]->pairs, 1u);
  }
  // Served in bf16 a fp32-trained model's answers move: a positive KL.
  EXPECT_GT(m.cell(0, 1).meanKl, 0.0);
  ASSERT_EQ(m.headlines.size(), 2u);
  EXPECT_EQ(m.headlines[0].rfind("trained on cpu-fp32: served on pure-bf16, ", 0), 0u)
      << m.headlines[0];
  EXPECT_NE(m.headlines[0].find("seeds differ on"), std::string::npos);
  EXPECT_NE(m.headlines[0].find("one at a time instead of in batches"), std::string::npos);
}

// A sweep's cells of a backend share its arithmetic: each serves a run as its backend's other
// cells do (one evaluation per policy, the same figures under every cell's name), and a cell of
// the run's own backend changes no prediction.
TEST(TrainServe, ASweepsCellsOfOneBackendServeARunAlike) {
  auto store = ResultsStore::open(testing::freshTempPath("serve-sweep.db"), true);
  StudyRunner runner(parseStudySpec(std::string(kServeSpec) +
                                    R"(, "chaos_floor": false, "sweep": {"lr": [0.01, 0.001]}})"),
                     *store);
  runner.run();
  const auto serving = store->loadAllServing();
  ASSERT_EQ(serving.size(), 8u);
  for (const auto& [id, rows] : serving) {
    ASSERT_EQ(rows.size(), 4u);  // the three other cells in batches, its own one at a time
    std::map<std::string, const ServingRecord*> byName;
    for (const ServingRecord& r : rows) byName[r.servedBy] = &r;
    const ServingRecord& bf16a = *byName.at("pure-bf16 lr=0.01");
    const ServingRecord& bf16b = *byName.at("pure-bf16 lr=0.001");
    const ServingRecord& fp32a = *byName.at("cpu-fp32 lr=0.01");
    const ServingRecord& fp32b = *byName.at("cpu-fp32 lr=0.001");
    // Served by each policy: one of the pair is the run's own entry (one at a time).
    if (bf16a.batchSize == 32 && bf16b.batchSize == 32) {
      EXPECT_EQ(bf16a.flips, bf16b.flips);
      EXPECT_EQ(bf16a.meanKl, bf16b.meanKl);
      EXPECT_EQ(bf16a.accuracy, bf16b.accuracy);
      const ServingRecord& same = fp32a.batchSize == 32 ? fp32a : fp32b;
      EXPECT_EQ(same.flips, 0);  // cpu-fp32 served by cpu-fp32 (another cell): nothing moves
      EXPECT_EQ(same.meanKl, 0.0);
    } else {
      EXPECT_EQ(fp32a.flips, fp32b.flips);
      EXPECT_EQ(fp32a.meanKl, fp32b.meanKl);
      const ServingRecord& same = bf16a.batchSize == 32 ? bf16a : bf16b;
      EXPECT_EQ(same.flips, 0);
      EXPECT_EQ(same.meanKl, 0.0);
    }
  }
}

TEST(TrainServe, AStudyWithoutServingSaysSo) {
  auto store = ResultsStore::open(testing::freshTempPath("noserve.db"), true);
  StudyRunner runner(
      parseStudySpec(std::string(kServeSpec) + R"(, "serve": false, "chaos_floor": false})"),
      *store);
  runner.run();
  EXPECT_TRUE(store->loadAllServing().empty());
  const TrainServeMatrix m = analyseTrainServe(*store);
  EXPECT_EQ(m.cell(0, 1).runs, 0u);
  EXPECT_TRUE(std::isnan(m.cell(0, 1).flipRate));
  EXPECT_TRUE(m.headlines.empty());
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("\"serve\": false"), std::string::npos);
}

// Serving comes after everything a run reports: a language model served under fp8 delayed scaling
// (whose served copy calibrates its scales on a batch first) writes the same sample, bit for bit,
// as with "serve": false, and its served rows are there.
TEST(TrainServe, ServingChangesNothingARunReports) {
  const std::string corpus = testing::freshTempPath("serve-corpus.txt");
  {
    std::ofstream out(corpus);
    for (int i = 0; i < 200; ++i) out << "to be or not to be, that is the question. ";
  }
  const std::string spec = R"({"name": "serve-lm", "dataset": {"source": "text:)" + corpus +
                           R"("}, "model": "gpt", "n_layer": 1, "n_head": 2, "n_embd": 16,
      "block_size": 16, "steps": 6, "batch_size": 4, "eval_batch_size": 4,
      "samples": {"prompt": "to", "length": 40}, "backends": ["cpu-fp32", "fp8-e4m3"], "seeds": 1,
      "chaos_floor": false, "threads": 1)";
  std::map<std::string, std::string> texts[2];
  for (const bool serve : {true, false}) {
    auto store =
        ResultsStore::open(testing::freshTempPath(serve ? "serve-lm.db" : "noserve-lm.db"), true);
    StudyRunner runner(parseStudySpec(spec + (serve ? "}" : R"(, "serve": false})")), *store);
    runner.run();
    const auto samples = store->loadSamples();
    for (const RunRecord& run : store->loadRuns())
      texts[serve][run.backend] = samples.at(run.id).text;
    EXPECT_EQ(store->loadAllServing().size(), serve ? 2u : 0u);
  }
  ASSERT_EQ(texts[1].size(), 2u);
  EXPECT_EQ(texts[1], texts[0]);
}

}  // namespace
}  // namespace paritylab::study
