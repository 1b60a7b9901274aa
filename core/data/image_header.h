#pragma once
// Image dimensions read from a file's header without decoding it, so that a small file declaring
// a huge image (a 2.6 MB PNG that decodes to 2.7 GB) is refused before OpenCV allocates.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace paritylab::data {

struct ImageDimensions {
  std::uint64_t width = 0, height = 0;
};

// PNG, JPEG, BMP, PNM (P1-P6) and WebP headers; nullopt for other formats (TIFF) or a header too
// short or malformed to say (OpenCV then decides, under its own limits).
std::optional<ImageDimensions> imageDimensionsFromHeader(std::string_view bytes);
// The same for a file (reads at most its first 256 KiB, where JPEG's frame header sits).
std::optional<ImageDimensions> imageDimensionsOfFile(const std::string& path);

}  // namespace paritylab::data
