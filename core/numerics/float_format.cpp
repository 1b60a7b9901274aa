#include "core/numerics/float_format.h"

#include <charconv>
#include <cmath>
#include <tuple>

namespace paritylab::numerics {
namespace {

FloatFormat ieeeLike(std::string name, int exponentBits, int mantissaBits) {
  FloatFormat f;
  f.name = std::move(name);
  f.exponentBits = exponentBits;
  f.mantissaBits = mantissaBits;
  f.bias = (1 << (exponentBits - 1)) - 1;
  f.special = SpecialEncoding::Ieee;
  f.hasSubnormals = true;
  return f;
}

// Parses "eXmY" into (X, Y) when the shape is right; range checks are the caller's.
std::optional<std::pair<int, int>> parseCustomShape(std::string_view name) {
  if (name.size() < 4 || name[0] != 'e') return std::nullopt;
  const char* first = name.data() + 1;
  const char* last = name.data() + name.size();
  int x = 0;
  auto [afterX, ecX] = std::from_chars(first, last, x);
  if (ecX != std::errc{} || afterX == first || afterX == last || *afterX != 'm')
    return std::nullopt;
  int y = 0;
  auto [afterY, ecY] = std::from_chars(afterX + 1, last, y);
  if (ecY != std::errc{} || afterY == afterX + 1 || afterY != last) return std::nullopt;
  return std::pair{x, y};
}

}  // namespace

double FloatFormat::maxFinite() const {
  if (special == SpecialEncoding::FiniteOnlyE4M3) {
    // The all-ones exponent is a normal binade whose all-ones mantissa is NaN.
    const int topExponent = (1 << exponentBits) - 1 - bias;
    return std::ldexp(2.0 - std::ldexp(1.0, 1 - mantissaBits), topExponent);
  }
  if (special == SpecialEncoding::FiniteOnly || special == SpecialEncoding::Fnuz) {
    // The all-ones exponent is a normal binade, all-ones mantissa included.
    const int topExponent = (1 << exponentBits) - 1 - bias;
    return std::ldexp(2.0 - std::ldexp(1.0, -mantissaBits), topExponent);
  }
  const int topExponent = (1 << exponentBits) - 2 - bias;
  return std::ldexp(2.0 - std::ldexp(1.0, -mantissaBits), topExponent);
}

double FloatFormat::minNormal() const {
  return std::ldexp(1.0, 1 - bias);
}
double FloatFormat::minSubnormal() const {
  return std::ldexp(1.0, 1 - bias - mantissaBits);
}
double FloatFormat::epsilon() const {
  return std::ldexp(1.0, -mantissaBits);
}

const std::vector<FloatFormat>& presetFormats() {
  static const std::vector<FloatFormat> presets = [] {
    std::vector<FloatFormat> list{ieeeLike("fp32", 8, 23), ieeeLike("tf32", 8, 10),
                                  ieeeLike("bf16", 8, 7), ieeeLike("fp16", 5, 10)};
    FloatFormat e4m3 = ieeeLike("fp8-e4m3", 4, 3);
    e4m3.special = SpecialEncoding::FiniteOnlyE4M3;
    list.push_back(e4m3);
    list.push_back(ieeeLike("fp8-e5m2", 5, 2));
    // OCP MX v1.0 element formats (section 5.3): IEEE-like biases, every code finite.
    for (auto [name, e, m] : {std::tuple{"fp6-e3m2", 3, 2}, std::tuple{"fp6-e2m3", 2, 3},
                              std::tuple{"fp4-e2m1", 2, 1}}) {
      FloatFormat f = ieeeLike(name, e, m);
      f.special = SpecialEncoding::FiniteOnly;
      list.push_back(f);
    }
    // fnuz fp8: the bias is one more than IEEE's (the all-ones exponent is a normal binade).
    for (auto [name, e, m] : {std::tuple{"fp8-e4m3fnuz", 4, 3}, std::tuple{"fp8-e5m2fnuz", 5, 2}}) {
      FloatFormat f = ieeeLike(name, e, m);
      f.bias = 1 << (e - 1);
      f.special = SpecialEncoding::Fnuz;
      list.push_back(f);
    }
    return list;
  }();
  return presets;
}

std::optional<FloatFormat> parseFormat(std::string_view name) {
  for (const auto& preset : presetFormats())
    if (preset.name == name) return preset;
  const auto shape = parseCustomShape(name);
  if (!shape) return std::nullopt;
  const auto [x, y] = *shape;
  if (x < 2 || x > 8 || y < 0 || y > 23) return std::nullopt;
  return ieeeLike("e" + std::to_string(x) + "m" + std::to_string(y), x, y);
}

std::string formatNameError(std::string_view name) {
  std::string valid;
  for (const auto& preset : presetFormats()) valid += preset.name + ", ";
  valid += "or eXmY with 2 <= X <= 8 and 0 <= Y <= 23 (e.g. e5m7)";
  if (const auto shape = parseCustomShape(name)) {
    return "format '" + std::string(name) + "' is out of range: exponent bits must be 2..8 and " +
           "mantissa bits 0..23 (valid: " + valid + ")";
  }
  return "unknown format '" + std::string(name) + "' (valid: " + valid + ")";
}

}  // namespace paritylab::numerics
