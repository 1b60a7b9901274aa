#pragma once
// Reading a file a user named (a study, a policy, a matrix): a directory, a missing file or a
// file too large for what it should be is refused with a message naming the path.

#include <cstdint>
#include <string>

namespace paritylab::input {

// The whole file. `what` says what the file should be ("study file"); refuses with InputError:
//   "PATH: no such file", "PATH: is a directory, not a study file",
//   "PATH: 2147483648 bytes, more than the 16777216 a study file may have", read errors.
std::string readTextFile(const std::string& path, const std::string& what, std::uint64_t maxBytes);

// Drops a leading UTF-8 byte-order mark (as some editors write).
void stripUtf8Bom(std::string& text);

}  // namespace paritylab::input
