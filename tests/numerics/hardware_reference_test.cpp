// fp16 and bf16 nearest-even against third-party conversions over a dense stride
// through all 2^32 fp32 patterns: the CPU's F16C instruction and Eigen::bfloat16. Outputs measured
// on real TPUs are pinned through the command line in tests/cli/hardware_outputs_test.cpp.

#include <gtest/gtest.h>
#include <immintrin.h>

#include <Eigen/Core>
#include <bit>
#include <cmath>

#include "core/numerics/rounding.h"

namespace paritylab::numerics {
namespace {

std::vector<float> densePatterns() {
  std::vector<float> v;
  for (std::uint64_t p = 0; p < (1ULL << 32); p += 4093)
    v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(p)));
  return v;
}

#if defined(__F16C__)
TEST(HardwareReference, Fp16NearestEvenMatchesF16C) {
  const std::vector<float> inputs = densePatterns();
  std::vector<float> ours = inputs;
  Rounder(RoundingSpec{*parseFormat("fp16")}).apply(ours);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const __m128i half = _mm_cvtps_ph(_mm_set_ss(inputs[i]), _MM_FROUND_TO_NEAREST_INT);
    const float hardware = _mm_cvtss_f32(_mm_cvtph_ps(half));
    if (std::isnan(hardware)) {
      ASSERT_TRUE(std::isnan(ours[i]));
    } else {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(ours[i]), std::bit_cast<std::uint32_t>(hardware))
          << "input 0x" << std::hex << std::bit_cast<std::uint32_t>(inputs[i]);
    }
  }
}
#endif

TEST(ThirdPartyReference, Bf16NearestEvenMatchesEigen) {
  const std::vector<float> inputs = densePatterns();
  std::vector<float> ours = inputs;
  Rounder(RoundingSpec{*parseFormat("bf16")}).apply(ours);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const float eigen = static_cast<float>(Eigen::bfloat16(inputs[i]));
    if (std::isnan(eigen)) {
      ASSERT_TRUE(std::isnan(ours[i]));
    } else {
      ASSERT_EQ(std::bit_cast<std::uint32_t>(ours[i]), std::bit_cast<std::uint32_t>(eigen))
          << "input 0x" << std::hex << std::bit_cast<std::uint32_t>(inputs[i]);
    }
  }
}

}  // namespace
}  // namespace paritylab::numerics
