// Study spec parsing, results store, runner (resume, divergence, failure, cancel,
// thread-count independence), torchprime import, RFC 4180 report quoting, runs-CSV reading.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input/csv.h"
#include "core/stats/statistics.h"
#include "core/study/files/results_import.h"
#include "core/study/files/study_report.h"
#include "core/study/run/study_runner.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return testing::freshTempPath(name);
}

const char* kTinySpec = R"({"version": 1, "name": "tiny",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "mlp", "epochs": 1, "batch_size": 50,
  "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2, "threads": 2})";

std::string errorOf(const std::string& text) {
  try {
    parseStudySpec(text, "s.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

TEST(StudySpec, ParsesGoodSpecWithOverridesAndSeedList) {
  StudySpec s = parseStudySpec(R"({"name": "f", "chaos_floor": false, "backends": ["cpu-fp32",
    {"name": "tpu-wd", "policy": "tpu-bf16", "overrides": {"weight_decay": 1.25e-4, "batch_size": 512}}],
    "seeds": [3, 7], "optimizer": {"kind": "sgd", "lr": 0.1}})");
  ASSERT_EQ(s.backends.size(), 2u);
  EXPECT_EQ(s.backends[1].name, "tpu-wd");
  EXPECT_EQ(s.backends[1].policy.name, "tpu-bf16");
  nn::TrainConfig c = trainConfigFor(s, s.backends[1]);
  EXPECT_EQ(c.batchSize, 512);
  EXPECT_DOUBLE_EQ(c.optimizer.weightDecay, 1.25e-4);
  EXPECT_EQ(s.seeds, (std::vector<std::uint64_t>{3, 7}));
  // Round trip through JSON.
  StudySpec again = parseStudySpec(studySpecToJson(s).dump());
  EXPECT_EQ(studySpecToJson(again), studySpecToJson(s));
}

TEST(StudySpec, BadJsonGivesLineAndColumn) {
  std::string e = errorOf("{\n  \"name\": \"x\",\n  \"seeds\": ,\n}");
  EXPECT_NE(e.find("s.json:3:12"), std::string::npos) << e;
}

TEST(StudySpec, UnknownNamesAndTypesNameFieldAndValue) {
  std::string e = errorOf(R"({"name": "x", "backends": ["cpu-fp32", "gpu-tf33"]})");
  EXPECT_NE(e.find("backends[1]"), std::string::npos) << e;
  EXPECT_NE(e.find("gpu-tf33"), std::string::npos) << e;
  e = errorOf(R"({"name": "x", "model": "vgg", "backends": ["cpu-fp32"]})");
  EXPECT_NE(e.find("model"), std::string::npos) << e;
  EXPECT_NE(e.find("vgg"), std::string::npos) << e;
  e = errorOf(R"({"name": "x", "epochs": "two", "backends": ["cpu-fp32"]})");
  EXPECT_NE(e.find("epochs: expected an integer in [1, 10000], got \"two\""), std::string::npos)
      << e;
  e = errorOf(R"({"name": "x", "backends": ["cpu-fp32"], "dataset": {"sauce": 1}})");
  EXPECT_NE(e.find("dataset.sauce: unknown field"), std::string::npos) << e;
}

TEST(ResultsStore, RoundTripAndRejectsForeignFiles) {
  std::string path = tempPath("rt.db");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(studySpecToJson(parseStudySpec(kTinySpec)).dump());
    RunRecord r;
    r.backend = "tpu-bf16";
    r.seed = 4;
    r.status = RunState::Diverged;
    r.divergedEpoch = 2;
    r.finalAccuracy = 0.5;
    r.id = store->addRun(r);
    store->addEpoch(r.id, {1, 0.9, 0.8, 0.5, 1.5});
  }
  auto store = ResultsStore::open(path);
  EXPECT_EQ(store->loadStudySpec().name, "tiny");
  auto runs = store->loadRuns();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, RunState::Diverged);
  EXPECT_EQ(runs[0].divergedEpoch, 2);
  EXPECT_EQ(runs[0].epochsDone, 1);
  auto epochs = store->loadEpochs(runs[0].id);
  ASSERT_EQ(epochs.size(), 1u);
  EXPECT_DOUBLE_EQ(epochs[0].testLoss, 0.8);
  std::string bad = tempPath("bad.db");
  std::ofstream(bad) << "hello, not a database at all..................................";
  try {
    ResultsStore::open(bad);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
  }
}

