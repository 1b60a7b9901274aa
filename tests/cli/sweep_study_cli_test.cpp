// A sweep on the command line: `run` trains every backend at every cell and says the sweep's
// verdict; `stats --sweep --json` prints the ANOVA table with the backend x sweep interaction and
// the cells; `report --csv` writes the sweep's tables; two shards merged and a study extended by
// one more value give the same analysis as one process that trained the whole grid at once.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

std::string sweepStudy(const std::string& rates) {
  return R"({"version": 1, "name": "lr-sweep",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "mlp", "epochs": 1, "batch_size": 50, "chaos_floor": false, "serve": false,
  "backends": ["cpu-fp32", "pure-bf16"], "seeds": 3, "threads": 1,
  "sweep": {"lr": )" +
         rates + "}}";
}

nlohmann::json sweepJson(const std::string& db) {
  const CliResult stats = runCli({"stats", db, "--sweep", "--json"});
  EXPECT_EQ(stats.exitCode, 0) << stats.err;
  return nlohmann::json::parse(stats.out);
}

// Before training, `run --estimate` says the grid's size and its time and writes nothing.
TEST(SweepCli, RunEstimateSaysTheGridAndItsTimeAndTrainsNothing) {
  const TempFolder dir("sweep-estimate");
  const std::string study = dir.write("sweep.json", sweepStudy("[0.01, 0.1, 0.5]"));
  const CliResult run = runCli({"run", study, "--estimate"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("lr-sweep: 18 runs (3 cells x 2 backends x 3 seeds)\n"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("18 runs (3 cells x 2 backends x 3 seeds); about "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(" with 1 run at once (training, evaluation; 2 steps timed per backend "
                         "and batch size)"),
            std::string::npos)
      << run.out;
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.db")));
  const CliResult noDb = runCli({"run", study});
  EXPECT_EQ(noDb.exitCode, 2);
  EXPECT_NE(noDb.err.find("--db is required"), std::string::npos) << noDb.err;
}

TEST(SweepCli, RunTrainsEveryCellAndStatsSweepPrintsTheAnovaWithTheInteraction) {
  const TempFolder dir("sweep-run");
  const std::string study = dir.write("sweep.json", sweepStudy("[0.01, 0.5]"));
  const CliResult run = runCli({"run", study, "--db", dir.file("s.db")});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("pure-bf16 lr=0.5"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("interaction p = "), std::string::npos) << run.out;
  const nlohmann::json j = sweepJson(dir.file("s.db"));
  EXPECT_EQ(j["metric"], "accuracy");
  EXPECT_EQ(j["a"], "pure-bf16");
  EXPECT_EQ(j["b"], "cpu-fp32");
  ASSERT_EQ(j["cells"].size(), 4u);
  for (const auto& cell : j["cells"]) EXPECT_EQ(cell["finished"], 3);
  ASSERT_TRUE(j["anova"].is_object());
  EXPECT_EQ(j["anova"]["sums_of_squares"], "type II");
  ASSERT_EQ(j["anova"]["rows"].size(), 4u);
  EXPECT_EQ(j["anova"]["rows"][2]["effect"], "lr:backend");
  EXPECT_EQ(j["anova"]["rows"][3]["df"], 8.0);  // 12 runs - 4 cells
  EXPECT_EQ(j["simple_effects"].size(), 2u);
  EXPECT_EQ(j["lr_ranges"].size(), 2u);
  const CliResult report = runCli({"report", dir.file("s.db"), "--csv", dir.file("r.csv")});
  ASSERT_EQ(report.exitCode, 0) << report.err;
  const std::string anova = readAll(dir.file("r-sweep-anova.csv"));
  EXPECT_EQ(anova.rfind("metric,sums_of_squares,effect,sum_sq,df,mean_sq,F,p\r\n", 0), 0u);
  EXPECT_NE(anova.find("accuracy,II,lr:backend,"), std::string::npos) << anova;
  EXPECT_NE(readAll(dir.file("r-sweep-cells.csv")).find("pure-bf16,lr=0.5,0.5,3,3,"),
            std::string::npos);
  const CliResult plain = runCli({"stats", dir.file("s.db")});
  EXPECT_EQ(plain.exitCode, 1);
  EXPECT_NE(plain.err.find("(or --sweep for a sweep, --sequential for a sequential study)"),
            std::string::npos)
      << plain.err;
}

TEST(SweepCli, ShardsMergedAndAnExtendedSweepGiveTheAnalysisOfOneWholeRun) {
  const TempFolder dir("sweep-shards");
  const std::string whole = dir.write("whole.json", sweepStudy("[0.01, 0.5]"));
  ASSERT_EQ(runCli({"run", whole, "--db", dir.file("whole.db")}).exitCode, 0);
  for (const char* k : {"1", "2"})
    ASSERT_EQ(runCli({"run", whole, "--shard", std::string(k) + "/2", "--db",
                      dir.file(std::string("part-") + k + ".db")})
                  .exitCode,
              0);
  const CliResult merged = runCli(
      {"merge", dir.file("part-1.db"), dir.file("part-2.db"), "--db", dir.file("merged.db")});
  ASSERT_EQ(merged.exitCode, 0) << merged.err;
  const nlohmann::json expected = sweepJson(dir.file("whole.db"));
  EXPECT_EQ(sweepJson(dir.file("merged.db")), expected);

  const std::string first = dir.write("first.json", sweepStudy("[0.01]"));
  ASSERT_EQ(runCli({"run", first, "--db", dir.file("grown.db")}).exitCode, 0);
  const CliResult extended = runCli({"run", whole, "--db", dir.file("grown.db"), "--resume"});
  ASSERT_EQ(extended.exitCode, 0) << extended.err;
  EXPECT_EQ(sweepJson(dir.file("grown.db")), expected);
}

}  // namespace
}  // namespace paritylab::cli::testing
