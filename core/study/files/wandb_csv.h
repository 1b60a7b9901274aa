#pragma once
// Weights & Biases CSV exports as tracked runs (tracked_runs.h; docs/import.md):
//
// - the run table (the Runs table's CSV export): one row per run, recognised by its Name and
//   State columns; config and summary columns without a prefix (or config.NAME / summary.NAME).
//   A run is its row: its summary metrics are final values (no epochs). Only runs whose State is
//   finished are read; the others are skipped with their state. A run is identified by its ID
//   column when there is one, else by its Name (and Created, when given).
// - the history (run.history() / scan_history() saved as CSV): one row per logged step,
//   recognised by its _step column; metrics as columns, empty where a row does not log them. The
//   index is the epoch column when the file has one, else _step. One file per run (the run is the
//   file, named by its path without .csv), or many runs in one file told apart by a Name, name,
//   run, run_name or run_id column.
// - a chart panel's export (a line plot's CSV download): a Step column, then a column per run and
//   metric named "RUN - METRIC" (split at the last " - "), with "RUN - METRIC__MIN" and
//   "RUN - METRIC__MAX" beside it for a smoothed or grouped line: those bands are not values
//   logged, and are ignored. Each run's values are read by Step. The files of several panels (one
//   per metric) are merged by run name; a run is identified by its folder and name, and holds no
//   config (name its backend with a path: rule on the run's name).
//
// `files` are the CSVs of the import (tracker_files.h). Throws input::CsvError naming
// file:line and column (a missing identifying column, a cell that is not a number).

#include <optional>
#include <string>
#include <vector>

#include "core/study/files/tracked_runs.h"
#include "core/study/files/tracker_files.h"

namespace paritylab::study {

TrackedRuns readWandbRunTable(const std::vector<TrackerFile>& files, const TrackerWanted& wanted);
TrackedRuns readWandbHistory(const std::vector<TrackerFile>& files, const TrackerWanted& wanted);
TrackedRuns readWandbChart(const std::vector<TrackerFile>& files, const TrackerWanted& wanted);

// The run and metric of a chart export's column "RUN - METRIC"; nullopt for a column that is not
// one, or is the __MIN or __MAX band of one (`band` set).
struct ChartColumn {
  std::string run, metric;
};
std::optional<ChartColumn> wandbChartColumn(const std::string& name, bool* band = nullptr);

}  // namespace paritylab::study
