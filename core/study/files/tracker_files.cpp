#include "core/study/files/tracker_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/input/csv.h"
#include "core/study/files/tensorboard_runs.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<TrackerFile> findTrackerFiles(const std::string& path, const std::string& onlyName) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) throw input::CsvError(path + ": no such file or folder");
  if (!fs::is_directory(status)) return {{path, fs::path(path).filename().string()}};
  std::vector<TrackerFile> files;
  const fs::path root(path);
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    std::error_code kind;
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(kind) || !endsWith(name, ".csv")) continue;
    if (!onlyName.empty() && name != onlyName) continue;
    if (files.size() == kMaxTrackerFiles) {
      throw input::CsvError(path + ": more than " + std::to_string(kMaxTrackerFiles) +
                            " CSV files under it (name the folder of one study's runs)");
    }
    files.push_back({it->path().string(), it->path().lexically_relative(root).generic_string()});
  }
  if (error) throw input::CsvError(path + ": cannot list its folders (" + error.message() + ")");
  std::sort(files.begin(), files.end(),
            [](const TrackerFile& a, const TrackerFile& b) { return a.relative < b.relative; });
  return files;
}

std::string withoutCsvSuffix(const std::string& relative) {
  return endsWith(relative, ".csv") ? relative.substr(0, relative.size() - 4) : relative;
}

std::string fileStem(const std::string& relative) {
  const std::string name = withoutCsvSuffix(relative);
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

std::string folderOf(const std::string& relative) {
  const auto slash = relative.rfind('/');
  return slash == std::string::npos ? "" : relative.substr(0, slash);
}

std::string folderPrefix(const TrackerFile& file) {
  const std::string folder = folderOf(file.relative);
  return folder.empty() ? "" : folder + "/";
}

bool holdsEventFiles(const std::string& folder) {
  std::error_code error;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    std::error_code kind;
    if (it->is_regular_file(kind) && isEventFileName(it->path().filename().string())) return true;
  }
  return false;
}

}  // namespace paritylab::study
