#include "core/data/idx_loader.h"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "core/data/byte_reader.h"
#include "core/input/input_limits.h"

namespace paritylab::data {
namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;  // unsigned byte, 3 dimensions
constexpr std::uint32_t kLabelsMagic = 0x00000801;  // unsigned byte, 1 dimension
constexpr std::uint32_t kMaxSide = 4096;
constexpr std::uint64_t kMaxPixels = std::uint64_t(1) << 34;  // refuse absurd headers (16 GiB)

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// dir/<stem> with any of the usual spellings, raw or .gz.
std::string findIdxFile(const std::string& dir, const std::string& split, const std::string& kind,
                        const std::string& dims) {
  namespace fs = std::filesystem;
  const std::string dash = split + "-" + kind + "-" + dims + "-ubyte";
  const std::string dot = split + "-" + kind + "." + dims + "-ubyte";
  for (const std::string& stem : {dash, dot})
    for (const char* ext : {"", ".gz"}) {
      const fs::path p = fs::path(dir) / (stem + ext);
      std::error_code ec;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
  throwDataError((fs::path(dir) / dash).string() + "[.gz]", "missing (looked for " + dash + ", " +
                                                                dash + ".gz, " + dot + ", " + dot +
                                                                ".gz in " + dir + ")");
}

// "truncated: header says ..., the file has 20 of the 160 bytes this needs" (or extra bytes).
std::string sizeMismatch(std::uint64_t size, std::uint64_t needed, const std::string& header) {
  return std::string(size < needed ? "truncated: " : "has extra bytes: ") + header +
         ", the file has " + std::to_string(size) + " of the " + std::to_string(needed) +
         " bytes this needs";
}

// `count` bytes of `what`, read in chunks: memory grows with the bytes actually present.
std::vector<std::uint8_t> readChunked(ByteReader& in, std::uint64_t count,
                                      const std::string& what) {
  constexpr std::uint64_t kChunk = std::uint64_t(1) << 20;
  std::vector<std::uint8_t> bytes;
  while (bytes.size() < count) {
    const std::size_t before = bytes.size();
    const auto n = std::size_t(std::min<std::uint64_t>(kChunk, count - before));
    bytes.resize(before + n);
    in.readExact(bytes.data() + before, n, what);
  }
  return bytes;
}

}  // namespace

std::vector<std::string> idxClassNames(IdxFlavor flavor) {
  if (flavor == IdxFlavor::FashionMnist)
    return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
            "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"};
}

