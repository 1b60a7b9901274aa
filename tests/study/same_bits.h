#pragma once
// Whether two doubles are the same bits (every NaN equal to every NaN): what a round trip through
// a database, a wire message or a second run must keep.

#include <cmath>
#include <cstring>

namespace paritylab::study::testing {

inline bool sameBits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace paritylab::study::testing
