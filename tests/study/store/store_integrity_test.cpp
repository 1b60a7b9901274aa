// No exception swallowed (a full database stops the study with the real cause); one run per
// (backend, seed) (concurrent resumes split the work; schema migration of an existing database;
// duplicate backends refused); readers open read-only (never change the file, report a missing
// table as damage, work in a read-only directory).

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/study/analysis/accuracies_by_backend.h"
#include "core/study/files/study_report.h"
#include "core/study/run/study_runner.h"
#include "core/study/run/thread_pool.h"
#include "core/study/store/results_schema.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;
using testing::freshTempPath;

const char* kSpec = R"({"version": 1, "name": "tiny",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "mlp", "epochs": 2, "batch_size": 50,
  "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 3, "threads": 2})";

// A stand-in for nn::train that reports `config.epochs` epochs with values from the seed.
nn::TrainResult fakeTrain(const nn::TrainConfig& c, const nn::TrainCallbacks& cb) {
  nn::TrainResult r;
  for (int e = 1; e <= c.epochs; ++e) {
    nn::EpochMetrics m{e, 1.0 / e, 1.1 / e, 0.5 + 0.01 * double(c.seed), 0.0};
    if (cb.onEpoch) cb.onEpoch(m);
    r.epochs.push_back(m);
  }
  r.status = nn::RunStatus::Completed;
  return r;
}

std::string bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void sql(const std::string& path, const char* statements) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, statements, nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// The pool used to swallow a task's exception.
TEST(ThreadPool, RethrowsTheFirstExceptionFromWaitAndRunsTheOtherTasks) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  pool.submit([] { throw std::runtime_error("task failed"); });
  for (int i = 0; i < 5; ++i) pool.submit([&] { ++ran; });
  try {
    pool.wait();
    FAIL() << "the exception was swallowed";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task failed");
  }
  EXPECT_EQ(ran.load(), 5);
  pool.wait();  // reported once
}

// A database that filled mid-study once stopped nothing and exited 0 ("cannot rollback - no
// transaction is active" hid SQLITE_FULL). Now the study stops with the real cause.
TEST(StudyRunner, FullDatabaseStopsTheStudyWithTheRealCause) {
  StudySpec spec = parseStudySpec(kSpec);
  spec.train.epochs = 400;  // enough epoch rows to outgrow the cap below
  const std::string path = freshTempPath("full.db");
  auto store = ResultsStore::open(path, true);
  store->setMaxPageCount(34);  // the schema, test set and runs fit in 34 pages of 4 KiB
  StudyRunner runner(spec, *store, {},
                     [](auto& c, auto&, auto&, auto& cb) { return fakeTrain(c, cb); });
  try {
    runner.run();
    FAIL() << "the study ended normally on a full database";
  } catch (const StoreError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("database or disk is full"), std::string::npos) << what;
    EXPECT_EQ(what.find("cannot rollback"), std::string::npos) << what;
    EXPECT_NE(what.find("--resume"), std::string::npos) << what;
  }
}

// `--backends cpu-fp32,cpu-fp32` (and a seed listed twice) was once accepted.
TEST(StudyRunner, BackendOrSeedListedTwiceIsRefused) {
  StudySpec spec = parseStudySpec(kSpec);
  spec.backends.push_back(spec.backends.front());
  auto store = ResultsStore::open(freshTempPath("dup-backend.db"), true);
  StudyRunner runner(spec, *store, {},
                     [](auto& c, auto&, auto&, auto& cb) { return fakeTrain(c, cb); });
  try {
    runner.run();
    FAIL();
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("'cpu-fp32' is listed twice"), std::string::npos);
  }
  EXPECT_TRUE(store->loadRuns().empty());
  StudySpec seeds = parseStudySpec(kSpec);
  seeds.seeds = {4, 7, 4};
  StudyRunner again(seeds, *store, {},
                    [](auto& c, auto&, auto&, auto& cb) { return fakeTrain(c, cb); });
  EXPECT_THROW(again.run(true), SpecError);
}

