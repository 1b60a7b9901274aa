#pragma once
// One TensorBoard run's scalars: the event files of its folder read in the order of their names
// and merged by step. A step logged again (a job restarted into its log folder writes a new file
// and repeats the steps since its last checkpoint) keeps the value with the latest wall time, the
// later file's on a tie; the run counts such values for a note.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/study/files/tensorboard_events.h"
#include "core/study/files/tensorboard_runs.h"

namespace paritylab::study {

// A value of a run with the file it came from (folder.files[file]), for messages.
struct LoggedScalar {
  ScalarPoint point;
  std::size_t file = 0;
};

struct RunScalars {
  EventRunFolder folder;
  std::map<std::string, std::map<std::int64_t, LoggedScalar>> tags;  // tag -> step -> value
  int repeatedSteps = 0;  // values logged again at a step already logged
};

// Throws EventFileError as readEventFileScalars; the files' notes are appended to `notes`.
RunScalars readRunScalars(const EventRunFolder& folder, std::vector<std::string>& notes);

}  // namespace paritylab::study
