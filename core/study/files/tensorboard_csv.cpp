#include "core/study/files/tensorboard_csv.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/study/files/tracker_table.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string underscored(std::string name) {
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

// The metric a file's tag stands for: a wanted name equal to it, or equal once '/' is '_'.
std::string metricOf(const std::string& tag, const TrackerWanted& wanted) {
  if (wanted.metrics.count(tag) > 0) return tag;
  for (const std::string& metric : wanted.metrics)
    if (underscored(metric) == tag) return metric;
  return "";
}

}  // namespace

TensorBoardCsvName tensorBoardCsvName(const std::string& path, const TrackerFile& file) {
  const std::string stem = fileStem(file.relative);
  const auto tag = stem.rfind("-tag-");
  if (stem.rfind("run-", 0) == 0 && tag != std::string::npos && tag >= 4)
    return {stem.substr(4, tag - 4), stem.substr(tag + 5)};
  const std::string folder = folderOf(file.relative);
  if (!folder.empty()) {
    const auto slash = folder.rfind('/');
    return {stem, slash == std::string::npos ? folder : folder.substr(slash + 1)};
  }
  const fs::path absolute = fs::absolute(fs::path(path)).lexically_normal();
  const fs::path holder = fs::is_directory(path) ? absolute : absolute.parent_path();
  return {stem, holder.filename().string()};
}

TrackedRuns readTensorBoardCsv(const std::string& path, const std::vector<TrackerFile>& files,
                               const TrackerWanted& wanted) {
  TrackedRuns out;
  out.indexName = "step";
  std::map<std::string, std::size_t> byRun;
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    const std::string what = "a TensorBoard CSV download has Wall time, Step and Value";
    const int cTime = table.require("Wall time", what);
    const int cStep = table.require("Step", what);
    const int cValue = table.require("Value", what);
    const TensorBoardCsvName name = tensorBoardCsvName(path, file);
    // A run of a tag's folder is the same run as in its sibling tags' folders.
    const bool tagFolder = fileStem(file.relative).rfind("run-", 0) != 0;
    const std::string folder =
        tagFolder ? folderOf(folderOf(file.relative)) : folderOf(file.relative);
    const std::string runPath = folder.empty() ? name.run : folder + "/" + name.run;
    auto [it, added] = byRun.try_emplace(runPath, out.runs.size());
    if (added) {
      TrackedRun run;
      run.name = name.run;
      run.path = runPath;
      run.identity = runPath;
      run.folder = file.path;
      out.runs.push_back(std::move(run));
    }
    TrackedRun& run = out.runs[it->second];
    out.sawMetric(name.tag);
    const std::string metric = metricOf(name.tag, wanted);
    if (metric.empty()) continue;
    while (table.next()) {
      const auto v = table.number(cValue);
      if (!v) table.refuse(cValue, "no value");
      const auto step = table.number(cStep);
      if (!step || !std::isfinite(*step) || *step != std::floor(*step) || std::fabs(*step) > 9e15)
        table.refuse(cStep, "not a whole step");
      TrackedValue value{*v, table.where(cValue)};
      if (const auto s = table.number(cTime); s && std::isfinite(*s)) value.seconds = *s;
      run.log(metric, std::int64_t(*step), std::move(value));
    }
  }
  return out;
}

}  // namespace paritylab::study
