#pragma once
// Runs of one backend that are identical: the same per-epoch curve (train loss, test loss, test
// accuracy, every epoch, to the last digit) and the same final accuracy. Two such runs are one
// measurement recorded twice (a re-run of the same seed on deterministic hardware, or a copied
// row), so they inflate n. They are flagged in the import summary and the Statistics tab.

#include <cstddef>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study {

struct RunCurve {
  std::string backend;
  std::string name;  // shown in the description (e.g. "prod_42"); may be empty
  std::vector<EpochRecord> epochs;
  double finalAccuracy = 0.0;  // NaN when unknown
};

// One backend's identical runs: classes of runs (indices into the input) that are all equal.
struct IdenticalRuns {
  std::string backend;
  std::vector<std::vector<std::size_t>> groups;  // each group has >= 2 runs
  int n = 0;                                     // the backend's runs with a final accuracy
  int distinct = 0;                              // n counting each group once
  int pairs() const;  // pairs of identical runs (a group of k has k*(k-1)/2)
};

// Runs need a curve of at least 2 epochs to be compared (final values alone coincide by chance).
// Backends in order of first appearance; only backends with identical runs are listed.
std::vector<IdenticalRuns> findIdenticalRuns(const std::vector<RunCurve>& runs);

// "xla: 2 pairs of identical runs (prod_42 and prod_42, prod_3 and prod_3); n would be 12 without
// them (14 runs)"; one line per backend.
std::vector<std::string> describeIdenticalRuns(const std::vector<IdenticalRuns>& found,
                                               const std::vector<RunCurve>& runs);

}  // namespace paritylab::study
