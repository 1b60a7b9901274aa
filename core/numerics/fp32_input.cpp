#include "core/numerics/fp32_input.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/input/number_input.h"
#include "core/numerics/exact_decimal.h"

namespace paritylab::numerics {
namespace {

std::optional<std::uint32_t> parseHexBits(std::string_view text) {
  if (text.size() < 3 || text.size() > 10 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return std::nullopt;
  std::uint32_t bits = 0;
  const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), bits, 16);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return bits;
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

// An unsigned decimal "digits[.digits][e[+-]digits]" as value = digits * 10^exponent with no
// leading or trailing zeros in `digits` ("" for zero). nullopt for anything else (nan, inf).
struct Canonical {
  std::string digits;
  long long exponent = 0;
  bool operator==(const Canonical&) const = default;
};
std::optional<Canonical> canonical(std::string_view s) {
  Canonical c;
  std::size_t i = 0;
  bool point = false, any = false;
  for (; i < s.size(); ++i) {
    if (isDigit(s[i])) {
      c.digits += s[i];
      any = true;
      if (point) --c.exponent;
    } else if (s[i] == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return std::nullopt;
  if (i < s.size()) {
    if (s[i] != 'e' && s[i] != 'E') return std::nullopt;
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    if (i == s.size()) return std::nullopt;
    long long e = 0;
    for (; i < s.size(); ++i) {
      if (!isDigit(s[i])) return std::nullopt;
      if (e < 1'000'000'000'000LL) e = e * 10 + (s[i] - '0');  // saturates far beyond any float
    }
    c.exponent += negative ? -e : e;
  }
  const auto first = c.digits.find_first_not_of('0');
  if (first == std::string::npos) return Canonical{};  // zero
  c.digits.erase(0, first);
  const auto last = c.digits.find_last_not_of('0');
  c.exponent += static_cast<long long>(c.digits.size() - 1 - last);
  c.digits.erase(last + 1);
  return c;
}

}  // namespace

std::optional<float> parseFp32(std::string_view text) {
  text = input::trimmed(text);
  if (auto bits = parseHexBits(text)) return std::bit_cast<float>(*bits);
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && (text.front() == '+' || text.front() == '-')) return std::nullopt;
  }
  if (text.empty()) return std::nullopt;
  // Decimals, nan and inf through the project's one number parser (correctly rounded straight
  // to fp32, as strtof; 1e-50 is +0, 1e39 is inf).
  const std::optional<float> parsed = input::parseDecimalFp32(text);
  if (!parsed) return std::nullopt;
  float value = *parsed;
  if (std::isnan(value)) value = std::copysign(value, text.front() == '-' ? -1.0f : 1.0f);
  return value;
}

std::optional<Fp32Input> parseFp32Input(std::string_view text) {
  const auto value = parseFp32(text);
  if (!value) return std::nullopt;
  Fp32Input input{*value, true};
  text = input::trimmed(text);
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  const auto written = canonical(text);
  if (!written || parseHexBits(text)) return input;  // nan, inf, fp32 bits: exact by definition
  input.exact = std::isfinite(*value) && canonical(exactDecimal(std::fabs(*value))) == written;
  return input;
}

}  // namespace paritylab::numerics
