#include "core/input/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

namespace paritylab::input {
namespace {

[[noreturn]] void fail(const std::string& path, int error) {
  throw FileWriteError(
      path + ": cannot write: " + (error ? std::strerror(error) : std::string("write failed")));
}

// True when `path` exists and is not a regular file (a device, a pipe, a terminal).
bool isSpecialFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

// Writes through `out`, then flushes and closes it; the errno of the first failure or 0.
int writeAndClose(std::ofstream& out, const std::function<void(std::ostream&)>& write) {
  errno = 0;
  write(out);
  out.flush();
  if (!out) return errno ? errno : EIO;
  out.close();
  if (out.fail()) return errno ? errno : EIO;
  return 0;
}

// A new temporary file beside `path` (same directory, so the rename is atomic), created 0666
// minus the umask as the final file would be.
std::string makeTemporary(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0;; ++attempt) {
    std::string name =
        path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST || attempt > 100) fail(path, errno);
  }
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (std::filesystem::is_directory(path)) throw FileWriteError(path + ": is a directory");
  if (isSpecialFile(path)) {
    std::ofstream out(path, std::ios::binary);
    if (!out) fail(path, errno);
    if (int error = writeAndClose(out, write)) fail(path, error);
    return;
  }
  const std::string temporary = makeTemporary(path);
  struct RemoveUnlessCommitted {
    const std::string& file;
    bool committed = false;
    ~RemoveUnlessCommitted() {
      if (!committed) ::unlink(file.c_str());
    }
  } guard{temporary};
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (!out) fail(path, errno);
  if (int error = writeAndClose(out, write)) fail(path, error);
  const int fd = ::open(temporary.c_str(), O_RDONLY);
  if (fd < 0) fail(path, errno);
  const int synced = ::fsync(fd);
  const int syncError = errno;
  ::close(fd);
  if (synced != 0) fail(path, syncError);
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail(path, errno);
  guard.committed = true;
}

void writeFileAtomically(const std::string& path, std::string_view bytes) {
  writeFileAtomically(
      path, [bytes](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
}

}  // namespace paritylab::input
