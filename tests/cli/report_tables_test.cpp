// `stats` and `report` as a user runs them on imported hardware results: a backend is never
// compared with itself, and `report --csv` writes the tables the app's Export all writes,
// including the per-epoch curves.
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace paritylab::cli::testing {
namespace {

const std::string kReferenceCsv =
    std::string(PARITYLAB_SOURCE_DIR) + "/resources/reference/torchprime-resnet18-metrics.csv";

TEST(StatsAndReport, RefuseABackendComparedWithItself) {
  const TempFolder dir("same-pair");
  const std::string db = dir.file("reference.db");
  ASSERT_EQ(runCli({"import", kReferenceCsv, "--db", db}).exitCode, 0);
  const CliResult stats = runCli({"stats", db, "--a", "xla", "--b", "xla"});
  EXPECT_NE(stats.exitCode, 0);
  EXPECT_NE(stats.err.find("--a and --b are both 'xla'"), std::string::npos) << stats.err;
  const CliResult report =
      runCli({"report", db, "--csv", dir.file("r.csv"), "--a", "cuda", "--b", "cuda"});
  EXPECT_NE(report.exitCode, 0);
  EXPECT_NE(report.err.find("compared with itself"), std::string::npos) << report.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.csv")));
}

TEST(StatsAndReport, ReportCsvWritesThePerEpochCurves) {
  const TempFolder dir("epochs");
  const std::string db = dir.file("reference.db");
  ASSERT_EQ(runCli({"import", kReferenceCsv, "--db", db}).exitCode, 0);
  const CliResult report = runCli({"report", db, "--csv", dir.file("r.csv")});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  EXPECT_NE(report.out.find("r-epochs.csv (per-epoch curves)"), std::string::npos) << report.out;
  const std::string epochs = readAll(dir.file("r-epochs.csv"));
  EXPECT_EQ(epochs.rfind("run_id,backend,seed,status,epoch,metric,value", 0), 0u);
  // 28 runs of the published ResNet-18 study, each epoch with three metrics.
  std::size_t accuracies = 0;
  for (std::size_t at = 0; (at = epochs.find(",test_accuracy,", at)) != std::string::npos; ++at)
    ++accuracies;
  EXPECT_GE(accuracies, 28u);
}

}  // namespace
}  // namespace paritylab::cli::testing
