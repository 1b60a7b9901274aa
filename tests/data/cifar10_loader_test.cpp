// CIFAR-10 binary batches written by the test (label byte + 3072 pixel bytes,
// R then G then B planes), class names from batches.meta.txt, and truncated/corrupt/missing files.

#include "core/data/cifar10_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data_test_support.h"
#include "tests/support/child_with_time_limit.h"

namespace paritylab::data {
namespace {

using testing::expectDataError;
using testing::TempDir;

// `n` records; record r has label labels[r % size] and pixel byte k = (r + k) % 251.
testing::Bytes cifarBatch(int n, const std::vector<std::uint8_t>& labels) {
  testing::Bytes b;
  for (int r = 0; r < n; ++r) {
    b.push_back(labels[std::size_t(r) % labels.size()]);
    for (int k = 0; k < 3072; ++k) b.push_back(std::uint8_t((r + k) % 251));
  }
  return b;
}

void writeCifarSet(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  for (int b = 1; b <= 5; ++b)
    testing::writeFile(dir / ("data_batch_" + std::to_string(b) + ".bin"),
                       cifarBatch(4, {std::uint8_t(b), 0, 9, 5}));
  testing::writeFile(dir / "test_batch.bin", cifarBatch(3, {7, 2, 1}));
}

TEST(Cifar10Loader, ReadsBatchesInOrderWithPlanarRgb) {
  TempDir dir;
  writeCifarSet(dir.path());
  const SourceData s = loadCifar10Directory(dir.str());
  ASSERT_EQ(s.train.size(), 20u);
  ASSERT_EQ(s.test.size(), 3u);
  EXPECT_EQ(s.train.channels, 3);
  EXPECT_EQ(s.train.height, 32);
  EXPECT_EQ(s.train.width, 32);
  EXPECT_EQ(s.train.labels[0], 1);  // first record of data_batch_1
  EXPECT_EQ(s.train.labels[4], 2);  // first record of data_batch_2
  EXPECT_EQ(s.test.labels, (std::vector<std::int32_t>{7, 2, 1}));
  EXPECT_EQ(s.train.classNames[0], "airplane");
  EXPECT_EQ(s.train.classNames[9], "truck");
  // Record 2 of test_batch: green plane starts at byte 1024, blue at 2048 (same layout as ours).
  EXPECT_FLOAT_EQ(s.test.image(2)[1024 + 5], float((2 + 1024 + 5) % 251) / 255.0f);
  EXPECT_FLOAT_EQ(s.test.image(2)[3071], float((2 + 3071) % 251) / 255.0f);
}

TEST(Cifar10Loader, ReadsMetaNamesAndTheBatchesSubfolderViaLoadDataset) {
  TempDir dir;
  const auto inner = dir / "cifar-10-batches-bin";
  writeCifarSet(inner);
  std::ofstream(inner / "batches.meta.txt") << "a0\na1\na2\na3\na4\na5\na6\na7\na8\na9\n\n";
  DatasetSpec spec;
  spec.source = "cifar10:" + dir.str();
  const DataSplit s = loadDataset(spec);
  EXPECT_EQ(s.train.size(), 20u);
  EXPECT_EQ(s.train.classNames[3], "a3");
  EXPECT_EQ(s.train.channelMean.size(), 3u);
  EXPECT_TRUE(s.train.flipPreservesLabel);
}

TEST(Cifar10Loader, TruncatedRecordIsNamed) {
  TempDir dir;
  writeCifarSet(dir.path());
  testing::Bytes b = cifarBatch(4, {1});
  b.resize(b.size() - 100);
  testing::writeFile(dir / "data_batch_3.bin", b);
  expectDataError([&] { loadCifar10Directory(dir.str()); },
                  {(dir / "data_batch_3.bin").string(), "truncated", "record 3"});
}

TEST(Cifar10Loader, MissingEmptyBadLabelAndBadMeta) {
  TempDir dir;
  writeCifarSet(dir.path());
  std::filesystem::remove(dir / "data_batch_5.bin");
  expectDataError([&] { loadCifar10Directory(dir.str()); },
                  {(dir / "data_batch_5.bin").string(), "missing"});
  writeCifarSet(dir.path());
  testing::writeFile(dir / "test_batch.bin", {});
  expectDataError([&] { loadCifar10Directory(dir.str()); },
                  {(dir / "test_batch.bin").string(), "empty"});
  writeCifarSet(dir.path());
  testing::writeFile(dir / "test_batch.bin", cifarBatch(2, {3, 10}));
  expectDataError([&] { loadCifar10Directory(dir.str()); },
                  {(dir / "test_batch.bin").string(), "label 10 of record 1"});
  writeCifarSet(dir.path());
  std::ofstream(dir / "batches.meta.txt") << "cat\ndog\n";
  expectDataError([&] { loadCifar10Directory(dir.str()); },
                  {(dir / "batches.meta.txt").string(), "2 class names"});
}

// A batch that is a pipe (nobody writing: waits forever) or a device (/dev/zero: grows memory
// until the OOM killer) is refused before anything is read. In a child process: a hang fails the
// test after 10 s.
TEST(Cifar10Loader, PipesAndDevicesAreRefusedBeforeReading) {
  TempDir dir;
  writeCifarSet(dir.path());
  const std::string fifo = (dir / "data_batch_3.bin").string();
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string zero = (dir / "zero").string();
  std::filesystem::create_symlink("/dev/zero", zero);
  for (const std::string& path : {fifo, zero}) {
    const auto outcome = paritylab::testing::runInChild([&path] {
      try {
        Dataset d;
        readCifar10Batch(path, d);
      } catch (const DataError& e) {
        return std::string(e.what()) == path + ": not a regular file (a pipe, device or socket)";
      }
      return false;
    });
    EXPECT_NE(outcome, paritylab::testing::ChildOutcome::TimedOut)
        << path << ": still reading after 10 s";
    EXPECT_EQ(outcome, paritylab::testing::ChildOutcome::Passed) << path;
  }
}

// A batch file holds 10,000 records; a larger one (a 20 GB sparse file read to its end grew
// memory until the OOM killer) is refused by its size before any record is kept.
TEST(Cifar10Loader, ABatchOfMoreThanTenThousandRecordsIsRefusedBeforeReading) {
  TempDir dir;
  const std::string path = (dir / "data_batch_1.bin").string();
  testing::writeFile(path, cifarBatch(1, {3}));
  std::filesystem::resize_file(path, 10001 * std::uintmax_t(3073));  // sparse: zeros
  Dataset d;
  expectDataError([&] { readCifar10Batch(path, d); },
                  {path, "30733073 bytes: more than the 10000 records", "CIFAR-10 batch file"});
  EXPECT_TRUE(d.images.empty());
}

}  // namespace
}  // namespace paritylab::data
