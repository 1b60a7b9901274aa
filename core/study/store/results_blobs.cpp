#include "core/study/store/results_blobs.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace paritylab::study {
namespace {

std::string compress(const std::vector<std::uint8_t>& raw) {
  uLongf size = compressBound(uLong(raw.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, raw.data(), uLong(raw.size()),
                Z_BEST_SPEED) != Z_OK)
    throw std::runtime_error("zlib could not compress " + std::to_string(raw.size()) + " bytes");
  out.resize(size);
  return out;
}

// The raw bytes of a blob that must hold exactly `bytes` bytes.
std::vector<std::uint8_t> decompress(const std::string& blob, std::size_t bytes,
                                     const std::string& what) {
  // zlib inflates at most about 1032:1: a count claiming more than the blob can hold is damage,
  // found before anything is allocated (a damaged count of 2e12 examples asked for 4 TB).
  constexpr std::size_t kMaxRatio = 1100;
  if (bytes / kMaxRatio > blob.size() + 64)
    throw std::runtime_error(what + ": damaged: " + std::to_string(bytes) +
                             " bytes claimed from a blob of " + std::to_string(blob.size()));
  std::vector<std::uint8_t> raw(bytes + 1);  // one spare byte: a longer blob is damaged too
  uLongf size = uLongf(raw.size());
  const int rc = uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(blob.data()),
                            uLong(blob.size()));
  if (rc != Z_OK || size != bytes)  // Z_BUF_ERROR: longer than expected
    throw std::runtime_error(what + ": damaged blob (expected " + std::to_string(bytes) +
                             " bytes after decompression)");
  raw.resize(bytes);
  return raw;
}

std::vector<std::uint8_t> uint16Bytes(std::span<const std::uint16_t> values) {
  std::vector<std::uint8_t> raw(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    raw[2 * i] = std::uint8_t(values[i] & 0xFF);
    raw[2 * i + 1] = std::uint8_t(values[i] >> 8);
  }
  return raw;
}

std::vector<std::uint16_t> uint16Values(const std::vector<std::uint8_t>& raw) {
  std::vector<std::uint16_t> values(raw.size() / 2);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::uint16_t(raw[2 * i] | (std::uint16_t(raw[2 * i + 1]) << 8));
  return values;
}

}  // namespace

std::string encodeClasses(std::span<const std::int32_t> classes) {
  std::vector<std::uint16_t> values(classes.size());
  for (std::size_t i = 0; i < classes.size(); ++i) {
    if (classes[i] < 0 || classes[i] > 65535)
      throw std::invalid_argument("class " + std::to_string(classes[i]) + " of example " +
                                  std::to_string(i) + " is outside [0, 65535]");
    values[i] = std::uint16_t(classes[i]);
  }
  return compress(uint16Bytes(values));
}

std::vector<std::int32_t> decodeClasses(const std::string& blob, std::size_t count,
                                        const std::string& what) {
  const std::vector<std::uint16_t> values = uint16Values(decompress(blob, count * 2, what));
  return {values.begin(), values.end()};
}

std::string encodeProbabilities(std::span<const float> probabilities) {
  std::vector<std::uint16_t> values(probabilities.size());
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const float p = std::isnan(probabilities[i]) ? 0.0f : std::clamp(probabilities[i], 0.0f, 1.0f);
    values[i] = std::uint16_t(std::lround(double(p) * 65535.0));
  }
  return compress(uint16Bytes(values));
}

std::vector<float> decodeProbabilities(const std::string& blob, std::size_t count,
                                       const std::string& what) {
  const std::vector<std::uint16_t> values = uint16Values(decompress(blob, count * 2, what));
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = float(double(values[i]) / 65535.0);
  return out;
}

std::string encodeFloats(std::span<const float> values) {
  std::vector<std::uint8_t> raw(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &values[i], 4);
    for (int b = 0; b < 4; ++b) raw[4 * i + std::size_t(b)] = std::uint8_t(bits >> (8 * b));
  }
  return compress(raw);
}

std::vector<float> decodeFloats(const std::string& blob, std::size_t count,
                                const std::string& what) {
  const std::vector<std::uint8_t> raw = decompress(blob, count * 4, what);
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) bits |= std::uint32_t(raw[4 * i + std::size_t(b)]) << (8 * b);
    std::memcpy(&out[i], &bits, 4);
  }
  return out;
}

}  // namespace paritylab::study
