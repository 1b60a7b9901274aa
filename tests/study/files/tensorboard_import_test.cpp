// TensorBoard logs imported as measured runs: run folders found in a tree, backend and seed from a
// rule on the path or from the parent folder (with a note), files of one run merged by step, the
// tags chosen, refused values named, NaN a diverged run; and the torchprime reference runs, written
// as event files by make_tensorboard_fixtures.py, give the published Welch test exactly as their
// CSV does.

#include "core/study/files/tensorboard_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "core/input/number_input.h"
#include "core/stats/statistics.h"
#include "core/study/files/tensorboard_runs.h"
#include "tests/study/files/tensorboard_fixtures.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;
using testing::kTensorBoardFixtures;

const std::string kSeeds = kTensorBoardFixtures + "/seeds";
const std::string kReferenceLogs = kTensorBoardFixtures + "/reference";
const std::string kTorchprimeCsv = PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv";

bool hasNoteContaining(const ImportNotes& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

const ImportedRun& runIn(const TensorBoardRuns& read, const std::string& folder) {
  for (const ImportedRun& r : read.runs)
    if (r.run.message == folder) return r;
  throw std::runtime_error("no run " + folder);
}

std::string importError(const std::string& path, const TensorBoardImportOptions& options = {}) {
  try {
    readTensorBoardRuns(path, options);
  } catch (const EventFileError& e) {
    return e.what();
  }
  return "";
}

TEST(TensorBoardRuns, EveryFolderHoldingEventFilesIsARun) {
  const auto runs = findEventRuns(kSeeds);
  std::vector<std::string> folders;
  for (const auto& r : runs) folders.push_back(r.relative);
  EXPECT_EQ(folders, (std::vector<std::string>{"gpu/seed0", "gpu/seed1", "gpu/seed2", "notes",
                                               "tpu/seed0", "tpu/seed1", "tpu/seed2"}));
  EXPECT_EQ(runs[5].files.size(), 2u);  // a restarted job: two files, one run
  EXPECT_EQ(runs[5].parentName, "tpu");
  const auto one = findEventRuns(testing::fixtureEventFile("scalars"));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].relative, ".");
  EXPECT_EQ(one[0].name, "scalars");
  EXPECT_EQ(one[0].parentName, "tensorboard");
  EXPECT_NE(importError(kTorchprimeCsv).find("not a TensorBoard event file"), std::string::npos);
}

TEST(TensorBoardImport, RuleGivesBackendAndSeedAndSkipsFoldersItDoesNotMatch) {
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}/seed{seed}";
  const TensorBoardRuns read = readTensorBoardRuns(kSeeds, o);
  ASSERT_EQ(read.runs.size(), 6u);
  ASSERT_EQ(read.skipped.size(), 1u);
  EXPECT_EQ(read.skipped[0].folder, "notes");
  EXPECT_EQ(read.skipped[0].why, "does not match path:{backend}/seed{seed}");
  EXPECT_EQ(read.accuracyTag, "eval/accuracy");
  EXPECT_EQ(read.trainLossTag, "train/loss");
  EXPECT_EQ(read.testLossTag, "");
  const ImportedRun& gpu2 = runIn(read, "gpu/seed2");
  EXPECT_EQ(gpu2.run.backend, "gpu");
  EXPECT_EQ(gpu2.run.seed, 2u);
  EXPECT_TRUE(gpu2.run.seedGiven);
  EXPECT_EQ(gpu2.run.source, "imported");
  EXPECT_EQ(gpu2.run.runName, "seed2");
  ASSERT_EQ(gpu2.epochs.size(), 3u);
  EXPECT_EQ(gpu2.epochs[2].epoch, 3);
  EXPECT_EQ(gpu2.run.finalAccuracy, 0.875);
  EXPECT_EQ(gpu2.epochs[0].trainLoss, 2.0);
  EXPECT_TRUE(std::isnan(gpu2.epochs[0].testLoss));
  EXPECT_EQ(gpu2.run.wallSeconds, 2.0);
}

TEST(TensorBoardImport, FilesOfOneRunMergeByStepKeepingTheLatest) {
  TensorBoardImportOptions o;
  o.backendRule = "path:{backend}/seed{seed}";
  const TensorBoardRuns read = readTensorBoardRuns(kSeeds, o);
  const ImportedRun& restarted = runIn(read, "tpu/seed1");
  ASSERT_EQ(restarted.epochs.size(), 3u);
  EXPECT_EQ(restarted.run.finalAccuracy, 0.5);
  EXPECT_EQ(restarted.run.wallSeconds, 1053.0 - 1001.0);  // step 3 from the second file
  EXPECT_TRUE(hasNoteContaining(read.notes, "tpu/seed1: 2 values logged again"));
}

