#pragma once
// The scalars of one TensorBoard event file (events.out.tfevents.*), read through its TFRecord
// framing (tfrecord_reader.h). A scalar is read in either form writers use:
// - `simple_value` (TF1, PyTorch's SummaryWriter.add_scalar): a float32, kept as the shortest
//   decimal that reads back as the same float32 (0.0051 logged is 0.0051, not 0.00510000018);
// - a tensor of one number (TF2's tf.summary.scalar, SummaryWriter(new_style=True)): float32
//   (kept as above), float64, int32 or int64, when its tag's plugin is "scalars" or names none.
// Values of other plugins (histograms, images, text, hparams) are not scalars: their tags are
// listed apart. The protobuf code that decodes a record stays inside tensorboard_events.cpp.

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/study/files/tfrecord_reader.h"

namespace paritylab::study {

struct ScalarPoint {
  std::int64_t step = 0;
  double wallTime = 0.0;  // seconds since the Unix epoch, as the writer logged them
  double value = 0.0;     // as logged: NaN and infinities too
};

struct EventFileScalars {
  std::string path;
  std::map<std::string, std::vector<ScalarPoint>> scalars;  // tag -> points in file order
  std::set<std::string> otherTags;  // tags whose values are not scalars (images, histograms...)
  std::vector<std::string> notes;   // what was skipped and why (a record cut short, ...)
  std::size_t events = 0;           // records read
};

// Throws EventFileError naming the file (and the record's byte offset when one is damaged or is
// not an event).
EventFileScalars readEventFileScalars(const std::string& path);

}  // namespace paritylab::study
