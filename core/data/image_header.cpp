#include "core/data/image_header.h"

#include <cctype>
#include <fstream>

namespace paritylab::data {
namespace {

std::uint64_t bigEndian(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + std::size_t(i)]);
  return v;
}

std::uint64_t littleEndian(std::string_view b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(b[at + std::size_t(i)]);
  return v;
}

std::optional<ImageDimensions> jpeg(std::string_view b) {
  std::size_t at = 2;  // after FF D8
  while (at + 9 <= b.size()) {
    if (static_cast<unsigned char>(b[at]) != 0xFF) return std::nullopt;
    const auto marker = static_cast<unsigned char>(b[at + 1]);
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    const bool frame =
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (frame) return ImageDimensions{bigEndian(b, at + 7, 2), bigEndian(b, at + 5, 2)};
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01) {
      at += 2;  // markers without a length
      continue;
    }
    at += 2 + bigEndian(b, at + 2, 2);
  }
  return std::nullopt;
}

// PNM: "P6 # comment\n 640 480 ...": the two first integers after the magic.
std::optional<ImageDimensions> pnm(std::string_view b) {
  std::uint64_t values[2] = {0, 0};
  std::size_t at = 2;
  for (std::uint64_t& v : values) {
    while (at < b.size() && (std::isspace(static_cast<unsigned char>(b[at])) || b[at] == '#')) {
      if (b[at] == '#')
        while (at < b.size() && b[at] != '\n') ++at;
      else
        ++at;
    }
    std::size_t digits = 0;
    for (; at < b.size() && std::isdigit(static_cast<unsigned char>(b[at])) && digits < 12;
         ++at, ++digits)
      v = v * 10 + std::uint64_t(b[at] - '0');
    if (digits == 0) return std::nullopt;
  }
  return ImageDimensions{values[0], values[1]};
}

std::optional<ImageDimensions> webp(std::string_view b) {
  if (b.size() < 30) return std::nullopt;
  const std::string_view chunk = b.substr(12, 4);
  if (chunk == "VP8X")
    return ImageDimensions{littleEndian(b, 24, 3) + 1, littleEndian(b, 27, 3) + 1};
  if (chunk == "VP8L") {
    const std::uint64_t bits = littleEndian(b, 21, 4);
    return ImageDimensions{(bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1};
  }
  if (chunk == "VP8 ")
    return ImageDimensions{littleEndian(b, 26, 2) & 0x3FFF, littleEndian(b, 28, 2) & 0x3FFF};
  return std::nullopt;
}

}  // namespace

std::optional<ImageDimensions> imageDimensionsFromHeader(std::string_view b) {
  if (b.size() >= 24 && b.substr(0, 8) == "\x89PNG\r\n\x1a\n" && b.substr(12, 4) == "IHDR")
    return ImageDimensions{bigEndian(b, 16, 4), bigEndian(b, 20, 4)};
  if (b.size() >= 4 && static_cast<unsigned char>(b[0]) == 0xFF &&
      static_cast<unsigned char>(b[1]) == 0xD8)
    return jpeg(b);
  if (b.size() >= 26 && b.substr(0, 2) == "BM") {
    const auto height = static_cast<std::int32_t>(littleEndian(b, 22, 4));  // < 0: top-down
    return ImageDimensions{
        littleEndian(b, 18, 4) & 0x7FFFFFFF,
        height < 0 ? std::uint64_t(-std::int64_t(height)) : std::uint64_t(height)};
  }
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6') return pnm(b);
  if (b.size() >= 16 && b.substr(0, 4) == "RIFF" && b.substr(8, 4) == "WEBP") return webp(b);
  return std::nullopt;
}

std::optional<ImageDimensions> imageDimensionsOfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(std::size_t(256) << 10, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(std::size_t(in.gcount()));
  return imageDimensionsFromHeader(head);
}

}  // namespace paritylab::data
