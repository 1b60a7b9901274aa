#include "core/study/store/database_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/input/atomic_file.h"

namespace paritylab::study {
namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw input::FileWriteError(path + ": cannot write: " + std::strerror(error));
}

}  // namespace

void commitDatabaseFile(const std::string& built, const std::string& target) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> aside;  // (target's file, where it waits)
  const auto putBack = [&] {
    std::error_code ignored;
    for (const auto& [file, waiting] : aside) fs::rename(waiting, file, ignored);
  };
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string file = target + suffix;
    if (!fs::exists(fs::symlink_status(file))) continue;
    const std::string waiting = built + ".replaced" + suffix;
    if (::rename(file.c_str(), waiting.c_str()) != 0) {
      const int error = errno;
      putBack();
      fail(target, error);
    }
    aside.emplace_back(file, waiting);
  }
  if (::rename(built.c_str(), target.c_str()) != 0) {
    const int error = errno;
    putBack();
    fail(target, error);
  }
  std::error_code ignored;
  for (const auto& [file, waiting] : aside) fs::remove(waiting, ignored);
}

}  // namespace paritylab::study