TEST(ResultsStore, SameBackendAndSeedCannotBeStoredTwice) {
  auto store = ResultsStore::open(freshTempPath("unique.db"), true);
  RunRecord r;
  r.backend = "cpu-fp32";
  r.seed = 3;
  store->addRun(r);
  try {
    store->addRun(r);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu-fp32 seed 3 is already in the database"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(store->ensureRun(r), store->loadRuns()[0].id);
  EXPECT_EQ(store->loadRuns().size(), 1u);
}

// Two `run --resume` on a fresh database once stored every run twice. Two processes now
// split the work: every planned run exists once and was trained once.
TEST(StudyRunner, ConcurrentResumesInTwoProcessesSplitTheWork) {
  const std::string path = freshTempPath("concurrent.db");
  const std::string counts = freshTempPath("concurrent-trained");
  const auto work = [&](const char* who) {
    StudySpec spec = parseStudySpec(kSpec);
    spec.threads = 1;
    auto store = ResultsStore::open(path, true);
    StudyRunner runner(spec, *store, {}, [&](auto& c, auto& policy, auto&, auto& cb) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));  // let the processes overlap
      std::ofstream(counts, std::ios::app) << who << " " << policy.name << " " << c.seed << "\n";
      return fakeTrain(c, cb);
    });
    return runner.run(true);
  };
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int code = 0;
    try {
      work("child");
    } catch (...) {
      code = 1;
    }
    ::_exit(code);
  }
  RunnerSummary mine = work("parent");
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto store = ResultsStore::openReadOnly(path);
  const auto runs = store->loadRuns();
  ASSERT_EQ(runs.size(), 6u);
  for (const RunRecord& r : runs) {
    EXPECT_EQ(r.status, RunState::Completed);
    EXPECT_EQ(store->loadEpochs(r.id).size(), 2u);
  }
  std::ifstream in(counts);
  std::string line;
  std::set<std::string> trained;
  int lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    trained.insert(line.substr(line.find(' ') + 1));
  }
  EXPECT_EQ(lines, 6) << "a run was trained twice";
  EXPECT_EQ(trained.size(), 6u);
  EXPECT_EQ(mine.completed + mine.elsewhere + mine.skipped, 6);
}

// An unfinished run of a process that is gone runs again on --resume; one whose
// process is alive (another host or pid) is left to it.
TEST(ResultsStore, ReleasesRunsOfGoneProcessesOnly) {
  const std::string path = freshTempPath("release.db");
  auto store = ResultsStore::open(path, true);
  RunRecord r;
  r.backend = "cpu-fp32";
  for (std::uint64_t seed : {0, 1, 2, 3}) {
    r.seed = seed;
    store->ensureRun(r);
  }
  auto ids = store->loadRuns();
  ASSERT_TRUE(store->claimRun(ids[0].id, "elsewhere-host:1"));
  // pid 1 on this host is alive (init); a pid above the kernel's limit never is.
  const std::string host = processOwnerId().substr(0, processOwnerId().rfind(':'));
  ASSERT_TRUE(store->claimRun(ids[1].id, host + ":1"));
  ASSERT_TRUE(store->claimRun(ids[2].id, host + ":999999999"));
  EXPECT_FALSE(store->claimRun(ids[2].id, processOwnerId()));  // already claimed
  store->setRunStatus(ids[3].id, RunState::Failed);
  EXPECT_EQ(store->releaseUnfinishedRuns(), 2);  // the dead pid's run and the failed one
  auto after = store->loadRuns();
  EXPECT_EQ(after[0].status, RunState::Running);
  EXPECT_EQ(after[1].status, RunState::Running);
  EXPECT_EQ(after[2].status, RunState::Pending);
  EXPECT_EQ(after[3].status, RunState::Pending);
}

// A cluster job killed with its rank 0 on another node left runs claimed there;
// a resume with --reclaim (the user knows that job is gone) releases them, but never the run of a
// process alive on this host.
TEST(ResultsStore, ReclaimReleasesRunsClaimedOnOtherHostsToo) {
  const std::string path = freshTempPath("reclaim.db");
  auto store = ResultsStore::open(path, true);
  RunRecord r;
  r.backend = "cpu-fp32";
  for (std::uint64_t seed : {0, 1}) {
    r.seed = seed;
    store->ensureRun(r);
  }
  auto ids = store->loadRuns();
  const std::string host = processOwnerId().substr(0, processOwnerId().rfind(':'));
  ASSERT_TRUE(store->claimRun(ids[0].id, "node-a-of-a-killed-job:4242"));
  ASSERT_TRUE(store->claimRun(ids[1].id, host + ":1"));  // pid 1 on this host is alive (init)
  EXPECT_EQ(store->releaseUnfinishedRuns(), 0);
  EXPECT_EQ(store->releaseUnfinishedRuns(true), 1);
  auto after = store->loadRuns();
  EXPECT_EQ(after[0].status, RunState::Pending);
  EXPECT_EQ(after[1].status, RunState::Running);
}

