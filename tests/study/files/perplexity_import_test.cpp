// A language model's runs that log their perplexity and no loss, imported from TensorBoard event
// files and every tracker's export: the test loss of each epoch is ln(perplexity) (noted, naming
// the tag), a perplexity that is not positive is refused naming file, run, step and value, NaN or
// an infinity is a diverged run, and a test loss and a perplexity both named are refused.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/input/number_input.h"
#include "core/study/files/import_input.h"
#include "tests/study/files/tensorboard_fixtures.h"
#include "tests/study/files/tracker_fixtures.h"

namespace paritylab::study {
namespace {

using testing::addFile;
using testing::errorOf;
using testing::hasNote;
using testing::kTensorBoardFixtures;
using testing::kTrackerFixtures;
using testing::runNamed;
using testing::writeTree;

const std::string kLightningPerplexity = kTrackerFixtures + "/perplexity";

TensorBoardImportOptions withRule(const std::string& rule) {
  TensorBoardImportOptions o;
  o.backendRule = rule;
  return o;
}

// The perplexities each Lightning run of fixtures/trackers/perplexity logs, by epoch.
struct LoggedPerplexities {
  const char* run;
  double perplexity[3];
};
constexpr LoggedPerplexities kLogged[] = {
    {"gpu/lightning_logs/version_0", {48.31, 31.02, 24.77}},
    {"gpu/lightning_logs/version_1", {47.95, 30.88, 24.61}},
    {"gpu/lightning_logs/version_2", {48.62, 31.4, 25.03}},
    {"tpu/lightning_logs/version_0", {49.1, 31.95, 25.48}},
    {"tpu/lightning_logs/version_1", {48.87, 31.7, 25.36}},
    {"tpu/lightning_logs/version_2", {49.44, 32.21, 25.8}},
};

TEST(PerplexityImport, ATrackerRunLoggingOnlyPerplexityHasLnOfItAsItsTestLoss) {
  const ImportInput input =
      readImportInput(kLightningPerplexity, ImportFormat::Auto, {},
                      withRule("path:{backend}/lightning_logs/version_{seed}"));
  EXPECT_EQ(input.format, ImportFormat::Lightning);
  EXPECT_EQ(input.metrics,
            "accuracy none, test loss ln of perplexity 'val_ppl', train loss 'train_loss'");
  EXPECT_EQ(input.perplexity, "val_ppl");
  EXPECT_TRUE(hasNote(input.notes,
                      "no test loss read: the test loss of each epoch is ln of the perplexity "
                      "metric 'val_ppl' (nats)"));
  ASSERT_EQ(input.runs.size(), 6u);
  for (const LoggedPerplexities& logged : kLogged) {
    const ImportedRun* run = runNamed(input, logged.run);
    ASSERT_NE(run, nullptr) << logged.run;
    ASSERT_EQ(run->epochs.size(), 3u) << logged.run;
    for (int e = 0; e < 3; ++e) {
      EXPECT_EQ(run->epochs[e].epoch, e + 1);
      EXPECT_NEAR(run->epochs[e].testLoss, std::log(logged.perplexity[e]), 1e-12) << logged.run;
      EXPECT_TRUE(std::isnan(run->epochs[e].testAccuracy));
    }
    EXPECT_NEAR(run->run.finalTestLoss, std::log(logged.perplexity[2]), 1e-12) << logged.run;
    EXPECT_EQ(run->run.status, RunState::Completed);
  }
  EXPECT_EQ(runNamed(input, "tpu/lightning_logs/version_1")->epochs[1].trainLoss, 3.541);
}

TEST(PerplexityImport, TensorBoardEventFilesLoggingOnlyPerplexityHaveLnOfItAsTheirTestLoss) {
  const ImportInput input = readImportInput(kTensorBoardFixtures + "/perplexity");
  EXPECT_EQ(input.format, ImportFormat::TensorBoard);
  EXPECT_EQ(input.tags,
            "accuracy none, test loss ln of perplexity 'eval/perplexity', train loss "
            "'train/loss'");
  EXPECT_TRUE(hasNote(input.notes, "ln of the perplexity tag 'eval/perplexity'"));
  ASSERT_EQ(input.runs.size(), 4u);
  const ImportedRun* tpu1 = runNamed(input, "tpu/seed1");
  ASSERT_NE(tpu1, nullptr);
  ASSERT_EQ(tpu1->epochs.size(), 3u);
  EXPECT_NEAR(tpu1->epochs[0].testLoss, std::log(99.5), 1e-12);
  EXPECT_NEAR(tpu1->epochs[1].testLoss, std::log(42.0), 1e-12);
  EXPECT_NEAR(tpu1->run.finalTestLoss, std::log(31.25), 1e-12);
  EXPECT_EQ(tpu1->epochs[2].trainLoss, 2.0);
  EXPECT_NEAR(runNamed(input, "gpu/seed0")->run.finalTestLoss, std::log(30.125), 1e-12);
}

// One run of two epochs in each format's own layout, logging its perplexity as `metric`.
struct FormatCase {
  const char* name;
  const char* file;
  const char* text;
  ImportFormat format;
  const char* run;
  bool finalOnly;
};

TEST(PerplexityImport, EveryTrackerFormatReadsPerplexityAsTheTestLoss) {
  const FormatCase cases[] = {
      {"wandb-history", "gpu_seed0.csv", "_step,_runtime,val_perplexity\n0,10,40.5\n1,20,30.25\n",
       ImportFormat::WandbHistory, "gpu_seed0", false},
      {"mlflow-history", "gpu_seed0.csv",
       "key,value,timestamp,step\nval_ppl,40.5,1000,0\nval_ppl,30.25,2000,1\n",
       ImportFormat::MlflowHistory, "gpu_seed0", false},
      {"tensorboard-csv", "run-gpu_seed0-tag-eval_perplexity.csv",
       "Wall time,Step,Value\n1700000000,0,40.5\n1700000060,1,30.25\n",
       ImportFormat::TensorBoardCsv, "gpu_seed0", false},
      {"wandb-runs", "runs.csv", "Name,State,device,perplexity\ngpu_seed0,finished,gpu,30.25\n",
       ImportFormat::WandbRuns, "gpu_seed0", true},
      {"mlflow-runs", "runs.csv",
       "run_id,experiment_id,status,metrics.val_perplexity,params.device\ngpu_seed0,1,FINISHED,"
       "30.25,gpu\n",
       ImportFormat::MlflowRuns, "gpu_seed0", true},
  };
  for (const FormatCase& c : cases) {
    const std::string folder = writeTree(std::string("ppl-") + c.name, c.file, c.text);
    const bool byPath = !c.finalOnly;
    const ImportInput input = readImportInput(folder, ImportFormat::Auto, {},
                                              withRule(byPath ? "path:{backend}_seed{seed}" : ""));
    EXPECT_EQ(input.format, c.format) << c.name;
    EXPECT_NE(input.metrics.find("test loss ln of perplexity"), std::string::npos)
        << c.name << ": " << input.metrics;
    ASSERT_EQ(input.runs.size(), 1u) << c.name;
    const ImportedRun& run = input.runs[0];
    EXPECT_EQ(run.run.backend, "gpu") << c.name;
    EXPECT_NEAR(run.run.finalTestLoss, std::log(30.25), 1e-12) << c.name;
    if (!c.finalOnly) {
      ASSERT_EQ(run.epochs.size(), 2u) << c.name;
      EXPECT_NEAR(run.epochs[0].testLoss, std::log(40.5), 1e-12) << c.name;
    }
  }
}

TEST(PerplexityImport, ALoggedTestLossIsPreferredUnlessAPerplexityIsNamed) {
  const std::string folder =
      writeTree("ppl-both", "gpu_seed0.csv", "_step,val_loss,val_ppl\n0,3.5,40.5\n1,3.25,30.25\n");
  const ImportInput byDefault =
      readImportInput(folder, ImportFormat::Auto, {}, withRule("path:{backend}_seed{seed}"));
  EXPECT_EQ(byDefault.metrics, "accuracy none, test loss 'val_loss', train loss none");
  EXPECT_EQ(byDefault.runs[0].run.finalTestLoss, 3.25);
  EXPECT_FALSE(hasNote(byDefault.notes, "perplexity"));

  TensorBoardImportOptions named = withRule("path:{backend}_seed{seed}");
  named.perplexityTag = "val_ppl";
  const ImportInput chosen = readImportInput(folder, ImportFormat::Auto, {}, named);
  EXPECT_EQ(chosen.metrics, "accuracy none, test loss ln of perplexity 'val_ppl', train loss none");
  EXPECT_NEAR(chosen.runs[0].run.finalTestLoss, std::log(30.25), 1e-12);
}

TEST(PerplexityImport, ATestLossAndAPerplexityBothNamedAreRefusedNamingBoth) {
  TensorBoardImportOptions both;
  both.testLossTag = "val_loss";
  both.perplexityTag = "val_ppl";
  const std::string expected =
      "--test-loss-tag 'val_loss' and --perplexity-tag 'val_ppl' both name the test loss (a "
      "perplexity is read as the test loss ln(perplexity)); give one of them";
  EXPECT_EQ(errorOf([&] { readImportInput(kLightningPerplexity, ImportFormat::Auto, {}, both); }),
            expected);
  EXPECT_EQ(errorOf([&] {
              readImportInput(kTensorBoardFixtures + "/perplexity", ImportFormat::Auto, {}, both);
            }),
            expected);
  EXPECT_THROW(readImportInput(kLightningPerplexity, ImportFormat::Auto, {}, both),
               input::InputError);
}

TEST(PerplexityImport, ANonPositivePerplexityIsRefusedNamingFileRunStepAndValue) {
  const std::string folder = writeTree("ppl-zero", "gpu/lightning_logs/version_0/metrics.csv",
                                       "epoch,step,val_ppl\n0,9,40.5\n1,19,0\n");
  const std::string file = folder + "/gpu/lightning_logs/version_0/metrics.csv";
  EXPECT_EQ(errorOf([&] {
              readImportInput(folder, ImportFormat::Auto, {},
                              withRule("path:{backend}/lightning_logs/version_{seed}"));
            }),
            file +
                ":3: column 3 (val_ppl): perplexity 0 at epoch 1 of run "
                "'gpu/lightning_logs/version_0': a perplexity must be positive (the test loss "
                "is its natural log)");
  const std::string table =
      writeTree("ppl-negative", "runs.csv", "Name,State,device,perplexity\nr,finished,gpu,-2.5\n");
  EXPECT_EQ(errorOf([&] { readImportInput(table); }),
            table +
                "/runs.csv:2: column 4 (perplexity): perplexity -2.5 of run 'r': a perplexity "
                "must be positive (the test loss is its natural log)");
}

TEST(PerplexityImport, ANonPositivePerplexityInAnEventFileIsRefusedNamingFileRunStepAndValue) {
  const std::string logs = kTensorBoardFixtures + "/perplexity-zero";
  EXPECT_EQ(errorOf([&] { readImportInput(logs); }),
            logs + "/gpu/seed0/" + testing::kEventFileName +
                ": tag 'eval/perplexity' step 2: run 'gpu/seed0': a perplexity must be positive "
                "(the test loss is its natural log): 0");
}

TEST(PerplexityImport, AnInfinitePerplexityInAnEventFileMarksTheRunDiverged) {
  const std::string logs = kTensorBoardFixtures + "/perplexity-inf";
  const ImportInput input = readImportInput(logs);
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* diverged = runNamed(input, "gpu/seed0");
  ASSERT_NE(diverged, nullptr);
  EXPECT_EQ(diverged->run.status, RunState::Diverged);
  EXPECT_EQ(diverged->run.divergedEpoch, 3);
  ASSERT_EQ(diverged->epochs.size(), 2u);
  EXPECT_NEAR(diverged->run.finalTestLoss, std::log(40.25), 1e-12);
  EXPECT_TRUE(hasNote(input.notes, logs + "/gpu/seed0/" + testing::kEventFileName +
                                       ": tag 'eval/perplexity' step 3: inf: run 'gpu/seed0' "
                                       "diverged; imported as diverged with its 2 epochs before "
                                       "it"))
      << ::testing::PrintToString(input.notes);
  EXPECT_EQ(runNamed(input, "gpu/seed1")->run.status, RunState::Completed);
}

TEST(PerplexityImport, ANonFinitePerplexityMarksTheRunDiverged) {
  const std::string folder =
      writeTree("ppl-inf", "gpu_seed0.csv", "_step,val_ppl\n0,40.5\n1,30.25\n2,inf\n3,nan\n");
  addFile(folder, "gpu_seed1.csv", "_step,val_ppl\n0,41.5\n1,31.25\n2,25.5\n3,22.5\n");
  const ImportInput input =
      readImportInput(folder, ImportFormat::Auto, {}, withRule("path:{backend}_seed{seed}"));
  ASSERT_EQ(input.runs.size(), 2u);
  const ImportedRun* diverged = runNamed(input, "gpu_seed0");
  ASSERT_NE(diverged, nullptr);
  EXPECT_EQ(diverged->run.status, RunState::Diverged);
  EXPECT_EQ(diverged->run.divergedEpoch, 3);  // _step 2, stored from 1
  ASSERT_EQ(diverged->epochs.size(), 2u);
  EXPECT_NEAR(diverged->run.finalTestLoss, std::log(30.25), 1e-12);
  EXPECT_TRUE(hasNote(input.notes,
                      folder + "/gpu_seed0.csv:4: column 2 (val_ppl): val_ppl inf at _step 2: "
                               "run 'gpu_seed0' diverged; imported as diverged with its 2 epochs "
                               "before it"));
  EXPECT_EQ(runNamed(input, "gpu_seed1")->run.status, RunState::Completed);
}

TEST(PerplexityImport, ANamedPerplexityNoRunLogsIsRefusedWithTheMetricsLogged) {
  TensorBoardImportOptions o = withRule("path:{backend}/lightning_logs/version_{seed}");
  o.perplexityTag = "ppl";
  const std::string error =
      errorOf([&] { readImportInput(kLightningPerplexity, ImportFormat::Auto, {}, o); });
  EXPECT_NE(error.find("no run logs the metric 'ppl' (--perplexity-tag); the metrics logged: "),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("'val_ppl'"), std::string::npos) << error;
}

}  // namespace
}  // namespace paritylab::study
