// Argument validation shared by the statistics functions.
// Policy (the same everywhere in paritylab::stats): caller errors throw std::invalid_argument whose
// message names the argument and the offending value; e.g. "tTest: sample 'a' has 1 value (at
// least 2 needed)", "tTest: alpha = 1.5 is outside (0, 1)", "sample 'b' value #3 is NaN".
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace paritylab::stats::detail {

// Throws unless every value is finite and there are at least min_count of them.
void requireSample(std::string_view function, std::string_view name, std::span<const double> x,
                   std::size_t min_count);
// Throws unless 0 < alpha < 1.
void requireAlpha(std::string_view function, double alpha);
// Throws unless 0 < p < 1 (probabilities such as a target power).
void requireOpenUnit(std::string_view function, std::string_view name, double p);
// Throws unless value is finite and > 0.
void requirePositive(std::string_view function, std::string_view name, double value);
// Throws unless value is finite.
void requireFinite(std::string_view function, std::string_view name, double value);

}  // namespace paritylab::stats::detail
