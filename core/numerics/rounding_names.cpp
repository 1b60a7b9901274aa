// Names of the rounding, overflow and subnormal modes as the CLI and UI spell them.
#include <array>
#include <utility>

#include "core/numerics/rounding.h"

namespace paritylab::numerics {
namespace {

constexpr std::array<std::pair<RoundingMode, std::string_view>, 4> kRoundingNames{{
    {RoundingMode::NearestEven, "nearest-even"},
    {RoundingMode::NearestAway, "nearest-away"},
    {RoundingMode::TowardZero, "toward-zero"},
    {RoundingMode::Stochastic, "stochastic"},
}};
constexpr std::array<std::pair<OverflowMode, std::string_view>, 2> kOverflowNames{{
    {OverflowMode::Ieee, "inf"},
    {OverflowMode::Saturate, "saturate"},
}};
constexpr std::array<std::pair<SubnormalMode, std::string_view>, 2> kSubnormalNames{{
    {SubnormalMode::Keep, "keep"},
    {SubnormalMode::Flush, "flush"},
}};

template <typename Enum, std::size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum e) {
  for (const auto& [value, name] : table)
    if (value == e) return name;
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, std::string_view>, N>& table,
                            std::string_view name) {
  for (const auto& [value, n] : table)
    if (n == name) return value;
  return std::nullopt;
}

}  // namespace

std::string_view toString(RoundingMode mode) {
  return nameOf(kRoundingNames, mode);
}
std::string_view toString(OverflowMode mode) {
  return nameOf(kOverflowNames, mode);
}
std::string_view toString(SubnormalMode mode) {
  return nameOf(kSubnormalNames, mode);
}

std::optional<RoundingMode> parseRoundingMode(std::string_view name) {
  return valueOf(kRoundingNames, name);
}
std::optional<OverflowMode> parseOverflowMode(std::string_view name) {
  return valueOf(kOverflowNames, name);
}
std::optional<SubnormalMode> parseSubnormalMode(std::string_view name) {
  return valueOf(kSubnormalNames, name);
}

}  // namespace paritylab::numerics
