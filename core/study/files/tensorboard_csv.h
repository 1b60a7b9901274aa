#pragma once
// TensorBoard's per-tag CSV downloads as tracked runs (tracked_runs.h; docs/import.md). The
// scalars dashboard downloads one run's one tag as a CSV with the header `Wall time,Step,Value`.
// The legacy dashboard names the file run-RUN-tag-TAG.csv (a '/' of RUN or TAG becomes '_' in a
// browser's download name); the current one names it RUN.csv. So:
//
// - run-RUN-tag-TAG.csv: run RUN and tag TAG (split at the last "-tag-");
// - any other NAME.csv: run NAME, and the tag is the name of the folder that holds it (keep the
//   downloads of one tag in a folder named after it: val_acc/tpu_seed0.csv).
//
// The files of one run (its tags) are merged into one run, named by its folder relative to the
// path imported and RUN (tpu/run-seed0-tag-acc.csv: "tpu/seed0"). The index is the step; a tag
// named with '/' (val/acc) matches the file's tag with '_' (val_acc). Throws input::CsvError
// naming file:line and column.

#include <string>
#include <vector>

#include "core/study/files/tracked_runs.h"
#include "core/study/files/tracker_files.h"

namespace paritylab::study {

struct TensorBoardCsvName {
  std::string run, tag;
};
// The run and tag a downloaded file's path says (the rules above); `path` is the path imported.
TensorBoardCsvName tensorBoardCsvName(const std::string& path, const TrackerFile& file);

TrackedRuns readTensorBoardCsv(const std::string& path, const std::vector<TrackerFile>& files,
                               const TrackerWanted& wanted);

}  // namespace paritylab::study
