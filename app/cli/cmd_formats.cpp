// `paritylab-cli formats [--json]`: the number formats and their properties.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "core/numerics/float_format.h"

namespace paritylab::cli {
namespace {

using numerics::FloatFormat;

nlohmann::json formatJson(const FloatFormat& f) {
  return {{"name", f.name},
          {"exponent_bits", f.exponentBits},
          {"mantissa_bits", f.mantissaBits},
          {"bias", f.bias},
          {"has_infinity", f.hasInfinity()},
          {"has_subnormals", f.hasSubnormals},
          {"max_finite", f.maxFinite()},
          {"min_normal", f.minNormal()},
          {"min_subnormal", f.minSubnormal()},
          {"epsilon", f.epsilon()}};
}

void printTable() {
  std::printf("%-9s %4s %4s %4s %5s %4s  %-14s %-14s %-14s %-14s\n", "name", "sign", "exp", "man",
              "bias", "inf", "max_finite", "min_normal", "min_subnormal", "epsilon");
  for (const FloatFormat& f : numerics::presetFormats()) {
    std::printf("%-9s %4d %4d %4d %5d %4s  %-14.8g %-14.8g %-14.8g %-14.8g\n", f.name.c_str(), 1,
                f.exponentBits, f.mantissaBits, f.bias, f.hasInfinity() ? "yes" : "no",
                f.maxFinite(), f.minNormal(), f.minSubnormal(), f.epsilon());
  }
  std::printf(
      "\nCustom formats: eXmY (IEEE-like, 2 <= X <= 8, 0 <= Y <= 23), e.g. e5m7.\n"
      "fp8-e4m3 follows OCP OFP8: no infinities, S.1111.111 is NaN.\n");
}

const CommandRegistration reg{"formats", 10, [](CLI::App& root) {
                                auto* cmd = root.add_subcommand(
                                    "formats", "List the number formats and their properties");
                                auto json = std::make_shared<bool>(false);
                                cmd->add_flag("--json", *json, "Print a JSON list of objects");
                                cmd->callback([json] {
                                  if (!*json) return printTable();
                                  nlohmann::json list = nlohmann::json::array();
                                  for (const auto& f : numerics::presetFormats())
                                    list.push_back(formatJson(f));
                                  std::cout << list.dump(2) << "\n";
                                });
                              }};

}  // namespace
}  // namespace paritylab::cli
