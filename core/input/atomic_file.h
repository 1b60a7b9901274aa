#pragma once
// Writes a file whole or not at all. The content goes to a temporary file in the same directory
// ("<name>.tmp-XXXXXX"), which is flushed, synced and closed with every step checked, then renamed
// over the final name: a full disk or a killed process never leaves a partial file under the
// final name. Targets that exist and are not regular files (/dev/stdout, /dev/full, a pipe) are
// written in place, still checked after flush and close.

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/input/error.h"

namespace paritylab::input {

// "PATH: cannot write: <reason>" (reason from the OS, e.g. "No space left on device").
class FileWriteError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
};

// Calls write(stream) and commits; throws FileWriteError naming `path` when any step fails (the
// final file is then left untouched). Exceptions thrown by `write` remove the temporary file and
// propagate unchanged.
void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
// The same for content already in memory (bytes, e.g. an encoded PNG).
void writeFileAtomically(const std::string& path, std::string_view bytes);

}  // namespace paritylab::input
