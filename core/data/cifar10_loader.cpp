#include "core/data/cifar10_loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/data/byte_reader.h"

namespace paritylab::data {
namespace {

constexpr int kSide = 32;
constexpr int kChannels = 3;
constexpr std::size_t kPixels = std::size_t(kChannels) * kSide * kSide;  // 3072
constexpr std::size_t kRecord = 1 + kPixels;                             // 3073
constexpr int kClasses = 10;
constexpr std::size_t kMaxRecords = 10000;  // per batch file, as the dataset ships them

Dataset emptyCifar(const std::vector<std::string>& names) {
  Dataset d;
  d.channels = kChannels;
  d.height = kSide;
  d.width = kSide;
  d.numClasses = kClasses;
  d.classNames = names;
  return d;
}

std::vector<std::string> readClassNames(const std::filesystem::path& dir) {
  std::vector<std::string> names = {"airplane", "automobile", "bird",  "cat",  "deer",
                                    "dog",      "frog",       "horse", "ship", "truck"};
  const std::filesystem::path meta = dir / "batches.meta.txt";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(meta, ec)) return names;
  std::ifstream in(meta);
  std::vector<std::string> read;
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) read.push_back(line);
  }
  if (read.size() != std::size_t(kClasses))
    throwDataError(meta.string(), "has " + std::to_string(read.size()) +
                                      " class names, expected 10 (one per line)");
  return read;
}

}  // namespace

void readCifar10Batch(const std::string& path, Dataset& out) {
  ByteReader in(path);
  std::vector<std::uint8_t> record(kRecord);
  std::size_t index = 0;
  for (;; ++index) {
    const std::size_t got = in.readSome(record.data(), kRecord);
    if (got == 0) break;
    // A batch holds 10,000 records: a larger file (or one that never ends) is refused before its
    // records are held, checked on the raw size before the first record is kept.
    const auto size = in.rawSize();
    if ((index == 0 && size && *size > kMaxRecords * kRecord) || index >= kMaxRecords) {
      in.fail((size ? std::to_string(*size) + " bytes: " : std::string()) + "more than the " +
              std::to_string(kMaxRecords) + " records (" + std::to_string(kMaxRecords * kRecord) +
              " bytes) a CIFAR-10 batch file holds");
    }
    if (got != kRecord)
      in.fail("truncated: record " + std::to_string(index) + " has " + std::to_string(got) +
              " of its 3073 bytes (1 label + 3072 pixels); file ends after " +
              std::to_string(in.bytesRead()) + " bytes");
    if (record[0] >= kClasses)
      in.fail("label " + std::to_string(record[0]) + " of record " + std::to_string(index) +
              " is out of range (10 classes)");
    out.labels.push_back(record[0]);
    const std::size_t base = out.images.size();
    out.images.resize(base + kPixels);
    for (std::size_t i = 0; i < kPixels; ++i)
      out.images[base + i] = float(record[1 + i]) * (1.0f / 255.0f);
  }
  if (index == 0) in.fail("is empty (no 3073-byte records)");
}

SourceData loadCifar10Directory(const std::string& dirName) {
  namespace fs = std::filesystem;
  fs::path dir(dirName);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throwDataError(dirName, "missing (no such directory)");
  if (!fs::exists(dir / "test_batch.bin", ec) && fs::is_directory(dir / "cifar-10-batches-bin", ec))
    dir /= "cifar-10-batches-bin";
  const std::vector<std::string> names = readClassNames(dir);
  SourceData s;
  s.train = emptyCifar(names);
  s.test = emptyCifar(names);
  // Reserve for the records the files can hold (not a fixed 50000: a small or truncated set must
  // not reserve 600 MB); compressed files just grow the buffer as they are read.
  std::uintmax_t bytes = 0;
  for (int b = 1; b <= 5; ++b) {
    const auto size = fs::file_size(dir / ("data_batch_" + std::to_string(b) + ".bin"), ec);
    if (!ec) bytes += size;  // a missing file is reported when it is read
  }
  s.train.images.reserve(std::min<std::uintmax_t>(bytes / kRecord, 50000) * kPixels);
  for (int b = 1; b <= 5; ++b)
    readCifar10Batch((dir / ("data_batch_" + std::to_string(b) + ".bin")).string(), s.train);
  readCifar10Batch((dir / "test_batch.bin").string(), s.test);
  s.hasSplit = true;
  return s;
}

}  // namespace paritylab::data
