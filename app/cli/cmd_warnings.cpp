// `paritylab-cli warnings DB [--spike-factor K] [--json]`: the early warnings each run stored per
// sampled step, one line per run: the gradient norm (median and peak), the largest update-to-
// weight ratio and its layer, the largest attention logit and output-logit norm, and the loss
// spikes (a sampled loss above K times the running median before it; K from the study's
// "warnings" unless given). What they mean: docs/early-warnings.md.

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/input/json_input.h"
#include "core/study/analysis/early_warnings.h"
#include "core/study/store/results_store.h"

namespace paritylab::cli {
namespace warnings_command {

struct WarningsArgs {
  std::string db;
  std::optional<double> spikeFactor;  // unset: the study's
  bool json = false;
};

nlohmann::json peakJson(const study::SignalPeak& p, bool withLayer = false) {
  if (std::isnan(p.value)) return nullptr;
  nlohmann::json j = {{"value", input::jsonNumber(p.value)}, {"step", p.step}};
  if (withLayer) j["layer"] = p.layer;
  return j;
}

void printJson(const study::EarlyWarnings& w) {
  using nlohmann::json;
  json runs = json::array();
  for (const study::RunWarnings& r : w.runs) {
    json spikes = json::array();
    for (const study::LossSpike& s : r.spikes)
      spikes.push_back({{"step", s.step},
                        {"epoch", s.epoch},
                        {"loss", input::jsonNumber(s.loss)},
                        {"running_median", input::jsonNumber(s.runningMedian)}});
    runs.push_back({{"run", r.runId},
                    {"backend", r.backend},
                    {"seed", r.seed},
                    {"status", std::string(toString(r.status))},
                    {"measured_steps", r.measuredSteps},
                    {"grad_norm_median", input::jsonNumber(r.medianGradNorm)},
                    {"grad_norm_peak", peakJson(r.gradNorm)},
                    {"update_ratio_median", input::jsonNumber(r.medianUpdateRatio)},
                    {"update_ratio_peak", peakJson(r.updateRatio, true)},
                    {"attention_logit_peak", peakJson(r.attentionLogit)},
                    {"output_logit_norm_peak", peakJson(r.outputLogitNorm)},
                    {"loss_spikes", spikes}});
  }
  std::cout << json{{"spike_factor", w.spikeFactor}, {"runs", runs}, {"notes", w.notes}}.dump(2)
            << "\n";
}

std::string shown(double v) {
  if (std::isnan(v)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string shownPeak(const study::SignalPeak& p) {
  if (std::isnan(p.value)) return "-";
  return shown(p.value) + " @" + std::to_string(p.step);
}

void runWarnings(const WarningsArgs& a) {
  study::EarlyWarnings w;
  try {
    const auto store = study::ResultsStore::openReadOnly(a.db);
    const double factor = a.spikeFactor ? *a.spikeFactor : store->loadStudySpec().lossSpikeFactor;
    w = study::analyseEarlyWarnings(*store, factor);
  } catch (const std::exception& e) {
    throw CommandError(e.what());
  }
  if (a.json) return printJson(w);
  if (w.runs.empty()) {
    std::printf("%s holds no sampled steps of an emulated run.\n", a.db.c_str());
    return;
  }
  std::printf(
      "Early warnings per run (emulated; value @ step of the peak over the sampled steps). "
      "Loss spike: a sampled loss above %g x the median of the %d sampled before it.\n",
      w.spikeFactor, study::kSpikeWindow);
  int width = 7;
  for (const study::RunWarnings& r : w.runs) width = std::max(width, int(r.backend.size()));
  std::printf("%-*s %6s %10s %14s %10s %14s %14s %14s %-16s %s\n", width, "backend", "seed",
              "grad med", "grad peak", "upd med", "update peak", "attn logit", "logit norm",
              "spikes", "update peak's layer");
  for (const study::RunWarnings& r : w.runs) {
    std::string spikes = std::to_string(r.spikes.size());
    if (!r.spikes.empty()) spikes += " (first @" + std::to_string(r.spikes.front().step) + ")";
    std::printf("%-*s %6llu %10s %14s %10s %14s %14s %14s %-16s %s\n", width, r.backend.c_str(),
                static_cast<unsigned long long>(r.seed), shown(r.medianGradNorm).c_str(),
                shownPeak(r.gradNorm).c_str(), shown(r.medianUpdateRatio).c_str(),
                shownPeak(r.updateRatio).c_str(), shownPeak(r.attentionLogit).c_str(),
                shownPeak(r.outputLogitNorm).c_str(), spikes.c_str(), r.updateRatio.layer.c_str());
  }
  for (const std::string& note : w.notes) std::printf("note: %s\n", note.c_str());
}

const CommandRegistration reg{
    "warnings", 77, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "warnings",
          "The early warnings each run stored per sampled step: gradient norm, update-to-weight "
          "ratios, attention and output logits, loss spikes");
      auto a = std::make_shared<WarningsArgs>();
      cmd->add_option("db", a->db, "Results database")->required();
      addRealOption(cmd, "--spike-factor", a->spikeFactor, {1, 1e6, true},
                    "A loss spike: a sampled loss above K x the running median (default: the "
                    "study's warnings.loss_spike_factor, 3)");
      cmd->add_flag("--json", a->json, "Print a JSON object");
      cmd->callback([a] { runWarnings(*a); });
    }};

}  // namespace warnings_command
}  // namespace paritylab::cli
