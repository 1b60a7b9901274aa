// `paritylab-cli import` of trackers' CSV exports as a user runs it: the format told by the header
// (or named with --format), --dry-run listing runs, backend, seed, epochs, final metric, what was
// skipped and why, a diverged run marked, a re-import that adds nothing, a file that matches no
// format refused with what each format needs, leaving no database behind, and a language model's
// logs of perplexity compared on their test loss, ln(perplexity).

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

namespace fs = std::filesystem;

const std::string kTrackers = PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/trackers";

TEST(ImportTrackers, DryRunOfLightningLogsListsRunsAndWritesNothing) {
  const TempFolder dir("lightning-dry-run");
  const std::string logs = kTrackers + "/diverged";
  const CliResult r = runCli({"import", logs, "--db", dir.file("never.db"), "--dry-run",
                              "--backend-from", "path:{backend}/lightning_logs/version_{seed}"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Dry run: nothing is written. " + logs +
                       " read as Lightning CSVLogger logs (metrics.csv)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Metrics read: accuracy 'val_acc', test loss 'val_loss', train loss "
                       "'train_loss'"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(lineStartingWith(r.out, "backend"), "  backend seed epochs final accuracy run");
  EXPECT_EQ(lineStartingWith(r.out, "gpu     1"),
            "  gpu     1    1      0.4011         gpu/lightning_logs/version_1 (diverged)");
  EXPECT_NE(r.out.find("val_loss nan at epoch 1: run 'gpu/lightning_logs/version_1' diverged"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir.file("never.db")));
}

TEST(ImportTrackers, RunTableIsImportedOnceAndSkippedRunsAreListed) {
  const TempFolder dir("wandb-import");
  const std::string db = dir.file("wandb.db");
  const std::string table = kTrackers + "/wandb/runs.csv";
  const CliResult first = runCli({"import", table, "--db", db});
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_NE(first.out.find("Imported 3 runs from " + table + " into " + db + ": cuda 1 xla 2"),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("Skipped 1 run:\n  gpu-seed1@2025-07-23T10:20:44.000Z: state "
                           "'crashed' (only finished runs are read)"),
            std::string::npos)
      << first.out;
  const CliResult again = runCli({"import", table, "--db", db});
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.out.find("Imported 0 runs"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("3 runs already present"), std::string::npos) << again.out;
}

TEST(ImportTrackers, FormatIsNamedAndAFileOfNoFormatListsWhatEachNeeds) {
  const TempFolder dir("tracker-formats");
  const CliResult named =
      runCli({"import", kTrackers + "/tensorboard-csv", "--dry-run", "--format", "tensorboard-csv",
              "--backend-from", "path:{backend}_seed{seed}"});
  ASSERT_EQ(named.exitCode, 0) << named.err;
  EXPECT_NE(named.out.find("2 runs would be imported"), std::string::npos) << named.out;
  const std::string csv = dir.write("when.csv", "when,what\n1,2\n");
  const CliResult none = runCli({"import", csv, "--db", dir.file("x.db")});
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_NE(none.err.find(csv + ":1: matches no format ParityLab reads"), std::string::npos)
      << none.err;
  EXPECT_NE(none.err.find("W&B run table (Name, State)"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(dir.file("x.db")));
  const CliResult unknown = runCli({"import", csv, "--dry-run", "--format", "excel"});
  EXPECT_NE(unknown.exitCode, 0);
}

// The final perplexities of fixtures/trackers/perplexity, per backend (three runs each).
constexpr double kGpuPerplexity[] = {24.77, 24.61, 25.03};
constexpr double kTpuPerplexity[] = {25.48, 25.36, 25.8};

double meanLog(const double (&values)[3]) {
  return (std::log(values[0]) + std::log(values[1]) + std::log(values[2])) / 3.0;
}

TEST(ImportTrackers, LogsOfPerplexityOnlyAreComparedOnTheirTestLoss) {
  const TempFolder dir("perplexity-import");
  const std::string db = dir.file("lm.db");
  const std::string rule = "path:{backend}/lightning_logs/version_{seed}";
  const CliResult dry =
      runCli({"import", kTrackers + "/perplexity", "--dry-run", "--backend-from", rule});
  ASSERT_EQ(dry.exitCode, 0) << dry.err;
  EXPECT_NE(dry.out.find("Metrics read: accuracy none, test loss ln of perplexity 'val_ppl', "
                         "train loss 'train_loss'"),
            std::string::npos)
      << dry.out;
  EXPECT_EQ(lineStartingWith(dry.out, "backend"), "  backend seed epochs final test loss run");
  EXPECT_EQ(lineStartingWith(dry.out, "gpu     0"),
            "  gpu     0    3      3.2096          gpu/lightning_logs/version_0");  // ln 24.77
  const CliResult imported =
      runCli({"import", kTrackers + "/perplexity", "--db", db, "--backend-from", rule});
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  EXPECT_NE(imported.out.find("Imported 6 runs"), std::string::npos) << imported.out;

  const CliResult loss =
      runCli({"stats", db, "--a", "tpu", "--b", "gpu", "--metric", "test_loss", "--json"});
  ASSERT_EQ(loss.exitCode, 0) << loss.err;
  const nlohmann::json l = nlohmann::json::parse(loss.out);
  EXPECT_EQ(l["metric"], "test_loss");
  EXPECT_EQ(l["n_a"], 3);
  EXPECT_NEAR(l["mean_a"].get<double>(), meanLog(kTpuPerplexity), 1e-12);
  EXPECT_NEAR(l["mean_b"].get<double>(), meanLog(kGpuPerplexity), 1e-12);
  const CliResult perplexity =
      runCli({"stats", db, "--a", "tpu", "--b", "gpu", "--metric", "perplexity", "--json"});
  ASSERT_EQ(perplexity.exitCode, 0) << perplexity.err;
  const nlohmann::json p = nlohmann::json::parse(perplexity.out);
  EXPECT_NEAR(p["mean_b"].get<double>(), (24.77 + 24.61 + 25.03) / 3.0, 1e-9);  // exp(ln x) = x
}

TEST(ImportTrackers, ATestLossAndAPerplexityBothNamedAreRefused) {
  const TempFolder dir("perplexity-both");
  const CliResult r = runCli({"import", kTrackers + "/perplexity", "--db", dir.file("x.db"),
                              "--test-loss-tag", "val_loss", "--perplexity-tag", "val_ppl"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--test-loss-tag 'val_loss' and --perplexity-tag 'val_ppl' both name the "
                       "test loss"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.file("x.db")));
}

}  // namespace
}  // namespace paritylab::cli::testing
