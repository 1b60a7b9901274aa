// CRC-32C against the published check values, continuation over pieces, and TFRecord's mask.

#include "core/input/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace paritylab::input {
namespace {

TEST(Crc32c, MatchesTheCheckValuesOfTheCastagnoliPolynomial) {
  const std::string digits = "123456789";
  EXPECT_EQ(crc32c(digits.data(), digits.size()), 0xE3069283u);
  EXPECT_EQ(crc32c("", 0), 0u);
  const std::string zeros(32, '\0');  // RFC 3720, B.4: 32 bytes of zeros
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  const std::string ones(32, '\xFF');  // and 32 bytes of 0xFF
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
}

TEST(Crc32c, ContinuesOverPieces) {
  const std::string text = "TensorBoard event files";
  const std::uint32_t whole = crc32c(text.data(), text.size());
  const std::uint32_t first = crc32c(text.data(), 7);
  EXPECT_EQ(crc32c(text.data() + 7, text.size() - 7, first), whole);
}

TEST(Crc32c, MaskRotatesFifteenBitsAndAddsTheTfRecordConstant) {
  EXPECT_EQ(maskedCrc32c(0), 0xA282EAD8u);
  EXPECT_EQ(maskedCrc32c(0x00008000u), 0xA282EAD9u);  // bit 15 rotates to bit 0
  EXPECT_EQ(maskedCrc32c(0xFFFFFFFFu), 0xA282EAD7u);  // wraps modulo 2^32
}

}  // namespace
}  // namespace paritylab::input