TEST(TensorBoardImport, WithoutARuleTheParentFolderIsTheBackendAndSeedsAreNumbered) {
  const TensorBoardRuns read = readTensorBoardRuns(kSeeds, {});
  ASSERT_EQ(read.runs.size(), 7u);  // "notes" too: its parent is the folder imported
  EXPECT_EQ(runIn(read, "notes").run.backend, "seeds");
  EXPECT_EQ(runIn(read, "tpu/seed2").run.backend, "tpu");
  EXPECT_EQ(runIn(read, "tpu/seed2").run.seed, 2u);
  EXPECT_FALSE(runIn(read, "tpu/seed2").run.seedGiven);
  EXPECT_TRUE(hasNoteContaining(read.notes,
                                "no --backend-from rule: each run folder's parent "
                                "folder names its backend"));
}

TEST(TensorBoardImport, NamedTagsAndTheirAbsenceAreReported) {
  TensorBoardImportOptions o;
  o.accuracyTag = "val/acc";
  EXPECT_EQ(importError(kSeeds, o),
            kSeeds +
                ": no run logs the tag 'val/acc' (--accuracy-tag); the scalar tags logged: "
                "'eval/accuracy', 'train/loss'");
  o.accuracyTag = "train/loss";  // any tag may be named; a loss is no accuracy in [0, 1]
  const std::string error = importError(kSeeds, o);
  EXPECT_NE(error.find(": tag 'train/loss' step 1: accuracy 2 outside [0, 1] (a tag read as "
                       "percent needs every value within (1, 100]"),
            std::string::npos)
      << error;
}

TEST(TensorBoardImport, OneEventFileIsOneRunNamedByItsFolders) {
  TensorBoardImportOptions o;
  o.testLossTag = "loss/test";
  const TensorBoardRuns read = readTensorBoardRuns(testing::fixtureEventFile("scalars"), o);
  ASSERT_EQ(read.runs.size(), 1u);
  EXPECT_EQ(read.runs[0].run.backend, "tensorboard");
  EXPECT_EQ(read.runs[0].run.message, "scalars");
  EXPECT_EQ(read.runs[0].epochs.front().epoch, 1);
  EXPECT_EQ(read.runs[0].run.finalAccuracy, 0.8125);  // "accuracy" is a default tag
  EXPECT_EQ(read.runs[0].run.finalTestLoss, 0.875);
  EXPECT_TRUE(std::isnan(read.runs[0].run.finalTrainLoss));  // "loss/train" is no default
}

TEST(TensorBoardImport, StepsFromZeroAreStoredFromEpochOneAndPercentIsNoted) {
  const TensorBoardRuns read = readTensorBoardRuns(kTensorBoardFixtures + "/from-zero", {});
  ASSERT_EQ(read.runs.size(), 1u);
  const ImportedRun& run = read.runs[0];
  ASSERT_EQ(run.epochs.size(), 3u);
  EXPECT_EQ(run.epochs[0].epoch, 1);
  EXPECT_EQ(run.epochs[2].epoch, 3);
  EXPECT_EQ(run.epochs[0].testAccuracy, 0.5);
  EXPECT_EQ(run.run.finalAccuracy, 0.7);
  EXPECT_TRUE(hasNoteContaining(read.notes,
                                "steps of tag 'accuracy' start at 0: stored as "
                                "epochs from 1 (epoch = step + 1)"));
  EXPECT_TRUE(hasNoteContaining(read.notes, "tag 'accuracy' read as percent (3 values"));
}

