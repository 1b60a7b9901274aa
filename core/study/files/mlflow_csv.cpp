#include "core/study/files/mlflow_csv.h"

#include <cmath>
#include <map>

#include "core/study/files/import_checks.h"
#include "core/study/files/tracker_table.h"

namespace paritylab::study {
namespace {

using import_checks::shownValue;

std::string idCell(const TrackerTable& table, int col) {
  const std::string& id = table.cell(col);
  if (id.empty()) table.refuse(col, "empty run id");
  if (id.size() > 200) table.refuse(col, "a run id longer than 200 characters");
  return id;
}

void keepAttributes(TrackedRun& run, const TrackerTable& table, const TrackerWanted& wanted) {
  for (const std::string& name : wanted.columns)
    if (const int col = table.column(name); col >= 0)
      TrackedRun::keep(run.columns, name, table.cell(col), table.where(col));
  for (const std::string& name : wanted.hparams)
    if (const int col = table.column("params." + name); col >= 0)
      TrackedRun::keep(run.hparams, name, table.cell(col), table.where(col));
}

}  // namespace

TrackedRuns readMlflowRuns(const std::vector<TrackerFile>& files, const TrackerWanted& wanted) {
  TrackedRuns out;
  out.indexName = "step";
  std::map<std::string, std::string> identities;
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    const std::string what = "an MLflow runs export has run_id and experiment_id";
    const int cId = table.require("run_id", what);
    table.require("experiment_id", what);
    const int cStatus = table.column("status");
    const int cName = table.column("tags.mlflow.runName");
    std::vector<std::pair<std::string, int>> metricColumns;
    for (const std::string& metric : wanted.metrics)
      if (const int col = table.column("metrics." + metric); col >= 0)
        metricColumns.push_back({metric, col});
    for (const std::string& name : table.header())
      if (name.rfind("metrics.", 0) == 0) out.sawMetric(name.substr(8));
    while (table.next()) {
      TrackedRun run;
      const std::string id = idCell(table, cId);
      run.name = cName >= 0 && !table.cell(cName).empty() ? table.cell(cName) : id;
      run.path = folderPrefix(file) + run.name;
      run.identity = folderPrefix(file) + id;
      run.folder = table.where(cId);
      auto [first, added] = identities.try_emplace(run.identity, table.where(cId));
      if (!added) {
        throw input::CsvError(table.where(cId) + ": run " + shownValue(id) + " twice (first at " +
                              first->second + ")");
      }
      if (cStatus >= 0 && table.cell(cStatus) != "FINISHED") {
        run.skip = "status " + shownValue(table.cell(cStatus)) + " (only FINISHED runs are read)";
      }
      run.finalOnly = true;
      keepAttributes(run, table, wanted);
      for (const auto& [metric, col] : metricColumns)
        if (const auto v = table.number(col)) run.log(metric, 0, {*v, table.where(col)});
      out.runs.push_back(std::move(run));
    }
  }
  return out;
}

TrackedRuns readMlflowHistory(const std::vector<TrackerFile>& files, const TrackerWanted& wanted) {
  TrackedRuns out;
  out.indexName = "step";
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    const std::string what = "an MLflow metric history has key, value and step";
    const int cKey = table.require("key", what);
    const int cValue = table.require("value", what);
    const int cStep = table.require("step", what);
    const int cTime = table.column("timestamp");
    const int cRun = table.column("run_id");
    std::map<std::string, std::size_t> byId;
    while (table.next()) {
      const std::string id = cRun >= 0 ? idCell(table, cRun) : fileStem(file.relative);
      auto [it, added] = byId.try_emplace(id, out.runs.size());
      if (added) {
        TrackedRun run;
        run.name = id;
        run.path = cRun >= 0 ? folderPrefix(file) + id : withoutCsvSuffix(file.relative);
        run.identity = run.path;
        run.folder = cRun >= 0 ? table.where(cRun) : file.path;
        out.runs.push_back(std::move(run));
      }
      TrackedRun& run = out.runs[it->second];
      keepAttributes(run, table, wanted);
      const std::string& key = table.cell(cKey);
      out.sawMetric(key);
      if (wanted.metrics.count(key) == 0) continue;
      const auto v = table.number(cValue);
      if (!v) table.refuse(cValue, "no value");
      const auto step = table.number(cStep);
      if (!step) {
        ++run.withoutIndex;
        continue;
      }
      if (!std::isfinite(*step) || *step != std::floor(*step) || std::fabs(*step) > 9e15)
        table.refuse(cStep, "not a whole step");
      TrackedValue value{*v, table.where(cValue)};
      if (const auto ms = table.number(cTime); ms && std::isfinite(*ms)) value.seconds = *ms / 1000;
      run.log(key, std::int64_t(*step), std::move(value));
    }
  }
  return out;
}

}  // namespace paritylab::study
