// The image-folder and CelebA-identity loaders on small layouts the test writes
// with cv::imwrite: class order, grayscale vs RGB, resizing, centre crop, identity ranking,
// per-identity stratified split, and errors naming the missing/corrupt file.

#include <gtest/gtest.h>

#include <algorithm>
#include <opencv2/imgcodecs.hpp>

#include "core/data/celeba_loader.h"
#include "core/data/image_folder_loader.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

void writeImage(const std::filesystem::path& p, const cv::Mat& m) {
  std::filesystem::create_directories(p.parent_path());
  ASSERT_TRUE(cv::imwrite(p.string(), m)) << p;
}

cv::Mat gray(int rows, int cols, int value) {
  return cv::Mat(rows, cols, CV_8UC1, cv::Scalar(value));
}
cv::Mat bgr(int rows, int cols, int b, int g, int r) {
  return cv::Mat(rows, cols, CV_8UC3, cv::Scalar(b, g, r));
}

TEST(ImageFolder, GrayscaleFolderSortedClassesResized) {
  TempDir dir;
  // Classes created out of order; "zebra" must be label 1, "apple" label 0.
  for (int i = 0; i < 5; ++i)
    writeImage(dir / "zebra" / ("z" + std::to_string(i) + ".png"), gray(40, 20, 200));
  for (int i = 0; i < 5; ++i)
    writeImage(dir / "apple" / ("a" + std::to_string(i) + ".PNG"), gray(10, 10, 51));
  std::ofstream(dir / "apple" / "notes.txt") << "not an image";
  const SourceData s = loadImageFolder(dir.str(), 8);
  EXPECT_FALSE(s.hasSplit);
  ASSERT_EQ(s.train.size(), 10u);
  EXPECT_EQ(s.train.channels, 1);
  EXPECT_EQ(s.train.height, 8);
  EXPECT_EQ(s.train.classNames, (std::vector<std::string>{"apple", "zebra"}));
  EXPECT_EQ(s.train.labels[0], 0);
  EXPECT_EQ(s.train.labels[9], 1);
  EXPECT_FLOAT_EQ(s.train.image(0)[0], 51.0f / 255.0f);  // uniform images survive INTER_AREA
  EXPECT_FLOAT_EQ(s.train.image(9)[63], 200.0f / 255.0f);
}

TEST(ImageFolder, MixedChannelsBecomeRgbAndLoadDatasetSplitsStratified) {
  TempDir dir;
  for (int i = 0; i < 10; ++i)
    writeImage(dir / "red" / (std::to_string(i) + ".png"), bgr(16, 16, 0, 0, 255));
  for (int i = 0; i < 10; ++i)
    writeImage(dir / "dark" / (std::to_string(i) + ".bmp"), gray(16, 16, 10));
  for (int i = 0; i < 5; ++i)
    writeImage(dir / "blue" / (std::to_string(i) + ".jpg"), bgr(16, 16, 255, 0, 0));
  DatasetSpec spec;
  spec.source = "folder:" + dir.str();
  spec.normalize = false;
  spec.seed = 3;
  const DataSplit s = loadDataset(spec);  // default size 32, default testFraction 0.2
  EXPECT_EQ(s.train.channels, 3);
  EXPECT_EQ(s.train.height, 32);
  ASSERT_EQ(s.train.size() + s.test.size(), 25u);
  ASSERT_EQ(s.test.size(), 5u);  // 2 dark + 2 red + 1 blue
  std::vector<int> testCount(3);
  for (int l : s.test.labels) ++testCount[std::size_t(l)];
  EXPECT_EQ(testCount, (std::vector<int>{1, 2, 2}));  // blue, dark, red
  // A "red" image: R plane 1, G and B planes 0 (RGB order, not OpenCV's BGR).
  std::size_t redIndex = 0;
  while (s.train.labels[redIndex] != 2) ++redIndex;
  const float* px = s.train.image(redIndex);
  EXPECT_FLOAT_EQ(px[0], 1.0f);
  EXPECT_FLOAT_EQ(px[32 * 32], 0.0f);
  EXPECT_FLOAT_EQ(px[2 * 32 * 32], 0.0f);
  // A gray image replicated into the three planes.
  std::size_t darkIndex = 0;
  while (s.train.labels[darkIndex] != 1) ++darkIndex;
  EXPECT_FLOAT_EQ(s.train.image(darkIndex)[2 * 32 * 32 + 7], 10.0f / 255.0f);
}

