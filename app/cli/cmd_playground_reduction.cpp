// paritylab-cli playground reduction: the error of a length-K dot product against its exact value
// for each backend's operand rounding, summation order and accumulation format.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "app/cli/playground_arguments.h"
#include "core/input/input_limits.h"
#include "core/playground/playground_export.h"
#include "core/playground/reduction.h"

namespace paritylab::cli {
namespace playground_reduction_command {

constexpr std::int64_t kMaxTrials = 10'000;

struct Options {
  std::string distribution = "uniform", metric = "total", csv;
  std::uint64_t seed = 0;
  std::vector<int> lengths;
  int trials = 8, largeTrials = 2, largeFrom = 1 << 18;
  bool json = false;
};

void printTable(const playground::ReductionExperiment& e, bool total) {
  std::printf(
      "Dot products of %s random vectors (seed %llu), error |computed - exact| / sum |a_i b_i| "
      "against the exact %s; median over trials (%d per length, %d from %d on). fp32 unit "
      "roundoff u = 2^-24 = 5.96e-08. Emulated.\n\n",
      std::string(playground::toString(e.config.distribution)).c_str(),
      static_cast<unsigned long long>(e.config.seed),
      total ? "dot product of the fp32 inputs" : "sum of the rounded products", e.config.trials,
      e.config.largeTrials, e.config.largeFrom);
  std::printf("%-46s", "operands · accumulation order \\ K");
  for (int k : e.config.lengths) std::printf(" %9d", k);
  std::printf("\n");
  for (const auto& c : e.curves) {
    std::printf("%-46s", c.label.c_str());
    for (const auto& p : c.points) {
      const double m = playground::band(total ? p.totalError : p.accumulationError).median;
      std::printf(" %9.2e", m);
    }
    std::printf("\n");
  }
  std::printf("\nBackends by operand rounding:\n");
  std::string last;
  for (const auto& c : e.curves)
    if (c.operands != last && c.accumulation == "fp32") {
      std::printf("  %-20s %s\n", c.operands.c_str(), c.backends.c_str());
      last = c.operands;
    }
}

void run(const Options& o) {
  playground::ReductionConfig config;
  config.distribution = playground::parseDistribution(o.distribution);
  config.seed = o.seed;
  config.lengths = o.lengths;
  config.trials = o.trials;
  config.largeTrials = o.largeTrials;
  config.largeFrom = o.largeFrom;
  const playground::ReductionExperiment e = playground::runReductionExperiment(config);
  if (!o.csv.empty()) writeTextFile(o.csv, playground::reductionCsv(e));
  if (o.json)
    std::cout << playground::reductionJson(e).dump(2) << "\n";
  else if (o.csv != "-")
    printTable(e, o.metric == "total");
}

void setup(CLI::App& root) {
  auto opts = std::make_shared<Options>();
  auto* cmd = playgroundGroup(root).add_subcommand(
      "reduction",
      "Error of a length-K dot product (K = 16 .. 2^20) by operand rounding, summation order "
      "(sequential, pairwise, 8 shards + all-reduce) and accumulation format");
  cmd->add_option("--distribution", opts->distribution, "uniform ([0,1)), normal or wide")
      ->check(CLI::IsMember({"uniform", "normal", "wide"}))
      ->capture_default_str();
  addIntegerOption(cmd, "--seed", opts->seed, {0, input::kMaxSeedValue},
                   "Seed of the random vectors");
  cmd->add_option("--lengths", opts->lengths,
                  "Lengths K (comma-separated; default 16, 64, ..., 2^20)")
      ->delimiter(',');
  // Trials are bounded: 1e8 trials of 2^20-long products would run for days.
  addIntegerOption(cmd, "--trials", opts->trials, {1, kMaxTrials}, "Trials per length");
  addIntegerOption(cmd, "--large-trials", opts->largeTrials, {1, kMaxTrials},
                   "Trials per length >= --large-from");
  addIntegerOption(cmd, "--large-from", opts->largeFrom, {1, 1 << 24},
                   "Lengths from here use --large-trials");
  cmd->add_option("--metric", opts->metric,
                  "Table: total (against the exact dot product of the fp32 inputs) or "
                  "accumulation (against the exact sum of the rounded products)")
      ->check(CLI::IsMember({"total", "accumulation"}))
      ->capture_default_str();
  cmd->add_flag("--json", opts->json, "Every trial's errors as JSON");
  cmd->add_option("--csv", opts->csv, "Write every trial's errors as CSV ('-': stdout)");
  cmd->callback([opts] {
    try {
      run(*opts);
    } catch (const std::invalid_argument& e) {
      throw CommandError(e.what());
    }
  });
}

const CommandRegistration reg{"playground reduction", 47, setup};

}  // namespace playground_reduction_command
}  // namespace paritylab::cli
