#pragma once
// Numeric command-line options read by the one number parser (core/input/number_input.h): every
// flag is finite, within its documented limits and integral where it must be, or the command
// stops with "paritylab-cli: error: --seeds: expected an integer in [1, 10000], got '0'".
// (CLI11's own conversions wrap `-1` into a huge unsigned seed and accept `--lr nan`.)

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "core/input/number_input.h"

namespace paritylab::cli {

// The first name of "--seed,-s" ("--seed"): how messages name the flag.
inline std::string flagName(const std::string& names) {
  return names.substr(0, names.find(','));
}

// An integer option stored into `target` (an integer type or std::optional of one) when given.
template <typename Target>
CLI::Option* addIntegerOption(CLI::App* cmd, const std::string& names, Target& target,
                              input::IntegerLimits limits, const std::string& help) {
  const std::string flag = flagName(names);
  return cmd
      ->add_option_function<std::string>(
          names,
          [&target, flag, limits](const std::string& text) {
            using Value = std::remove_reference_t<decltype(target.value())>;
            target = Value(input::requireInteger(text, flag, limits));
          },
          help + " (" + input::describe(limits) + ")")
      ->type_name("INT");
}

// Plain integer targets (not std::optional).
template <typename Int>
requires std::is_integral_v<Int> CLI::Option* addIntegerOption(CLI::App* cmd,
                                                               const std::string& names,
                                                               Int& target,
                                                               input::IntegerLimits limits,
                                                               const std::string& help) {
  const std::string flag = flagName(names);
  return cmd
      ->add_option_function<std::string>(
          names,
          [&target, flag, limits](const std::string& text) {
            target = Int(input::requireInteger(text, flag, limits));
          },
          help + " (" + input::describe(limits) + ", default " + std::to_string(target) + ")")
      ->type_name("INT");
}

// A real option (double or std::optional<double>).
template <typename Target>
CLI::Option* addRealOption(CLI::App* cmd, const std::string& names, Target& target,
                           input::RealLimits limits, const std::string& help) {
  const std::string flag = flagName(names);
  return cmd
      ->add_option_function<std::string>(
          names,
          [&target, flag, limits](const std::string& text) {
            target = input::requireReal(text, flag, limits);
          },
          help + " (" + input::describe(limits) + ")")
      ->type_name("NUMBER");
}

}  // namespace paritylab::cli
