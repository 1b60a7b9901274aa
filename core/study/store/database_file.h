#pragma once
// Putting a database built beside its target in place, for merge and the app's import alike.

#include <string>

namespace paritylab::study {

// Puts the complete, closed SQLite database `built` (a file beside `target`, no -wal left) in
// place of `target` with one rename. The target's own -wal and -shm files are moved aside first
// (a stale write-ahead log must never meet the new file) and put back if the rename fails, so a
// failure leaves the old database whole; they are deleted only once the new file is in place.
// Replacing an existing target is the caller's decision (a confirmation, or a file the caller
// owns). Throws input::FileWriteError naming `target`.
void commitDatabaseFile(const std::string& built, const std::string& target);

}  // namespace paritylab::study
