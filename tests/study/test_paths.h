#pragma once
// A fresh temporary path per test process (removed first, with SQLite's -wal/-shm companions).

#include <unistd.h>

#include <filesystem>
#include <string>

namespace paritylab::study::testing {

inline std::string freshTempPath(const std::string& name) {
  namespace fs = std::filesystem;
  auto p = fs::temp_directory_path() /
           ("paritylab-study-test-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(p);
  fs::remove(p.string() + "-wal");
  fs::remove(p.string() + "-shm");
  return p.string();
}

}  // namespace paritylab::study::testing