Dataset readIdxPair(const std::string& imagesPath, const std::string& labelsPath,
                    const std::vector<std::string>& classNames) {
  ByteReader images(imagesPath);
  const std::uint32_t imagesMagic = images.readBigEndian32("the magic number");
  if (imagesMagic != kImagesMagic)
    images.fail("bad magic number " + hex(imagesMagic) + " (an IDX image file starts with " +
                hex(kImagesMagic) + ")");
  const std::uint32_t count = images.readBigEndian32("the image count");
  const std::uint32_t rows = images.readBigEndian32("the row count");
  const std::uint32_t cols = images.readBigEndian32("the column count");
  if (rows == 0 || cols == 0 || rows > kMaxSide || cols > kMaxSide)
    images.fail("bad image dimensions " + std::to_string(rows) + "x" + std::to_string(cols));
  const std::uint64_t pixels = std::uint64_t(count) * rows * cols;
  const std::string what = std::to_string(count) + " images of " + std::to_string(rows) + "x" +
                           std::to_string(cols) + " pixels (" + std::to_string(pixels) + " bytes)";
  if (pixels > kMaxPixels || count > std::uint64_t(input::kMaxDatasetImages))
    images.fail("header claims an implausible " + what + " (at most " +
                std::to_string(input::kMaxDatasetImages) + " images)");
  // What the header declares, as floats, must fit in this machine's memory: checked before
  // anything is allocated (a gzip file of a few MB can declare, and hold, gigabytes of zeros).
  const std::uint64_t needs = pixels * sizeof(float);
  if (const std::uint64_t memory = physicalMemoryBytes(); memory > 0 && needs > memory)
    images.fail("header declares " + what + ", which needs " + gibibytes(needs) +
                " of memory as floats, more than this machine's " + gibibytes(memory));
  // A raw file must hold exactly what its header declares: checked before allocating (a 16-byte
  // file claiming 2^30 images must not reserve gigabytes). Compressed files are read in chunks
  // and grow their buffers only as data arrives.
  if (const auto size = images.rawSize(); size && *size != 16 + pixels)
    images.fail(sizeMismatch(*size, 16 + pixels, "header says " + what));
  ByteReader labels(labelsPath);
  const std::uint32_t labelsMagic = labels.readBigEndian32("the magic number");
  if (labelsMagic != kLabelsMagic)
    labels.fail("bad magic number " + hex(labelsMagic) + " (an IDX label file starts with " +
                hex(kLabelsMagic) + ")");
  const std::uint32_t labelCount = labels.readBigEndian32("the label count");
  if (labelCount != count)
    labels.fail("has " + std::to_string(labelCount) + " labels but " + imagesPath + " has " +
                std::to_string(count) + " images");

  Dataset d;
  d.channels = 1;
  d.height = int(rows);
  d.width = int(cols);
  d.numClasses = int(classNames.size());
  d.classNames = classNames;

  if (const auto size = labels.rawSize(); size && *size != 8 + std::uint64_t(count))
    labels.fail(sizeMismatch(*size, 8 + std::uint64_t(count),
                             "header says " + std::to_string(count) + " labels"));
  const std::vector<std::uint8_t> bytes =
      readChunked(labels, count, std::to_string(count) + " labels");
  if (!labels.atEnd())
    labels.fail("has extra bytes after the " + std::to_string(count) +
                " labels its header declares");
  d.labels.resize(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (bytes[i] >= classNames.size())
      labels.fail("label " + std::to_string(bytes[i]) + " at index " + std::to_string(i) +
                  " is out of range (" + std::to_string(classNames.size()) + " classes)");
    d.labels[i] = bytes[i];
  }

  // Stream the pixels in chunks and convert as we go: no second full-size byte buffer, and the
  // float buffer grows with the data actually read.
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  std::vector<std::uint8_t> chunk(std::min<std::uint64_t>(kChunk, pixels));
  if (images.rawSize()) d.images.reserve(pixels);  // verified against the file's size
  for (std::uint64_t done = 0; done < pixels;) {
    const std::size_t n = std::size_t(std::min<std::uint64_t>(kChunk, pixels - done));
    const std::size_t got = images.readSome(chunk.data(), n);
    if (got != n)
      images.fail("truncated: header says " + what + ", file ends after " +
                  std::to_string(images.bytesRead()) + " bytes");
    d.images.resize(done + n);
    float* out = d.images.data() + done;
    for (std::size_t i = 0; i < n; ++i) out[i] = float(chunk[i]) * (1.0f / 255.0f);
    done += n;
  }
  if (!images.atEnd()) images.fail("has extra bytes after the " + what + " its header declares");
  return d;
}

SourceData loadIdxDirectory(const std::string& dir, IdxFlavor flavor) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throwDataError(dir, "missing (no such directory of IDX files)");
  const std::vector<std::string> names = idxClassNames(flavor);
  SourceData s;
  s.train = readIdxPair(findIdxFile(dir, "train", "images", "idx3"),
                        findIdxFile(dir, "train", "labels", "idx1"), names);
  s.test = readIdxPair(findIdxFile(dir, "t10k", "images", "idx3"),
                       findIdxFile(dir, "t10k", "labels", "idx1"), names);
  if (s.train.height != s.test.height || s.train.width != s.test.width)
    throwDataError(dir, "train images are " + std::to_string(s.train.height) + "x" +
                            std::to_string(s.train.width) + " but test images are " +
                            std::to_string(s.test.height) + "x" + std::to_string(s.test.width));
  const bool digits = flavor == IdxFlavor::Mnist;
  s.train.flipPreservesLabel = s.test.flipPreservesLabel = !digits;
  s.hasSplit = true;
  return s;
}

}  // namespace paritylab::data
