// Weights & Biases exports imported as measured runs: the run table's finished runs with their
// summary metrics as final values (others skipped with their state), the history's logged steps
// as epochs, one file per run or many runs in one file, a chart panel's export (each run's series,
// its __MIN/__MAX bands ignored), and a re-import that adds nothing.

#include <gtest/gtest.h>

#include <cmath>

#include "core/study/files/import_input.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;
using testing::hasNote;
using testing::kTrackerFixtures;
using testing::runNamed;

const std::string kRunTable = kTrackerFixtures + "/wandb/runs.csv";

TensorBoardImportOptions rule(const std::string& text) {
  TensorBoardImportOptions o;
  o.backendRule = text;
  return o;
}

TEST(WandbImport, RunTableGivesFinishedRunsWithTheirFinalValues) {
  const ImportInput input = readImportInput(kRunTable);
  EXPECT_EQ(input.format, ImportFormat::WandbRuns);
  EXPECT_EQ(input.metrics, "accuracy 'val_acc', test loss 'val_loss', train loss 'train_loss'");
  ASSERT_EQ(input.runs.size(), 3u);
  const ImportedRun* tpu = runNamed(input, "tpu-seed1@2025-07-22T20:35:16.000Z");
  ASSERT_NE(tpu, nullptr);
  EXPECT_EQ(tpu->run.backend, "xla");  // the config column 'device'
  EXPECT_EQ(tpu->run.seed, 1u);        // the config column 'seed'
  EXPECT_TRUE(tpu->run.seedGiven);
  EXPECT_EQ(tpu->run.runName, "tpu-seed1");
  EXPECT_EQ(tpu->run.finalAccuracy, 0.6902);
  EXPECT_EQ(tpu->run.finalTestLoss, 1.2287);
  EXPECT_EQ(tpu->run.finalTrainLoss, 0.8633);
  EXPECT_EQ(tpu->run.wallSeconds, 3598);
  EXPECT_EQ(tpu->run.epochsDone, 0);  // final values only
  EXPECT_TRUE(tpu->epochs.empty());
  EXPECT_EQ(tpu->run.status, RunState::Completed);
  EXPECT_EQ(tpu->run.source, "imported");
  ASSERT_EQ(input.skipped.size(), 1u);
  EXPECT_EQ(input.skipped[0].folder, "gpu-seed1@2025-07-23T10:20:44.000Z");
  EXPECT_EQ(input.skipped[0].why, "state 'crashed' (only finished runs are read)");
  EXPECT_TRUE(hasNote(input.notes, "metric 'val_acc' read as fractions (3 values"));
}

TEST(WandbImport, HistoryFilesAreRunsAndTheirEpochsAreLogged) {
  const ImportInput input = readImportInput(kTrackerFixtures + "/wandb/history", ImportFormat::Auto,
                                            {}, rule("path:{backend}_seed{seed}"));
  EXPECT_EQ(input.format, ImportFormat::WandbHistory);
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* xla = runNamed(input, "xla_seed0");
  ASSERT_NE(xla, nullptr);
  EXPECT_EQ(xla->run.backend, "xla");
  EXPECT_EQ(xla->run.seed, 0u);
  ASSERT_EQ(xla->epochs.size(), 3u);  // the epochs that log val_acc, from 1
  EXPECT_EQ(xla->epochs[0].epoch, 1);
  EXPECT_EQ(xla->epochs[0].testAccuracy, 0.412);
  EXPECT_EQ(xla->epochs[0].testLoss, 2.011);
  EXPECT_EQ(xla->epochs[0].trainLoss, 1.912);  // logged in another row of the same epoch
  EXPECT_EQ(xla->run.finalAccuracy, 0.601);
  EXPECT_EQ(xla->run.epochsDone, 3);
  EXPECT_DOUBLE_EQ(xla->run.wallSeconds, 75.3 - 25.1);  // _runtime of the first and last epoch
  EXPECT_TRUE(hasNote(input.notes,
                      "the epochs of metric 'val_acc' count from 0: stored from 1 "
                      "(epoch + 1)"));
}

