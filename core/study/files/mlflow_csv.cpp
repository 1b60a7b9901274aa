#include "core/study/files/mlflow_csv.h"

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "core/input/number_input.h"
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

// Digits of `text` from `at`, exactly `count` of them, as a number.
std::optional<int> digitsAt(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int n = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    n = n * 10 + (text[i] - '0');
  }
  return n;
}

// A run's start or end as seconds since 1970-01-01 UTC: as search_runs writes it (pandas'
// datetime, "2025-07-22 19:30:47.120000+00:00"; a 'T' or a 'Z' too), or milliseconds since 1970
// (a run's info as MLflow keeps it). nullopt when it is neither.
std::optional<double> timeOf(std::string_view text) {
  if (text.find('-') == std::string_view::npos || text.find('-') == 0) {
    const auto ms = input::parseDecimal(text);
    if (!ms || !std::isfinite(*ms) || *ms < 0 || *ms > 1e15) return std::nullopt;
    return *ms / 1000.0;
  }
  const auto year = digitsAt(text, 0, 4), month = digitsAt(text, 5, 2), day = digitsAt(text, 8, 2);
  const auto hour = digitsAt(text, 11, 2), minute = digitsAt(text, 14, 2);
  const auto second = digitsAt(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || text[4] != '-' || text[7] != '-' ||
      (text[10] != ' ' && text[10] != 'T') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(unsigned(*month)),
                                         std::chrono::day(unsigned(*day))};
  if (!date.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  double seconds = double(std::chrono::sys_days(date).time_since_epoch().count()) * 86400.0 +
                   *hour * 3600.0 + *minute * 60.0 + *second;
  std::size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    double scale = 0.1;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
      seconds += (text[at] - '0') * scale;
  }
  const std::string_view zone = text.substr(at);
  if (zone.empty() || zone == "Z") return seconds;
  const auto zoneHours = digitsAt(zone, 1, 2), zoneMinutes = digitsAt(zone, 4, 2);
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':' || !zoneHours ||
      !zoneMinutes)
    return std::nullopt;
  const double offset = *zoneHours * 3600.0 + *zoneMinutes * 60.0;
  return zone[0] == '+' ? seconds - offset : seconds + offset;
}

// The seconds between a run's start_time and end_time; 0 when either is empty (a run still
// running) or the export has neither. A time that is not one, or an end before the start, is
// refused naming its cell.
double wallSecondsOf(const TrackerTable& table, int cStart, int cEnd) {
  if (cStart < 0 || cEnd < 0 || table.cell(cStart).empty() || table.cell(cEnd).empty()) return 0.0;
  const auto time = [&](int col) {
    const auto t = timeOf(table.cell(col));
    if (!t) {
      table.refuse(col,
                   "not a time (as search_runs writes it, 2025-07-22 19:30:47.120000+00:00, or "
                   "milliseconds since 1970)");
    }
    return *t;
  };
  const double start = time(cStart), end = time(cEnd);
  if (end < start) {
    table.refuse(cEnd, "the run ends before it starts (" + table.where(cStart) + ": " +
                           shownValue(table.cell(cStart)) + ")");
  }
  return end - start;
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
    const int cStart = table.column("start_time"), cEnd = table.column("end_time");
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
      if (run.skip.empty()) run.wallSeconds = wallSecondsOf(table, cStart, cEnd);
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
