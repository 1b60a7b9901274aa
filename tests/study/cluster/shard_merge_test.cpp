// Shards and merge: `--shard K/N` trains a deterministic share of the
// plan and records it; merging the shard databases gives the single-process study's runs, epochs,
// steps and X-ray samples (wall times aside); bad input and overlapping runs are refused, named.

#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "core/study/cluster/results_merge.h"
#include "core/study/files/results_import.h"
#include "core/study/run/study_runner.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

// 2 backends x 3 seeds, 2 epochs of 4 steps each, X-ray every 3rd step: every table has rows.
const char* kStudy = R"({"version": 1, "name": "shards",
  "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
  "model": "mlp", "epochs": 2, "batch_size": 25, "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"],
  "seeds": 3, "threads": 1, "xray": {"every_steps": 3}})";

std::string runWhere(const std::string& path, const StudyShard& shard, bool resume = false) {
  auto store = ResultsStore::open(path, true);
  StudyRunner runner(parseStudySpec(kStudy), *store);
  runner.setShard(shard);
  runner.run(resume);
  return path;
}

std::string errorOf(const std::vector<std::string>& inputs, const std::string& output) {
  try {
    mergeResults(inputs, output);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "(merged)";
}

// The three shard databases of kStudy, run once for all the tests of this file.
class ShardMerge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    whole_ = runWhere(freshTempPath("whole.db"), {});
    for (int k = 1; k <= 3; ++k)
      parts_.push_back(runWhere(freshTempPath("part-" + std::to_string(k) + ".db"), {k, 3}));
  }
  static std::string whole_;
  static std::vector<std::string> parts_;
};
std::string ShardMerge::whole_;
std::vector<std::string> ShardMerge::parts_;

TEST(Shard, ParsesKOfNAndNamesTheRuleItBreaks) {
  const StudyShard s = parseShard("2/3");
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.text(), "2/3");
  const auto message = [](const std::string& text) -> std::string {
    try {
      parseShard(text);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_NE(message("0/3").find("K counts from 1 (1..3)"), std::string::npos) << message("0/3");
  EXPECT_NE(message("4/3").find("K is larger than N"), std::string::npos);
  for (const char* bad : {"3", "a/3", "1/0", "-1/3", "1/3x", "", "1/+3"})
    EXPECT_NE(message(bad).find("expected K/N"), std::string::npos) << bad;
}

TEST(Shard, RunsAreDealtCostliestFirstToTheLeastLoadedShard) {
  const StudySpec spec = parseStudySpec(kStudy);
  // Relative costs (study_runner.cpp): cpu-fp32 1; tpu-bf16 (8 replicas: 1 + 0.15 x 7, rounded
  // operands: x 1.1) 2.255; both x 2 epochs, which changes no comparison. Dealt in the order
  // tpu 0, cpu 0, tpu 1, cpu 1, tpu 2, cpu 2 to the least loaded shard (the first on a tie):
  // tpu 0 -> 1 [2.255, 0, 0]; cpu 0 -> 2 [2.255, 1, 0]; tpu 1 -> 3 [2.255, 1, 2.255];
  // cpu 1 -> 2 [2.255, 2, 2.255]; tpu 2 -> 2 [2.255, 4.255, 2.255]; cpu 2 -> 1.
  const std::map<int, std::vector<std::pair<std::string, std::uint64_t>>> expected = {
      {1, {{"tpu-bf16", 0}, {"cpu-fp32", 2}}},
      {2, {{"cpu-fp32", 0}, {"cpu-fp32", 1}, {"tpu-bf16", 2}}},
      {3, {{"tpu-bf16", 1}}}};
  for (const auto& [k, runs] : expected) {
    std::vector<std::pair<std::string, std::uint64_t>> got;
    for (const PlannedRun& p : shardRunsOf(spec, {k, 3}))
      got.push_back({spec.backends[p.backendIndex].name, p.seed});
    std::sort(got.begin(), got.end());
    auto want = runs;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << "shard " << k;
  }
  EXPECT_EQ(shardRunsOf(spec, {}).size(), 6u);
  EXPECT_EQ(shardRunsOf(spec, {7, 7}).size(), 0u);  // more shards than runs: some are empty
}

TEST_F(ShardMerge, EachShardDatabaseRecordsItsShardAndHoldsOnlyItsRuns) {
  for (int k = 1; k <= 3; ++k) {
    auto store = ResultsStore::openReadOnly(parts_[k - 1]);
    EXPECT_EQ(storedShard(*store).text(), std::to_string(k) + "/3");
    EXPECT_EQ(store->loadRuns().size(), k == 2 ? 3u : k == 1 ? 2u : 1u);
  }
  EXPECT_TRUE(storedShard(*ResultsStore::openReadOnly(whole_)).whole());
}

TEST_F(ShardMerge, ResumingAShardDatabaseNeedsTheSameShard) {
  const std::string copy = freshTempPath("resume-part.db");
  std::filesystem::copy_file(parts_[1], copy);
  try {
    runWhere(copy, {1, 3}, true);
    FAIL() << "resumed shard 2/3 as 1/3";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("holds shard 2/3 of its study, not 1/3"),
              std::string::npos)
        << e.what();
  }
  try {
    runWhere(copy, {}, true);
    FAIL() << "resumed shard 2/3 as the whole study";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard 2/3"), std::string::npos) << e.what();
  }
  auto store = ResultsStore::open(copy);
  StudyRunner same(parseStudySpec(kStudy), *store);
  same.setShard({2, 3});
  const RunnerSummary summary = same.run(true);
  EXPECT_EQ(summary.planned, 3);
  EXPECT_EQ(summary.skipped, 3);
}