TEST(WandbImport, HistoryOfManyRunsTellsThemApartByName) {
  const ImportInput input = readImportInput(kTrackerFixtures + "/wandb/history-many.csv");
  ASSERT_EQ(input.runs.size(), 2u);
  EXPECT_EQ(input.metrics, "accuracy 'val_accuracy', test loss none, train loss 'train_loss'");
  const ImportedRun* b = runNamed(input, "r-b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->run.backend, "cuda");  // the column 'device'
  EXPECT_EQ(b->run.seed, 3u);
  ASSERT_EQ(b->epochs.size(), 2u);  // _step 1 and 2 as epochs 1 and 2
  EXPECT_EQ(b->epochs[1].epoch, 2);
  EXPECT_EQ(b->epochs[1].testAccuracy, 0.5625);
}

TEST(WandbImport, ReimportAddsNothing) {
  const std::string db = freshTempPath("wandb-import.db");
  auto store = ResultsStore::open(db, true);
  ImportInput first = readImportInput(kRunTable);
  EXPECT_EQ(importRuns(*store, kRunTable, first.runs).added, 3);
  ImportInput again = readImportInput(kRunTable);
  const ImportSummary second = importRuns(*store, kRunTable, again.runs);
  EXPECT_EQ(second.added, 0);
  EXPECT_EQ(second.present, 3);
  EXPECT_EQ(store->loadRuns().size(), 3u);
}

// A line plot's CSV download, one file per panel: "RUN - METRIC" columns by Step, the bands of a
// smoothed line beside them not read, the runs of both panels merged by name.
TEST(WandbImport, ChartPanelExportsGiveEachRunsSeriesByStep) {
  const std::string charts = kTrackerFixtures + "/wandb-chart";
  const ImportInput input =
      readImportInput(charts, ImportFormat::Auto, {}, rule("path:{backend}-seed{seed}"));
  EXPECT_EQ(input.format, ImportFormat::WandbChart);
  EXPECT_EQ(input.metrics, "accuracy 'val_acc', test loss 'val_loss', train loss none");
  ASSERT_EQ(input.runs.size(), 4u);
  const ImportedRun* tpu = runNamed(input, "tpu-seed1");
  ASSERT_NE(tpu, nullptr);
  EXPECT_EQ(tpu->run.backend, "tpu");
  EXPECT_EQ(tpu->run.seed, 1u);
  ASSERT_EQ(tpu->epochs.size(), 3u);
  EXPECT_EQ(tpu->epochs[0].epoch, 1);             // Step 0, stored from 1
  EXPECT_EQ(tpu->epochs[0].testAccuracy, 0.405);  // not its band, 0.385 to 0.425
  EXPECT_EQ(tpu->epochs[1].testLoss, 1.73);       // from the val_loss panel
  EXPECT_EQ(tpu->run.finalAccuracy, 0.598);
  const ImportedRun* gpu = runNamed(input, "gpu-seed1");
  ASSERT_NE(gpu, nullptr);
  EXPECT_TRUE(std::isnan(gpu->epochs[1].testLoss));  // an empty cell: not logged at Step 1
  EXPECT_EQ(gpu->run.finalTestLoss, 1.52);
  EXPECT_TRUE(hasNote(input.notes, "the steps of metric 'val_acc' (Step) start at 0"));
}

TEST(WandbImport, AChartExportIsToldByItsHeaderAndAnOddColumnIsNamed) {
  const std::string one =
      testing::writeTree("chart-one", "panel.csv", "\"Step\",\"a run - val/acc\"\n1,0.5\n2,0.75\n");
  TensorBoardImportOptions named = rule("path:{backend}");
  named.accuracyTag = "val/acc";
  const ImportInput input = readImportInput(one + "/panel.csv", ImportFormat::Auto, {}, named);
  EXPECT_EQ(input.format, ImportFormat::WandbChart);
  ASSERT_EQ(input.runs.size(), 1u);
  EXPECT_EQ(input.runs[0].run.backend, "a run");  // split at the last " - "
  EXPECT_EQ(input.runs[0].run.finalAccuracy, 0.75);
  // Step with another column is no chart export (and no other format).
  const std::string other = testing::writeTree("chart-other", "panel.csv", "Step,val_acc\n1,0.5\n");
  EXPECT_NE(testing::errorOf([&] {
              readImportInput(other + "/panel.csv");
            }).find("matches no format ParityLab reads"),
            std::string::npos);
  const std::string e = testing::errorOf([&] {
    readImportInput(other + "/panel.csv", ImportFormat::WandbChart, {}, rule("path:{backend}"));
  });
  EXPECT_EQ(e, other +
                   "/panel.csv:1: column 2 (val_acc): not a 'RUN - METRIC' column of a W&B "
                   "chart export");
}

}  // namespace
}  // namespace paritylab::study
