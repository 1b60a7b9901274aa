// MLflow exports imported as measured runs: search_runs' FINISHED runs with their last metric
// values (a failed run skipped with its status) and the wall time between their start_time and
// end_time, hparam: reading params.NAME, the metric history of several runs in one file, and a
// one-row file.

#include <gtest/gtest.h>

#include "core/study/files/import_input.h"
#include "core/study/files/results_import.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;
using testing::kTrackerFixtures;
using testing::runNamed;

TEST(MlflowImport, RunsExportGivesFinishedRunsNamedByTheirRunName) {
  const ImportInput input = readImportInput(kTrackerFixtures + "/mlflow/runs.csv");
  EXPECT_EQ(input.format, ImportFormat::MlflowRuns);
  ASSERT_EQ(input.runs.size(), 3u);
  const ImportedRun* gpu = runNamed(input, "8f3b2c9a4d6e4b7a9c3d4e5f60718293");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->run.runName, "gpu-seed0");
  EXPECT_EQ(gpu->run.backend, "cuda");  // params.device, a hyperparameter 'device'
  EXPECT_EQ(gpu->run.seed, 0u);         // params.seed
  EXPECT_EQ(gpu->run.finalAccuracy, 0.6937);
  EXPECT_EQ(gpu->run.finalTestLoss, 1.2154);
  ASSERT_EQ(input.skipped.size(), 1u);
  EXPECT_EQ(input.skipped[0].why, "status 'FAILED' (only FINISHED runs are read)");
}

TEST(MlflowImport, RunsExportGivesEachRunTheWallTimeBetweenItsStartAndEnd) {
  ImportInput input = readImportInput(kTrackerFixtures + "/mlflow/runs.csv");
  // 09:12:03.551 to 10:20:45.100, pandas' datetimes as search_runs gives them
  EXPECT_NEAR(runNamed(input, "8f3b2c9a4d6e4b7a9c3d4e5f60718293")->run.wallSeconds, 4121.549, 1e-6);
  EXPECT_NEAR(runNamed(input, "6d1f0a7e2b4c4f3e9a1b2c3d4e5f6071")->run.wallSeconds, 3605.75, 1e-6);
  const std::string db = freshTempPath("mlflow-wall.db");
  auto store = ResultsStore::open(db, true);
  importRuns(*store, kTrackerFixtures + "/mlflow/runs.csv", input.runs);
  for (const RunRecord& r : store->loadRuns()) {
    if (r.message == "7e2a1b8f3c5d4a6f8b2c3d4e5f607182") {
      EXPECT_NEAR(r.wallSeconds, 3598.306, 1e-6);
    }
  }

  // Milliseconds since 1970, a 'T' and a 'Z', another time zone, a run still running (no end).
  const std::string folder = testing::writeTree(
      "mlflow-times", "runs.csv",
      "run_id,experiment_id,status,start_time,end_time,metrics.val_acc,params.device\n"
      "ms,1,FINISHED,1721676647120,1721680252870,0.5,xla\n"
      "iso,1,FINISHED,2025-07-22T19:30:47Z,2025-07-22T21:31:17.5Z,0.5,xla\n"
      "zone,1,FINISHED,2025-07-22 21:30:00+02:00,2025-07-22 19:45:00+00:00,0.5,xla\n"
      "open,1,FINISHED,2025-07-22 19:30:00+00:00,,0.5,xla\n");
  const ImportInput times = readImportInput(folder + "/runs.csv");
  EXPECT_NEAR(runNamed(times, "ms")->run.wallSeconds, 3605.75, 1e-6);
  EXPECT_NEAR(runNamed(times, "iso")->run.wallSeconds, 7230.5, 1e-6);
  EXPECT_NEAR(runNamed(times, "zone")->run.wallSeconds, 900.0, 1e-6);
  EXPECT_EQ(runNamed(times, "open")->run.wallSeconds, 0.0);  // not known
}

TEST(MlflowImport, AStartOrEndThatIsNoTimeOrAnEndBeforeTheStartIsRefusedNamingTheCell) {
  const std::string head =
      "run_id,experiment_id,status,start_time,end_time,metrics.val_acc,params.device\n";
  const std::string bad = testing::writeTree(
      "mlflow-bad-time", "runs.csv", head + "a,1,FINISHED,yesterday,2025-07-22 19:30:00,0.5,xla\n");
  EXPECT_EQ(testing::errorOf([&] { readImportInput(bad + "/runs.csv"); }),
            bad +
                "/runs.csv:2: column 4 (start_time): not a time (as search_runs writes it, "
                "2025-07-22 19:30:47.120000+00:00, or milliseconds since 1970): 'yesterday'");
  const std::string backwards =
      testing::writeTree("mlflow-backwards", "runs.csv",
                         head + "a,1,FINISHED,2025-07-22 19:30:00,2025-07-22 18:30:00,0.5,xla\n");
  EXPECT_EQ(testing::errorOf([&] { readImportInput(backwards + "/runs.csv"); }),
            backwards + "/runs.csv:2: column 5 (end_time): the run ends before it starts (" +
                backwards +
                "/runs.csv:2: column 4 (start_time): '2025-07-22 19:30:00'): "
                "'2025-07-22 18:30:00'");
  // A run skipped for its status is not read: its times are not checked.
  const std::string failed =
      testing::writeTree("mlflow-failed-time", "runs.csv",
                         head + "a,1,FINISHED,,,0.5,xla\nb,1,FAILED,soon,never,0.5,xla\n");
  EXPECT_EQ(readImportInput(failed + "/runs.csv").runs.size(), 1u);
}

TEST(MlflowImport, MetricHistoryOfSeveralRunsInOneFile) {
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}";  // no params in a history: each run id is its own backend
  const ImportInput input =
      readImportInput(kTrackerFixtures + "/mlflow/history", ImportFormat::MlflowHistory, {}, o);
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* run = runNamed(input, "6d1f0a7e2b4c4f3e9a1b2c3d4e5f6071");
  ASSERT_NE(run, nullptr);
  ASSERT_EQ(run->epochs.size(), 3u);
  EXPECT_EQ(run->epochs[2].epoch, 3);
  EXPECT_EQ(run->epochs[2].testAccuracy, 0.601);
  EXPECT_EQ(run->epochs[2].testLoss, 1.502);
  EXPECT_NEAR(run->run.wallSeconds, 50.2, 1e-6);  // timestamps in milliseconds
}

TEST(MlflowImport, AOneRowFileIsOneRun) {
  const ImportInput input = readImportInput(kTrackerFixtures + "/one-row/mlflow-runs.csv");
  ASSERT_EQ(input.runs.size(), 1u);
  EXPECT_EQ(input.runs[0].run.backend, "xla");
  EXPECT_EQ(input.runs[0].run.finalAccuracy, 0.75);
  EXPECT_FALSE(input.runs[0].run.seedGiven);  // numbered
  EXPECT_EQ(input.runs[0].run.seed, 0u);
  EXPECT_TRUE(testing::hasNote(input.notes, "1 run names no seed"));
}

}  // namespace
}  // namespace paritylab::study
