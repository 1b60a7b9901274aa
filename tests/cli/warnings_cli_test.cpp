// The early warnings through the built CLI: a tiny study stores them, `warnings DB` prints one
// line per run and `--json` the peaks, `report --signals` writes the long-form CSV, and a bad
// --spike-factor is refused naming the option.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::readAll;
using testing::runCli;
using testing::runTinyStudy;
using testing::TempFolder;

TEST(WarningsCli, ATinyStudysWarningsAsTableJsonAndCsv) {
  const TempFolder dir("warnings");
  const std::string db = dir.file("w.db");
  const auto run = runTinyStudy(db, "cpu-fp32,tpu-bf16", 1);
  ASSERT_EQ(run.exitCode, 0) << run.err;

  const auto table = runCli({"warnings", db});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("Early warnings per run"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("tpu-bf16"), std::string::npos);
  EXPECT_NE(table.out.find("fc"), std::string::npos);  // the layer of the largest update ratio

  const auto json = runCli({"warnings", db, "--json", "--spike-factor", "2"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["spike_factor"], 2.0);
  ASSERT_EQ(j["runs"].size(), 2u);
  for (const auto& r : j["runs"]) {
    EXPECT_EQ(r["measured_steps"], 4);  // 64 examples in batches of 16, every step kept
    EXPECT_GT(r["grad_norm_peak"]["value"].get<double>(), 0.0);
    EXPECT_TRUE(r["attention_logit_peak"].is_null());  // an mlp has no attention
    EXPECT_EQ(r["update_ratio_peak"]["layer"].get<std::string>().rfind("fc", 0), 0u);
  }

  const auto report = runCli({"report", db, "--signals", dir.file("s.csv")});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  // Per run and step: grad_norm, output_logit_norm and three layers' update ratios.
  EXPECT_NE(report.out.find("(per-step early warnings, 40 rows)"), std::string::npos) << report.out;
  const std::string csv = readAll(dir.file("s.csv"));
  EXPECT_EQ(csv.rfind("run_id,backend,seed,step,epoch,signal,layer,value\r\n", 0), 0u);
  EXPECT_NE(csv.find(",tpu-bf16,0,4,1,update_ratio,fc3.weight,"), std::string::npos);

  const auto bad = runCli({"warnings", db, "--spike-factor", "1"});
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("--spike-factor"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace paritylab::cli