// A shard whose stored study is not JSON is named with its file before any comparison.
TEST_F(ShardMerge, AStoredStudyThatDoesNotParseIsNamedWithItsFile) {
  const std::string broken = freshTempPath("broken-part.db");
  std::filesystem::copy_file(parts_[1], broken);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(broken.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE study SET spec = '{\"version\": 1, \"name\": '", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const std::string all = freshTempPath("broken-all.db");
  try {
    mergeResults({parts_[0], broken, parts_[2]}, all);
    FAIL() << "merged a shard whose study does not parse";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(broken + " (stored study)", 0), 0u) << what;
    EXPECT_NE(what.find("; nothing merged"), std::string::npos) << what;
  }
  EXPECT_FALSE(std::filesystem::exists(all));
}

// Merged results equal the single-process study's.
TEST_F(ShardMerge, ThreeShardsMergedEqualTheSingleProcessStudy) {
  const std::string all = freshTempPath("all.db");
  const MergeReport report = mergeResults(parts_, all);
  EXPECT_TRUE(report.complete());
  EXPECT_EQ(report.copied, 6);
  EXPECT_EQ(report.planned, 6);
  auto merged = ResultsStore::openReadOnly(all);
  auto single = ResultsStore::openReadOnly(whole_);
  EXPECT_TRUE(storedShard(*merged).whole());
  EXPECT_EQ(firstSpecDifference(merged->loadStudySpecJson(), single->loadStudySpecJson()), "");
  std::map<std::pair<std::string, std::uint64_t>, RunRecord> byKey;
  for (const RunRecord& r : merged->loadRuns()) byKey[{r.backend, r.seed}] = r;
  const auto mergedEpochs = merged->loadAllEpochs();
  const auto singleEpochs = single->loadAllEpochs();
  const auto mergedSteps = merged->loadAllSteps();
  const auto singleSteps = single->loadAllSteps();
  // The divergence tables: the test set once, each run's predictions and weight snapshots.
  const auto mergedSet = merged->loadTestSet();
  const auto singleSet = single->loadTestSet();
  ASSERT_TRUE(mergedSet && singleSet);
  EXPECT_EQ(mergedSet->labels, singleSet->labels);
  EXPECT_EQ(mergedSet->classNames, singleSet->classNames);
  const auto mergedPredictions = merged->loadPredictions();
  const auto singlePredictions = single->loadPredictions();
  ASSERT_EQ(byKey.size(), 6u);
  for (const RunRecord& s : single->loadRuns()) {
    SCOPED_TRACE(s.backend + " seed " + std::to_string(s.seed));
    const RunRecord& m = byKey.at({s.backend, s.seed});
    EXPECT_EQ(m.status, RunState::Completed);
    EXPECT_EQ(m.status, s.status);
    EXPECT_EQ(m.policyJson, s.policyJson);
    EXPECT_EQ(m.epochsDone, s.epochsDone);
    EXPECT_EQ(m.finalTrainLoss, s.finalTrainLoss);  // bit-identical
    EXPECT_EQ(m.finalTestLoss, s.finalTestLoss);
    EXPECT_EQ(m.finalAccuracy, s.finalAccuracy);
    const auto& me = mergedEpochs.at(m.id);
    const auto& se = singleEpochs.at(s.id);
    ASSERT_EQ(me.size(), 2u);
    ASSERT_EQ(me.size(), se.size());
    for (std::size_t i = 0; i < me.size(); ++i) {
      EXPECT_EQ(me[i].epoch, se[i].epoch);
      EXPECT_EQ(me[i].trainLoss, se[i].trainLoss);
      EXPECT_EQ(me[i].testLoss, se[i].testLoss);
      EXPECT_EQ(me[i].testAccuracy, se[i].testAccuracy);
      EXPECT_EQ(me[i].skippedSteps, se[i].skippedSteps);
    }
    const auto& ms = mergedSteps.at(m.id);
    const auto& ss = singleSteps.at(s.id);
    ASSERT_EQ(ms.size(), 8u);
    ASSERT_EQ(ms.size(), ss.size());
    for (std::size_t i = 0; i < ms.size(); ++i) {
      EXPECT_EQ(ms[i].step, ss[i].step);
      EXPECT_EQ(ms[i].trainLoss, ss[i].trainLoss);
      EXPECT_EQ(ms[i].lr, ss[i].lr);
    }
    const auto& mp = mergedPredictions.at(m.id);
    const auto& sp = singlePredictions.at(s.id);
    EXPECT_EQ(mp.predicted, sp.predicted);
    EXPECT_EQ(mp.trueClassProbability, sp.trueClassProbability);
    const auto mw = merged->loadWeightSnapshots(m.id);
    const auto sw = single->loadWeightSnapshots(s.id);
    ASSERT_FALSE(mw.empty());
    ASSERT_EQ(mw.size(), sw.size());
    for (const auto& [epoch, layers] : sw) {
      ASSERT_EQ(mw.at(epoch).size(), layers.size());
      for (std::size_t l = 0; l < layers.size(); ++l) {
        EXPECT_EQ(mw.at(epoch)[l].name, layers[l].name);
        EXPECT_EQ(mw.at(epoch)[l].values, layers[l].values);
      }
    }
    const auto mx = merged->loadXray(m.id);
    const auto sx = single->loadXray(s.id);
    ASSERT_FALSE(mx.empty());
    ASSERT_EQ(mx.size(), sx.size());
    for (std::size_t i = 0; i < mx.size(); ++i) {
      EXPECT_EQ(mx[i].step, sx[i].step);
      EXPECT_EQ(mx[i].site + mx[i].operand, sx[i].site + sx[i].operand);
      EXPECT_EQ(mx[i].xray.count, sx[i].xray.count);
      EXPECT_EQ(mx[i].xray.flushed, sx[i].xray.flushed);
      EXPECT_EQ(mx[i].xray.amax, sx[i].xray.amax);
      EXPECT_EQ(mx[i].xray.exponentBins, sx[i].xray.exponentBins);
    }
  }
}

