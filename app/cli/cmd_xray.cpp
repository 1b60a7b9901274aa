// `paritylab-cli xray DB [--run ID | --backend B] [--site S] [--json]`: the X-ray of
// a study's matrix products: per backend, site and operand the worst underflow / overflow / SQNR
// over the sampled steps and when, then the findings in plain words.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/study/analysis/xray_findings.h"

namespace paritylab::cli {
namespace xray_command {

struct XrayArgs {
  std::string db;
  study::XrayFilter filter;
  bool json = false;
};

std::string sqnrText(double db) {
  if (std::isinf(db)) return "exact";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", db);
  return buffer;
}

std::string whenText(const study::XrayWorst& w) {
  return "e" + std::to_string(w.epoch) + "/s" + std::to_string(w.step);
}

nlohmann::json worstJson(const study::XrayWorst& w) {
  nlohmann::json j = {{"run_id", w.runId}, {"step", w.step}, {"epoch", w.epoch}};
  j["value"] = std::isfinite(w.value) ? nlohmann::json(w.value) : nlohmann::json(nullptr);
  return j;
}

void runXray(const XrayArgs& a) {
  std::unique_ptr<study::ResultsStore> store;
  std::vector<study::XraySiteSummary> sites;
  try {
    store = study::ResultsStore::openReadOnly(a.db);  // a reader never changes the file
    sites = study::summariseXray(*store, a.filter);
  } catch (const std::exception& ex) {
    throw CommandError(ex.what());
  }
  if (sites.empty()) {
    std::string what = a.db + ": no X-ray records";
    if (a.filter.runId) what += " for run " + std::to_string(a.filter.runId);
    if (!a.filter.backend.empty()) what += " for backend '" + a.filter.backend + "'";
    if (!a.filter.site.empty()) what += " at site '" + a.filter.site + "'";
    const std::vector<study::XraySiteSummary> all = study::summariseXray(*store, {});
    if (all.empty())
      throw CommandError(what + " (run the study with \"xray\" in its spec or `run --xray`)");
    std::string backends, sites;
    for (const auto& s : all) {
      if (backends.find("'" + s.backend + "'") == std::string::npos)
        backends += (backends.empty() ? "'" : ", '") + s.backend + "'";
      if (sites.find("'" + s.site + "'") == std::string::npos)
        sites += (sites.empty() ? "'" : ", '") + s.site + "'";
    }
    throw CommandError(what + "; it has backends " + backends + " and sites " + sites);
  }
  const std::vector<std::string> findings = study::xrayFindings(sites);
  if (a.json) {
    nlohmann::json j = {{"database", a.db}, {"findings", findings}};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& s : sites)
      rows.push_back({{"backend", s.backend},
                      {"site", s.site},
                      {"operand", s.operand},
                      {"format", s.format},
                      {"samples", s.samples},
                      {"amax", s.amax},
                      {"mean_underflow", s.meanUnderflow},
                      {"first_underflow_epoch", s.firstUnderflowEpoch},
                      {"worst_underflow", worstJson(s.underflow)},
                      {"worst_overflow", worstJson(s.overflow)},
                      {"worst_sqnr_db", worstJson(s.sqnr)}});
    j["sites"] = rows;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::printf(
      "X-ray of %s: worst over the sampled steps (e<epoch>/s<step>); fractions of the\n"
      "nonzero values; SQNR of the rounded operand against its fp32 values\n\n",
      a.db.c_str());
  // The site and operand columns as wide as their longest names ("h3.mlp.proj.wgrad", "position
  // loss"), at least 14 and 7.
  int siteWidth = 14, operandWidth = 7;
  for (const auto& s : sites) {
    siteWidth = std::max(siteWidth, int(s.site.size()));
    operandWidth = std::max(operandWidth, int(s.operand.size()));
  }
  std::printf("%-16s %-*s %-*s %-7s %5s %9s %-10s %9s %-10s %8s %-10s\n", "backend", siteWidth,
              "site", operandWidth, "operand", "format", "n", "underflow", "when", "overflow",
              "when", "SQNR dB", "when");
  for (const auto& s : sites)
    std::printf("%-16s %-*s %-*s %-7s %5d %9s %-10s %9s %-10s %8s %-10s\n", s.backend.c_str(),
                siteWidth, s.site.c_str(), operandWidth, s.operand.c_str(), s.format.c_str(),
                s.samples, study::percentText(s.underflow.value).c_str(),
                s.underflow.value > 0 ? whenText(s.underflow).c_str() : "",
                study::percentText(s.overflow.value).c_str(),
                s.overflow.value > 0 ? whenText(s.overflow).c_str() : "",
                sqnrText(s.sqnr.value).c_str(),
                std::isinf(s.sqnr.value) ? "" : whenText(s.sqnr).c_str());
  std::printf("\nFindings:\n");
  for (const auto& f : findings) std::printf("- %s\n", f.c_str());
}

const CommandRegistration reg{
    "xray", 75, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "xray", "Where precision bites: underflow, overflow and SQNR of every matrix product");
      auto a = std::make_shared<XrayArgs>();
      cmd->add_option("db", a->db, "Results database of a study run with the X-ray on")->required();
      // Read by the one number parser: CLI11's range check printed DBL_MAX in 300 digits.
      auto* run =
          addIntegerOption(cmd, "--run", a->filter.runId,
                           {1, std::numeric_limits<std::int64_t>::max()}, "Only this run (its id)");
      cmd->add_option("--backend", a->filter.backend, "Only this backend")->excludes(run);
      cmd->add_option("--site", a->filter.site, "Only this site (conv2.wgrad) or layer (conv2)");
      cmd->add_flag("--json", a->json, "JSON output");
      cmd->callback([a] { runXray(*a); });
    }};

}  // namespace xray_command
}  // namespace paritylab::cli
