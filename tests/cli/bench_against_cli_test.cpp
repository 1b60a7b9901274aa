// `bench --against`: two backends timed side by side through the built CLI, what it prints and
// the messages for what it refuses (timings themselves are not asserted).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using json = nlohmann::json;
using testing::runCli;

const std::vector<std::string> kTiny = {
    "bench",    "--model", "mlp",     "--input", "8x8x1",        "--steps", "2",
    "--warmup", "1",       "--batch", "16",      "--train-size", "64"};

std::vector<std::string> tiny(std::vector<std::string> more) {
  std::vector<std::string> args = kTiny;
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST(BenchAgainst, JsonGivesBothBackendsEachRoundsRatioAndTheirMedian) {
  const auto r =
      runCli(tiny({"--backend", "tpu-bf16", "--against", "cpu-fp32", "--rounds", "3", "--json"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["backend"], "tpu-bf16");
  EXPECT_EQ(j["against"]["backend"], "cpu-fp32");
  EXPECT_GT(j["against"]["images_per_second"].get<double>(), 0.0);
  EXPECT_GT(j["against"]["step_ms"].get<double>(), 0.0);
  EXPECT_EQ(j["rounds"], 3);
  EXPECT_EQ(j["steps"], 6);  // timed steps of --backend over the rounds
  ASSERT_EQ(j["ratios"].size(), 3U);
  std::vector<double> ratios = j["ratios"].get<std::vector<double>>();
  std::sort(ratios.begin(), ratios.end());
  EXPECT_EQ(j["ratio_median"].get<double>(), ratios[1]);
}

TEST(BenchAgainst, TextNamesTheRatioAndTheRoundsRange) {
  const auto r = runCli(tiny({"--backend", "gpu-tf32", "--against", "cpu-fp32", "--rounds", "2"}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("mlp under gpu-tf32 against cpu-fp32 (both emulated on this CPU)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("x the speed of cpu-fp32 (median of 2 rounds; rounds "), std::string::npos)
      << r.out;
}

TEST(BenchAgainst, RefusesMoreThanOneThreadAnUnknownBackendAndRoundsAlone) {
  const auto threads = runCli(tiny({"--against", "cpu-fp32", "--threads", "2"}));
  EXPECT_NE(threads.exitCode, 0);
  EXPECT_NE(threads.err.find("--against: the two backends take turns on one thread; pass "
                             "--threads 1 (got 2)"),
            std::string::npos)
      << threads.err;
  const auto unknown = runCli(tiny({"--against", "tpu-bf17"}));
  EXPECT_NE(unknown.exitCode, 0);
  EXPECT_NE(unknown.err.find("unknown backend preset 'tpu-bf17'"), std::string::npos)
      << unknown.err;
  const auto rounds = runCli(tiny({"--rounds", "3"}));
  EXPECT_NE(rounds.exitCode, 0);
  EXPECT_NE(rounds.err.find("--rounds requires --against"), std::string::npos) << rounds.err;
}

}  // namespace
}  // namespace paritylab::cli
