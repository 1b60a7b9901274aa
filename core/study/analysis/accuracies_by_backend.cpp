#include "core/study/analysis/accuracies_by_backend.h"

#include <algorithm>
#include <cmath>

namespace paritylab::study {

std::vector<std::pair<std::string, std::vector<double>>> finalAccuraciesByBackend(
    const ResultsStore& store) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const RunRecord& r : store.loadRuns()) {
    if (r.status != RunState::Completed || std::isnan(r.finalAccuracy)) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == r.backend; });
    if (it == out.end()) it = out.insert(out.end(), {r.backend, {}});
    it->second.push_back(r.finalAccuracy);
  }
  return out;
}

}  // namespace paritylab::study
