#include "core/study/store/database_file.h"

#include <sys/stat.h>
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
  // mkstemp creates the file (O_EXCL): it is ours, and SQLite opens an empty file as a new
  // database, so the name is never freed for another process to take between two steps. Its
  // mode is SQLite's own default for a new database (mkstemp's 0600 would make the results
  // private).
  const int fd = ::mkstemp(name.data());
  if (fd < 0) fail(target, errno);
  const bool readable = ::fchmod(fd, 0644) == 0;
  const int error = errno;
  ::close(fd);
  path_ = name;
  if (!readable) {
    std::error_code ignored;
    fs::remove(path_, ignored);  // the empty file mkstemp just created for us
    fail(target, error);
  }
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
