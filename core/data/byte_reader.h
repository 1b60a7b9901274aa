#pragma once
// Streaming reader for dataset files, gzip-compressed or raw (zlib's gzread reads both, so callers
// never care which). Every failure is a DataError naming the file.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace paritylab::data {

class ByteReader {
 public:
  // Throws DataError "<path>: cannot open: <reason>" when the file is missing or unreadable.
  explicit ByteReader(std::string path);
  ~ByteReader();
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  // Reads up to `bytes` bytes; returns how many were read (fewer only at the end of the file).
  // Throws DataError on corrupt compressed data or an I/O error.
  std::size_t readSome(void* out, std::size_t bytes);
  // Reads exactly `bytes` bytes of `what`; otherwise throws
  // "<path>: truncated: expected <what>, file ends after <n> bytes".
  void readExact(void* out, std::size_t bytes, const std::string& what);
  std::uint32_t readBigEndian32(const std::string& what);
  // True when nothing is left (reads one byte to find out).
  bool atEnd();

  // The file's size when it is stored raw (not gzip): what a header's counts can be checked
  // against before anything is allocated. nullopt for compressed files (their size says nothing
  // about the data's); call after the first read.
  std::optional<std::uint64_t> rawSize() const;

  std::uint64_t bytesRead() const { return bytesRead_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::uint64_t bytesRead_ = 0;
};

// This machine's physical memory in bytes (0 if unknown): what a file's declared contents are
// checked against before they are allocated.
std::uint64_t physicalMemoryBytes();

// "1.5 GiB" (bytes in GiB, one decimal).
std::string gibibytes(std::uint64_t bytes);

// "<path>: <what>" as a DataError.
[[noreturn]] void throwDataError(const std::string& path, const std::string& what);

}  // namespace paritylab::data
