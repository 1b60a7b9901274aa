#pragma once
// Arrays written as NumPy .npy files (format version 1.0: the magic string, a header dict naming
// the little-endian dtype, C order and the shape, padded to 64 bytes, then the raw values), so
// that numpy.load and torch read them without ParityLab. Written whole or not at all
// (atomic_file.h).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paritylab::input {

// The values of a C-order array of `shape` (their count the product of `shape`; an empty shape is
// a scalar). Throws std::invalid_argument when the count disagrees, FileWriteError naming `path`
// when the file cannot be written.
void writeNpy(const std::string& path, std::span<const float> values,
              const std::vector<std::size_t>& shape);
void writeNpy(const std::string& path, std::span<const std::int32_t> values,
              const std::vector<std::size_t>& shape);
void writeNpy(const std::string& path, std::span<const std::uint32_t> values,
              const std::vector<std::size_t>& shape);

// The header of such a file (magic, version, header length and the padded dict), for `descr`
// ("<f4", "<i4", "<u4") and `shape`.
std::string npyHeader(const std::string& descr, const std::vector<std::size_t>& shape);

}  // namespace paritylab::input
