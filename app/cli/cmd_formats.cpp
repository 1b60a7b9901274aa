// `paritylab-cli formats [--json]`: the number formats and their properties.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/command_registry.h"
#include "core/numerics/float_format.h"

namespace paritylab::cli {
namespace formats_command {

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
  std::printf("%-12s %4s %4s %4s %5s %4s  %-14s %-14s %-14s %-14s\n", "name", "sign", "exp", "man",
              "bias", "inf", "max_finite", "min_normal", "min_subnormal", "epsilon");
  for (const FloatFormat& f : numerics::presetFormats()) {
    std::printf("%-12s %4d %4d %4d %5d %4s  %-14.8g %-14.8g %-14.8g %-14.8g\n", f.name.c_str(), 1,
                f.exponentBits, f.mantissaBits, f.bias, f.hasInfinity() ? "yes" : "no",
                f.maxFinite(), f.minNormal(), f.minSubnormal(), f.epsilon());
  }
  std::printf(
      "\nCustom formats: eXmY (IEEE-like, 2 <= X <= 8, 0 <= Y <= 23), e.g. e5m7.\n"
      "fp8-e4m3 follows OCP OFP8: no infinities, S.1111.111 is NaN.\n"
      "fp6-e3m2, fp6-e2m3 and fp4-e2m1 are OCP MX elements: every code is a finite number (no\n"
      "infinity, no NaN); rounding saturates at max_finite.\n"
      "fp8-e4m3fnuz and fp8-e5m2fnuz (AMD MI300): no infinities, no negative zero, one NaN "
      "(0x80).\n"
      "Block-scaled recipes built on these elements (mx, nvfp4, fp8 per tensor/row/block): see\n"
      "docs/block-formats.md and a policy's scaling fields.\n");
}

// How the rounding options treat the edges of a format (shown by `formats --help`).
constexpr const char* kRoundingNotes =
    "Rounding to a format (bits, round, every emulated product):\n"
    "  Input: a typed decimal is first read as the nearest fp32 (what a device sees); bits and\n"
    "    round say when it is not exactly an fp32.\n"
    "  Overflow: nearest modes and stochastic give +-inf past max finite (NaN in fp8-e4m3,\n"
    "    which has no infinity), or +-max finite with --overflow saturate; toward-zero never\n"
    "    overflows: it gives the largest magnitude not above |x| (+-448 in fp8-e4m3).\n"
    "  Flush to zero (--subnormals flush, policy \"subnormals\": \"flush\"; no preset flushes)\n"
    "    is applied AFTER rounding: a result below the min normal becomes +-0, but a value just\n"
    "    below the min normal that rounds up to it is kept as the min normal. This is a choice:\n"
    "    hardware that flushes inputs or detects tininess before rounding zeroes it instead.";

const CommandRegistration reg{"formats", 10, [](CLI::App& root) {
                                auto* cmd = root.add_subcommand(
                                    "formats", "List the number formats and their properties");
                                cmd->footer(kRoundingNotes);
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

}  // namespace formats_command
}  // namespace paritylab::cli