void setRunStatus(const std::string& path, const char* status) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql = std::string("UPDATE runs SET status = '") + status + "'";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

TEST_F(ShardMerge, MissingRunsAreReportedAndWhatIsThereMergedThenCompleted) {
  const std::string all = freshTempPath("partial.db");
  const MergeReport first = mergeResults({parts_[0], parts_[1]}, all);
  EXPECT_EQ(first.copied, 5);
  EXPECT_EQ(first.missing,
            std::vector<std::string>{
                "tpu-bf16 seed 1 (shard 3/3): in no input (that shard was not given)"});
  EXPECT_EQ(first.notes, std::vector<std::string>{"not given: shard 3/3"});
  // Shard 3 interrupted: its run is not copied, and said to be unfinished there.
  const std::string interrupted = freshTempPath("interrupted.db");
  std::filesystem::copy_file(parts_[2], interrupted);
  setRunStatus(interrupted, "cancelled");
  const MergeReport second = mergeResults({interrupted}, all);
  EXPECT_EQ(second.copied, 0);
  EXPECT_EQ(second.alreadyThere, 5);
  EXPECT_EQ(second.missing, std::vector<std::string>{"tpu-bf16 seed 1 (shard 3/3): cancelled in " +
                                                     interrupted + ", not finished there"});
  const MergeReport third = mergeResults({parts_[2]}, all);  // shard 3 finished: complete
  EXPECT_TRUE(third.complete());
  EXPECT_EQ(ResultsStore::openReadOnly(all)->loadRuns().size(), 6u);
}