TEST(StudyRunner, RealTinyStudyIsIndependentOfThreadCount) {
  std::vector<double> acc[2];
  for (int threads : {1, 2}) {
    StudySpec s = parseStudySpec(kTinySpec);
    s.threads = threads;
    std::string path = tempPath("threads" + std::to_string(threads) + ".db");
    auto store = ResultsStore::open(path, true);
    StudyRunner runner(s, *store);
    RunnerSummary sum = runner.run();
    EXPECT_EQ(sum.completed, 4);
    for (auto& r : store->loadRuns()) acc[threads - 1].push_back(r.finalAccuracy);
    EXPECT_EQ(store->loadAllEpochs().size(), 4u);
  }
  EXPECT_EQ(acc[0], acc[1]);
}

// One worker starts each seed's costliest backend first (tpu-bf16's 8 replicas before
// cpu-fp32), seed by seed; the database keeps the planned order for reports.
TEST(StudyRunner, StartsEachSeedsCostliestBackendFirst) {
  StudySpec s = parseStudySpec(kTinySpec);
  s.threads = 1;
  std::string path = tempPath("order.db");
  auto store = ResultsStore::open(path, true);
  std::vector<std::pair<std::string, std::uint64_t>> started;
  RunnerCallbacks cb;
  cb.onRunState = [&](const RunStateEvent& e) {
    if (e.state == RunState::Running) started.emplace_back(e.run.backend, e.run.seed);
  };
  StudyRunner runner(s, *store, cb);
  runner.run();
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"tpu-bf16", 0}, {"cpu-fp32", 0}, {"tpu-bf16", 1}, {"cpu-fp32", 1}};
  EXPECT_EQ(started, expected);
  std::vector<std::string> stored;
  for (const auto& r : store->loadRuns()) stored.push_back(r.backend);
  EXPECT_EQ(stored, (std::vector<std::string>{"cpu-fp32", "tpu-bf16", "cpu-fp32", "tpu-bf16"}));
}

nn::TrainResult fakeResult(const nn::TrainConfig& c, const nn::TrainCallbacks& cb) {
  nn::TrainResult r;
  for (int e = 1; e <= c.epochs; ++e) {
    nn::EpochMetrics m{e, 1.0 / e, 1.0 / e, 0.5 + 0.01 * double(c.seed), 0.0};
    if (cb.onEpoch) cb.onEpoch(m);
    r.epochs.push_back(m);
  }
  return r;
}

TEST(StudyRunner, ResumeAfterKillKeepsFinishedRunsAndRedoesOthers) {
  StudySpec s = parseStudySpec(kTinySpec);
  s.train.epochs = 2;
  std::string path = tempPath("resume.db");
  {
    auto store = ResultsStore::open(path, true);
    // "Kill" after two runs: later runs throw as if the process died mid-run (left as running).
    std::atomic<int> calls{0};
    StudyRunner runner(s, *store, {}, [&](auto& c, auto&, auto&, auto& cb) {
      if (++calls > 2) {
        cb.onEpoch({1, 1, 1, 0.1, 0});
        runner.cancel();
        nn::TrainResult r;
        r.status = nn::RunStatus::Cancelled;
        return r;
      }
      return fakeResult(c, cb);
    });
    s.threads = 1;
    runner.run();
  }
  auto store = ResultsStore::open(path);
  std::atomic<int> calls{0};
  StudyRunner again(s, *store, {}, [&](auto& c, auto&, auto&, auto& cb) {
    ++calls;
    return fakeResult(c, cb);
  });
  RunnerSummary sum = again.run(true);
  EXPECT_EQ(sum.skipped, 2);
  EXPECT_EQ(calls.load(), 2);
  auto runs = store->loadRuns();
  ASSERT_EQ(runs.size(), 4u);  // no duplicates
  for (auto& r : runs) {
    EXPECT_EQ(r.status, RunState::Completed);
    EXPECT_EQ(store->loadEpochs(r.id).size(), 2u);
  }
}

TEST(StudyRunner, DivergenceAndFailureAreRecordedAndTheStudyGoesOn) {
  StudySpec s = parseStudySpec(kTinySpec);
  auto store = ResultsStore::open(tempPath("fail.db"), true);
  StudyRunner runner(s, *store, {}, [&](auto& c, auto& policy, auto&, auto& cb) {
    if (policy.name == "tpu-bf16" && c.seed == 0) throw std::runtime_error("out of memory");
    if (policy.name == "tpu-bf16" && c.seed == 1) {
      nn::TrainResult r;
      r.status = nn::RunStatus::Diverged;
      r.divergedEpoch = 1;
      return r;
    }
    return fakeResult(c, cb);
  });
  RunnerSummary sum = runner.run();
  EXPECT_EQ(sum.completed, 2);
  EXPECT_EQ(sum.failed, 1);
  EXPECT_EQ(sum.diverged, 1);
  for (auto& r : store->loadRuns()) {
    if (r.status == RunState::Failed) {
      EXPECT_EQ(r.message, "out of memory");
    }
    if (r.status == RunState::Diverged) {
      EXPECT_EQ(r.divergedEpoch, 1);
    }
  }
}

