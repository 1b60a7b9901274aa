// Shards and merge on the command line: `run --shard K/N` validates K/N with a clear message
// and trains its share; `merge` reports missing runs in words, merges what is there, and exits
// non-zero for them only with --require-complete; bad input is named with a non-zero exit.

#include <gtest/gtest.h>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

const char* kShardedStudy = R"({"version": 1, "name": "tiny",
  "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
  "model": "mlp", "epochs": 1, "batch_size": 50, "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"],
  "seeds": 2, "threads": 1})";

TEST(ShardCli, ShardOutOfRangeIsRefusedSayingHowToCount) {
  const TempFolder dir("shard-range");
  const std::string study = dir.write("tiny.json", kShardedStudy);
  const CliResult zero = runCli({"run", study, "--shard", "0/2", "--db", dir.file("p.db")});
  EXPECT_EQ(zero.exitCode, 1);
  EXPECT_NE(zero.err.find("--shard '0/2': K counts from 1 (1..2)"), std::string::npos) << zero.err;
  const CliResult bad = runCli({"run", study, "--shard", "two", "--db", dir.file("p.db")});
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("expected K/N"), std::string::npos) << bad.err;
}

TEST(ShardCli, TwoShardsMergeIntoTheWholeStudyAndAMissingOneIsReported) {
  const TempFolder dir("shard-merge");
  const std::string study = dir.write("tiny.json", kShardedStudy);
  for (const char* k : {"1", "2"}) {
    const CliResult r = runCli({"run", study, "--shard", std::string(k) + "/2", "--db",
                                dir.file(std::string("part-") + k + ".db")});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find(std::string("Shard ") + k + "/2: 2 of the study's 4 runs"),
              std::string::npos)
        << r.out;
  }
  const CliResult partial =
      runCli({"merge", dir.file("part-1.db"), "--db", dir.file("half.db"), "--require-complete"});
  EXPECT_EQ(partial.exitCode, 1);
  EXPECT_NE(partial.out.find("Incomplete: 2 of 4 runs are finished"), std::string::npos)
      << partial.out;
  EXPECT_NE(partial.out.find("(shard 2/2): in no input (that shard was not given)"),
            std::string::npos)
      << partial.out;
  EXPECT_NE(partial.err.find("2 runs missing (--require-complete)"), std::string::npos)
      << partial.err;
  const CliResult rest = runCli({"merge", dir.file("part-2.db"), "--db", dir.file("half.db")});
  EXPECT_EQ(rest.exitCode, 0) << rest.err;
  EXPECT_NE(rest.out.find("Complete: all 4 runs of the study are finished"), std::string::npos)
      << rest.out;
  const CliResult report =
      runCli({"stats", dir.file("half.db"), "--a", "tpu-bf16", "--b", "cpu-fp32"});
  EXPECT_EQ(report.exitCode, 0) << report.err;
  const CliResult notDb = runCli({"merge", study, "--db", dir.file("x.db")});
  EXPECT_EQ(notDb.exitCode, 1);
  EXPECT_NE(notDb.err.find(study + ": not a ParityLab results database"), std::string::npos)
      << notDb.err;
}

}  // namespace
}  // namespace paritylab::cli::testing
