// Memory bombs: IDX header counts are checked against the file's real size
// before anything is allocated, compressed files grow their buffers only with the data actually
// read, and an image file declaring a huge size is refused before OpenCV decodes it.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <opencv2/imgcodecs.hpp>

#include "core/data/idx_loader.h"
#include "core/data/image_decode.h"
#include "core/data/image_header.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

// Peak resident memory of this process, in MiB.
long peakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

testing::Bytes idxHeader(std::uint32_t magic, std::vector<std::uint32_t> fields) {
  testing::Bytes b;
  testing::appendBigEndian32(b, magic);
  for (std::uint32_t v : fields) testing::appendBigEndian32(b, v);
  return b;
}

TEST(InputSizeLimits, IdxHeaderCheckedAgainstRawFileSizeBeforeAllocating) {
  TempDir dir;
  // 16 bytes claiming 200000 images of 28x28 (627 MB as floats): refused from the file's size.
  testing::writeFile(dir / "images", idxHeader(0x803, {200000, 28, 28}));
  testing::writeFile(dir / "labels", idxHeader(0x801, {200000}));
  const long before = peakRssMiB();
  expectDataError(
      [&] {
        readIdxPair((dir / "images").string(), (dir / "labels").string(), {"a", "b"});
      },
      {(dir / "images").string(), "truncated", "header says 200000 images of 28x28",
       "the file has 16 of the 156800016 bytes"});
  EXPECT_LT(peakRssMiB() - before, 100);
  // Beyond the documented limit on images: refused whatever the file.
  testing::writeFile(dir / "images", idxHeader(0x803, {1u << 30, 1, 1}));
  expectDataError([&] { readIdxPair((dir / "images").string(), (dir / "labels").string(), {"a"}); },
                  {"implausible", "at most 10000000 images"});
}

TEST(InputSizeLimits, CompressedIdxGrowsOnlyWithTheDataRead) {
  TempDir dir;
  testing::writeFile(dir / "images.gz", idxHeader(0x803, {200000, 28, 28}), true);
  testing::writeFile(dir / "labels.gz", idxHeader(0x801, {200000}), true);
  const long before = peakRssMiB();
  expectDataError(
      [&] { readIdxPair((dir / "images.gz").string(), (dir / "labels.gz").string(), {"a"}); },
      {(dir / "labels.gz").string(), "truncated", "200000 labels"});
  // The labels are complete, the pixels are not: truncation after the data present, no 627 MB.
  testing::Bytes labels = idxHeader(0x801, {200000});
  labels.resize(labels.size() + 200000, 0);
  testing::writeFile(dir / "labels.gz", labels, true);
  expectDataError(
      [&] { readIdxPair((dir / "images.gz").string(), (dir / "labels.gz").string(), {"a"}); },
      {(dir / "images.gz").string(), "truncated", "header says 200000 images of 28x28"});
  EXPECT_LT(peakRssMiB() - before, 100);
}

TEST(InputSizeLimits, ImageHeadersGiveTheSizeOpenCvEncoded) {
  // The reference is OpenCV's own encoder: every header parser must read back 7 x 5.
  const cv::Mat image(5, 7, CV_8UC3, cv::Scalar(10, 20, 30));
  for (const char* ext : {".png", ".jpg", ".bmp", ".ppm", ".pgm", ".webp"}) {
    std::vector<std::uint8_t> bytes;
    cv::Mat source = image;
    if (std::string(ext) == ".pgm") source = cv::Mat(5, 7, CV_8UC1, cv::Scalar(9));
    ASSERT_TRUE(cv::imencode(ext, source, bytes)) << ext;
    const auto dims = imageDimensionsFromHeader(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    ASSERT_TRUE(dims.has_value()) << ext;
    EXPECT_EQ(dims->width, 7u) << ext;
    EXPECT_EQ(dims->height, 5u) << ext;
  }
  EXPECT_FALSE(imageDimensionsFromHeader("II*\0").has_value());  // TIFF: left to OpenCV
  EXPECT_FALSE(imageDimensionsFromHeader("").has_value());
}

TEST(InputSizeLimits, HugeDeclaredImageRefusedBeforeDecoding) {
  TempDir dir;
  // A PNG signature and IHDR claiming 100000 x 100000 pixels (40 GB decoded); no image data.
  testing::Bytes png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
                        0,    0,   0,   13,  'I',  'H',  'D',  'R'};
  testing::appendBigEndian32(png, 100000);
  testing::appendBigEndian32(png, 100000);
  png.insert(png.end(), {8, 2, 0, 0, 0, 0, 0, 0, 0});
  testing::writeFile(dir / "bomb.png", png);
  expectDataError(
      [&] { decodeImage((dir / "bomb.png").string(), 32, false); },
      {(dir / "bomb.png").string(), "is 100000x100000 pixels", "more than the 40000000"});
}

}  // namespace
}  // namespace paritylab::data
