#include "core/data/image_folder_loader.h"

#include <algorithm>
#include <filesystem>

#include "core/data/byte_reader.h"
#include "core/data/image_decode.h"

namespace paritylab::data {

SourceData loadImageFolder(const std::string& dirName, int imageSize) {
  namespace fs = std::filesystem;
  const int size = imageSize > 0 ? imageSize : kDefaultFolderImageSize;
  std::error_code ec;
  if (!fs::is_directory(dirName, ec)) throwDataError(dirName, "missing (no such directory)");

  std::vector<fs::path> classDirs;
  for (const fs::directory_entry& e : fs::directory_iterator(dirName))
    if (e.is_directory() && e.path().filename().string().front() != '.')
      classDirs.push_back(e.path());
  std::sort(classDirs.begin(), classDirs.end());
  if (classDirs.size() < 2)
    throwDataError(dirName, "has " + std::to_string(classDirs.size()) +
                                " class subfolders; an image folder needs at least 2 "
                                "(DIR/<class>/<image>.png)");

  std::vector<cv::Mat> images;
  std::vector<std::int32_t> labels;
  std::vector<std::string> names;
  bool allGray = true;
  for (std::size_t c = 0; c < classDirs.size(); ++c) {
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(classDirs[c]))
      if (e.is_regular_file() && isImageFileName(e.path().filename().string()))
        files.push_back(e.path());
    if (files.empty())
      throwDataError(classDirs[c].string(),
                     "has no images (.png, .jpg, .jpeg, .bmp, .tif, .webp, .ppm, .pgm)");
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      images.push_back(decodeImage(f.string(), size, false));
      allGray = allGray && images.back().channels() == 1;
      labels.push_back(std::int32_t(c));
    }
    names.push_back(classDirs[c].filename().string());
  }

  SourceData s;
  Dataset& d = s.train;
  d.channels = allGray ? 1 : 3;
  d.height = d.width = size;
  d.numClasses = int(names.size());
  d.classNames = names;
  d.images.reserve(images.size() * d.imageSize());
  for (const cv::Mat& m : images) appendImage(m, d.channels, d);
  d.labels = std::move(labels);
  s.test = d;
  s.test.images.clear();
  s.test.labels.clear();
  s.hasSplit = false;
  return s;
}

}  // namespace paritylab::data
