#pragma once
// Train under one backend, serve under another, for one completed run of a study: its model
// served by every backend entry of the study (the chaos floor's aside) in batches of the
// evaluation's size, and by its own backend in batches of 1 over the first kBatchInvarianceItems
// items (batch invariance). Compared with its own answers as trained, on the test set (a language
// model: the validation windows, every position). docs/serving.md says what each figure means.

#include <vector>

#include "core/data/dataset.h"
#include "core/nn/training_session.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

// One at a time is slow for a large model; a thousand items say how often a batch of one
// answers otherwise to within about a percentage point.
inline constexpr std::size_t kBatchInvarianceItems = 1000;

// The rows the results database keeps (table `serving`) for the run `trained` of `trainedBy`.
std::vector<ServingRecord> servingRows(const StudySpec& spec, const BackendEntry& trainedBy,
                                       const data::DataSplit& data, int evalBatch,
                                       nn::TrainingSession& trained);

}  // namespace paritylab::study
