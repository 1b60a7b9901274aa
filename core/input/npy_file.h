#pragma once
// Arrays written as and read from NumPy .npy files (format version 1.0: the magic string, a header
// dict naming the little-endian dtype, C order and the shape, padded to 64 bytes, then the raw
// values), so that numpy.load and torch read them without ParityLab. Written whole or not at all
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

// The values of a one-dimensional array of integers read from a .npy file (format 1.0 or 2.0,
// C order, dtype any little-endian or single-byte signed or unsigned integer: what numpy.save
// writes for an int array), at most `maxCount` of them. Throws InputError naming `path` and what
// is wrong: not a .npy file, another dtype ("'<f4' (floats): expected integers"), another shape,
// a length the file does not hold, a value beyond int64.
std::vector<std::int64_t> readNpyIntegers(const std::string& path, std::size_t maxCount);

// The header of such a file (magic, version, header length and the padded dict), for `descr`
// ("<f4", "<i4", "<u4") and `shape`.
std::string npyHeader(const std::string& descr, const std::vector<std::size_t>& shape);

}  // namespace paritylab::input
