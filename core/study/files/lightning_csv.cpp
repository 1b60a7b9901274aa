#include "core/study/files/lightning_csv.h"

#include <filesystem>

#include "core/study/files/tracker_table.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

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
