// A study spec with "lockstep" through the built CLI: `run` stores the comparisons,
// `lockstep --from DB` prints the stored one of each mode as the live command prints its own
// (--json with the first crossing), and says what a database holds when the mode asked for is
// not there; the fp64 reference, live and in a study, of the mlp and of a convolutional model.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::runCli;
using testing::TempFolder;

TEST(LockstepStudyCli, AStudysStoredComparisonPrintsLikeTheLiveOne) {
  const TempFolder dir("lockstep-study");
  const std::string spec = dir.write("l.json", R"({"version": 1, "name": "l",
    "dataset": {"source": "synthetic", "train_size": 64, "test_size": 32}, "model": "mlp",
    "epochs": 1, "batch_size": 16, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 1,
    "chaos_floor": false, "serve": false,
    "lockstep": {"backend": "tpu-bf16", "steps": 4, "modes": ["free"]}})");
  const std::string db = dir.file("l.db");
  const auto run = runCli({"run", spec, "--db", db});
  ASSERT_EQ(run.exitCode, 0) << run.err;

  const auto stored = runCli({"lockstep", "--from", db, "--mode", "free", "--json"});
  ASSERT_EQ(stored.exitCode, 0) << stored.err;
  const nlohmann::json j = nlohmann::json::parse(stored.out);
  EXPECT_NE(run.out.find("Lockstep: tpu-bf16 against cpu-fp32, 4 steps, free, before the runs"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(j["backend"], "tpu-bf16");
  EXPECT_EQ(j["reference"], "cpu-fp32");
  EXPECT_EQ(j["mode"], "free");
  EXPECT_EQ(j["steps"].size(), 4u);
  EXPECT_TRUE(j["summary"].get<std::string>().starts_with("Free-running lockstep of tpu-bf16"))
      << j["summary"];

  // The same training, live: the same figures.
  const auto live = runCli(
      {"lockstep", spec, "--backend", "tpu-bf16", "--steps", "4", "--mode", "free", "--json"});
  ASSERT_EQ(live.exitCode, 0) << live.err;
  const nlohmann::json l = nlohmann::json::parse(live.out);
  EXPECT_EQ(l["steps"], j["steps"]);
  EXPECT_EQ(l["first_crossing"], j["first_crossing"]);

  const auto table = runCli({"lockstep", "--from", db, "--mode", "free"});
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_NE(table.out.find("tpu-bf16 against cpu-fp32 as stored in " + db + " (seed 0, free)"),
            std::string::npos)
      << table.out;

  const auto missing = runCli({"lockstep", "--from", db});  // resync was not asked for
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("holds no resync lockstep comparison (it holds: free)"),
            std::string::npos)
      << missing.err;
}

TEST(LockstepStudyCli, TheFp64ReferenceRunsLiveAndInAStudyForTheMlpAndTheSmallCnn) {
  const TempFolder dir("lockstep-fp64");
  const std::string spec = dir.write("l.json", R"({"version": 1, "name": "l",
    "dataset": {"source": "synthetic", "train_size": 64, "test_size": 32}, "model": "mlp",
    "epochs": 1, "batch_size": 16, "backends": ["cpu-fp32"], "seeds": 1,
    "chaos_floor": false, "serve": false,
    "lockstep": {"backend": "cpu-fp32", "reference": "fp64", "steps": 3}})");
  const std::string db = dir.file("l.db");
  const auto run = runCli({"run", spec, "--db", db});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto stored = runCli({"lockstep", "--from", db, "--json"});
  ASSERT_EQ(stored.exitCode, 0) << stored.err;
  const nlohmann::json j = nlohmann::json::parse(stored.out);
  EXPECT_EQ(j["reference"], "fp64");
  ASSERT_EQ(j["steps"].size(), 3u);
  const auto live = runCli(
      {"lockstep", spec, "--backend", "cpu-fp32", "--reference", "fp64", "--steps", "3", "--json"});
  ASSERT_EQ(live.exitCode, 0) << live.err;
  EXPECT_EQ(nlohmann::json::parse(live.out)["steps"], j["steps"]);

  const std::string cnn = dir.write("c.json", R"({"version": 1, "name": "c",
    "dataset": {"source": "synthetic", "train_size": 64, "test_size": 32}, "model": "small-cnn",
    "epochs": 1, "batch_size": 16, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 1,
    "chaos_floor": false, "serve": false,
    "lockstep": {"backend": "tpu-bf16", "reference": "fp64", "steps": 2}})");
  const std::string cnnDb = dir.file("c.db");
  const auto cnnRun = runCli({"run", cnn, "--db", cnnDb});
  ASSERT_EQ(cnnRun.exitCode, 0) << cnnRun.err;
  const auto cnnStored = runCli({"lockstep", "--from", cnnDb, "--json"});
  ASSERT_EQ(cnnStored.exitCode, 0) << cnnStored.err;
  const nlohmann::json c = nlohmann::json::parse(cnnStored.out);
  EXPECT_EQ(c["reference"], "fp64");
  EXPECT_FALSE(c["steps"].empty());
}

}  // namespace
}  // namespace paritylab::cli
