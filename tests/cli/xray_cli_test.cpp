// The X-ray through the built CLI: `run --xray-every`, `report --xray` (long-form CSV) and
// `xray DB [--backend] [--site] [--json]`, including the messages for bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::readAll;
using testing::runCli;
using testing::runTinyStudy;
using testing::TempFolder;

TEST(XrayCli, RunReportAndSummaryOfATinyStudy) {
  const TempFolder dir("xray");
  const std::string db = dir.file("x.db");
  const auto run = runTinyStudy(db, "cpu-fp32,gpu-amp-bf16", 1, {"--xray-every", "2"});
  ASSERT_EQ(run.exitCode, 0) << run.err;

  const auto report =
      runCli({"report", db, "--csv", dir.file("r.csv"), "--xray", dir.file("x.csv")});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  // 4 steps, every 2nd measured: steps 0 and 2; mlp: fc1 (no dgrad), fc2, fc3 -> 8 products of 3
  // records each, and the loss's 8 values, per run.
  EXPECT_NE(report.out.find("(128 X-ray rows)"), std::string::npos) << report.out;
  const std::string csv = readAll(dir.file("x.csv"));
  EXPECT_NE(csv.find(",cpu-fp32,0,2,1,fc2.wgrad,grad,fp32,"), std::string::npos);
  EXPECT_NE(csv.find(",gpu-amp-bf16,0,0,1,fc3.fwd,weight,bf16,"), std::string::npos);

  const auto table = runCli({"xray", db, "--site", "fc2"});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("fc2.dgrad"), std::string::npos);
  EXPECT_EQ(table.out.find("fc3."), std::string::npos);
  EXPECT_NE(table.out.find("Findings:"), std::string::npos);

  const auto json = runCli({"xray", db, "--backend", "gpu-amp-bf16", "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["sites"].size(), 32u);  // 8 products x 3, the loss's 8 values
  for (const auto& s : j["sites"]) {
    EXPECT_EQ(s["backend"], "gpu-amp-bf16");
    EXPECT_EQ(s["samples"], 2);
  }
  EXPECT_FALSE(j["findings"].empty());

  const auto none = runCli({"xray", db, "--site", "conv9"});
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_NE(none.err.find("no X-ray records at site 'conv9'"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("it has backends 'cpu-fp32', 'gpu-amp-bf16' and sites 'fc1.fwd'"),
            std::string::npos)
      << none.err;
  const auto missing = runCli({"xray", dir.file("missing.db")});
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("missing.db: no such results database"), std::string::npos);
}

// `xray --run 0` printed CLI11's range check with DBL_MAX in 300 digits.
TEST(XrayCli, RunZeroIsRefusedInOneShortLine) {
  const testing::CliResult r = testing::runCli({"xray", "results.db", "--run", "0"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--run: expected an integer in [1, 9223372036854775807], got '0'"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 200u) << r.err;
}

}  // namespace
}  // namespace paritylab::cli