TEST(ImageFolder, Errors) {
  TempDir dir;
  writeImage(dir / "a" / "1.png", gray(4, 4, 1));
  expectDataError([&] { loadImageFolder(dir.str(), 8); }, {dir.str(), "at least 2"});
  std::filesystem::create_directories(dir / "b");
  expectDataError([&] { loadImageFolder(dir.str(), 8); }, {(dir / "b").string(), "no images"});
  std::ofstream(dir / "b" / "broken.png") << "this is not a PNG";
  expectDataError([&] { loadImageFolder(dir.str(), 8); },
                  {(dir / "b" / "broken.png").string(), "cannot be decoded"});
  expectDataError([&] { loadImageFolder((dir / "absent").string(), 8); }, {"absent", "missing"});
}

// identity 7: 4 images, identity 3: 3, identity 5: 3, identity 9: 1. Each identity's images have
// their own gray level; the images are 20 wide, 30 high with a 5-pixel black band top and bottom
// that the centre crop removes.
void writeCelebaLayout(const TempDir& dir) {
  const std::vector<std::pair<int, int>> entries = {{7, 70}, {3, 30}, {7, 70}, {5, 50},
                                                    {9, 90}, {3, 30}, {7, 70}, {5, 50},
                                                    {3, 30}, {5, 50}, {7, 70}};
  std::ofstream list(dir / "identity_CelebA.txt");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    char name[16];
    std::snprintf(name, sizeof name, "%06zu.jpg", i + 1);
    list << name << " " << entries[i].first << "\r\n";
    cv::Mat m = bgr(30, 20, entries[i].second, entries[i].second, entries[i].second);
    m.rowRange(0, 5).setTo(cv::Scalar(0, 0, 0));
    m.rowRange(25, 30).setTo(cv::Scalar(0, 0, 0));
    writeImage(dir / "img_align_celeba" / name, m);
  }
}

TEST(Celeba, MostFrequentIdentitiesTiesBySmallerIdCentreCropped) {
  TempDir dir;
  writeCelebaLayout(dir);
  const SourceData s = loadCelebaIdentities(dir.str(), 2, 8);
  EXPECT_FALSE(s.hasSplit);
  EXPECT_EQ(s.train.classNames, (std::vector<std::string>{"identity 7", "identity 3"}));
  ASSERT_EQ(s.train.size(), 7u);
  EXPECT_EQ(s.train.channels, 3);
  EXPECT_EQ(s.train.height, 8);
  EXPECT_EQ(s.train.labels, (std::vector<std::int32_t>{0, 1, 0, 1, 0, 1, 0}));
  // The centre crop (rows 5..24) has no black band: every pixel close to the identity's level.
  for (std::size_t k = 0; k < s.train.imageSize(); ++k)
    ASSERT_NEAR(s.train.image(0)[k], 70.0f / 255.0f, 4.0f / 255.0f) << k;  // JPEG tolerance
  const SourceData three = loadCelebaIdentities(dir.str(), 3, 8);
  EXPECT_EQ(three.train.classNames[2], "identity 5");  // 3 and 5 tie at 3 images: 3 first
}

TEST(Celeba, LoadDatasetSplitsPerIdentity) {
  TempDir dir;
  writeCelebaLayout(dir);
  DatasetSpec spec;
  spec.source = "celeba:" + dir.str();
  spec.celebaIdentities = 3;
  spec.testFraction = 0.34;  // 10 images -> 3 test: one per identity (4*0.34, 3*0.34, 3*0.34)
  spec.imageSize = 4;
  const DataSplit s = loadDataset(spec);
  EXPECT_EQ(s.train.height, 4);
  ASSERT_EQ(s.test.size(), 3u);
  std::vector<std::int32_t> testLabels = s.test.labels;  // kept in source order
  std::sort(testLabels.begin(), testLabels.end());
  EXPECT_EQ(testLabels, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(s.train.size(), 7u);
}

TEST(Celeba, Errors) {
  TempDir dir;
  writeCelebaLayout(dir);
  std::filesystem::remove(dir / "img_align_celeba" / "000005.jpg");  // identity 9: not selected
  EXPECT_NO_THROW(loadCelebaIdentities(dir.str(), 2, 8));
  std::filesystem::remove(dir / "img_align_celeba" / "000003.jpg");
  expectDataError([&] { loadCelebaIdentities(dir.str(), 2, 8); },
                  {(dir / "img_align_celeba" / "000003.jpg").string(), "missing"});
  expectDataError([&] { loadCelebaIdentities(dir.str(), 5, 8); },
                  {(dir / "identity_CelebA.txt").string(), "4 identities", "5 requested"});
  std::ofstream(dir / "identity_CelebA.txt", std::ios::app) << "000012.jpg\n";
  expectDataError([&] { loadCelebaIdentities(dir.str(), 2, 8); },
                  {(dir / "identity_CelebA.txt").string(), "line 12"});
  std::filesystem::remove(dir / "identity_CelebA.txt");
  expectDataError([&] { loadCelebaIdentities(dir.str(), 2, 8); },
                  {(dir / "identity_CelebA.txt").string(), "missing"});
}

}  // namespace
}  // namespace paritylab::data
