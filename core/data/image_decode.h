#pragma once
// OpenCV decoding shared by the image-folder and CelebA loaders.

#include <opencv2/core.hpp>
#include <string>

#include "core/data/dataset.h"

namespace paritylab::data {

// Decodes `path` to 8-bit, 1 channel (grayscale files) or 3 channels (BGR; alpha dropped;
// 16-bit scaled down). Optionally centre-crops to a square, then resizes to size x size with
// INTER_AREA. Throws DataError naming the file when it is missing or cannot be decoded.
cv::Mat decodeImage(const std::string& path, int size, bool centerCropSquare);

// Appends one decoded image to `out` as [channels, size, size] floats in [0, 1] (RGB order for
// 3 channels; a 1-channel image is replicated when channels == 3).
void appendImage(const cv::Mat& image, int channels, Dataset& out);

// True for the extensions cv::imread decodes here (.png .jpg .jpeg .bmp .tif .tiff .webp .ppm
// .pgm .pbm), case-insensitive.
bool isImageFileName(const std::string& name);

}  // namespace paritylab::data
