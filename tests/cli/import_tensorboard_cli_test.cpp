// `paritylab-cli import` of TensorBoard logs as a user runs it: a folder or an event file is read
// as TensorBoard without being told, --dry-run lists the runs and what was skipped and writes
// nothing, a re-import adds nothing, and a damaged file is an error naming it and the byte offset
// that leaves what a database held as it was.

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

namespace fs = std::filesystem;

const std::string kLogs = PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/tensorboard";
const std::string kSeeds = kLogs + "/seeds";
const std::string kReference = kLogs + "/reference";

TEST(ImportTensorBoard, DryRunListsRunsAndSkippedFoldersAndWritesNothing) {
  const TempFolder dir("tensorboard-dry-run");
  const std::string db = dir.file("never.db");
  const CliResult r = runCli(
      {"import", kSeeds, "--db", db, "--dry-run", "--backend-from", "path:{backend}/seed{seed}"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(
      r.out.find("Dry run: nothing is written. " + kSeeds + " read as TensorBoard event files"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Tags read: accuracy 'eval/accuracy', test loss none, train loss "
                       "'train/loss'"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("6 runs would be imported"), std::string::npos) << r.out;
  EXPECT_EQ(lineStartingWith(r.out, "backend"), "  backend seed steps final accuracy run");
  EXPECT_EQ(lineStartingWith(r.out, "gpu     2"), "  gpu     2    3     0.8750         gpu/seed2");
  EXPECT_NE(r.out.find("Skipped 1 run folder:\n  notes: does not match "
                       "path:{backend}/seed{seed}\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Note: tpu/seed1: 2 values logged again"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(db));
  EXPECT_EQ(runCli({"import", kSeeds, "--dry-run"}).exitCode, 0);  // no --db needed
}

TEST(ImportTensorBoard, DryRunOfACsvListsItsRunsToo) {
  const TempFolder dir("csv-dry-run");
  const std::string csv =
      PARITYLAB_SOURCE_DIR "/resources/reference/torchprime-resnet18-metrics.csv";
  const CliResult r = runCli({"import", csv, "--db", dir.file("never.db"), "--dry-run"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(csv + " read as a results CSV"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("28 runs would be imported"), std::string::npos) << r.out;
  EXPECT_EQ(lineStartingWith(r.out, "backend"), "  backend seed epochs final accuracy run");
  EXPECT_NE(r.out.find("Note: xla: 2 pairs of identical runs"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.file("never.db")));
}

TEST(ImportTensorBoard, FolderIsDetectedImportedOnceAndReimportAddsNothing) {
  const TempFolder dir("tensorboard-import");
  const std::string db = dir.file("reference.db");
  const CliResult first = runCli({"import", kReference, "--db", db});
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_NE(
      first.out.find("Imported 28 runs from " + kReference + " into " + db + ": cuda 14 xla 14"),
      std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("Note: no --backend-from rule"), std::string::npos) << first.out;
  const CliResult again = runCli({"import", kReference + "/", "--db", db});  // the same folder
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.out.find("Imported 0 runs"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("28 runs already present"), std::string::npos) << again.out;
  // The stats of the imported runs: the reference experiment's Welch test.
  const CliResult stats = runCli({"stats", db, "--a", "xla", "--b", "cuda", "--test", "welch"});
  ASSERT_EQ(stats.exitCode, 0) << stats.err;
  EXPECT_NE(stats.out.find("t = 1.4035, df = 23.6882, p = 0.17345"), std::string::npos)
      << stats.out;
}

TEST(ImportTensorBoard, DamagedFileIsNamedWithItsOffsetAndStoredRunsAreKept) {
  const TempFolder dir("tensorboard-damaged");
  const std::string db = dir.file("kept.db");
  ASSERT_EQ(runCli({"import", kReference, "--db", db}).exitCode, 0);
  const std::string flipped = kLogs + "/flipped/events.out.tfevents.1700000000.fixture";
  const CliResult bad = runCli({"import", flipped, "--db", db, "--add-to-study"});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find(flipped + ": record at byte 290: the CRC of its 96 data bytes does not "
                                   "match"),
            std::string::npos)
      << bad.err;
  const CliResult dry = runCli({"import", kReference, "--db", db, "--dry-run"});
  EXPECT_NE(dry.out.find("28 runs would be imported"), std::string::npos) << dry.out;
  const CliResult again = runCli({"import", kReference, "--db", db});
  EXPECT_NE(again.out.find("28 runs already present"), std::string::npos) << again.out;
  // A failed import into a new database leaves none behind.
  const std::string fresh = dir.file("fresh.db");
  EXPECT_EQ(runCli({"import", flipped, "--db", fresh}).exitCode, 1);
  EXPECT_FALSE(fs::exists(fresh));
}

TEST(ImportTensorBoard, BadRuleTagAndFormatAreNamed) {
  const TempFolder dir("tensorboard-bad");
  const CliResult rule = runCli({"import", kSeeds, "--dry-run", "--backend-from", "{backend}"});
  EXPECT_EQ(rule.exitCode, 1);
  EXPECT_NE(rule.err.find("--backend-from '{backend}': does not start with 'path:'"),
            std::string::npos)
      << rule.err;
  const CliResult tag = runCli({"import", kSeeds, "--dry-run", "--accuracy-tag", "top1"});
  EXPECT_EQ(tag.exitCode, 1);
  EXPECT_NE(tag.err.find("no run logs the tag 'top1' (--accuracy-tag)"), std::string::npos)
      << tag.err;
  const std::string csv = dir.write("runs.csv", "run,backend,epoch,accuracy\nr1,tpu,1,0.5\n");
  const CliResult format =
      runCli({"import", csv, "--db", dir.file("x.db"), "--format", "tensorboard"});
  EXPECT_EQ(format.exitCode, 1);
  EXPECT_NE(format.err.find(csv + ": not a TensorBoard event file"), std::string::npos)
      << format.err;
  EXPECT_FALSE(fs::exists(dir.file("x.db")));
  const CliResult noDb = runCli({"import", kSeeds});
  EXPECT_NE(noDb.exitCode, 0);
  EXPECT_NE(noDb.err.find("--db (or --dry-run, which writes nothing) is required"),
            std::string::npos)
      << noDb.err;
}

}  // namespace
}  // namespace paritylab::cli::testing
