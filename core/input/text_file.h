#pragma once
// Reading a file a user named (a study, a policy, a matrix): a directory, a pipe or device, a
// missing file or a file too large for what it should be is refused with a message naming the
// path.

#include <cstdint>
#include <string>

namespace paritylab::input {

// The whole file. `what` says what the file should be ("study file"); refuses with InputError:
//   "PATH: no such file", "PATH: is a directory, not a study file",
//   "PATH: 2147483648 bytes, more than the 16777216 a study file may have", read errors.
std::string readTextFile(const std::string& path, const std::string& what, std::uint64_t maxBytes);

// Throws InputError unless `path` is a regular file (`what` says what it should be): "PATH: no such
// file (expected a study file)", "PATH: is a directory, not a study file", "PATH: not a regular
// file (a pipe, device or socket), not a study file". Reading a pipe nobody writes to would wait
// forever, and a device such as /dev/zero never ends.
void requireRegularFile(const std::string& path, const std::string& what);

// Drops a leading UTF-8 byte-order mark (as some editors write).
void stripUtf8Bom(std::string& text);

}  // namespace paritylab::input
