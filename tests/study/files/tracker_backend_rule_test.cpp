// Which backend and seed a tracker's run is: each --backend-from form (path: with {seed},
// column:, hparam:), the seed from its column or hyperparameter when there is one, else numbered
// per backend (noted); runs a rule does not match are skipped with the reason, and a malformed
// rule or two runs of one backend and seed are refused.

#include <gtest/gtest.h>

#include "core/input/number_input.h"
#include "core/study/files/import_input.h"
#include "core/study/files/import_run_rule.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::errorOf;
using testing::freshTempPath;
using testing::hasNote;
using testing::kTrackerFixtures;
using testing::runNamed;

ImportInput readWith(const std::string& path, const std::string& rule,
                     const std::string& seed = "seed") {
  TensorBoardImportOptions o;
  o.backendRule = rule;
  CsvImportOptions csv;
  csv.seedColumn = seed;
  return readImportInput(path, ImportFormat::Auto, csv, o);
}

TEST(TrackerBackendRule, ParsesEachFormAndRefusesOthers) {
  EXPECT_EQ(RunBackendRule::parse("column:config.device").kind(), RunBackendRule::Kind::Column);
  EXPECT_EQ(RunBackendRule::parse("column:config.device").name(), "config.device");
  EXPECT_EQ(RunBackendRule::parse("hparam:device").kind(), RunBackendRule::Kind::Hparam);
  EXPECT_TRUE(RunBackendRule::parse("path:{backend}/s{seed}").hasSeed());
  const std::string e = errorOf([] { RunBackendRule::parse("device"); });
  EXPECT_NE(e.find("--backend-from 'device': a rule is path:PATTERN"), std::string::npos) << e;
  EXPECT_NE(errorOf([] { RunBackendRule::parse("column:"); }).find("must have 1 to 200"),
            std::string::npos);
  EXPECT_THROW(RunBackendRule::parse("path:{seed}"), input::InputError);
  // A malformed rule is refused before anything is read.
  EXPECT_THROW(readWith(kTrackerFixtures + "/wandb/runs.csv", "hparam"), input::InputError);
}

TEST(TrackerBackendRule, PathRuleGivesBackendAndSeedAndSkipsRunsItDoesNotMatch) {
  const ImportInput input =
      readWith(kTrackerFixtures + "/lightning", "path:{backend}/lightning_logs/version_{seed}");
  ASSERT_EQ(input.runs.size(), 4u);
  const ImportedRun* run = runNamed(input, "gpu/lightning_logs/version_1");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->run.backend, "gpu");
  EXPECT_EQ(run->run.seed, 1u);
  EXPECT_TRUE(run->run.seedGiven);
  const ImportInput zero =
      readWith(kTrackerFixtures + "/lightning", "path:{backend}/lightning_logs/version_0");
  ASSERT_EQ(zero.runs.size(), 2u);
  ASSERT_EQ(zero.skipped.size(), 2u);
  EXPECT_EQ(zero.skipped[0].folder, "gpu/lightning_logs/version_1");
  EXPECT_EQ(zero.skipped[0].why, "does not match path:{backend}/lightning_logs/version_0");
}

TEST(TrackerBackendRule, ColumnRuleReadsAnyColumnOfTheRun) {
  const ImportInput input = readWith(kTrackerFixtures + "/mlflow/runs.csv", "column:tags.device");
  ASSERT_EQ(input.runs.size(), 3u);
  EXPECT_EQ(runNamed(input, "6d1f0a7e2b4c4f3e9a1b2c3d4e5f6071")->run.backend, "tpu");
  EXPECT_EQ(runNamed(input, "8f3b2c9a4d6e4b7a9c3d4e5f60718293")->run.backend, "gpu");
}

TEST(TrackerBackendRule, HparamRuleReadsConfigParamsAndHparamsYaml) {
  EXPECT_EQ(runNamed(readWith(kTrackerFixtures + "/wandb/runs.csv", "hparam:device"),
                     "gpu-seed0@2025-07-23T09:12:03.000Z")
                ->run.backend,
            "cuda");
  EXPECT_EQ(runNamed(readWith(kTrackerFixtures + "/mlflow/runs.csv", "hparam:device"),
                     "7e2a1b8f3c5d4a6f8b2c3d4e5f607182")
                ->run.backend,
            "xla");
  EXPECT_EQ(runNamed(readWith(kTrackerFixtures + "/lightning", "hparam:device"),
                     "gpu/lightning_logs/version_1")
                ->run.backend,
            "cuda");
}

TEST(TrackerBackendRule, RunsWithoutTheColumnAreSkippedWithTheReason) {
  const std::string folder = testing::writeTree("rule-skips", "runs.csv",
                                                "Name,State,device,val_acc\n"
                                                "a,finished,tpu,0.5\n"
                                                "b,finished,,0.5\n");
  const ImportInput input = readWith(folder + "/runs.csv", "column:device");
  ASSERT_EQ(input.runs.size(), 1u);
  ASSERT_EQ(input.skipped.size(), 1u);
  EXPECT_EQ(input.skipped[0].folder, "b");
  EXPECT_EQ(input.skipped[0].why, "no column 'device'");
  const std::string e = errorOf([&] { readWith(folder + "/runs.csv", "hparam:accelerator"); });
  EXPECT_NE(e.find("no run to import: all 2 runs skipped (a: no hyperparameter 'accelerator'"),
            std::string::npos)
      << e;
}

TEST(TrackerBackendRule, SeedsAreNumberedPerBackendWhenNoneIsGiven) {
  const ImportInput input =
      readWith(kTrackerFixtures + "/lightning", "path:{backend}/lightning_logs/*", "none");
  ASSERT_EQ(input.runs.size(), 4u);
  EXPECT_EQ(runNamed(input, "gpu/lightning_logs/version_0")->run.seed, 0u);
  EXPECT_EQ(runNamed(input, "gpu/lightning_logs/version_1")->run.seed, 1u);
  EXPECT_FALSE(runNamed(input, "gpu/lightning_logs/version_1")->run.seedGiven);
  EXPECT_TRUE(hasNote(input.notes,
                      "4 runs name no seed (the rule path:{backend}/lightning_logs/* "
                      "has no {seed}): seeds are numbered 0..n-1 per backend"));
}

TEST(TrackerBackendRule, TwoRunsOfOneBackendAndSeedAreRefused) {
  const std::string folder = testing::writeTree("rule-twice", "runs.csv",
                                                "Name,State,device,seed,val_acc\n"
                                                "a,finished,tpu,3,0.5\n"
                                                "b,finished,tpu,3,0.5\n");
  const std::string e = errorOf([&] { readImportInput(folder + "/runs.csv"); });
  EXPECT_NE(e.find("runs 'a' and 'b' are both backend 'tpu' seed 3"), std::string::npos) << e;
  const std::string bad = testing::writeTree("rule-bad-seed", "runs.csv",
                                             "Name,State,device,seed,val_acc\n"
                                             "a,finished,tpu,-1,0.5\n");
  const std::string seed = errorOf([&] { readImportInput(bad + "/runs.csv"); });
  EXPECT_NE(seed.find("runs.csv:2: column 4 (seed): not a seed (an integer in [0, 2^63 - 1]): "
                      "'-1'"),
            std::string::npos)
      << seed;
}

}  // namespace
}  // namespace paritylab::study