// A database as ParityLab's schema version 1 wrote it, with the duplicates it allowed.
void writeVersion1Database(const std::string& path) {
  sql(path, R"sql(
CREATE TABLE paritylab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE study (id INTEGER PRIMARY KEY CHECK (id = 1), spec TEXT NOT NULL,
  software_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, backend TEXT NOT NULL,
  policy TEXT NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL,
  epochs_done INTEGER NOT NULL DEFAULT 0, final_train_loss REAL, final_test_loss REAL,
  final_accuracy REAL, wall_seconds REAL, diverged_epoch INTEGER,
  message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT 'emulated');
CREATE TABLE epochs (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  epoch INTEGER NOT NULL, train_loss REAL, test_loss REAL, test_accuracy REAL, seconds REAL,
  PRIMARY KEY (run_id, epoch));
INSERT INTO paritylab_meta VALUES ('format', 'paritylab-results-1');
INSERT INTO runs (backend, policy, seed, status, final_accuracy) VALUES
  ('cpu-fp32', '{}', 0, 'failed', NULL), ('cpu-fp32', '{}', 0, 'completed', 0.8),
  ('cpu-fp32', '{}', 1, 'completed', 0.7);
INSERT INTO runs (backend, policy, seed, status, final_accuracy, message, source) VALUES
  ('xla', '', 0, 'completed', 0.7, 'prod_42@2025-07-22 17:22:02', 'imported'),
  ('xla', '', 1, 'completed', 0.7, 'prod_42@2025-07-22 17:22:02', 'imported');
INSERT INTO epochs VALUES (2, 1, 0.5, 0.6, 0.8, 1.0), (1, 1, 0.5, 0.6, 0.1, 1.0);
)sql");
}

TEST(ResultsStore, Version1DatabaseIsReadAsItIsAndMigratedForWriting) {
  const std::string path = freshTempPath("v1.db");
  writeVersion1Database(path);
  const std::string before = bytesOf(path);
  {
    auto reader = ResultsStore::openReadOnly(path);  // a reader reads version 1 untouched
    auto runs = reader->loadRuns();
    ASSERT_EQ(runs.size(), 5u);
    EXPECT_EQ(runs[3].runName, "prod_42");
    EXPECT_FALSE(runs[3].seedGiven);
  }
  EXPECT_EQ(bytesOf(path), before);
  auto store = ResultsStore::open(path);
  ASSERT_EQ(store->openNotes().size(), 1u);
  EXPECT_NE(store->openNotes()[0].find("removed 2 duplicated runs"), std::string::npos)
      << store->openNotes()[0];
  auto runs = store->loadRuns();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].id, 2);  // of the two cpu-fp32 seed 0, the completed one is kept
  EXPECT_EQ(runs[0].status, RunState::Completed);
  EXPECT_EQ(store->loadEpochs(2).size(), 1u);
  EXPECT_EQ(store->loadAllEpochs().count(1), 0u);  // the removed copy's epochs went with it
  EXPECT_EQ(runs[2].runName, "prod_42");
  RunRecord again;
  again.backend = "cpu-fp32";
  again.seed = 1;
  EXPECT_THROW(store->addRun(again), StoreError);
  store.reset();
  EXPECT_TRUE(ResultsStore::open(path)->openNotes().empty());  // migrated once
}

// report and stats once changed the file (schema statements) and recreated a dropped
// table; a dropped table is damage to report.
TEST(ResultsStore, ReadersNeverChangeTheFileAndReportAMissingTable) {
  const std::string path = freshTempPath("reader.db");
  {
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec(studySpecToJson(parseStudySpec(kSpec)).dump());
    RunRecord r;
    r.backend = "cpu-fp32";
    r.status = RunState::Completed;
    r.finalAccuracy = 0.5;
    store->addRun(r);
  }
  const std::string before = bytesOf(path);
  {
    auto reader = ResultsStore::openReadOnly(path);
    writeReport(*reader, freshTempPath("reader-report.csv"));
    EXPECT_EQ(reader->loadRuns().size(), 1u);
    EXPECT_THROW(reader->saveStudySpec("{}"), StoreError);  // read-only connection
  }
  EXPECT_EQ(bytesOf(path), before);
  sql(path, "DROP TABLE epochs;");
  const std::string dropped = bytesOf(path);
  for (bool readOnly : {true, false}) {
    try {
      if (readOnly)
        ResultsStore::openReadOnly(path);
      else
        ResultsStore::open(path);
      FAIL() << "a database without its epochs table opened";
    } catch (const StoreError& e) {
      EXPECT_EQ(std::string(e.what()),
                path + ": damaged database: table 'epochs' is missing (the file was not changed)");
    }
  }
  EXPECT_EQ(bytesOf(path), dropped);
}

