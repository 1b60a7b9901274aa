#pragma once
// Compact blobs of the results database (schema version 6): zlib-compressed little-endian
// arrays. Classes are uint16 (a dataset has fewer than 65,536 classes), probabilities are quantized
// to uint16 (p = q / 65535, so at most 7.7e-6 from the value), weights are float32 as trained.
// Decoding checks the element count and throws std::runtime_error naming `what` when a blob is
// damaged.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace paritylab::study {

// Class indices in [0, 65535] (std::invalid_argument naming the value otherwise).
std::string encodeClasses(std::span<const std::int32_t> classes);
std::vector<std::int32_t> decodeClasses(const std::string& blob, std::size_t count,
                                        const std::string& what);

// Probabilities in [0, 1] (NaN is stored as 0; values outside are clamped).
std::string encodeProbabilities(std::span<const float> probabilities);
std::vector<float> decodeProbabilities(const std::string& blob, std::size_t count,
                                       const std::string& what);

std::string encodeFloats(std::span<const float> values);
std::vector<float> decodeFloats(const std::string& blob, std::size_t count,
                                const std::string& what);

}  // namespace paritylab::study
