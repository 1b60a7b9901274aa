#include "core/study/files/tensorboard_runs.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "core/study/files/tfrecord_reader.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kEventPrefix = "events.out.tfevents.";

// The run folder of an event file, described from the named root.
EventRunFolder runFolder(const fs::path& root, const fs::path& folder) {
  EventRunFolder run;
  const fs::path absolute = fs::absolute(folder).lexically_normal();
  fs::path relative = folder.lexically_relative(root);
  run.relative = relative.empty() ? "." : relative.generic_string();
  const fs::path trimmed = absolute.has_filename() ? absolute : absolute.parent_path();
  run.name = trimmed.filename().string();
  run.parentName = trimmed.parent_path().filename().string();
  return run;
}

}  // namespace

bool isEventFileName(const std::string& fileName) {
  return fileName.size() > kEventPrefix.size() &&
         fileName.compare(0, kEventPrefix.size(), kEventPrefix) == 0;
}

bool looksLikeTensorBoardPath(const std::string& path) {
  std::error_code error;
  return fs::is_directory(path, error) || isEventFileName(fs::path(path).filename().string());
}

std::vector<EventRunFolder> findEventRuns(const std::string& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw EventFileError(path + ": no such file or folder");
  std::map<std::string, EventRunFolder> runs;  // by relative path
  std::size_t count = 0;
  const auto add = [&](const fs::path& root, const fs::path& file) {
    if (++count > kMaxEventFiles) {
      throw EventFileError(path + ": more than " + std::to_string(kMaxEventFiles) +
                           " event files under it (name the folder of one study's runs)");
    }
    EventRunFolder folder = runFolder(root, file.parent_path());
    auto [it, added] = runs.try_emplace(folder.relative, std::move(folder));
    it->second.files.push_back(file.string());
  };
  if (!fs::is_directory(status)) {
    const fs::path file(path);
    if (!isEventFileName(file.filename().string())) {
      throw EventFileError(path +
                           ": not a TensorBoard event file (its name does not start "
                           "with 'events.out.tfevents.') nor a folder of them");
    }
    const fs::path folder = fs::absolute(file).parent_path();
    add(folder, fs::absolute(file));
    runs.begin()->second.files = {path};
  } else {
    const fs::path root(path);
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
    for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      std::error_code kind;
      if (it->is_regular_file(kind) && isEventFileName(it->path().filename().string()))
        add(root, it->path());
    }
    if (error) throw EventFileError(path + ": cannot list its folders (" + error.message() + ")");
  }
  if (runs.empty()) {
    throw EventFileError(path +
                         ": no TensorBoard event file (events.out.tfevents.*) in it or "
                         "in any folder under it");
  }
  std::vector<EventRunFolder> out;
  for (auto& [relative, run] : runs) {
    std::sort(run.files.begin(), run.files.end());
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace paritylab::study