// In a read-only directory (a read-only file too) the reader used to fail with "not
// a ParityLab results database". Run as an unprivileged user (root ignores permissions).
TEST(ResultsStore, ReaderWorksInAReadOnlyDirectory) {
  const std::string dir = freshTempPath("ro-dir");
  fs::create_directories(dir);
  const std::string path = dir + "/results.db";
  {
    auto store = ResultsStore::open(path, true);
    RunRecord r;
    r.backend = "cpu-fp32";
    r.status = RunState::Completed;
    r.finalAccuracy = 0.5;
    store->addRun(r);
  }
  ASSERT_FALSE(fs::exists(path + "-wal"));  // closed cleanly: the reader must do without it
  ::chmod(path.c_str(), 0444);
  ::chmod(dir.c_str(), 0555);
  const std::string before = bytesOf(path);
  EXPECT_EXIT(
      {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
        if (::access(dir.c_str(), W_OK) == 0) ::_exit(4);  // the directory must be read-only
        try {
          auto reader = ResultsStore::openReadOnly(path);
          ::_exit(reader->loadRuns().size() == 1 && finalAccuraciesByBackend(*reader).size() == 1
                      ? 0
                      : 1);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "%s\n", e.what());
          ::_exit(2);
        }
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EQ(bytesOf(path), before);
  EXPECT_FALSE(fs::exists(path + "-wal"));
  ::chmod(dir.c_str(), 0755);
}

TEST(ResultsStore, DirectoryAndMissingFileAreNamed) {
  const std::string dir = freshTempPath("a-dir.db");
  fs::create_directories(dir);
  try {
    ResultsStore::openReadOnly(dir);
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory, not a results database");
  }
  EXPECT_THROW(ResultsStore::openReadOnly(dir + "/missing.db"), StoreError);
}

// "unknown run status" once did not name the file.
TEST(ResultsStore, UnknownRunStatusNamesTheFile) {
  const std::string path = freshTempPath("status.db");
  {
    auto store = ResultsStore::open(path, true);
    RunRecord r;
    r.backend = "cpu-fp32";
    store->addRun(r);
  }
  sql(path, "UPDATE runs SET status = 'exploded';");
  try {
    ResultsStore::openReadOnly(path)->loadRuns();
    FAIL();
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ": run 1: unknown run status 'exploded'"),
              std::string::npos)
        << e.what();
  }
}

// SQLite opens "", ":memory:" and "file:...?mode=memory" as private databases it throws away on
// close: a study written there would be lost without a word. Only a plain file path is a database.
TEST(ResultsStore, OpensOnlyAPlainFilePathForWriting) {
  const std::string dir = freshTempPath("plain-paths");
  fs::create_directories(dir);
  const std::string fifo = dir + "/pipe.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path :
       {std::string(), std::string(":memory:"), std::string("file:x.db?mode=memory"),
        std::string("file:x.db"), dir, fifo}) {
    try {
      ResultsStore::open(path, true);
      ADD_FAILURE() << "opened '" << path << "' for writing";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + path + "'"), std::string::npos) << e.what();
    }
    try {
      requireDatabaseFilePath(path, "--db");
      ADD_FAILURE() << "accepted '" << path << "'";
    } catch (const StoreError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--db: '" + path + "' is not a plain file path", 0), 0u)
          << e.what();
    }
  }
  EXPECT_THROW(ResultsStore::openReadOnly(fifo), StoreError);  // refused, not a hang
  EXPECT_FALSE(fs::exists("x.db"));
  EXPECT_NO_THROW(requireDatabaseFilePath(dir + "/results.db"));
}

// A database with values no run can hold, as a damaged file or another tool would leave it.
std::string databaseWithOneRun(const std::string& name) {
  const std::string path = freshTempPath(name);
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(studySpecToJson(parseStudySpec(kSpec)).dump());
  RunRecord r;
  r.backend = "cpu-fp32";
  r.seed = 0;
  r.status = RunState::Completed;
  r.epochsDone = 2;
  r.finalAccuracy = 0.5;
  const std::int64_t id = store->addRun(r);
  store->addEpoch(id, {1, 1.0, 1.1, 0.4, 0.1, 0});
  store->addEpoch(id, {2, 0.5, 0.6, 0.5, 0.1, 0});
  return path;
}

