#include "core/input/number_input.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <type_traits>

namespace paritylab::input {

std::string_view trimmed(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

namespace {

template <typename T>
std::optional<T> parseFloating(std::string_view text) {
  text = trimmed(text);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);  // from_chars takes a '-' only: "+-1" must stay refused
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports overflow and underflow without a value; strtod/strtof give the correctly
    // rounded +-inf or (sub)normal/zero for the same, fully validated, text.
    const std::string copy(text);
    if constexpr (std::is_same_v<T, float>) return std::strtof(copy.c_str(), nullptr);
    return std::strtod(copy.c_str(), nullptr);
  }
  if (ec != std::errc{}) return std::nullopt;
  return value;
}

std::string bound(double value) {
  return shortestDecimal(value);
}

[[noreturn]] void refuse(const std::string& field, const std::string& expected,
                         const std::string& shown) {
  throw InputError(field + ": expected " + expected + ", got " + shown);
}

std::string quoted(std::string_view text) {
  return "'" + excerpt(trimmed(text)) + "'";
}

}  // namespace

std::optional<double> parseDecimal(std::string_view text) {
  return parseFloating<double>(text);
}

std::optional<float> parseDecimalFp32(std::string_view text) {
  return parseFloating<float>(text);
}

std::string excerpt(std::string_view text, std::size_t maxChars) {
  std::string out;
  const std::size_t n = std::min(text.size(), maxChars);
  out.reserve(n + 3);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    out += (c < 0x20 || c == 0x7f) ? '?' : char(c);
  }
  if (text.size() > maxChars) out += "...";
  return out;
}

std::string shortestDecimal(double value) {
  char buf[400];
  // Whole numbers below 1e15 in full ("1000000", not "1e+06"), others the shortest round trip.
  const bool whole = std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e15;
  const auto end = whole ? std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed).ptr
                         : std::to_chars(buf, buf + sizeof buf, value).ptr;
  return std::string(buf, end);
}

std::string describe(IntegerLimits limits) {
  return "an integer in [" + std::to_string(limits.min) + ", " + std::to_string(limits.max) + "]";
}

std::string describe(RealLimits limits) {
  return std::string("a finite number in ") + (limits.minExclusive ? "(" : "[") +
         bound(limits.min) + ", " + bound(limits.max) + (limits.maxExclusive ? ")" : "]");
}

std::int64_t requireInteger(double value, const std::string& field, IntegerLimits limits,
                            const std::string& shown) {
  const std::string show = shown.empty() ? shortestDecimal(value) : shown;
  // 2^63 is exactly representable; every double in [-2^63, 2^63) converts to int64 exactly.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (!std::isfinite(value) || value != std::floor(value) || value < -kTwo63 || value >= kTwo63)
    refuse(field, describe(limits), show);
  const auto integer = static_cast<std::int64_t>(value);
  if (integer < limits.min || integer > limits.max) refuse(field, describe(limits), show);
  return integer;
}

std::int64_t requireInteger(std::string_view text, const std::string& field, IntegerLimits limits) {
  std::string_view digits = trimmed(text);
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t integer = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), integer);
  if (!digits.empty() && end == digits.data() + digits.size()) {
    if (ec != std::errc{} || integer < limits.min || integer > limits.max)
      refuse(field, describe(limits), quoted(text));  // out of int64 range, or of the limits
    return integer;
  }
  const auto value = parseDecimal(text);
  if (!value) refuse(field, describe(limits), quoted(text));
  return requireInteger(*value, field, limits, quoted(text));
}

double requireReal(double value, const std::string& field, RealLimits limits,
                   const std::string& shown) {
  const bool aboveMin = limits.minExclusive ? value > limits.min : value >= limits.min;
  const bool belowMax = limits.maxExclusive ? value < limits.max : value <= limits.max;
  if (!std::isfinite(value) || !aboveMin || !belowMax)
    refuse(field, describe(limits), shown.empty() ? shortestDecimal(value) : shown);
  return value;
}

double requireReal(std::string_view text, const std::string& field, RealLimits limits) {
  const auto value = parseDecimal(text);
  if (!value) refuse(field, describe(limits), quoted(text));
  return requireReal(*value, field, limits, quoted(text));
}

}  // namespace paritylab::input
