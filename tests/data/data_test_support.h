#pragma once
// Test helpers: a unique temporary directory removed on destruction, and writers for the small
// dataset files the loader tests build for themselves.

#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/data/dataset.h"

namespace paritylab::data::testing {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name = std::string("paritylab-data-") + (info ? info->name() : "test") + "-" +
                             std::to_string(::getpid()) + "-" + std::to_string(counter++);
    path_ = fs::temp_directory_path() / name;
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

using Bytes = std::vector<std::uint8_t>;

inline void appendBigEndian32(Bytes& b, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) b.push_back(std::uint8_t(v >> shift));
}

inline void writeFile(const fs::path& p, const Bytes& bytes, bool gzip = false) {
  if (gzip) {
    gzFile f = gzopen(p.string().c_str(), "wb");
    ASSERT_NE(f, nullptr);
    if (!bytes.empty()) gzwrite(f, bytes.data(), unsigned(bytes.size()));
    gzclose(f);
  } else {
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  }
}

inline Bytes readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// IDX image file: `count` images of rows x cols, pixel(i, k) = (i * 7 + k) % 256.
inline Bytes idxImages(std::uint32_t count, std::uint32_t rows, std::uint32_t cols) {
  Bytes b;
  appendBigEndian32(b, 0x00000803);
  appendBigEndian32(b, count);
  appendBigEndian32(b, rows);
  appendBigEndian32(b, cols);
  for (std::uint32_t i = 0; i < count; ++i)
    for (std::uint32_t k = 0; k < rows * cols; ++k) b.push_back(std::uint8_t((i * 7 + k) % 256));
  return b;
}

inline Bytes idxLabels(const std::vector<std::uint8_t>& labels) {
  Bytes b;
  appendBigEndian32(b, 0x00000801);
  appendBigEndian32(b, std::uint32_t(labels.size()));
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

// Runs `f`, expecting a DataError whose message contains every one of `parts`.
inline void expectDataError(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no DataError thrown";
  } catch (const DataError& e) {
    const std::string message = e.what();
    for (const std::string& part : parts)
      EXPECT_NE(message.find(part), std::string::npos)
          << "message \"" << message << "\" does not contain \"" << part << "\"";
  }
}

}  // namespace paritylab::data::testing
