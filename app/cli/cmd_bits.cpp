// `paritylab-cli bits VALUE [--format F]... [--rounding MODE]`: how VALUE is stored in each format,
// on the same path as `round`: VALUE -> nearest fp32 -> the Rounder of each format. With a block
// format (`--format mxfp4`), VALUE is a block of comma-separated values shown with its shared
// scale (bits_block.h).

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/cli/bits_block.h"
#include "app/cli/cli_number_parsing.h"
#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/input/input_limits.h"
#include "core/numerics/bit_anatomy.h"
#include "core/numerics/block_anatomy.h"
#include "core/numerics/exact_decimal.h"
#include "core/numerics/fp32_input.h"

namespace paritylab::cli {
namespace bits_command {

using numerics::BitAnatomy;

struct Palette {
  const char* sign = "";
  const char* exponent = "";
  const char* mantissa = "";
  const char* dim = "";
  const char* bold = "";
  const char* reset = "";
};

Palette paletteFor(bool terminal) {
  if (!terminal) return {};
  return {"\033[1;31m", "\033[1;32m", "\033[1;34m", "\033[2m", "\033[1m", "\033[0m"};
}

// "0 01111111 0000000" with each field in its colour.
std::string colouredBits(const BitAnatomy& a, const Palette& p) {
  std::string out;
  int field = 0;  // 0 sign, 1 exponent, 2 mantissa
  const char* colours[] = {p.sign, p.exponent, p.mantissa};
  out += colours[0];
  for (char c : a.bits) {
    if (c == ' ') {
      ++field;
      out += p.reset;
      out += ' ';
      out += colours[field < 3 ? field : 2];
    } else {
      out += c;
    }
  }
  return out + p.reset;
}

void printAnatomy(const BitAnatomy& a, numerics::RoundingMode mode, const Palette& p) {
  const auto& f = a.format;
  std::printf("%s%s%s %s(1 sign, %d exponent, %d mantissa bits; bias %d; %.*s)%s\n", p.bold,
              f.name.c_str(), p.reset, p.dim, f.exponentBits, f.mantissaBits, f.bias,
              static_cast<int>(toString(mode).size()), toString(mode).data(), p.reset);
  std::printf("  bits      %s   %s(%ssign%s %sexponent%s %smantissa%s)%s\n",
              colouredBits(a, p).c_str(), p.dim, p.sign, p.reset, p.exponent, p.reset, p.mantissa,
              p.reset, p.reset);
  std::printf("  class     %.*s\n", static_cast<int>(toString(a.valueClass).size()),
              toString(a.valueClass).data());
  std::printf("  fields    sign %d, exponent %u (unbiased %d), mantissa %u\n", a.sign ? 1 : 0,
              a.exponentField, a.unbiasedExponent, a.mantissaField);
  std::printf("  stored    %.17g\n", a.stored);
  std::printf("  exact     %s\n", a.storedExact.c_str());
  std::printf("  error     abs %.6g, rel %.6g\n", a.absoluteError, a.relativeError);
  std::printf("  ulp       %.6g\n\n", a.ulp);
}

// "mxfp8, mxfp8-e5m2, ...": the block formats `bits` shows a block of.
std::string blockNames() {
  std::string list;
  for (const std::string& name : numerics::blockFormatNames())
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

struct BitsOptions {
  std::string value;
  std::vector<std::string> formats;
  std::string rounding = "nearest-even";
  std::uint64_t seed = 0;
};

// The path `round` takes too: the text parsed straight to fp32 (what a device sees), then every
// format rounds that fp32 with the same Rounder (stochastic: the draw `round --seed` makes for
// its first line).
void runBits(const BitsOptions& o) {
  for (const auto& name : o.formats) {
    const auto block = numerics::namedBlockFormat(name);
    if (!block) continue;
    if (o.formats.size() > 1)
      throw CommandError("--format " + name +
                         " shows a block of values: give it alone, without other formats");
    printBlock(name, *block, o.value, isatty(STDOUT_FILENO) != 0);
    return;
  }
  const auto input = numerics::parseFp32Input(o.value);
  if (!input)
    throw CommandError(
        "VALUE '" + o.value +
        "' is not a number (decimal like 1.5e-3, nan, -inf, or fp32 bits 0x3f800000)");
  const numerics::RoundingMode mode = requireRoundingMode(o.rounding);
  std::vector<numerics::FloatFormat> formats;
  for (const auto& name : o.formats) formats.push_back(requireFormat(name));
  if (formats.empty()) formats = numerics::presetFormats();

  const Palette palette = paletteFor(isatty(STDOUT_FILENO) != 0);
  const std::string fp32 = numerics::exactDecimal(input->value);
  if (input->exact)
    std::printf("%svalue%s %s (exactly an fp32)\n\n", palette.bold, palette.reset, fp32.c_str());
  else
    std::printf(
        "%svalue%s %s is not exactly an fp32: the formats below round the nearest fp32,\n"
        "      %s (as a device would see it)\n\n",
        palette.bold, palette.reset, o.value.c_str(), fp32.c_str());
  for (const auto& f : formats)
    printAnatomy(numerics::dissect(input->value, numerics::RoundingSpec{f, mode}, o.seed), mode,
                 palette);
}

const CommandRegistration reg{
    "bits", 20, [](CLI::App& root) {
      auto* cmd = root.add_subcommand("bits", "Show how a value is stored in each format");
      auto o = std::make_shared<BitsOptions>();
      cmd->add_option("VALUE", o->value,
                      "Decimal (1.5e-3, nan, -inf) or fp32 bits (0x3f800000); with a block "
                      "format, one block of comma-separated values (1.5,0.1,-3)");
      // "-inf" looks like a cluster of short flags to CLI11: accept it as an extra argument.
      cmd->allow_extras();
      cmd->add_option("--format,-f", o->formats,
                      std::string("Format (repeatable; default: all presets), or alone one block "
                                  "format: ") +
                          blockNames())
          ->allow_extra_args(false);  // one format per --format: VALUE may follow it
      cmd->add_option("--rounding", o->rounding,
                      "nearest-even | nearest-away | toward-zero | stochastic");
      addIntegerOption(cmd, "--seed", o->seed, {0, input::kMaxSeedValue},
                       "Seed for stochastic rounding (the draw `round --seed` makes for its first "
                       "line)");
      cmd->callback([o, cmd] {
        BitsOptions options = *o;
        for (const auto& extra : cmd->remaining()) {
          if (!options.value.empty())
            throw CommandError("unexpected argument '" + extra + "' (bits takes one VALUE)");
          options.value = extra;
        }
        if (options.value.empty()) throw CommandError("bits needs a VALUE, e.g. bits 0.1");
        runBits(options);
      });
    }};

}  // namespace bits_command
}  // namespace paritylab::cli
