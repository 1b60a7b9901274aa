// Train under one backend, serve under another, through the built CLI: `serve DB` prints the
// matrix with the seed floor and a line per trained backend, `--json` its cells.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::runCli;
using testing::runTinyStudy;
using testing::TempFolder;

TEST(ServeCli, TheMatrixOfATinyStudyAsTableAndJson) {
  const TempFolder dir("serve");
  const std::string db = dir.file("s.db");
  const auto run = runTinyStudy(db, "cpu-fp32,tpu-bf16", 2);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto table = runCli({"serve", db});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("trained \\ served"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("seed floor"), std::string::npos);
  EXPECT_NE(table.out.find("trained on tpu-bf16: served on cpu-fp32, "), std::string::npos)
      << table.out;

  const auto json = runCli({"serve", db, "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["cells"].size(), 4u);
  for (const auto& c : j["cells"]) {
    EXPECT_EQ(c["runs"], 2);
    EXPECT_EQ(c["predictions"], 32);
    EXPECT_EQ(c["batch_size"], c["trained_by"] == c["served_by"] ? 1 : 1000);
  }
  EXPECT_TRUE(j["seed_floor"]["cpu-fp32"].is_number());

  const auto missing = runCli({"serve", dir.file("none.db")});
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("none.db"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace paritylab::cli