TEST_F(ShardMerge, RefusesOverlappingRunsNamingTheRunAndBothFiles) {
  const std::string twice = freshTempPath("twice.db");
  std::filesystem::copy_file(parts_[0], twice);
  const std::string e = errorOf({parts_[0], parts_[1], twice}, freshTempPath("o1.db"));
  EXPECT_NE(e.find("the run tpu-bf16 seed 0 is in both " + parts_[0] + " (completed) and " + twice +
                   " (completed)"),
            std::string::npos)
      << e;
  EXPECT_FALSE(std::filesystem::exists(freshTempPath("o1.db")));  // nothing written
  const std::string w = errorOf({whole_, parts_[0]}, freshTempPath("o2.db"));
  EXPECT_NE(w.find("is in both " + whole_), std::string::npos) << w;
  // An output that already holds a finished run of an input.
  const std::string all = freshTempPath("again.db");
  mergeResults({parts_[0]}, all);
  const std::string again = errorOf({parts_[0]}, all);
  EXPECT_NE(again.find(all + ": already holds the run "), std::string::npos) << again;
  EXPECT_NE(again.find("which " + parts_[0] + " holds too"), std::string::npos) << again;
}

TEST_F(ShardMerge, RefusesADifferentStudyNamingTheField) {
  const std::string other = freshTempPath("other.db");
  {
    auto store = ResultsStore::open(other, true);
    std::string text = kStudy;
    text.replace(text.find("\"epochs\": 2"), 11, "\"epochs\": 3");
    store->saveStudySpec(studySpecToJson(parseStudySpec(text)).dump());
  }
  const std::string e = errorOf({parts_[0], other}, freshTempPath("o3.db"));
  EXPECT_NE(
      e.find(other + ": holds a different study than " + parts_[0] + ": epochs (2 against 3)"),
      std::string::npos)
      << e;
  const std::string o = errorOf({parts_[0]}, other);  // as the output
  EXPECT_NE(o.find(other + ": holds a different study than the inputs: epochs (3 against 2)"),
            std::string::npos)
      << o;
}

TEST_F(ShardMerge, RefusesMissingTruncatedAndForeignFilesNamingThem) {
  const std::string out = freshTempPath("o4.db");
  const std::string missing = freshTempPath("missing.db");
  EXPECT_EQ(errorOf({parts_[0], missing}, out),
            missing + ": no such results database; nothing merged");
  const std::string text = freshTempPath("notes.db");
  std::ofstream(text) << "these are notes, not a database\n";
  EXPECT_NE(errorOf({text}, out).find(text + ": not a ParityLab results database"),
            std::string::npos);
  const std::string truncated = freshTempPath("truncated.db");
  std::filesystem::copy_file(parts_[1], truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(truncated) / 2);
  const std::string t = errorOf({parts_[0], truncated}, out);
  EXPECT_EQ(t.rfind(truncated + ": ", 0), 0u) << t;
  EXPECT_NE(t.find("nothing merged"), std::string::npos) << t;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_NE(errorOf({parts_[0]}, parts_[0]).find("is both an input and the output"),
            std::string::npos);
}

// A table a later schema adds (with a run_id column) is copied with no change to merge;
// one the output cannot store is refused, named.
TEST_F(ShardMerge, CopiesEveryTableWithARunIdAndRefusesOneTheOutputLacks) {
  const std::string part = freshTempPath("extra-part.db");
  std::filesystem::copy_file(parts_[0], part);
  const auto addTable = [](const std::string& path, bool rows) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TABLE future_samples (run_id INTEGER NOT NULL, example INTEGER, "
                           "label INTEGER, PRIMARY KEY (run_id, example))",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    if (rows) {
      ASSERT_EQ(sqlite3_exec(db,
                             "INSERT INTO future_samples SELECT id, 7, 3 FROM runs; "
                             "INSERT INTO future_samples SELECT id, 8, 1 FROM runs",
                             nullptr, nullptr, nullptr),
                SQLITE_OK);
    }
    sqlite3_close(db);
  };
  addTable(part, true);
  const std::string lacking = freshTempPath("lacking.db");
  const std::string e = errorOf({part}, lacking);
  EXPECT_NE(e.find(part + ": has a table 'future_samples' that " + lacking + " cannot store"),
            std::string::npos)
      << e;
  const std::string all = freshTempPath("with-table.db");
  ResultsStore::open(all, true);
  addTable(all, false);
  mergeResults({part}, all);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(all.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT count(*), sum(p.label) FROM future_samples p "
                               "JOIN runs r ON r.id = p.run_id",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 4);  // 2 runs x 2 rows, each pointing at its copied run
  EXPECT_EQ(sqlite3_column_int(s, 1), 8);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

}  // namespace
}  // namespace paritylab::study

