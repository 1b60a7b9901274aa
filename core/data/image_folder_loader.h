#pragma once
// DIR/<class>/*.{png,jpg,jpeg,bmp,...}: classes are the subfolders sorted by name (labels 0..k-1
// in that order), images sorted by file name, decoded with OpenCV and resized (INTER_AREA) to
// size x size. Grayscale when every image is single-channel, RGB otherwise. No split of its own.

#include <string>

#include "core/data/source_data.h"

namespace paritylab::data {

inline constexpr int kDefaultFolderImageSize = 32;

SourceData loadImageFolder(const std::string& dir, int imageSize);

}  // namespace paritylab::data
