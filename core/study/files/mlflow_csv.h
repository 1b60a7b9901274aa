#pragma once
// MLflow CSV exports as tracked runs (tracked_runs.h; docs/import.md):
//
// - runs (mlflow.search_runs(...).to_csv, `mlflow experiments csv`): one row per run, recognised
//   by its run_id and experiment_id columns; metrics.NAME, params.NAME and tags.NAME columns.
//   A run's metrics are its last logged values: final values, no epochs. Only runs whose status
//   is FINISHED are read (the others are skipped with it). A run is identified by its run_id and
//   named by its tags.mlflow.runName (else its run_id); hparam:NAME reads params.NAME. Its wall
//   time is end_time - start_time when the export has both (pandas' datetimes as search_runs
//   gives them, "2025-07-22 19:30:47.120000+00:00", or milliseconds since 1970); a time that is
//   neither, or an end before the start, is refused naming the cell.
// - metric history (MlflowClient.get_metric_history saved as CSV): one row per metric and step,
//   recognised by its key, value and step columns (timestamp in milliseconds, optional). The index
//   is the step. One file per run (the run is the file, named by its path without .csv), or many
//   runs in one file told apart by a run_id column.
//
// Throws input::CsvError naming file:line and column.

#include <vector>

#include "core/study/files/tracked_runs.h"
#include "core/study/files/tracker_files.h"

namespace paritylab::study {

TrackedRuns readMlflowRuns(const std::vector<TrackerFile>& files, const TrackerWanted& wanted);
TrackedRuns readMlflowHistory(const std::vector<TrackerFile>& files, const TrackerWanted& wanted);

}  // namespace paritylab::study