std::string loadError(const std::string& path) {
  try {
    auto store = ResultsStore::openReadOnly(path);
    store->loadRuns();
    store->loadAllEpochs();
    store->loadEpochs(1);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "(loaded)";
}

// A command removes the database it created only while nothing but planned runs are in it: a
// run another process has claimed (running, no epoch yet) keeps the file.
TEST(ResultsStore, ADatabaseIsRemovedOnlyWhileItHoldsPlannedRunsAlone) {
  for (const RunState state : {RunState::Pending, RunState::Running, RunState::Cancelled}) {
    SCOPED_TRACE(std::string(toString(state)));
    const std::string path = freshTempPath("created.db");
    {
      auto store = ResultsStore::open(path, true);
      store->saveStudySpec(studySpecToJson(parseStudySpec(kSpec)).dump());
      RunRecord r;
      r.backend = "cpu-fp32";
      r.status = state;
      store->addRun(r);
    }
    EXPECT_EQ(removeDatabaseWithoutResults(path), state == RunState::Pending);
    EXPECT_EQ(std::filesystem::exists(path), state != RunState::Pending);
  }
}

TEST(ResultsStore, ImpossibleStoredValuesAreReportedAsDamageNamingRunAndField) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"UPDATE runs SET final_accuracy = 5.0", "run 1 final_accuracy 5"},
      {"UPDATE runs SET final_accuracy = -1", "run 1 final_accuracy -1"},
      {"UPDATE runs SET final_accuracy = 'nan'", "run 1 final_accuracy 'nan'"},
      {"UPDATE runs SET final_accuracy = 'seventy'", "run 1 final_accuracy 'seventy'"},
      {"UPDATE runs SET epochs_done = -3", "run 1 epochs_done -3"},
      {"UPDATE runs SET seed = -1", "run 1 seed -1"},
      {"UPDATE runs SET source = 'guessed'", "run 1 source 'guessed'"},
      {"UPDATE epochs SET test_accuracy = 1.5 WHERE epoch = 2", "run 1 test_accuracy 1.5"},
      {"UPDATE epochs SET epoch = -2 WHERE epoch = 2", "run 1 epoch -2"},
  };
  for (const auto& [statement, finding] : cases) {
    SCOPED_TRACE(statement);
    const std::string path = databaseWithOneRun("impossible.db");
    sql(path, statement);
    EXPECT_EQ(loadError(path), path + ": damaged database: " + finding);
  }
}

// Sampled steps and X-ray rows are read with the same range checks as runs and epochs.
TEST(ResultsStore, ImpossibleStepAndXrayValuesAreReportedNamingRunAndField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE steps SET step = -4", "run 1 step -4"},
      {"UPDATE steps SET lr = -0.5", "run 1 step lr -0.5"},
      {"UPDATE steps SET train_loss = 'low'", "run 1 step train_loss 'low'"},
      {"UPDATE xray SET zeros = 7", "run 1 xray zeros 7"},
      {"UPDATE xray SET count = -1", "run 1 xray count -1"},
      {"UPDATE xray SET amax = 'big'", "run 1 xray amax 'big'"},
      {"UPDATE xray SET epoch = 0", "run 1 xray epoch 0"},
      {"UPDATE xray SET exponent_histogram = '3:1 x:" + std::string(60, 'y') + "'",
       "run 1 xray step 2 exponent histogram: bad bin 'x:" + std::string(38, 'y') + "...'"},
  };
  for (const auto& [statement, finding] : cases) {
    SCOPED_TRACE(statement);
    const std::string path = databaseWithOneRun("steps.db");
    sql(path,
        "INSERT INTO steps (run_id, step, epoch, train_loss, lr) VALUES (1, 3, 1, 0.7, 0.01);"
        "INSERT INTO xray (run_id, step, epoch, site, operand, format, count, zeros, non_finite, "
        "flushed, subnormal, overflowed, exponent_histogram) "
        "VALUES (1, 2, 1, 's', 'a', 'fp32', 4, 1, 0, 0, 0, 0, '3:1 4:2')");
    sql(path, statement.c_str());
    std::string error = "(loaded)";
    try {
      auto store = ResultsStore::openReadOnly(path);
      store->loadAllSteps();
      store->loadXray();
    } catch (const StoreError& e) {
      error = e.what();
    }
    EXPECT_EQ(error, path + ": damaged database: " + finding);
  }
}

