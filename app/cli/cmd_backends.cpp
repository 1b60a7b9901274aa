// `paritylab-cli backends [NAME] [--json]`: the emulated backend presets and what hardware
// behaviour each one emulates; with a NAME, that preset's full policy (the JSON a study or
// `--backend FILE.json` takes, to copy and adjust).

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"

namespace paritylab::cli {
namespace {

struct BackendsArgs {
  std::string name;
  bool json = false;
};

void listBackends(const BackendsArgs& a) {
  if (!a.name.empty()) {
    std::cout << backends::policyToJson(loadBackendArgument(a.name)).dump(2) << "\n";
    return;
  }
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& p : backends::presetPolicies())
      list.push_back({{"name", p.name}, {"description", p.description}});
    std::cout << list.dump(2) << "\n";
    return;
  }
  std::printf("Emulated backends (rounding as the hardware does, computed on this CPU):\n\n");
  for (const auto& p : backends::presetPolicies())
    std::printf("  %-13s %s\n", p.name.c_str(), p.description.c_str());
  std::printf(
      "\n`paritylab-cli backends NAME` prints a preset's full policy as JSON; adjust it and pass\n"
      "the file as --backend FILE.json, or use it in a study's \"backends\" list.\n");
}

const CommandRegistration reg{
    "backends", 35, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "backends", "List the emulated backend presets, or print one preset's full policy");
      auto a = std::make_shared<BackendsArgs>();
      cmd->add_option("name", a->name, "A preset (or a policy .json file) to print in full");
      cmd->add_flag("--json", a->json, "Print the list as JSON (name, description)");
      cmd->callback([a] { listBackends(*a); });
    }};

}  // namespace
}  // namespace paritylab::cli
