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

// A database being built beside `target`, to be put in its place only once complete. path() is a
// name no file had: "<folder>/.<target name>.building-XXXXXX", an empty file mkstemp created for
// this build (SQLite opens it as a new database). Abandoned (destroyed without commit()), the
// build removes what it created there (the file and its -wal, -shm, -journal) and nothing else;
// the target is never touched. Throws input::FileWriteError naming `target` when its folder cannot
// hold the build.
class DatabaseBuild {
 public:
  explicit DatabaseBuild(const std::string& target);
  ~DatabaseBuild();
  DatabaseBuild(const DatabaseBuild&) = delete;
  DatabaseBuild& operator=(const DatabaseBuild&) = delete;

  const std::string& path() const { return path_; }
  // commitDatabaseFile(path(), target): the complete, closed build replaces the target.
  void commit();

 private:
  std::string target_, path_;
  bool committed_ = false;
};

}  // namespace paritylab::study
