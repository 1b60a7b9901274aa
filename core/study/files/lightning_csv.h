#pragma once
// PyTorch Lightning CSVLogger logs as tracked runs (tracked_runs.h; docs/import.md). CSVLogger
// writes save_dir/name/version_N/metrics.csv (a csv.DictWriter: the header is every key logged,
// `step` among them and `epoch` when the Trainer logs; each row fills only the metrics logged at
// that step, the others empty) and hparams.yaml beside it.
//
// Each metrics.csv is a run: its folder (relative to the path imported, '/'-separated; the
// folder's own name when it is the path) is the run's path and identity. The index is the epoch
// column when the file has one, else step; a metric logged at several steps of an epoch keeps the
// last (noted). hparams.yaml is read for the hyperparameters asked for (hparam:NAME, the seed),
// nested keys named with dots (hparams_yaml.h). A run without hparams.yaml has no
// hyperparameters.
//
// Throws input::CsvError naming file:line and column.

#include <string>
#include <vector>

#include "core/study/files/hparams_yaml.h"
#include "core/study/files/tracked_runs.h"
#include "core/study/files/tracker_files.h"

namespace paritylab::study {

// `files` are the metrics.csv files of the import (tracker_files.h).
TrackedRuns readLightningLogs(const std::string& path, const std::vector<TrackerFile>& files,
                              const TrackerWanted& wanted);

}  // namespace paritylab::study
