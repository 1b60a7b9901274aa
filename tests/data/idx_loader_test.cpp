// MNIST/Fashion-MNIST IDX loading from files the test writes itself (raw and
// gzip), and the errors for missing, truncated, corrupt and inconsistent files, which must name
// the file and what is wrong.

#include "core/data/idx_loader.h"

#include <gtest/gtest.h>

#include "core/data/byte_reader.h"
#include "data_test_support.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

// A tiny MNIST-style directory: 12 train and 5 test images of 4x3 pixels.
void writeIdxSet(const TempDir& dir, bool gzip, const std::string& dot = "-") {
  const std::string ext = gzip ? ".gz" : "";
  testing::writeFile(dir / ("train-images" + dot + "idx3-ubyte" + ext),
                     testing::idxImages(12, 4, 3), gzip);
  testing::writeFile(dir / ("train-labels" + dot + "idx1-ubyte" + ext),
                     testing::idxLabels({9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0}), gzip);
  testing::writeFile(dir / ("t10k-images" + dot + "idx3-ubyte" + ext), testing::idxImages(5, 4, 3),
                     gzip);
  testing::writeFile(dir / ("t10k-labels" + dot + "idx1-ubyte" + ext),
                     testing::idxLabels({3, 1, 4, 1, 5}), gzip);
}

void expectTinySet(const SourceData& s) {
  ASSERT_EQ(s.train.size(), 12u);
  ASSERT_EQ(s.test.size(), 5u);
  EXPECT_EQ(s.train.height, 4);
  EXPECT_EQ(s.train.width, 3);
  EXPECT_EQ(s.train.channels, 1);
  EXPECT_EQ(s.train.labels[0], 9);
  EXPECT_EQ(s.test.labels, (std::vector<std::int32_t>{3, 1, 4, 1, 5}));
  // pixel(i, k) = (i * 7 + k) % 256, scaled to [0, 1].
  EXPECT_FLOAT_EQ(s.train.image(2)[5], float((2 * 7 + 5) % 256) / 255.0f);
  EXPECT_FLOAT_EQ(s.test.image(4)[11], float(4 * 7 + 11) / 255.0f);
}

TEST(IdxLoader, ReadsRawFiles) {
  TempDir dir;
  writeIdxSet(dir, false);
  const SourceData s = loadIdxDirectory(dir.str(), IdxFlavor::Mnist);
  expectTinySet(s);
  EXPECT_EQ(s.train.classNames[3], "3");
  EXPECT_FALSE(s.train.flipPreservesLabel);  // digits
}

TEST(IdxLoader, ReadsGzipFilesAndTheDottedSpelling) {
  TempDir dir;
  writeIdxSet(dir, true);
  const SourceData s = loadIdxDirectory(dir.str(), IdxFlavor::FashionMnist);
  expectTinySet(s);
  EXPECT_EQ(s.train.classNames[0], "T-shirt/top");
  EXPECT_EQ(s.train.classNames[9], "Ankle boot");
  TempDir dotted;
  writeIdxSet(dotted, false, ".");
  expectTinySet(loadIdxDirectory(dotted.str(), IdxFlavor::Mnist));
}

TEST(IdxLoader, LoadDatasetParsesMnistAndFashionSources) {
  TempDir dir;
  writeIdxSet(dir, true);
  DatasetSpec spec;
  spec.source = "mnist:" + dir.str();
  spec.normalize = false;
  const DataSplit s = loadDataset(spec);
  EXPECT_EQ(s.train.size(), 12u);
  EXPECT_EQ(s.test.size(), 5u);
  spec.source = "fashion-mnist:" + dir.str();
  EXPECT_EQ(loadDataset(spec).train.classNames[1], "Trouser");
  spec.trainSize = 13;
  expectDataError([&] { loadDataset(spec); }, {"trainSize = 13", "12 images available"});
}

TEST(IdxLoader, MissingFileIsNamed) {
  TempDir dir;
  writeIdxSet(dir, false);
  std::filesystem::remove(dir / "t10k-labels-idx1-ubyte");
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "t10k-labels-idx1-ubyte").string(), "missing"});
  expectDataError([&] { loadIdxDirectory((dir / "nowhere").string(), IdxFlavor::Mnist); },
                  {"nowhere", "missing"});
}

