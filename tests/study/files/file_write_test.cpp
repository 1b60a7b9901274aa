// Every file write is checked after flush and close, names the file when it
// fails, and never leaves a partial file under the final name (temporary file + rename).

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "core/input/atomic_file.h"
#include "core/study/files/results_import.h"
#include "core/study/files/study_report.h"
#include "core/study/store/database_file.h"
#include "core/study/store/results_store.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;
using testing::freshTempPath;

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> out;
  for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// `report --csv /dev/full` once printed "Wrote ..." and exited 0.
TEST(FileWrite, ReportToAFullDiskFailsNamingTheFile) {
  const std::string csv = freshTempPath("full-runs.csv");
  std::ofstream(csv) << "backend,seed,final_accuracy\ncpu,0,0.8\ncpu,1,0.85\n";
  CsvImportOptions o;
  o.epochColumn = "";
  o.accuracyColumn = "final_accuracy";
  auto runs = readGenericCsv(csv, o);
  auto store = ResultsStore::open(freshTempPath("full.db"), true);
  importRuns(*store, csv, runs);
  try {
    writeReport(*store, "/dev/full");
    FAIL() << "writing to /dev/full succeeded";
  } catch (const input::FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: cannot write: No space left on device"),
              std::string::npos)
        << e.what();
  }
}

TEST(FileWrite, FailureKeepsTheOldFileAndLeavesNoTemporary) {
  const std::string dir = freshTempPath("atomic-dir");
  fs::create_directories(dir);
  const std::string path = dir + "/report.csv";
  input::writeFileAtomically(path, std::string_view("old,content\r\n"));
  EXPECT_EQ(readAll(path), "old,content\r\n");
  // A writer that fails half-way (as a full disk would): the old file stays whole.
  EXPECT_THROW(input::writeFileAtomically(path,
                                          [](std::ostream& out) {
                                            out << "new,partial";
                                            throw std::runtime_error("disk full half-way");
                                          }),
               std::runtime_error);
  EXPECT_EQ(readAll(path), "old,content\r\n");
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"report.csv"});
  input::writeFileAtomically(path, std::string_view("new,content\r\n"));
  EXPECT_EQ(readAll(path), "new,content\r\n");
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"report.csv"});
  // Plain permissions (0666 minus the umask), like a file the shell would create.
  EXPECT_NE(fs::status(path).permissions() & fs::perms::others_read, fs::perms::none);
}

TEST(FileWrite, MissingFolderAndDirectoryTargetsNameThePath) {
  try {
    input::writeFileAtomically("/nonexistent-dir/x.csv", std::string_view("x"));
    FAIL();
  } catch (const input::FileWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.csv: cannot write: No such file"),
              std::string::npos)
        << e.what();
  }
  const std::string dir = freshTempPath("a-dir");
  fs::create_directories(dir);
  try {
    input::writeFileAtomically(dir, std::string_view("x"));
    FAIL();
  } catch (const input::FileWriteError& e) {
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory");
  }
}

// A build beside a target is a file no one had, created for it; abandoned, it removes what it
// created and leaves the target (and anything else in the folder) exactly as it was.
TEST(DatabaseBuild, AnAbandonedBuildRemovesOnlyWhatItCreated) {
  const std::string target = freshTempPath("kept.db");
  std::ofstream(target, std::ios::binary) << "the user's results";
  std::string path;
  {
    DatabaseBuild build(target);
    path = build.path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::absolute(target).parent_path());
    const std::string prefix = "." + fs::path(target).filename().string() + ".building-";
    EXPECT_EQ(fs::path(path).filename().string().rfind(prefix, 0), 0u) << path;
    // Created for this build (never freed for another process to take): empty, readable as a
    // database SQLite would create is.
    ASSERT_TRUE(fs::is_regular_file(path));
    EXPECT_EQ(fs::file_size(path), 0u);
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                  fs::perms::others_read);
    auto store = ResultsStore::open(path, true);
    store->saveStudySpec("{}");
    EXPECT_TRUE(fs::exists(path));
  }
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    EXPECT_FALSE(fs::exists(path + suffix)) << suffix;
  std::ifstream in(target, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "the user's results");
}

// A copy of a database goes only to a new file or an empty one made for it (a build's): a file
// that holds anything is refused and left as it was.
TEST(DatabaseBuild, CopyGoesOnlyToANewOrEmptyFile) {
  const std::string source = freshTempPath("source.db");
  ResultsStore::open(source, true)->saveStudySpec("{}");
  const auto store = ResultsStore::openReadOnly(source);
  const std::string held = freshTempPath("held.db");
  std::ofstream(held, std::ios::binary) << "the user's results";
  EXPECT_THROW(store->copyDatabaseTo(held), StoreError);
  std::ifstream in(held, std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "the user's results");
  DatabaseBuild build(held);
  store->copyDatabaseTo(build.path());
  EXPECT_TRUE(ResultsStore::openReadOnly(build.path())->hasStudy());
}

// A complete database goes over its target with the target's own -wal and -shm out of the way
// (a stale write-ahead log must never meet the new file); when the rename fails, the old files
// are back as they were.
TEST(CommitDatabaseFile, ReplacesTheTargetAndItsLogOnlyOnceTheNewFileIsInPlace) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("paritylab-commit-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  const auto read = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string target = (dir / "r.db").string();
  write(target, "old");
  write(target + "-wal", "old log");
  write(dir / "built.db", "new");
  commitDatabaseFile((dir / "built.db").string(), target);
  EXPECT_EQ(read(target), "new");
  EXPECT_FALSE(fs::exists(target + "-wal"));
  EXPECT_FALSE(fs::exists(dir / "built.db"));

  // A rename that fails (the target is a non-empty folder) leaves the old log where it was.
  const std::string folder = (dir / "f.db").string();
  fs::create_directories(fs::path(folder) / "inside");
  write(folder + "-wal", "kept log");
  write(dir / "built2.db", "new");
  EXPECT_THROW(commitDatabaseFile((dir / "built2.db").string(), folder), input::FileWriteError);
  EXPECT_EQ(read(folder + "-wal"), "kept log");
  EXPECT_EQ(read(dir / "built2.db"), "new");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace paritylab::study
