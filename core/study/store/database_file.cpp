#include "core/study/store/database_file.h"

#include <unistd.h>

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

DatabaseBuild::DatabaseBuild(const std::string& target) : target_(target) {
  namespace fs = std::filesystem;
  const fs::path where = fs::absolute(fs::path(target));
  std::string name =
      (where.parent_path() / ("." + where.filename().string() + ".building-XXXXXX")).string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(target, errno);
  ::close(fd);
  std::error_code ignored;
  fs::remove(name, ignored);  // the name stays ours by chance alone: SQLite creates the file
  path_ = name;
}

DatabaseBuild::~DatabaseBuild() {
  if (committed_) return;
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(path_ + suffix, ignored);
}

void DatabaseBuild::commit() {
  commitDatabaseFile(path_, target_);
  committed_ = true;
}

}  // namespace paritylab::study
