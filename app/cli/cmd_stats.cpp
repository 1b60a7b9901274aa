// `paritylab-cli stats DB_OR_CSV --a NAME --b NAME [--metric M] [--test ...] [--alpha] [--margin]
// [--tail] [--power] [--json]`: compares two backends' final values of the metric (a database's
// default: accuracy, or a language model's validation loss), says what the study could detect
// (minimum detectable difference at --power) and the runs needed for the margin.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "app/cli/stats_sequential.h"
#include "app/cli/stats_sweep.h"
#include "core/input/input_limits.h"
#include "core/input/text_file.h"
#include "core/nn/training_choices.h"
#include "core/stats/hodges_lehmann.h"
#include "core/stats/statistics.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/files/results_import.h"

namespace paritylab::cli {
namespace stats_command {

struct StatsArgs {
  std::string input, a, b, test = "welch", tail = "two-sided", metric;
  double alpha = 0.05;
  double power = 0.8;  // for the minimum detectable difference and the runs needed for the margin
  std::optional<double> margin;
  bool json = false;
  bool sweep = false, sequential = false;
  int sumsOfSquares = 2;
  std::optional<double> lrDistance;
};

bool isSqlite(const std::string& path) {
  input::requireRegularFile(path, "results database or runs CSV");
  std::ifstream in(path, std::ios::binary);
  char magic[16] = {};
  in.read(magic, 16);
  return in && std::string(magic, 15) == "SQLite format 3";
}

struct Groups {
  std::map<std::string, std::vector<double>> values;  // per backend, in the metric's units
  study::ComparedMetric metric = study::ComparedMetric::Accuracy;
};

// A database's runs on `metric` (its study's default when empty); a runs CSV's final accuracies.
Groups loadGroups(const std::string& path, const std::string& metric) {
  Groups groups;
  if (isSqlite(path)) {
    auto store = study::ResultsStore::openReadOnly(path);
    groups.metric =
        metric.empty() ? study::defaultComparedMetric(*store) : study::comparedMetricNamed(metric);
    for (auto& [name, v] : study::finalMetricByBackend(*store, groups.metric))
      groups.values[name] = v;
    return groups;
  }
  if (!metric.empty() && metric != "accuracy")
    throw std::invalid_argument("--metric " + metric + ": " + path +
                                " is a runs CSV, which holds final accuracies only");
  study::CsvImportOptions o;
  o.epochColumn = "";  // runs CSV: one row per run
  o.accuracyColumn = "final_accuracy";
  for (auto& r : study::readGenericCsv(path, o))
    if (!std::isnan(r.run.finalAccuracy))
      groups.values[r.run.backend].push_back(r.run.finalAccuracy);
  return groups;
}

nlohmann::json num(double v, bool) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// What the design could detect and the runs needed for the margin: fraction units, null
// when undefined (zero variance, fewer than 2 runs) or, for runs_needed_for_margin, without a
// margin or when no feasible number of runs reaches the power.
void addPlanning(nlohmann::json& j, const stats::Comparison& c, const char* assumes) {
  j["power"] = c.detectable ? nlohmann::json(c.detectable->power) : nlohmann::json();
  j["min_detectable_diff"] =
      c.detectable ? nlohmann::json(c.detectable->difference) : nlohmann::json();
  j["min_detectable_diff_assumes"] =
      c.detectable ? nlohmann::json(std::string(assumes) + " (" +
                                    stats::detectableDesignNote(c.detectable->design) + ")")
                   : nlohmann::json();
  j["runs_needed_for_margin"] = c.runs_needed && c.runs_needed->reachable
                                    ? nlohmann::json(c.runs_needed->n_per_group)
                                    : nlohmann::json();
}

void printPlanning(const stats::Comparison& c, const char* assumes, const stats::MetricWords& w) {
  if (c.detectable) {
    std::printf("  detectable with %g%% power: a difference of %s or more (%s, %s)\n",
                100 * c.detectable->power, w.difference(c.detectable->difference).c_str(), assumes,
                stats::detectableDesignNote(c.detectable->design));
  }
  if (c.runs_needed && c.tost) {
    const double margin = w.scale * c.tost->margin;
    const std::string unit =
        w.unit.empty() ? "" : " " + (std::fabs(margin - 1.0) < 1e-9 ? w.unitOne : w.unit);
    if (c.runs_needed->reachable) {
      std::printf(
          "  runs per backend to show equivalence within +-%g%s: %zu (%g%% power, TOST, no "
          "true difference)\n",
          margin, unit.c_str(), c.runs_needed->n_per_group, 100 * c.runs_needed->target_power);
    } else {
      std::printf("  no feasible number of runs shows equivalence within +-%g%s\n", margin,
                  unit.c_str());
    }
  }
}

void runStats(const StatsArgs& a) {
  if (a.sequential) {
    if (!isSqlite(a.input))
      throw CommandError("--sequential: " + a.input +
                         " is a runs CSV; a sequential study is a study's database");
    return printSequentialStats(a.input, a.json);
  }
  if (a.sweep) {
    if (!isSqlite(a.input))
      throw CommandError("--sweep: " + a.input + " is a runs CSV; a sweep is a study's database");
    return printSweepStats(
        {a.input, a.metric, a.a, a.b, a.sumsOfSquares, a.alpha, a.lrDistance, a.json});
  }
  if (a.a.empty() || a.b.empty())
    throw CommandError(
        "name the two backends compared, --a and --b (or --sweep for a sweep, --sequential for "
        "a sequential study)");
  if (a.a == a.b)
    throw CommandError("--a and --b are both '" + a.a +
                       "': a backend compared with itself says nothing; name two backends");
  Groups loaded;
  try {
    loaded = loadGroups(a.input, a.metric);
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  const std::map<std::string, std::vector<double>>& groups = loaded.values;
  const stats::MetricWords w = study::metricWords(loaded.metric);
  const std::string metricName(study::comparedMetricName(loaded.metric));
  auto get = [&](const std::string& n) -> const std::vector<double>& {
    auto it = groups.find(n);
    if (it != groups.end()) return it->second;
    std::string list;
    for (auto& [k, v] : groups) list += (list.empty() ? "" : ", ") + k;
    throw CommandError(a.input + ": no runs of backend '" + n + "' (backends: " + list + ")");
  };
  const auto& xa = get(a.a);
  const auto& xb = get(a.b);
  stats::Tail tail = a.tail == "less"      ? stats::Tail::Less
                     : a.tail == "greater" ? stats::Tail::Greater
                                           : stats::Tail::TwoSided;
  nlohmann::json j;
  try {
    stats::CompareOptions o;
    o.kind = a.test == "student" ? stats::TTestKind::Student : stats::TTestKind::Welch;
    o.tail = tail;
    o.alpha = a.alpha;
    o.margin = a.margin;
    o.target_power = a.power;
    o.words = w;
    if (a.test == "mann-whitney") {
      auto r = stats::mannWhitneyU(xa, xb, tail);
      const auto hl = stats::hodgesLehmann(xa, xb, tail, a.alpha);
      // No closed-form power for the rank test: what is detectable is the Welch t-test's, said so.
      const auto c = stats::compareSamples(a.a, xa, a.b, xb, o);
      j = {{"test", "mann-whitney"},
           {"metric", metricName},
           {"lower_is_better", w.lowerIsBetter},
           {"n_a", xa.size()},
           {"n_b", xb.size()},
           {"u", r.u},
           {"p_value", num(r.p_value, true)},
           {"hodges_lehmann_shift", hl.estimate},
           {"hodges_lehmann_ci_low", num(hl.ci_low, true)},
           {"hodges_lehmann_ci_high", num(hl.ci_high, true)}};
      addPlanning(j, c, "Welch t-test");
      if (a.json) return void(std::cout << j.dump(2) << "\n");
      std::printf("Mann-Whitney U (%s): %s n=%zu vs %s n=%zu\nU = %.6g, p = %.6g\n",
                  stats::tailName(tail), a.a.c_str(), xa.size(), a.b.c_str(), xb.size(), r.u,
                  r.p_value);
      std::printf("  Hodges-Lehmann shift %s, %g%% CI [%s, %s] (%s)\n",
                  w.difference(hl.estimate).c_str(), 100 * (1 - a.alpha),
                  w.amount(hl.ci_low).c_str(), w.amount(hl.ci_high).c_str(),
                  hl.exact ? "exact" : "normal approximation");
      printPlanning(c, "Welch t-test", w);
      std::printf("%s\n", r.p_value < a.alpha ? "The distributions differ significantly."
                                              : "No significant difference.");
      return;
    }
    auto c = stats::compareSamples(a.a, xa, a.b, xb, o);
    if (!c.enough_data) throw CommandError(c.verdict);
    const auto& t = *c.t_test;
    j = {{"test", a.test},
         {"metric", metricName},
         {"lower_is_better", w.lowerIsBetter},
         {"n_a", t.n_a},
         {"n_b", t.n_b},
         {"mean_a", t.mean_a},
         {"mean_b", t.mean_b},
         {"sd_a", t.sd_a},
         {"sd_b", t.sd_b},
         {"mean_diff", t.mean_diff},
         {"t", num(t.t, true)},
         {"df", num(t.df, true)},
         {"p_value", num(t.p_value, true)},
         {"ci_low", num(t.ci_low, true)},
         {"ci_high", num(t.ci_high, true)},
         {"hedges_g", num(t.hedges_g, true)},
         {"alpha", a.alpha},
         {"tail", stats::tailName(tail)},
         {"verdict", c.verdict}};
    if (c.tost) {
      j["tost_p_value"] = num(c.tost->p_value, true);
      j["equivalent"] = c.tost->equivalent;
      j["margin"] = *a.margin;
    }
    addPlanning(j, c, a.test == "student" ? "Student t-test" : "Welch t-test");
    if (a.json) return void(std::cout << j.dump(2) << "\n");
    std::printf("%s t-test (%s) on %s%s, alpha %g\n", stats::kindName(o.kind),
                stats::tailName(tail), w.name.c_str(), w.lowerIsBetter ? " (lower is better)" : "",
                a.alpha);
    // Two more digits than the verdict: the table is for reading off values.
    stats::MetricWords fine = w;
    fine.decimals += 2;
    std::printf("  %-14s n=%-3zu mean %s  sd %s\n", a.a.c_str(), t.n_a,
                fine.value(t.mean_a).c_str(), fine.amount(t.sd_a).c_str());
    std::printf("  %-14s n=%-3zu mean %s  sd %s\n", a.b.c_str(), t.n_b,
                fine.value(t.mean_b).c_str(), fine.amount(t.sd_b).c_str());
    std::printf("  difference %s, CI [%s, %s]\n", fine.difference(t.mean_diff).c_str(),
                fine.amount(t.ci_low).c_str(), fine.amount(t.ci_high).c_str());
    std::printf("  t = %.4f, df = %.4f, p = %.5f, Hedges g = %.4f\n", t.t, t.df, t.p_value,
                t.hedges_g);
    if (c.tost)
      std::printf("  TOST within +-%g: p = %.5f (%s)\n", *a.margin, c.tost->p_value,
                  c.tost->equivalent ? "equivalent" : "not shown equivalent");
    printPlanning(c, a.test == "student" ? "Student t-test" : "Welch t-test", w);
    std::printf("%s\n", c.verdict.c_str());
  } catch (const std::invalid_argument& ex) {
    throw CommandError(ex.what());
  }
}

const CommandRegistration reg{
    "stats", 70, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "stats", "Test whether two backends' final accuracies (or losses) differ");
      auto a = std::make_shared<StatsArgs>();
      cmd->add_option("input", a->input, "Results database or runs CSV (backend, final_accuracy)")
          ->required();
      cmd->add_option("--a", a->a, "First backend (with --sweep: default the sweep's second)");
      cmd->add_option("--b", a->b,
                      "Second backend, the reference (with --sweep: default the sweep's first)");
      cmd->add_flag("--sweep", a->sweep,
                    "A sweep's analysis: the metric per backend and cell, the two-way ANOVA "
                    "with the backend x sweep interaction, the backend difference per cell");
      cmd->add_flag("--sequential", a->sequential,
                    "A sequential study's looks: each look's boundaries and p-values, where it "
                    "stopped and why");
      cmd->add_option("--type", a->sumsOfSquares, "--sweep: sums of squares, type 2 or 3")
          ->check(CLI::IsMember({2, 3}));
      addRealOption(cmd, "--lr-distance", a->lrDistance, {0, input::kMaxHyperparameter, true},
                    "--sweep over lr: a rate is usable within this distance of the backend's "
                    "best (metric units; default 0.01 accuracy, 0.1 nats, perplexity 1)");
      cmd->add_option("--metric", a->metric,
                      nn::joinedNames(study::kComparedMetricNames, " | ") +
                          " (default: accuracy; val_loss for a language model's study)")
          ->check(CLI::IsMember(std::vector<std::string>(study::kComparedMetricNames.begin(),
                                                         study::kComparedMetricNames.end())));
      cmd->add_option("--test", a->test, "welch | student | mann-whitney")
          ->check(CLI::IsMember({"welch", "student", "mann-whitney"}));
      addRealOption(cmd, "--alpha", a->alpha, {0, 1, true, true}, "Significance level");
      addRealOption(cmd, "--margin", a->margin, {0, input::kMaxHyperparameter, true},
                    "Equivalence margin in the metric's units (accuracy fraction: 0.005 = 0.5 "
                    "pt; a loss in nats)");
      addRealOption(cmd, "--power", a->power, {0, 1, true, true},
                    "Power for the minimum detectable difference and the runs needed for the "
                    "margin");
      cmd->add_option("--tail", a->tail, "two-sided | less | greater")
          ->check(CLI::IsMember({"two-sided", "less", "greater"}));
      cmd->add_flag("--json", a->json, "Print a JSON object");
      cmd->callback([a] { runStats(*a); });
    }};

}  // namespace stats_command
}  // namespace paritylab::cli