TEST(IdxLoader, TruncatedImagesAreReportedWithTheFileName) {
  for (bool gzip : {false, true}) {
    TempDir dir;
    writeIdxSet(dir, gzip);
    const std::string ext = gzip ? ".gz" : "";
    testing::Bytes images = testing::idxImages(12, 4, 3);
    images.resize(images.size() - 7);  // the last image is cut short
    const auto path = dir / ("train-images-idx3-ubyte" + ext);
    testing::writeFile(path, images, gzip);
    expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                    {path.string(), "truncated", "12 images of 4x3"});
  }
}

TEST(IdxLoader, TruncatedHeaderAndLabels) {
  TempDir dir;
  writeIdxSet(dir, false);
  testing::writeFile(dir / "train-images-idx3-ubyte", {0, 0, 8, 3, 0, 0});
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "train-images-idx3-ubyte").string(), "truncated", "image count"});
  writeIdxSet(dir, false);
  testing::Bytes labels = testing::idxLabels({9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0});
  labels.resize(labels.size() - 1);
  testing::writeFile(dir / "train-labels-idx1-ubyte", labels);
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "train-labels-idx1-ubyte").string(), "truncated", "12 labels"});
}

TEST(IdxLoader, CutGzipStreamIsTruncation) {
  TempDir dir;
  writeIdxSet(dir, true);
  const auto path = dir / "train-images-idx3-ubyte.gz";
  testing::Bytes compressed = testing::readFile(path);
  compressed.resize(compressed.size() / 2);
  testing::writeFile(path, compressed);
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); }, {path.string()});
}

TEST(IdxLoader, BadMagicNumbersSwappedFilesAndExtraBytes) {
  TempDir dir;
  writeIdxSet(dir, false);
  // Labels where images belong.
  testing::writeFile(dir / "train-images-idx3-ubyte", testing::idxLabels({1, 2}));
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "train-images-idx3-ubyte").string(), "bad magic number 0x00000801"});
  writeIdxSet(dir, false);
  testing::writeFile(dir / "t10k-labels-idx1-ubyte", testing::idxImages(5, 4, 3));
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "t10k-labels-idx1-ubyte").string(), "bad magic number 0x00000803"});
  writeIdxSet(dir, false);
  testing::Bytes images = testing::idxImages(12, 4, 3);
  images.push_back(0);
  testing::writeFile(dir / "train-images-idx3-ubyte", images);
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "train-images-idx3-ubyte").string(), "extra bytes"});
}

TEST(IdxLoader, CountMismatchZeroDimensionsAndLabelRange) {
  TempDir dir;
  writeIdxSet(dir, false);
  testing::writeFile(dir / "t10k-labels-idx1-ubyte", testing::idxLabels({1, 2, 3}));
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "t10k-labels-idx1-ubyte").string(), "3 labels", "5 images"});
  writeIdxSet(dir, false);
  testing::writeFile(dir / "t10k-images-idx3-ubyte", testing::idxImages(5, 0, 3));
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {(dir / "t10k-images-idx3-ubyte").string(), "bad image dimensions 0x3"});
  writeIdxSet(dir, false);
  testing::writeFile(dir / "t10k-labels-idx1-ubyte", testing::idxLabels({3, 1, 10, 1, 5}));
  expectDataError(
      [&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
      {(dir / "t10k-labels-idx1-ubyte").string(), "label 10 at index 2", "out of range"});
}

// A gzip file of a few bytes can declare (and a few MB can hold) gigabytes of images: what the
// header declares is compared with this machine's memory before anything is allocated, and the
// refusal names the file and the figure.
TEST(IdxLoader, AHeaderDeclaringMoreThanTheMachinesMemoryIsRefusedBeforeReading) {
  const std::uint64_t needs = std::uint64_t(10'000'000) * 40 * 40 * sizeof(float);  // 59.6 GiB
  if (physicalMemoryBytes() == 0 || physicalMemoryBytes() >= needs)
    GTEST_SKIP() << "this machine has the memory for it";
  TempDir dir;
  writeIdxSet(dir, true);
  testing::Bytes header;
  testing::appendBigEndian32(header, 0x00000803);
  testing::appendBigEndian32(header, 10'000'000);
  testing::appendBigEndian32(header, 40);
  testing::appendBigEndian32(header, 40);
  header.resize(header.size() + 4096, 0);
  const auto path = dir / "train-images-idx3-ubyte.gz";
  testing::writeFile(path, header, true);
  expectDataError([&] { loadIdxDirectory(dir.str(), IdxFlavor::Mnist); },
                  {path.string(), "10000000 images of 40x40", "needs 59.6 GiB of memory",
                   "more than this machine's"});
}

}  // namespace
}  // namespace paritylab::data