namespace paritylab::study {
namespace {

void execSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  sqlite3_close(db);
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every file of the output's folder whose name starts with the output's (its -wal, -shm and
// whatever a merge built beside it).
std::vector<std::string> filesBeside(const std::string& output) {
  std::vector<std::string> out;
  const auto name = std::filesystem::path(output).filename().string();
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(output).parent_path()))
    if (e.path().filename().string().rfind(name, 0) == 0)
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A damaged input whose test set claims 2e12 examples fails the merge after the output was
// started (the study is saved first): the new output must not be left behind, whatever the error.
TEST_F(ShardMerge, MergeLeavesNoPartialOutputWhenAnInputFailsWhileCopying) {
  const std::string damaged = freshTempPath("huge-test-set.db");
  std::filesystem::copy_file(parts_[1], damaged);
  execSql(damaged, "UPDATE test_set SET examples = 2000000000000");
  const std::string out = freshTempPath("never.db");
  EXPECT_ANY_THROW(mergeResults({parts_[0], damaged}, out));
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(filesBeside(out), std::vector<std::string>{});
}

// An existing output is not changed by a merge that fails half way (the first input's runs copied,
// the second refused): it keeps exactly the bytes it had.
TEST_F(ShardMerge, MergeLeavesAnExistingOutputUnchangedWhenItFailsHalfWay) {
  const std::string all = freshTempPath("kept.db");
  mergeResults({parts_[0]}, all);
  const std::string before = fileBytes(all);
  const std::string extra = freshTempPath("extra-table.db");
  std::filesystem::copy_file(parts_[2], extra);
  execSql(extra,
          "CREATE TABLE future_samples (run_id INTEGER NOT NULL, example INTEGER); "
          "INSERT INTO future_samples SELECT id, 1 FROM runs");
  EXPECT_THROW(mergeResults({parts_[1], extra}, all), StoreError);
  EXPECT_EQ(fileBytes(all), before);
  EXPECT_EQ(filesBeside(all),
            std::vector<std::string>{std::filesystem::path(all).filename().string()});
  EXPECT_EQ(ResultsStore::openReadOnly(all)->loadRuns().size(), 2u);
}

// Killed at any moment, a merge leaves no output or a complete one under the output's name.
TEST_F(ShardMerge, MergeKilledAtRandomMomentsLeavesNoFileOrACompleteOne) {
  std::mt19937 random(12345);
  int absent = 0, complete = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::string out = freshTempPath("killed-" + std::to_string(trial) + ".db");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {
        mergeResults(parts_, out);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    ::usleep(std::uniform_int_distribution<int>(0, 60'000)(random));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    // What the killed merge was building: left beside the output under a name of its own only
    // (".<output>.building-XXXXXX" and its -wal, -shm, -journal).
    const std::filesystem::path outPath(out);
    const std::string prefix = "." + outPath.filename().string() + ".building-";
    for (const auto& entry : std::filesystem::directory_iterator(outPath.parent_path()))
      if (entry.path().filename().string().rfind(prefix, 0) == 0)
        std::filesystem::remove(entry.path());
    if (!std::filesystem::exists(out)) {
      ++absent;
      continue;
    }
    auto store = ResultsStore::openReadOnly(out);
    EXPECT_EQ(store->damage(), "") << "trial " << trial;
    EXPECT_EQ(store->loadRuns().size(), 6u) << "trial " << trial;
    ++complete;
  }
  EXPECT_EQ(absent + complete, 12);
}

// A shard cut short by one byte can pass SQLite's quick_check; what it holds is decoded before
// anything is merged, so the damage is reported, naming the file, instead of merging "Complete"
// and failing later when the copied rows are read.
TEST_F(ShardMerge, MergeRefusesAShardCutShortByOneByte) {
  const std::string cut = freshTempPath("cut.db");
  std::filesystem::copy_file(parts_[1], cut);
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - 1);
  const std::string out = freshTempPath("from-cut.db");
  const std::string e = errorOf({parts_[0], cut}, out);
  EXPECT_EQ(e.rfind(cut + ": ", 0), 0u) << e;
  EXPECT_NE(e.find("nothing merged"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Imported runs are the study they form: a merged database of them is complete, and nothing is
// left for `run --resume` (which would train emulations under the hardware's names).
TEST(MergeImported, ImportedRunsCountAsPresentAndNothingIsLeftToResume) {
  const std::string csv = PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv";
  const std::string part = freshTempPath("imported-part.db");
  {
    auto store = ResultsStore::open(part, true);
    auto runs = readResultsCsv(csv, {});
    importRuns(*store, csv, runs);
  }
  const std::string all = freshTempPath("imported-all.db");
  const MergeReport report = mergeResults({part}, all);
  EXPECT_TRUE(report.imported);
  EXPECT_EQ(report.copied, 28);
  EXPECT_EQ(report.planned, 28);
  EXPECT_TRUE(report.complete()) << (report.missing.empty() ? "" : report.missing.front());
}

}  // namespace
}  // namespace paritylab::study
