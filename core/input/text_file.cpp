#include "core/input/text_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/input/number_input.h"

namespace paritylab::input {

void requireRegularFile(const std::string& path, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (!fs::exists(status)) throw InputError(path + ": no such file (expected a " + what + ")");
  if (fs::is_directory(status)) throw InputError(path + ": is a directory, not a " + what);
  if (!fs::is_regular_file(status))
    throw InputError(path + ": not a regular file (a pipe, device or socket), not a " + what);
}

std::string readTextFile(const std::string& path, const std::string& what, std::uint64_t maxBytes) {
  namespace fs = std::filesystem;
  requireRegularFile(path, what);
  std::error_code ec;
  const std::uint64_t size = fs::file_size(path, ec);
  if (!ec && size > maxBytes)
    throw InputError(path + ": " + std::to_string(size) + " bytes, more than the " +
                     std::to_string(maxBytes) + " a " + what + " may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open the " + what + ": " + std::strerror(errno));
  std::string text;
  if (!ec) text.reserve(std::size_t(size));
  // Read in chunks up to the limit (the file may grow while it is read).
  char chunk[1 << 16];
  while (text.size() <= maxBytes && (in.read(chunk, sizeof chunk) || in.gcount() > 0))
    text.append(chunk, std::size_t(in.gcount()));
  if (text.size() > maxBytes)
    throw InputError(path + ": more than the " + std::to_string(maxBytes) + " bytes a " + what +
                     " may have");
  if (in.bad()) throw InputError(path + ": read error in the " + what);
  return text;
}

void stripUtf8Bom(std::string& text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
}

}  // namespace paritylab::input
