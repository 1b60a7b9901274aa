#include "core/study/files/lightning_csv.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/study/files/tracker_table.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kMaxHparamsBytes = 16u << 20;

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  const auto last = text.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

std::string unquoted(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front())
    return value.substr(1, value.size() - 2);
  if (value == "null" || value == "~" || value == "Null" || value == "NULL") return "";
  return value;
}

// The run folder of a metrics.csv: its relative folder, or the named folder's own name.
std::string runFolderOf(const std::string& path, const TrackerFile& file) {
  const std::string folder = folderOf(file.relative);
  if (!folder.empty()) return folder;
  const fs::path absolute = fs::absolute(path).lexically_normal();
  const fs::path trimmedPath = absolute.has_filename() ? absolute : absolute.parent_path();
  return fs::is_directory(path) ? trimmedPath.filename().string()
                                : trimmedPath.parent_path().filename().string();
}

}  // namespace

std::map<std::string, TrackedAttribute> readHparamsYaml(const std::string& file,
                                                        const std::set<std::string>& keys) {
  std::map<std::string, TrackedAttribute> out;
  std::error_code error;
  const std::uintmax_t size = fs::file_size(file, error);
  if (error) return out;
  if (size > kMaxHparamsBytes) {
    throw input::CsvError(file + ": " + std::to_string(size) +
                          " bytes, more than a Lightning hparams.yaml holds (at most " +
                          std::to_string(kMaxHparamsBytes) + " are read)");
  }
  std::ifstream in(file, std::ios::binary);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-')
      continue;
    const auto colon = line.find(": ");
    const bool bare = colon == std::string::npos && !line.empty() && line.back() == ':';
    if (colon == std::string::npos || bare) continue;  // "key:" opens a nested mapping
    const std::string key = unquoted(trimmed(line.substr(0, colon)));
    if (keys.count(key) == 0) continue;
    out.insert_or_assign(key, TrackedAttribute{unquoted(trimmed(line.substr(colon + 2))),
                                               file + ":" + std::to_string(number) + ": " + key});
  }
  return out;
}

TrackedRuns readLightningLogs(const std::string& path, const std::vector<TrackerFile>& files,
                              const TrackerWanted& wanted) {
  TrackedRuns out;
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    table.require("step", "a Lightning CSVLogger metrics.csv has step");
    const std::string indexName = table.column("epoch") >= 0 ? "epoch" : "step";
    out.logsBy(indexName, file.path);
    const int cIndex = table.column(indexName);
    TrackedRun run;
    run.path = runFolderOf(path, file);
    run.identity = run.path;
    const auto slash = run.path.rfind('/');
    run.name = slash == std::string::npos ? run.path : run.path.substr(slash + 1);
    run.folder = file.path;
    run.hparams = readHparamsYaml((fs::path(file.path).parent_path() / "hparams.yaml").string(),
                                  wanted.hparams);
    std::vector<std::pair<std::string, int>> metricColumns;
    for (const std::string& metric : wanted.metrics)
      if (const int col = table.column(metric); col >= 0) metricColumns.push_back({metric, col});
    for (const std::string& name : table.header())
      if (name != "step" && name != "epoch") out.sawMetric(name);
    while (table.next()) {
      for (const std::string& name : wanted.columns)
        if (const int col = table.column(name); col >= 0)
          TrackedRun::keep(run.columns, name, table.cell(col), table.where(col));
      logRowMetrics(table, metricColumns, cIndex, indexName, -1, run);
    }
    out.runs.push_back(std::move(run));
  }
  return out;
}

}  // namespace paritylab::study
