// Shared tolerance for comparing against SciPy / statsmodels reference values.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <vector>

namespace paritylab::stats::testing {

inline constexpr double kRelTol = 1e-9;  // agreement to 1e-9 relative

inline ::testing::AssertionResult relClose(double actual, double expected, double rel = kRelTol) {
  if (std::isinf(expected) && actual == expected) return ::testing::AssertionSuccess();
  const double err = std::fabs(actual - expected);
  if (err <= rel * std::fabs(expected)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "actual " << std::setprecision(17) << actual << " vs expected " << expected
         << " (relative error " << err / std::fabs(expected) << " > " << rel << ")";
}

// Fixed samples shaped like final accuracies (fractions), used across the reference tests.
inline const std::vector<double> kA = {0.712, 0.698, 0.705, 0.721, 0.689, 0.701,
                                       0.715, 0.694, 0.708, 0.699, 0.717, 0.703};
inline const std::vector<double> kB = {0.702, 0.691, 0.688, 0.695, 0.699,
                                       0.684, 0.693, 0.690, 0.697};

}  // namespace paritylab::stats::testing

#define EXPECT_REL(actual, expected) \
  EXPECT_TRUE(::paritylab::stats::testing::relClose((actual), (expected)))
