// `paritylab-cli serve DB [--json]`: train under one backend, serve under another. The train x
// serve matrix of a study: for each pair (trained on, served on) the share of test predictions
// that flip when the runs' models are evaluated under the other backend's arithmetic, beside the
// seed floor (two seeds of the trained backend); the diagonal is batch invariance (one item at a
// time instead of in batches). What the figures mean: docs/serving.md.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "core/input/json_input.h"
#include "core/study/analysis/train_serve.h"
#include "core/study/store/results_store.h"

namespace paritylab::cli {
namespace serve_command {

struct ServeArgs {
  std::string db;
  bool json = false;
};

void printJson(const study::TrainServeMatrix& m) {
  using nlohmann::json;
  json cells = json::array();
  for (const study::ServeCell& c : m.cells)
    cells.push_back({{"trained_by", c.trainedBy},
                     {"served_by", c.servedBy},
                     {"batch_size", c.batchSize},
                     {"runs", c.runs},
                     {"predictions", c.predictions},
                     {"flip_rate", input::jsonNumber(c.flipRate)},
                     {"mean_kl", input::jsonNumber(c.meanKl)},
                     {"mean_abs_log_prob_change", input::jsonNumber(c.meanAbsLogProbChange)},
                     {"accuracy_change", input::jsonNumber(c.accuracyChange)}});
  json floor = json::object();
  for (std::size_t t = 0; t < m.backends.size(); ++t)
    floor[m.backends[t]] = m.seedFloor[t] ? input::jsonNumber(m.seedFloor[t]->mean) : json();
  std::cout << json{{"backends", m.backends}, {"predictions", m.predictions}, {"cells", cells},
                    {"seed_floor", floor},    {"headlines", m.headlines},     {"notes", m.notes}}
                   .dump(2)
            << "\n";
}

std::string percentCell(const study::ServeCell& c) {
  if (c.runs == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%%", 100.0 * c.flipRate);
  return text;
}

void runServe(const ServeArgs& a) {
  study::TrainServeMatrix m;
  try {
    m = study::analyseTrainServe(*study::ResultsStore::openReadOnly(a.db));
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  if (a.json) return printJson(m);
  std::printf(
      "Train under one backend, serve under another (emulated): the share of %s that flip when "
      "a run's model is evaluated under another backend's arithmetic, mean over the runs (rows: "
      "trained on, columns: served on). The diagonal is the same backend one item at a time "
      "instead of in batches (batch invariance); the seed floor is how often two seeds of the "
      "trained backend disagree.\n",
      m.predictions.c_str());
  int width = 14;
  for (const std::string& b : m.backends) width = std::max(width, int(b.size()) + 2);
  std::printf("%-*s", width, "trained \\ served");
  for (const std::string& b : m.backends) std::printf("%*s", width, b.c_str());
  std::printf("%*s\n", width, "seed floor");
  for (std::size_t t = 0; t < m.backends.size(); ++t) {
    std::printf("%-*s", width, m.backends[t].c_str());
    for (std::size_t s = 0; s < m.backends.size(); ++s)
      std::printf("%*s", width, percentCell(m.cell(t, s)).c_str());
    char floor[32] = "-";
    if (m.seedFloor[t] && std::isfinite(m.seedFloor[t]->mean))
      std::snprintf(floor, sizeof floor, "%.3g%%", 100.0 * m.seedFloor[t]->mean);
    std::printf("%*s\n", width, floor);
  }
  for (const std::string& line : m.headlines) std::printf("%s\n", line.c_str());
  for (const std::string& note : m.notes) std::printf("note: %s\n", note.c_str());
}

const CommandRegistration reg{
    "serve", 74, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "serve",
          "Train under one backend, serve under another: how many predictions flip, against "
          "the seed floor, and batch invariance");
      auto a = std::make_shared<ServeArgs>();
      cmd->add_option("db", a->db, "Results database")->required();
      cmd->add_flag("--json", a->json, "Print a JSON object");
      cmd->callback([a] { runServe(*a); });
    }};

}  // namespace serve_command
}  // namespace paritylab::cli
