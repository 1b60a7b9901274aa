#include "core/data/image_decode.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/data/byte_reader.h"
#include "core/data/image_header.h"
#include "core/input/input_limits.h"

namespace paritylab::data {

cv::Mat decodeImage(const std::string& path, int size, bool centerCropSquare) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throwDataError(path, "missing (no such image)");
  // Refuse images too large to decode before OpenCV allocates them.
  if (const auto dims = imageDimensionsOfFile(path)) {
    const std::uint64_t pixels = dims->width * dims->height;
    if (dims->width > std::uint64_t(input::kMaxDecodedImagePixels) ||
        dims->height > std::uint64_t(input::kMaxDecodedImagePixels) ||
        pixels > std::uint64_t(input::kMaxDecodedImagePixels))
      throwDataError(path, "is " + std::to_string(dims->width) + "x" +
                               std::to_string(dims->height) + " pixels, more than the " +
                               std::to_string(input::kMaxDecodedImagePixels) +
                               " an image may have before resizing");
  }
  cv::Mat raw = cv::imread(path, cv::IMREAD_UNCHANGED);
  if (raw.empty()) throwDataError(path, "cannot be decoded as an image (corrupt or unsupported)");
  if (raw.depth() == CV_16U)
    raw.convertTo(raw, CV_8U, 1.0 / 257.0);
  else if (raw.depth() != CV_8U)
    raw.convertTo(raw, CV_8U, raw.depth() == CV_32F ? 255.0 : 1.0);
  cv::Mat image;
  switch (raw.channels()) {
    case 1:
      image = raw;
      break;
    case 3:
      image = raw;
      break;
    case 4:
      cv::cvtColor(raw, image, cv::COLOR_BGRA2BGR);
      break;
    case 2:
      cv::extractChannel(raw, image, 0);
      break;  // gray + alpha
    default:
      throwDataError(path,
                     "has " + std::to_string(raw.channels()) + " channels (1, 3 or 4 expected)");
  }
  if (centerCropSquare && image.rows != image.cols) {
    const int side = std::min(image.rows, image.cols);
    image = image(cv::Rect((image.cols - side) / 2, (image.rows - side) / 2, side, side));
  }
  cv::Mat resized;
  if (image.rows == size && image.cols == size)
    resized = image.clone();
  else
    cv::resize(image, resized, cv::Size(size, size), 0, 0, cv::INTER_AREA);
  return resized;
}

void appendImage(const cv::Mat& image, int channels, Dataset& out) {
  const int h = image.rows, w = image.cols;
  const std::size_t plane = std::size_t(h) * w;
  const std::size_t base = out.images.size();
  out.images.resize(base + plane * std::size_t(channels));
  float* dst = out.images.data() + base;
  const int srcChannels = image.channels();
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* row = image.ptr<std::uint8_t>(y);
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < channels; ++c) {
        // OpenCV stores BGR: output channel 0 is R = source channel 2.
        const int src = srcChannels == 1 ? 0 : 2 - c;
        dst[std::size_t(c) * plane + std::size_t(y) * w + x] =
            float(row[x * srcChannels + src]) * (1.0f / 255.0f);
      }
  }
}

bool isImageFileName(const std::string& name) {
  std::string ext = std::filesystem::path(name).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return char(std::tolower(ch)); });
  for (const char* known :
       {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pbm"})
    if (ext == known) return true;
  return false;
}

}  // namespace paritylab::data
