#include "core/study/files/wandb_csv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/study/files/import_checks.h"
#include "core/study/files/tracker_table.h"

namespace paritylab::study {
namespace {

using import_checks::shownValue;

std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A run's name as the table gives it: not empty, at most 200 characters.
std::string runNameCell(const TrackerTable& table, int col) {
  const std::string& name = table.cell(col);
  if (name.empty()) table.refuse(col, "empty run name");
  if (name.size() > 200) table.refuse(col, "a run name longer than 200 characters");
  return name;
}

// A run of the table: its ID when the table has one, else its name with its Created time.
std::string identityIn(const TrackerTable& table, const std::string& name, int cId, int cCreated) {
  if (!table.cell(cId).empty()) return table.cell(cId);
  return table.cell(cCreated).empty() ? name : name + "@" + table.cell(cCreated);
}

// Runtime in seconds when the table says it as a number (the column is informative only).
double runtimeOf(const TrackerTable& table, int col) {
  try {
    const auto seconds = table.number(col);
    return seconds && *seconds > 0 && *seconds < 1e12 ? *seconds : 0.0;
  } catch (const input::CsvError&) {
    return 0.0;
  }
}

void keepAttributes(TrackedRun& run, const TrackerTable& table, const TrackerWanted& wanted) {
  for (const std::string& name : wanted.columns) {
    const int col = table.column(name);
    if (col >= 0) TrackedRun::keep(run.columns, name, table.cell(col), table.where(col));
  }
  for (const std::string& name : wanted.hparams) {  // config columns, prefixed or not
    int col = table.column("config." + name);
    if (col < 0) col = table.column(name);
    if (col >= 0) TrackedRun::keep(run.hparams, name, table.cell(col), table.where(col));
  }
}

}  // namespace

std::optional<ChartColumn> wandbChartColumn(const std::string& name, bool* band) {
  const bool isBand = name.ends_with("__MIN") || name.ends_with("__MAX");
  if (band) *band = isBand;
  const auto dash = name.rfind(" - ");
  if (dash == std::string::npos || dash == 0 || dash + 3 >= name.size()) return std::nullopt;
  if (isBand) return std::nullopt;
  return ChartColumn{name.substr(0, dash), name.substr(dash + 3)};
}

TrackedRuns readWandbRunTable(const std::vector<TrackerFile>& files, const TrackerWanted& wanted) {
  TrackedRuns out;
  out.indexName = "epoch";
  std::map<std::string, std::string> identities;  // -> where first seen
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    const std::string what = "a W&B run table export has Name and State";
    const int cName = table.require("Name", what);
    const int cState = table.require("State", what);
    const int cId = table.column("ID");
    const int cCreated = table.column("Created");
    const int cRuntime = table.column("Runtime");
    std::vector<std::pair<std::string, int>> metricColumns;
    for (const std::string& metric : wanted.metrics) {
      int col = table.column("summary." + metric);
      if (col < 0) col = table.column(metric);
      if (col >= 0) metricColumns.push_back({metric, col});
    }
    for (const std::string& name : table.header()) out.sawMetric(name);
    while (table.next()) {
      TrackedRun run;
      run.name = runNameCell(table, cName);
      run.path = folderPrefix(file) + run.name;
      run.identity = folderPrefix(file) + identityIn(table, run.name, cId, cCreated);
      run.folder = table.where(cName);
      auto [first, added] = identities.try_emplace(run.identity, table.where(cName));
      if (!added) {
        throw input::CsvError(table.where(cName) + ": run " + shownValue(run.identity) +
                              " twice (first at " + first->second +
                              "); an ID or Created column tells runs of one name apart");
      }
      const std::string state = lower(table.cell(cState));
      if (state != "finished")
        run.skip = "state " + shownValue(table.cell(cState)) + " (only finished runs are read)";
      run.finalOnly = true;
      keepAttributes(run, table, wanted);
      for (const auto& [metric, col] : metricColumns)
        if (const auto v = table.number(col)) run.log(metric, 0, {*v, table.where(col)});
      run.wallSeconds = runtimeOf(table, cRuntime);
      out.runs.push_back(std::move(run));
    }
  }
  return out;
}

