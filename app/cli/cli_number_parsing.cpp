#include "app/cli/cli_number_parsing.h"

#include "app/cli/command_registry.h"

namespace paritylab::cli {
namespace {

template <typename T, typename Parse>
T requireName(const std::string& name, const char* what, Parse parse, std::string valid) {
  if (auto value = parse(name)) return *value;
  throw CommandError("unknown " + std::string(what) + " '" + name + "' (valid: " + valid + ")");
}

}  // namespace

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
