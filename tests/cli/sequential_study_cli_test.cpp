// A sequential study on the command line: `run` trains seeds in rounds and stops at the look
// that shows equivalence (gpu-tf32 trains the mlp as cpu-fp32 does: TF32 applies to
// convolutions only), keeping the runs of the rounds it needed and no more; `--resume` trains
// nothing more; `stats --sequential --json` gives each look's boundaries and the stop; shards
// are refused with the reason.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

const char* kSequentialStudy = R"({"version": 1, "name": "seq",
  "dataset": {"source": "synthetic", "train_size": 512, "test_size": 256},
  "model": "mlp", "epochs": 1, "batch_size": 64, "chaos_floor": false, "serve": false,
  "backends": ["cpu-fp32", "gpu-tf32"], "threads": 1,
  "sequential": {"margin": 0.015, "max_seeds": 9, "look_every": 3}})";

TEST(SequentialCli, StopsAtTheLookThatShowsEquivalenceWithTheRunsItNeeded) {
  const TempFolder dir("sequential");
  const std::string study = dir.write("seq.json", kSequentialStudy);
  const CliResult run = runCli({"run", study, "--db", dir.file("q.db")});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  // The size and the progress count the most the study may train (9 seeds x 2 backends).
  EXPECT_NE(run.out.find("Study 'seq': at most 18 runs (2 backends x 9 seeds), results in "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("[1 of at most 18] "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("/18]"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Stopped at look 2 of 3 (6 seeds each): gpu-tf32 is equivalent to "
                         "cpu-fp32 within +-1.50 points"),
            std::string::npos)
      << run.out;
  const CliResult stats = runCli({"stats", dir.file("q.db"), "--sequential", "--json"});
  ASSERT_EQ(stats.exitCode, 0) << stats.err;
  const nlohmann::json j = nlohmann::json::parse(stats.out);
  EXPECT_EQ(j["stopped_at_look"], 2);
  EXPECT_EQ(j["decision"], "equivalent");
  ASSERT_EQ(j["looks"].size(), 3u);
  EXPECT_EQ(j["looks"][0]["decision"], "continue");
  EXPECT_FALSE(j["looks"][2]["made"]);
  EXPECT_LT(j["looks"][0]["equivalence_boundary_p"].get<double>(),
            j["looks"][1]["equivalence_boundary_p"].get<double>());
  const CliResult runs = runCli({"report", dir.file("q.db"), "--csv", dir.file("r.csv")});
  ASSERT_EQ(runs.exitCode, 0) << runs.err;
  const std::string table = readAll(dir.file("r.csv"));
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 1 + 12) << table;  // 2 x 6 seeds
  const CliResult again = runCli({"run", study, "--db", dir.file("q.db"), "--resume"});
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(readAll(dir.file("r.csv")), table);
  const CliResult shard = runCli({"run", study, "--shard", "1/2", "--db", dir.file("s.db")});
  EXPECT_EQ(shard.exitCode, 1);
  EXPECT_NE(shard.err.find("cannot be split into shards"), std::string::npos) << shard.err;
}

}  // namespace
}  // namespace paritylab::cli::testing
