#pragma once
// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of TFRecord files such as
// TensorBoard's event files, and the masked form those files store. Table-driven, one byte at a
// time: event files are small and read once.

#include <cstddef>
#include <cstdint>

namespace paritylab::input {

// The CRC-32C of `size` bytes, continuing `crc` (the CRC of the bytes before them; 0 to start).
// crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t crc = 0);

// TFRecord's masked CRC: rotated right by 15 bits plus 0xA282EAD8 (a CRC of data that holds CRCs
// would otherwise be weak).
inline std::uint32_t maskedCrc32c(std::uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

}  // namespace paritylab::input