TEST(TensorBoardImport, ReferenceRunsGiveTheWelchTestOfTheirCsv) {
  const TensorBoardRuns read = readTensorBoardRuns(kReferenceLogs, {});
  ASSERT_EQ(read.runs.size(), 28u);
  EXPECT_TRUE(read.skipped.empty());
  EXPECT_EQ(read.accuracyTag, "accuracy_top1");
  EXPECT_EQ(read.testLossTag, "test_loss");
  EXPECT_EQ(read.trainLossTag, "train_loss");
  std::vector<double> xla, cuda;
  for (const ImportedRun& r : read.runs) {
    EXPECT_EQ(r.epochs.size(), 25u);
    EXPECT_EQ(r.run.epochsDone, 25);
    (r.run.backend == "xla" ? xla : cuda).push_back(r.run.finalAccuracy);
  }
  ASSERT_EQ(xla.size(), 14u);
  ASSERT_EQ(cuda.size(), 14u);
  const auto t = stats::tTest(xla, cuda);
  EXPECT_NEAR(t.t, 1.4035, 5e-5);
  EXPECT_NEAR(t.p_value, 0.1734, 5e-5);
  EXPECT_NEAR(t.p_value, 0.17344679058804213, 1e-9);

  // The same values as the CSV path, epoch by epoch (float32 in the files, read as the decimals).
  std::vector<double> csvXla, csvCuda;
  auto csv = readResultsCsv(kTorchprimeCsv, {});
  for (const ImportedRun& r : csv)
    (r.run.backend == "xla" ? csvXla : csvCuda).push_back(r.run.finalAccuracy);
  std::sort(xla.begin(), xla.end());
  std::sort(csvXla.begin(), csvXla.end());
  std::sort(cuda.begin(), cuda.end());
  std::sort(csvCuda.begin(), csvCuda.end());
  EXPECT_EQ(xla, csvXla);
  EXPECT_EQ(cuda, csvCuda);
  EXPECT_EQ(identicalRunNotes(read.runs).size(), identicalRunNotes(csv).size());
}

TEST(TensorBoardImport, StoredAsMeasuredRunsAndReimportAddsNothing) {
  TensorBoardRuns read = readTensorBoardRuns(kReferenceLogs, {});
  const std::string db = freshTempPath("tensorboard-import.db");
  auto store = ResultsStore::open(db, true);
  const ImportSummary first = importRuns(*store, kReferenceLogs, read.runs);
  EXPECT_EQ(first.added, 28);
  const auto stored = store->loadRuns();
  ASSERT_EQ(stored.size(), 28u);
  EXPECT_EQ(stored[0].source, "imported");
  EXPECT_EQ(store->loadStudySpec().origin, std::filesystem::absolute(kReferenceLogs).string());
  TensorBoardRuns again = readTensorBoardRuns(kReferenceLogs, {});
  const ImportSummary second = importRuns(*store, kReferenceLogs, again.runs);
  EXPECT_EQ(second.added, 0);
  EXPECT_EQ(second.present, 28);
  EXPECT_EQ(store->loadRuns().size(), 28u);
}

TEST(TensorBoardImport, ARuleGivingTwoRunsOneSeedIsRefused) {
  TensorBoardImportOptions o;
  o.backendRule = "path:**/{backend}{seed}";  // tpu/seed1 and gpu/seed1: backend "seed", seed 1
  EXPECT_EQ(importError(kSeeds, o),
            "run folders 'gpu/seed0' and 'tpu/seed0' are both backend 'seed' seed 0 by the "
            "--backend-from rule");
  o.backendRule = "path:{backend}/*";  // no {seed}: numbered, with a note
  const TensorBoardRuns read = readTensorBoardRuns(kSeeds, o);
  EXPECT_EQ(read.runs.size(), 6u);
  EXPECT_TRUE(hasNoteContaining(read.notes, "names no {seed}"));
}

TEST(TensorBoardImport, NanInALogIsADivergedRunWithItsStepsBefore) {
  // A run folder whose event file logs accuracy 0.5 and test_loss NaN at step 1.
  const std::string logs = freshTempPath("tensorboard-nan");
  const std::string run = logs + "/tpu/run0";
  std::filesystem::create_directories(run);
  std::filesystem::copy_file(PARITYLAB_SOURCE_DIR "/tests/fuzz/corpus/tensorboard_events/nan-loss",
                             run + "/" + testing::kEventFileName);
  const TensorBoardRuns input = readTensorBoardRuns(logs, {});
  ASSERT_EQ(input.runs.size(), 1u);
  const ImportedRun& r = input.runs[0];
  EXPECT_EQ(r.run.status, RunState::Diverged);
  EXPECT_EQ(r.run.divergedEpoch, 1);
  EXPECT_TRUE(r.epochs.empty());
  EXPECT_TRUE(std::isnan(r.run.finalAccuracy));
  EXPECT_TRUE(
      hasNoteContaining(input.notes, run + "/" + testing::kEventFileName +
                                         ": tag 'test_loss' step 1: nan: run 'tpu/run0' diverged"))
      << ::testing::PrintToString(input.notes);
}

}  // namespace
}  // namespace paritylab::study