// A database of a newer schema is refused by readers as by writers: its tables could mean
// something this version does not know.
TEST(ResultsStore, ANewerSchemaIsRefusedForReadingToo) {
  const std::string path = databaseWithOneRun("newer.db");
  sql(path, "UPDATE paritylab_meta SET value = '99' WHERE key = 'schema_version'");
  const std::string before = bytesOf(path);
  EXPECT_EQ(loadError(path), path +
                                 ": written by a newer ParityLab (schema version 99, this one "
                                 "knows " +
                                 std::to_string(currentSchemaVersion()) +
                                 "); open it with that version");
  EXPECT_EQ(bytesOf(path), before);
}

TEST(ResultsStore, BrokenReferencesAndMissingTablesAreReportedOnOpening) {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"INSERT INTO xray (run_id, step, epoch, site, operand, format, count, zeros, non_finite, "
       "flushed, subnormal, overflowed, exponent_histogram) "
       "VALUES (9, 1, 1, 's', 'a', 'fp32', 1, 0, 0, 0, 0, 0, '')",
       "xray rows of run 9, which does not exist"},
      {"INSERT INTO epochs (run_id, epoch) VALUES (7, 1)",
       "epochs rows of run 7, which does not exist"},
      {"UPDATE runs SET backend = 'gpu-fp64'",
       "run 1 backend 'gpu-fp64' is not one of the stored study's backends"},
      {"DROP INDEX runs_emulated_identity; INSERT INTO runs (backend, policy, seed, status) "
       "VALUES ('cpu-fp32', '', 0, 'completed')",
       "index 'runs_emulated_identity' is missing (a run could be stored twice)"},
      {"DROP TABLE steps", "table 'steps' is missing"},
      {"DROP TABLE predictions", "table 'predictions' is missing"},
      {"DROP TABLE weights", "table 'weights' is missing"},
      {"DROP TABLE test_set", "table 'test_set' is missing"},
  };
  for (const auto& [statement, finding] : cases) {
    SCOPED_TRACE(statement);
    const std::string path = databaseWithOneRun("references.db");
    sql(path, "PRAGMA foreign_keys = OFF;");
    sql(path, statement);
    const std::string before = bytesOf(path);
    for (bool readOnly : {true, false}) {
      try {
        if (readOnly)
          ResultsStore::openReadOnly(path);
        else
          ResultsStore::open(path);
        ADD_FAILURE() << "opened";
      } catch (const StoreError& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": damaged database: " + finding + " (the file was not changed)");
      }
    }
    EXPECT_EQ(bytesOf(path), before);
  }
}

TEST(ResultsStore, ARunStoredTwiceIsReportedNotCountedTwice) {
  const std::string path = databaseWithOneRun("twice.db");
  sql(path,
      "DROP INDEX runs_emulated_identity; INSERT INTO runs (backend, policy, seed, status, "
      "final_accuracy) VALUES ('cpu-fp32', '', 0, 'completed', 0.5); CREATE INDEX "
      "runs_emulated_identity ON runs (backend, seed) WHERE source = 'emulated';");
  EXPECT_EQ(loadError(path), path +
                                 ": damaged database: the run cpu-fp32 seed 0 is stored twice "
                                 "(runs 1 and 2) (the file was not changed)");
}

// A neighbour's long transaction (an import of a million rows held the database for 9 s) made the
// study's next commit fail with "database is locked" after 5 s, which stopped the study; its
// commits now wait for the neighbour.
TEST(ResultsStore, AStudysCommitsWaitForANeighboursLongTransaction) {
  const std::string path = databaseWithOneRun("neighbour.db");
  auto store = ResultsStore::open(path);
  std::atomic<bool> holding{false};
  std::thread neighbour([&] {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE; INSERT INTO paritylab_meta VALUES ('n', '1')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    holding = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(6500));
    EXPECT_EQ(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  });
  while (!holding) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_NO_THROW(store->addEpoch(1, {3, 0.4, 0.5, 0.6, 0.1, 0}));
  neighbour.join();
  EXPECT_EQ(store->loadEpochs(1).size(), 3u);
  EXPECT_EQ(store->metaValue("n"), "1");
}

}  // namespace
}  // namespace paritylab::study
