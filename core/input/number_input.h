#pragma once
// The one parser and validator for numbers typed by users: command-line flags, the study spec,
// the policy JSON, `round`'s lines and `matmul`'s CSV cells. Every value is checked at this
// boundary (finite, in range, integral where it must be); no out-of-range float-to-integer
// conversion ever happens (that is undefined behaviour).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/input/error.h"

namespace paritylab::input {

// `text` without leading and trailing spaces, tabs and line ends.
std::string_view trimmed(std::string_view text);

// A refused input. The message names the field (or file and position) and the value.
class InputError : public ErrorOf<std::invalid_argument> {
 public:
  using ErrorOf::ErrorOf;
};

// A decimal as people and programs write it: optional sign, digits with an optional point and
// exponent ("1.5e-3", "-2", ".5", "1e-50"), or nan / inf / infinity (any case, optional sign).
// Surrounding spaces, tabs, CR and LF are ignored. Magnitudes beyond the type's range give +-inf,
// below its smallest subnormal +-0, both correctly rounded (as strtod). nullopt for anything
// else. The fp32 version rounds the decimal once, straight to fp32 (no double detour).
std::optional<double> parseDecimal(std::string_view text);
std::optional<float> parseDecimalFp32(std::string_view text);

// User text fit for a message: at most `maxChars` bytes (then "..."), control bytes as '?'.
std::string excerpt(std::string_view text, std::size_t maxChars = 40);

struct IntegerLimits {
  std::int64_t min = 0;
  std::int64_t max = 0;
};

// A finite real in [min, max]; an exclusive bound refuses the bound itself.
struct RealLimits {
  double min = 0;
  double max = 0;
  bool minExclusive = false;
  bool maxExclusive = false;
};

// `field` names the value in messages ("--seeds", "dataset.train_size"). An integer is digits
// (read exactly, no float detour) or a decimal whose value is integral ("1e3"); fractions,
// nan/inf and values outside the limits are refused:
//   "--seed: expected an integer in [0, 9223372036854775807], got '1.5'".
std::int64_t requireInteger(std::string_view text, const std::string& field, IntegerLimits limits);
// The same check for a value that already is a double (a JSON number); `shown` is how the
// message shows it (the JSON text), or the shortest decimal of `value` when empty.
std::int64_t requireInteger(double value, const std::string& field, IntegerLimits limits,
                            const std::string& shown = {});
// A real number: "--lr: expected a finite number in (0, 1000000], got 'nan'".
double requireReal(std::string_view text, const std::string& field, RealLimits limits);
double requireReal(double value, const std::string& field, RealLimits limits,
                   const std::string& shown = {});

// "an integer in [1, 10000]", "a finite number in (0, 1]": for messages and --help.
std::string describe(IntegerLimits limits);
std::string describe(RealLimits limits);

// Shortest round-trip decimal of a double.
std::string shortestDecimal(double value);

}  // namespace paritylab::input
