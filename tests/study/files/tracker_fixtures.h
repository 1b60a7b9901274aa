#pragma once
// The tracker exports of tests/study/files/fixtures/trackers/, written by hand from each
// format's real header (docs/import.md names the sources), and files the tests write.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/study/files/import_input.h"
#include "tests/study/test_paths.h"

namespace paritylab::study::testing {

inline const std::string kTrackerFixtures =
    PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/trackers";

// `text` written to `relative` under a fresh temporary folder named `name`; returns the folder.
inline std::string writeTree(const std::string& name, const std::string& relative,
                             const std::string& text) {
  const std::string folder = freshTempPath(name);
  const std::filesystem::path file = std::filesystem::path(folder) / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
  return folder;
}

// Adds `text` as `relative` under `folder` (made by writeTree or freshTempPath).
inline void addFile(const std::string& folder, const std::string& relative,
                    const std::string& text) {
  const std::filesystem::path file = std::filesystem::path(folder) / relative;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline bool hasNote(const ImportNotes& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

inline const ImportedRun* runNamed(const ImportInput& input, const std::string& identity) {
  for (const ImportedRun& r : input.runs)
    if (r.run.message == identity) return &r;
  return nullptr;
}

// The message of what `work` throws ("" when it throws nothing).
template <typename Work>
std::string errorOf(Work work) {
  try {
    work();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace paritylab::study::testing