TEST(StudyRunner, CancelStopsRunsAndMarksThemCancelled) {
  StudySpec s = parseStudySpec(kTinySpec);
  s.threads = 1;
  auto store = ResultsStore::open(tempPath("cancel.db"), true);
  StudyRunner* self = nullptr;
  StudyRunner runner(s, *store, {}, [&](auto&, auto&, auto&, auto& cb) {
    self->cancel();
    EXPECT_TRUE(cb.shouldCancel());
    nn::TrainResult r;
    r.status = nn::RunStatus::Cancelled;
    return r;
  });
  self = &runner;
  RunnerSummary sum = runner.run();
  EXPECT_TRUE(sum.wasCancelled);
  EXPECT_EQ(sum.cancelled, 4);
}

TEST(Import, TorchprimeReferenceGivesPublishedWelchTest) {
  auto runs = readResultsCsv(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv", {});
  ASSERT_EQ(runs.size(), 28u);
  std::vector<double> xla, cuda;
  for (auto& r : runs) {
    EXPECT_EQ(r.epochs.size(), 25u);
    EXPECT_EQ(r.run.epochsDone, 25);
    (r.run.backend == "xla" ? xla : cuda).push_back(r.run.finalAccuracy);
  }
  ASSERT_EQ(xla.size(), 14u);
  ASSERT_EQ(cuda.size(), 14u);
  auto t = stats::tTest(xla, cuda);
  EXPECT_NEAR(t.t, 1.4035, 5e-5);
  EXPECT_NEAR(t.p_value, 0.17345, 5e-6);
  auto store = ResultsStore::open(tempPath("import.db"), true);
  importRuns(*store, PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv", runs);
  EXPECT_EQ(store->loadRuns().size(), 28u);
  EXPECT_EQ(store->loadRuns()[0].source, "imported");
  EXPECT_NE(store->loadStudySpec().origin.find("torchprime"), std::string::npos);
}

TEST(Csv, QuotingRoundTripsAndErrorsNameLineAndColumn) {
  std::ostringstream out;
  input::CsvWriter w(out);
  w.writeRow({"plain", "a,b", "say \"hi\"", "two\nlines"});
  EXPECT_EQ(out.str(), "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n");
  std::istringstream in(out.str() + "x,y\n");
  input::CsvReader r(in, "f.csv");
  input::CsvRow row;
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row.fields, (std::vector<std::string>{"plain", "a,b", "say \"hi\"", "two\nlines"}));
  ASSERT_TRUE(r.next(row));
  EXPECT_EQ(row.line, 3);
  std::istringstream bad("a,b\nc,d\"e\n");
  input::CsvReader rb(bad, "f.csv");
  rb.next(row);
  try {
    rb.next(row);
    FAIL();
  } catch (const input::CsvError& e) {
    EXPECT_STREQ(e.what(), "f.csv:2:4: quote inside an unquoted field");
  }
}

TEST(Csv, RunsCsvForStatsAndReportQuoting) {
  std::string path = tempPath("runs.csv");
  std::ofstream(path)
      << "backend,seed,final_accuracy\r\n\"gpu,tf32\",0,0.9\r\ncpu,0,0.8\r\ncpu,1,0.85\r\n";
  CsvImportOptions o;
  o.epochColumn = "";
  o.accuracyColumn = "final_accuracy";
  auto runs = readGenericCsv(path, o);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].run.backend, "gpu,tf32");
  EXPECT_DOUBLE_EQ(runs[2].run.finalAccuracy, 0.85);
  EXPECT_EQ(runs[2].run.seed, 1u);
  auto store = ResultsStore::open(tempPath("rep.db"), true);
  importRuns(*store, path, runs);
  std::string csv = tempPath("rep.csv");
  std::string summary = writeReport(*store, csv);
  std::ifstream in(csv);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find(",\"gpu,tf32\",0,completed,"), std::string::npos) << ss.str();
  EXPECT_TRUE(fs::exists(summary));
}

}  // namespace
}  // namespace paritylab::study
