// TensorBoard's per-tag CSV downloads imported as measured runs: run and tag from the file's
// name as TensorBoard names it (run-RUN-tag-TAG.csv, or RUN.csv in a folder named after the tag),
// the tags of one run merged, and float32 values kept as written.

#include <gtest/gtest.h>

#include "core/study/files/import_input.h"
#include "core/study/files/tensorboard_csv.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;
using testing::kTrackerFixtures;
using testing::runNamed;

TEST(TensorBoardCsvImport, RunAndTagComeFromTheDownloadsName) {
  EXPECT_EQ(tensorBoardCsvName(
                "logs", {"logs/run-tpu_seed0-tag-val_acc.csv", "run-tpu_seed0-tag-val_acc.csv"})
                .run,
            "tpu_seed0");
  EXPECT_EQ(tensorBoardCsvName(
                "logs", {"logs/run-a-tag-b-tag-Loss_val.csv", "run-a-tag-b-tag-Loss_val.csv"})
                .tag,
            "Loss_val");
  const TensorBoardCsvName named =
      tensorBoardCsvName("logs", {"logs/val_acc/tpu_seed1.csv", "val_acc/tpu_seed1.csv"});
  EXPECT_EQ(named.run, "tpu_seed1");
  EXPECT_EQ(named.tag, "val_acc");
}

TEST(TensorBoardCsvImport, TagsOfOneRunMergeIntoItsEpochs) {
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}_seed{seed}";
  const ImportInput input =
      readImportInput(kTrackerFixtures + "/tensorboard-csv", ImportFormat::Auto, {}, o);
  EXPECT_EQ(input.format, ImportFormat::TensorBoardCsv);
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* tpu = runNamed(input, "tpu_seed0");
  ASSERT_NE(tpu, nullptr);
  EXPECT_EQ(tpu->run.backend, "tpu");
  EXPECT_EQ(tpu->run.seed, 0u);
  EXPECT_TRUE(tpu->run.seedGiven);
  ASSERT_EQ(tpu->epochs.size(), 3u);
  EXPECT_EQ(tpu->epochs[2].testAccuracy, 0.6010000109672546);
  EXPECT_EQ(tpu->epochs[2].testLoss, 1.5019999742507935);
  EXPECT_DOUBLE_EQ(tpu->run.wallSeconds, 1753212722.9 - 1753212672.7);
}

TEST(TensorBoardCsvImport, WithoutARuleEveryRunIsSkippedWithTheReason) {
  const std::string e =
      testing::errorOf([&] { readImportInput(kTrackerFixtures + "/tensorboard-csv"); });
  EXPECT_NE(e.find("no run to import: all 2 runs skipped (gpu_seed0: no --backend-from rule, "
                   "and no hyperparameter or column 'backend' or 'device'"),
            std::string::npos)
      << e;
}

TEST(TensorBoardCsvImport, FilesInATagFolderAreNamedByIt) {
  const std::string folder = freshTempPath("tb-csv-tag-folders");
  testing::addFile(folder, "val_acc/gpu-s4.csv", "Wall time,Step,Value\n10,1,0.25\n20,2,0.5\n");
  testing::addFile(folder, "val_loss/gpu-s4.csv", "Wall time,Step,Value\n10,1,2.5\n20,2,2.0\n");
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}-s{seed}";
  const ImportInput input = readImportInput(folder, ImportFormat::Auto, {}, o);
  ASSERT_EQ(input.runs.size(), 1u);
  EXPECT_EQ(input.runs[0].run.message, "gpu-s4");
  EXPECT_EQ(input.runs[0].run.seed, 4u);
  EXPECT_EQ(input.runs[0].run.finalTestLoss, 2.0);
  EXPECT_EQ(input.runs[0].run.finalAccuracy, 0.5);
}

}  // namespace
}  // namespace paritylab::study