TrackedRuns readWandbHistory(const std::vector<TrackerFile>& files, const TrackerWanted& wanted) {
  TrackedRuns out;
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    table.require("_step", "a W&B history export has _step");
    const std::string indexName = table.column("epoch") >= 0 ? "epoch" : "_step";
    out.logsBy(indexName, file.path);
    const int cIndex = table.column(indexName);
    int cRun = -1;
    for (const char* name : {"Name", "name", "run", "run_name", "run_id"})
      if (cRun < 0) cRun = table.column(name);
    int cSeconds = table.column("_runtime");
    if (cSeconds < 0) cSeconds = table.column("_timestamp");
    std::vector<std::pair<std::string, int>> metricColumns;
    for (const std::string& metric : wanted.metrics)
      if (const int col = table.column(metric); col >= 0) metricColumns.push_back({metric, col});
    for (const std::string& name : table.header())
      if (name.empty() || name[0] != '_') out.sawMetric(name);
    std::map<std::string, std::size_t> byName;
    while (table.next()) {
      std::string name = cRun >= 0 ? runNameCell(table, cRun) : fileStem(file.relative);
      auto [it, added] = byName.try_emplace(name, out.runs.size());
      if (added) {
        TrackedRun run;
        run.name = name;
        run.path = cRun >= 0 ? folderPrefix(file) + name : withoutCsvSuffix(file.relative);
        run.identity = run.path;
        run.folder = cRun >= 0 ? table.where(cRun) : file.path;
        out.runs.push_back(std::move(run));
      }
      TrackedRun& run = out.runs[it->second];
      keepAttributes(run, table, wanted);
      logRowMetrics(table, metricColumns, cIndex, indexName, cSeconds, run);
    }
  }
  if (out.indexName.empty()) out.indexName = "_step";
  return out;
}

TrackedRuns readWandbChart(const std::vector<TrackerFile>& files, const TrackerWanted& wanted) {
  TrackedRuns out;
  out.indexName = "Step";
  std::map<std::string, std::size_t> byName;  // run path -> index in out.runs
  for (const TrackerFile& file : files) {
    TrackerTable table(file.path, file.path);
    const int cStep = table.require("Step", "a W&B chart export has Step and RUN - METRIC columns");
    // Per run of the file, the metrics asked for and their columns.
    std::map<std::size_t, std::vector<std::pair<std::string, int>>> series;
    for (int col = 0; col < int(table.header().size()); ++col) {
      if (col == cStep) continue;
      const std::string& name = table.header()[std::size_t(col)];
      bool band = false;
      const std::optional<ChartColumn> column = wandbChartColumn(name, &band);
      if (band) continue;
      if (!column) {
        throw input::CsvError(import_checks::where(file.path, 1, col, name) +
                              ": not a 'RUN - METRIC' column of a W&B chart export");
      }
      if (column->run.size() > 200)
        throw input::CsvError(file.path + ":1: column " + std::to_string(col + 1) +
                              ": a run name longer than 200 characters");
      out.sawMetric(column->metric);
      if (wanted.metrics.count(column->metric) == 0) continue;
      const std::string path = folderPrefix(file) + column->run;
      auto [it, added] = byName.try_emplace(path, out.runs.size());
      if (added) {
        TrackedRun run;
        run.name = column->run;
        run.path = path;
        run.identity = path;
        run.folder = file.path;
        out.runs.push_back(std::move(run));
      }
      series[it->second].push_back({column->metric, col});
    }
    while (table.next())
      for (const auto& [run, columns] : series)
        logRowMetrics(table, columns, cStep, "Step", -1, out.runs[run]);
  }
  return out;
}

}  // namespace paritylab::study
