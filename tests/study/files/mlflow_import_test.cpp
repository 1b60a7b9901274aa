// MLflow exports imported as measured runs: search_runs' FINISHED runs with their last metric
// values (a failed run skipped with its status), hparam: reading params.NAME, the metric history
// of several runs in one file, and a one-row file.

#include <gtest/gtest.h>

#include "core/study/files/import_input.h"
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
