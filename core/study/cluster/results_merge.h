#pragma once
// `paritylab-cli merge part-*.db --db all.db`: joins the databases of a study's shards (or of any
// runs of one study kept apart) into one. Checks everything before writing anything:
// - every input is a sound ParityLab results database holding a study (a missing, truncated or
//   foreign file is refused, named);
// - every input holds the same study ("threads" aside; the first differing field is named);
// - no run is in two inputs (the run, by backend and seed, and both files are named);
// - an existing output holds the same study (or none yet) and no finished run of the inputs.
// Then copies the runs that ended (completed, diverged, failed) with every row of theirs (epochs,
// steps, X-ray samples, any later table: ResultsStore::copyRunsFrom). Runs still pending, running
// or cancelled in their shard are not copied: they are reported missing, with every planned run
// no input holds, and `run --resume` on the output (or on that shard) finishes them. A study of
// imported results is its runs: every finished one is present, and nothing is to be resumed.
// The output is built beside the target under a temporary name and renamed over it when complete:
// a merge that fails (any error) or is killed leaves the target as it was, or absent.

#include <string>
#include <vector>

#include "core/study/spec/spec_difference.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct MergeReport {
  std::string studyName;
  int planned = 0;                   // runs of the study
  int copied = 0;                    // runs copied into the output
  int alreadyThere = 0;              // finished runs the output held before
  std::vector<std::string> inputs;   // per input: "part-1.db (shard 1/3): 5 runs copied"
  std::vector<std::string> missing;  // per run not finished in the output, in words
  std::vector<std::string> notes;    // e.g. "shards 1/3, 2/3 given; shard 3/3 is not"
  // The study holds imported results (measured elsewhere): `run --resume` cannot finish it.
  bool imported = false;
  bool complete() const { return missing.empty(); }
};

// Throws StoreError (bad or refused input, a failed write) naming the file and the reason; nothing
// is written to the output before every check passed.
MergeReport mergeResults(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace paritylab::study
