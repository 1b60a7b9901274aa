// `paritylab-cli backends [NAME] [--model MODEL] [--json]`: the emulated backend presets and what
// hardware behaviour each one emulates; with a NAME, that preset's full policy (the JSON a study
// or `--backend FILE.json` takes, to copy and adjust); with a MODEL too, how each layer of that
// model computes its three products under the policy, its overrides resolved.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "core/backends/policy_overrides.h"
#include "core/nn/model.h"
#include "core/nn/site_policies.h"
#include "core/nn/training_choices.h"

namespace paritylab::cli {
namespace backends_command {

struct BackendsArgs {
  std::string name;
  std::string model;
  bool json = false;
};

const char* kindName(backends::LayerKind kind) {
  return kind == backends::LayerKind::Linear ? "linear"
         : kind == backends::LayerKind::Conv ? "conv"
                                             : "attention";
}

// Each product of each layer of the model (default shape) under the policy.
void printLayers(const backends::PrecisionPolicy& policy, const std::string& modelName, bool json) {
  nn::ModelSpec spec;
  spec.name = modelName;
  const std::unique_ptr<nn::Model> model = nn::makeModel(spec);
  const std::vector<backends::LayerPlace> layers = nn::productLayers(*model);
  backends::checkOverridesMatch(policy, layers, modelName);
  using backends::Product;
  const std::pair<Product, const char*> products[] = {{Product::Forward, "forward"},
                                                      {Product::BackwardData, "dgrad"},
                                                      {Product::BackwardWeight, "wgrad"}};
  const auto from = [&](const backends::LayerPlace& layer, Product product) {
    const int i = backends::decidingOverride(policy, layer, product);
    if (i < 0) return std::string("policy");
    const auto& o = policy.overrides[std::size_t(i)];
    return "overrides[" + std::to_string(i) + "]" + (o.preset.empty() ? "" : " " + o.preset);
  };
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const backends::LayerPlace& layer : layers) {
      const backends::ProductPolicy p = backends::productsFor(policy, layer);
      nlohmann::json row = {{"layer", std::string(layer.name)},
                            {"kind", kindName(layer.kind)},
                            {"first", layer.first},
                            {"last", layer.last}};
      for (const auto& [product, name] : products) {
        const backends::GemmPolicy& g = product == Product::Forward        ? p.forward
                                        : product == Product::BackwardData ? p.backwardData
                                                                           : p.backwardWeight;
        row[name] = {{"summary", backends::productSummary(g)}, {"from", from(layer, product)}};
      }
      list.push_back(row);
    }
    std::cout
        << nlohmann::json{{"policy", policy.name}, {"model", modelName}, {"layers", list}}.dump(2)
        << "\n";
    return;
  }
  std::size_t width = 5;
  for (const backends::LayerPlace& layer : layers) width = std::max(width, layer.name.size());
  std::printf(
      "Policy %s on model %s (default shape), product by product: operand A x operand B "
      "-> output (emulated)\n\n",
      policy.name.c_str(), modelName.c_str());
  std::printf("  %-*s  %-9s  %-7s  %-44s  %s\n", int(width), "layer", "kind", "product",
              "computed as", "from");
  for (const backends::LayerPlace& layer : layers) {
    const backends::ProductPolicy p = backends::productsFor(policy, layer);
    for (const auto& [product, name] : products) {
      const backends::GemmPolicy& g = product == Product::Forward        ? p.forward
                                      : product == Product::BackwardData ? p.backwardData
                                                                         : p.backwardWeight;
      const bool firstRow = product == Product::Forward;
      std::string place = firstRow ? std::string(layer.name) : "";
      std::printf("  %-*s  %-9s  %-7s  %-44s  %s\n", int(width), place.c_str(),
                  firstRow ? kindName(layer.kind) : "", name, backends::productSummary(g).c_str(),
                  from(layer, product).c_str());
    }
  }
  std::string first, last;
  for (const backends::LayerPlace& layer : layers) {
    if (layer.first) first = layer.name;
    if (layer.last) last = layer.name;
  }
  std::printf(
      "\nIn \"overrides\", first = %s and last = %s (the first and last layers with "
      "weights).\n",
      first.c_str(), last.c_str());
}

void listBackends(const BackendsArgs& a) {
  if (!a.model.empty()) {
    if (a.name.empty()) throw CommandError("backends --model: name the policy to resolve");
    printLayers(loadBackendArgument(a.name), a.model, a.json);
    return;
  }
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
      cmd->add_option("--model,-m", a->model,
                      "With a NAME: show how each layer of this model computes its products "
                      "under the policy (its overrides resolved)")
          ->check(CLI::IsMember(
              std::vector<std::string>(nn::kModelNames.begin(), nn::kModelNames.end())));
      cmd->add_flag("--json", a->json, "Print the list (or the layers) as JSON");
      cmd->callback([a] { listBackends(*a); });
    }};

}  // namespace backends_command
}  // namespace paritylab::cli
