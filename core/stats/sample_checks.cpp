#include "core/stats/sample_checks.h"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

namespace paritylab::stats {

namespace detail {
namespace {

[[noreturn]] void fail(std::string_view function, const std::string& what) {
  throw std::invalid_argument(std::string(function) + ": " + what);
}

std::string show(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

void requireSample(std::string_view function, std::string_view name, std::span<const double> x,
                   std::size_t min_count) {
  if (x.size() < min_count) {
    fail(function, "sample '" + std::string(name) + "' has " + std::to_string(x.size()) +
                       (x.size() == 1 ? " value" : " values") + " (at least " +
                       std::to_string(min_count) + " needed)");
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      fail(function, "sample '" + std::string(name) + "' value #" + std::to_string(i) + " is " +
                         show(x[i]) + " (values must be finite)");
    }
  }
}

void requireAlpha(std::string_view function, double alpha) {
  if (!(alpha > 0.0 && alpha < 1.0))
    fail(function, "alpha = " + show(alpha) + " is outside (0, 1)");
}

void requireOpenUnit(std::string_view function, std::string_view name, double p) {
  if (!(p > 0.0 && p < 1.0)) {
    fail(function, std::string(name) + " = " + show(p) + " is outside (0, 1)");
  }
}

void requirePositive(std::string_view function, std::string_view name, double value) {
  if (!(std::isfinite(value) && value > 0.0)) {
    fail(function, std::string(name) + " = " + show(value) + " must be finite and > 0");
  }
}

void requireFinite(std::string_view function, std::string_view name, double value) {
  if (!std::isfinite(value))
    fail(function, std::string(name) + " = " + show(value) + " is not finite");
}

}  // namespace detail
}  // namespace paritylab::stats
