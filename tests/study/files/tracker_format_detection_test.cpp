// Which format an import reads, told by the path and the header alone: each tracker's export is
// recognised by its identifying columns, a folder by what it holds, and a file or folder that
// matches no format is refused with the list of what each format needs.

#include <gtest/gtest.h>

#include "core/input/csv.h"
#include "core/study/files/import_format.h"
#include "core/study/files/import_input.h"
#include "tests/study/files/tensorboard_fixtures.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::errorOf;
using testing::freshTempPath;
using testing::kTrackerFixtures;
using testing::writeTree;

TEST(TrackerFormatDetection, EachHeaderNamesItsFormat) {
  using F = ImportFormat;
  EXPECT_EQ(trackerFormatOfHeader({"Name", "State", "Notes", "val_acc"}, "x.csv"), F::WandbRuns);
  EXPECT_EQ(trackerFormatOfHeader({"Name", "State", "_step", "val_acc"}, "x.csv"), F::WandbRuns);
  EXPECT_EQ(trackerFormatOfHeader({"_step", "_runtime", "val_acc"}, "x.csv"), F::WandbHistory);
  EXPECT_EQ(trackerFormatOfHeader({"run_id", "experiment_id", "status", "metrics.a"}, "x.csv"),
            F::MlflowRuns);
  EXPECT_EQ(trackerFormatOfHeader({"run_id", "key", "value", "timestamp", "step"}, "x.csv"),
            F::MlflowHistory);
  EXPECT_EQ(trackerFormatOfHeader({"epoch", "step", "val_acc"}, "metrics.csv"), F::Lightning);
  EXPECT_EQ(trackerFormatOfHeader({"epoch", "step", "val_acc"}, "other.csv"), std::nullopt);
  EXPECT_EQ(trackerFormatOfHeader({"Wall time", "Step", "Value"}, "x.csv"), F::TensorBoardCsv);
  EXPECT_EQ(trackerFormatOfHeader({"run", "backend", "epoch", "accuracy"}, "x.csv"), std::nullopt);
  EXPECT_TRUE(isResultsCsvHeader({"run", "backend", "epoch", "accuracy"}, "backend"));
}

TEST(TrackerFormatDetection, FilesAndFoldersAreReadAsTheirFormat) {
  const auto detect = [](const std::string& path) { return detectImportFormat(path, "backend"); };
  EXPECT_EQ(detect(kTrackerFixtures + "/wandb/runs.csv"), ImportFormat::WandbRuns);
  EXPECT_EQ(detect(kTrackerFixtures + "/wandb/history"), ImportFormat::WandbHistory);
  EXPECT_EQ(detect(kTrackerFixtures + "/wandb/history-many.csv"), ImportFormat::WandbHistory);
  EXPECT_EQ(detect(kTrackerFixtures + "/wandb-chart"), ImportFormat::WandbChart);
  EXPECT_EQ(detect(kTrackerFixtures + "/wandb-chart/val_loss.csv"), ImportFormat::WandbChart);
  EXPECT_EQ(detect(kTrackerFixtures + "/mlflow/runs.csv"), ImportFormat::MlflowRuns);
  EXPECT_EQ(detect(kTrackerFixtures + "/mlflow/history"), ImportFormat::MlflowHistory);
  EXPECT_EQ(detect(kTrackerFixtures + "/lightning"), ImportFormat::Lightning);
  EXPECT_EQ(detect(kTrackerFixtures + "/tensorboard-csv"), ImportFormat::TensorBoardCsv);
  EXPECT_EQ(detect(testing::kTensorBoardFixtures + "/seeds"), ImportFormat::TensorBoard);
  EXPECT_EQ(detect(PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv"), ImportFormat::Csv);
  // Read through the one entry without being told.
  EXPECT_EQ(readImportInput(kTrackerFixtures + "/wandb/history-many.csv").format,
            ImportFormat::WandbHistory);
}

TEST(TrackerFormatDetection, AFileMatchingNoFormatListsWhatEachNeeds) {
  const std::string folder = writeTree("no-format", "table.csv", "when,what\n1,2\n");
  const std::string file = folder + "/table.csv";
  const std::string e = errorOf([&] { readImportInput(file); });
  EXPECT_NE(e.find(file + ":1: matches no format ParityLab reads (its columns: 'when', 'what')"),
            std::string::npos)
      << e;
  for (const char* needs :
       {"W&B run table (Name, State)", "W&B history (_step)",
        "W&B chart export (Step, then 'RUN - METRIC' columns)",
        "MLflow runs (run_id, experiment_id)", "MLflow metric history (key, value, step)",
        "Lightning CSVLogger (a file named metrics.csv with step)",
        "TensorBoard CSV download (Wall time, Step, Value)", "a results CSV (backend",
        "--format csv|tensorboard|wandb-runs"})
    EXPECT_NE(e.find(needs), std::string::npos) << needs << "\n" << e;
  // The folder that holds it says the same of the file.
  EXPECT_NE(errorOf([&] { readImportInput(folder); }).find(file + ":1: matches no format"),
            std::string::npos);
  // An empty folder: nothing to read, and what would be.
  const std::string empty = freshTempPath("no-format-empty");
  std::filesystem::create_directories(empty);
  const std::string none = errorOf([&] { readImportInput(empty); });
  EXPECT_NE(none.find(empty + ": no TensorBoard event file and no CSV file in it"),
            std::string::npos)
      << none;
  EXPECT_NE(none.find("W&B history (_step)"), std::string::npos) << none;
}

TEST(TrackerFormatDetection, AFolderMixingFormatsIsRefusedNamingTwoFiles) {
  const std::string folder =
      writeTree("mixed-formats", "a.csv", "Wall time,Step,Value\n1.0,1,0.5\n");
  testing::addFile(folder, "b.csv", "_step,val_acc\n1,0.5\n");
  const std::string e = errorOf([&] { readImportInput(folder); });
  EXPECT_NE(e.find(folder + "/a.csv is TensorBoard CSV downloads, " + folder +
                   "/b.csv is a W&B history export (CSV): import one format at a time"),
            std::string::npos)
      << e;
}

TEST(TrackerFormatDetection, AnExplicitFormatChecksTheColumnsItNeeds) {
  const std::string e = errorOf(
      [&] { readImportInput(kTrackerFixtures + "/wandb/runs.csv", ImportFormat::MlflowRuns); });
  EXPECT_NE(e.find("runs.csv:1: no column 'run_id' (an MLflow runs export has run_id and "
                   "experiment_id; its columns: 'Name', 'State'"),
            std::string::npos)
      << e;
  EXPECT_EQ(formatNamed("wandb-history"), ImportFormat::WandbHistory);
  EXPECT_EQ(formatNamed("wandb-chart"), ImportFormat::WandbChart);
  EXPECT_EQ(formatName(ImportFormat::TensorBoardCsv), "tensorboard-csv");
  EXPECT_EQ(formatNamed("excel"), std::nullopt);
}

}  // namespace
}  // namespace paritylab::study
