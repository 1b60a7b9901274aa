#pragma once
// TensorBoard logs as measured runs (import --format tensorboard, docs/import.md): the run folders
// under a path (tensorboard_runs.h), each run's scalars merged from its event files by step
// (tensorboard_events.h), its backend and seed from a rule on its path (tensorboard_run_rule.h)
// or its parent folder, and the tags that hold accuracy, test loss and train loss. The result is
// the ImportedRun list the CSV import gives: importRuns() stores it, identicalRunNotes() flags
// identical runs.
//
// The epoch records are the steps of the accuracy tag (of the test-loss tag when no accuracy is
// logged): the step is stored as the epoch index, which is the epoch when the tags are logged once
// per epoch with the epoch as the step. Steps from 0 are stored from 1 (step + 1, with a note).
// The losses are those logged at the same steps (unknown where none is). Values are checked as in
// the CSV import: accuracies are fractions in [0, 1] or, when every one lies within (1, 100],
// percent (noted); losses beyond 1e6 are refused, naming file, tag and step. NaN or an infinity
// in a tag read is a diverged run: its epochs before that step are kept and it is stored as
// diverged (markImportedRunDiverged), with a note naming file, tag, step and value.
//
// A language model often logs its perplexity, not its loss: when no test-loss tag is read (none
// named and none of the defaults logged) or a perplexity tag is named, the perplexity tag is read
// and the test loss stored is ln(perplexity) (noted, naming the tag). A perplexity that is not
// positive is refused naming file, tag, step and value; NaN or an infinity is a diverged run as
// above. A test-loss tag and a perplexity tag both named are refused.

#include <string>
#include <vector>

#include "core/study/files/results_import.h"
#include "core/study/files/tfrecord_reader.h"

namespace paritylab::study {

struct TensorBoardImportOptions {
  // "path:PATTERN" (tensorboard_run_rule.h); "": the run folder's parent folder names the backend
  // and seeds are numbered 0..n-1 per backend in the order of the run folders' paths.
  std::string backendRule;
  // The tags holding each metric; "": the first of the defaults below that any run logs.
  std::string accuracyTag, testLossTag, trainLossTag;
  // The tag holding the perplexity, read as the test loss ln(perplexity) when no test loss is;
  // "": the first of defaultPerplexityTags() logged, when no test-loss tag is read.
  std::string perplexityTag;
  AccuracyUnit accuracyUnit = AccuracyUnit::Inferred;
};

// The tags tried, in order, when none is named.
const std::vector<std::string>& defaultAccuracyTags();
const std::vector<std::string>& defaultTestLossTags();
const std::vector<std::string>& defaultTrainLossTags();
// For TensorBoard and the trackers alike (tracker_import.h).
const std::vector<std::string>& defaultPerplexityTags();

// Refuses (input::InputError) a test-loss tag and a perplexity tag both named, naming both.
void requireOneTestLossSource(const std::string& testLoss, const std::string& perplexity);
// The note an import gives when its test loss is read from perplexity `tag` ("tag" or "metric").
std::string perplexityNote(const std::string& kind, const std::string& tag);

struct SkippedRun {
  std::string folder;  // relative to the imported path
  std::string why;
};

struct TensorBoardRuns {
  std::vector<ImportedRun> runs;  // run.message: the run folder relative to the imported path
  std::vector<SkippedRun> skipped;
  ImportNotes notes;
  std::string accuracyTag, testLossTag, trainLossTag;  // the tags read ("" when none)
  std::string perplexityTag;  // the test loss read as ln of this tag ("" when testLossTag is read)
};

// Throws EventFileError (a file or folder named, with the tag, step and value where a value is
// refused) and input::InputError (a malformed rule, naming --backend-from; a test-loss tag and a
// perplexity tag both named).
TensorBoardRuns readTensorBoardRuns(const std::string& path,
                                    const TensorBoardImportOptions& options);

}  // namespace paritylab::study
