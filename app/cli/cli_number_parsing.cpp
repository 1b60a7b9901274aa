#include "app/cli/cli_number_parsing.h"

#include <bit>
#include <charconv>
#include <cstdint>

#include "app/cli/command_registry.h"
#include "core/input/number_input.h"

namespace paritylab::cli {
namespace {

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

std::optional<std::uint32_t> parseHexBits(std::string_view text) {
  if (text.size() < 3 || text.size() > 10 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return std::nullopt;
  std::uint32_t bits = 0;
  const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return bits;
}

template <typename T, typename Parse>
T requireName(const std::string& name, const char* what, Parse parse, std::string valid) {
  if (auto value = parse(name)) return *value;
  throw CommandError("unknown " + std::string(what) + " '" + name + "' (valid: " + valid + ")");
}

}  // namespace

std::optional<float> parseFp32Text(std::string_view text) {
  text = trim(text);
  if (auto bits = parseHexBits(text)) return std::bit_cast<float>(*bits);
  return input::parseDecimalFp32(text);  // the one decimal parser (core/input)
}

std::optional<double> parseDoubleText(std::string_view text) {
  text = trim(text);
  if (auto bits = parseHexBits(text)) return std::bit_cast<float>(*bits);
  return input::parseDecimal(text);
}

numerics::FloatFormat requireFormat(const std::string& name) {
  if (auto format = numerics::parseFormat(name)) return *format;
  throw CommandError(numerics::formatNameError(name));
}

numerics::RoundingMode requireRoundingMode(const std::string& name) {
  return requireName<numerics::RoundingMode>(name, "rounding mode", numerics::parseRoundingMode,
                                             "nearest-even, nearest-away, toward-zero, stochastic");
}

numerics::OverflowMode requireOverflowMode(const std::string& name) {
  return requireName<numerics::OverflowMode>(name, "overflow mode", numerics::parseOverflowMode,
                                             "inf, saturate");
}

numerics::SubnormalMode requireSubnormalMode(const std::string& name) {
  return requireName<numerics::SubnormalMode>(name, "subnormal mode", numerics::parseSubnormalMode,
                                              "keep, flush");
}

}  // namespace paritylab::cli
