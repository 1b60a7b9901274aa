#include "core/data/byte_reader.h"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "core/data/dataset.h"

namespace paritylab::data {

void throwDataError(const std::string& path, const std::string& what) {
  throw DataError(path + ": " + what);
}

std::uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  return std::uint64_t(pages) * std::uint64_t(pageSize);
}

std::string gibibytes(std::uint64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f GiB", double(bytes) / double(1ULL << 30));
  return buffer;
}

ByteReader::ByteReader(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) throwDataError(path_, "missing (no such file)");
  if (std::filesystem::is_directory(path_, ec)) throwDataError(path_, "is a directory, not a file");
  // A pipe nobody writes to would block forever, a device such as /dev/zero never ends.
  if (!std::filesystem::is_regular_file(path_, ec))
    throwDataError(path_, "not a regular file (a pipe, device or socket)");
  gzFile f = gzopen(path_.c_str(), "rb");
  if (!f) throwDataError(path_, std::string("cannot open: ") + std::strerror(errno));
  gzbuffer(f, 1u << 18);
  file_ = f;
}

ByteReader::~ByteReader() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

void ByteReader::fail(const std::string& what) const {
  throwDataError(path_, what);
}

std::size_t ByteReader::readSome(void* out, std::size_t bytes) {
  auto* dst = static_cast<unsigned char*>(out);
  std::size_t total = 0;
  while (total < bytes) {
    const auto chunk = unsigned(std::min<std::size_t>(bytes - total, 1u << 30));
    const int got = gzread(static_cast<gzFile>(file_), dst + total, chunk);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(static_cast<gzFile>(file_), &code);
      fail(std::string("corrupt or unreadable (zlib: ") + (message ? message : "unknown error") +
           ") after " + std::to_string(bytesRead_ + total) + " bytes");
    }
    if (got == 0) break;
    total += std::size_t(got);
  }
  // A gzip stream cut short reads as a short read plus Z_BUF_ERROR: report it as truncation.
  if (total < bytes) {
    int code = Z_OK;
    gzerror(static_cast<gzFile>(file_), &code);
    if (code != Z_OK && code != Z_BUF_ERROR)
      fail("corrupt compressed data after " + std::to_string(bytesRead_ + total) + " bytes");
  }
  bytesRead_ += total;
  return total;
}

void ByteReader::readExact(void* out, std::size_t bytes, const std::string& what) {
  const std::uint64_t before = bytesRead_;
  const std::size_t got = readSome(out, bytes);
  if (got != bytes)
    fail("truncated: expected " + what + " (" + std::to_string(bytes) + " bytes at offset " +
         std::to_string(before) + "), file ends after " + std::to_string(before + got) + " bytes");
}

std::uint32_t ByteReader::readBigEndian32(const std::string& what) {
  unsigned char b[4];
  readExact(b, 4, what);
  return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) |
         std::uint32_t(b[3]);
}

std::optional<std::uint64_t> ByteReader::rawSize() const {
  if (gzdirect(static_cast<gzFile>(file_)) != 1) return std::nullopt;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_, ec);
  if (ec) return std::nullopt;
  return std::uint64_t(size);
}

bool ByteReader::atEnd() {
  unsigned char b;
  if (readSome(&b, 1) == 0) return true;
  --bytesRead_;
  gzungetc(b, static_cast<gzFile>(file_));
  return false;
}

}  // namespace paritylab::data
