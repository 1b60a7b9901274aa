// The epochs table records the optimizer steps skipped by loss scaling; a
// database written before the column existed gains it (0) when opened, keeping its epochs.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "core/study/store/results_store.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string freshPath(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("paritylab-skipped-" + std::to_string(::getpid()) + "-" + name);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
  return p.string();
}

void execOrFail(sqlite3* db, const char* sql) {
  char* error = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
}

TEST(SkippedSteps, RoundTripPerEpoch) {
  const std::string path = freshPath("roundtrip.db");
  auto store = ResultsStore::open(path, true);
  RunRecord run;
  run.backend = "gpu-amp-fp16";
  run.id = store->addRun(run);
  store->addEpoch(run.id, {1, 0.9, 0.8, 0.5, 1.0, 3});
  store->addEpoch(run.id, {2, 0.7, 0.6, 0.6, 1.0, 0});
  const auto epochs = store->loadEpochs(run.id);
  ASSERT_EQ(epochs.size(), 2U);
  EXPECT_EQ(epochs[0].skippedSteps, 3);
  EXPECT_EQ(epochs[1].skippedSteps, 0);
  EXPECT_EQ(store->loadAllEpochs().at(run.id)[0].skippedSteps, 3);
}

TEST(SkippedSteps, OlderDatabaseGainsTheColumn) {
  const std::string path = freshPath("old.db");
  {  // The schema before skipped steps were recorded, with one run and one epoch.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    execOrFail(db, R"sql(
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
INSERT INTO runs (backend, policy, seed, status, epochs_done) VALUES ('cpu-fp32', '', 0,
  'completed', 1);
INSERT INTO epochs VALUES (1, 1, 0.5, 0.4, 0.875, 2.0);
)sql");
    sqlite3_close(db);
  }
  auto store = ResultsStore::open(path);
  auto epochs = store->loadEpochs(1);
  ASSERT_EQ(epochs.size(), 1U);
  EXPECT_EQ(epochs[0].testAccuracy, 0.875);
  EXPECT_EQ(epochs[0].skippedSteps, 0);
  store->addEpoch(1, {2, 0.3, 0.3, 0.9, 2.0, 5});
  EXPECT_EQ(store->loadEpochs(1).back().skippedSteps, 5);
  store.reset();
  EXPECT_EQ(ResultsStore::open(path)->loadEpochs(1).back().skippedSteps, 5);  // opens again
}

}  // namespace
}  // namespace paritylab::study
