#include "core/study/run/study_extension.h"

#include <algorithm>

namespace paritylab::study {

std::optional<std::vector<PlannedRun>> runsAddedByExtending(
    const StudySpec& stored, const StudySpec& next, const std::vector<RunIdentity>& present) {
  if (!extendsStudy(stored, next)) return std::nullopt;
  std::vector<PlannedRun> added;
  for (const PlannedRun& run : plannedRunsOf(next)) {
    const std::string& backend = next.backends[run.backendIndex].name;
    const bool known = std::any_of(present.begin(), present.end(), [&](const RunIdentity& have) {
      return have.backend == backend && have.seed == run.seed;
    });
    if (!known) added.push_back(run);
  }
  return added;
}

}  // namespace paritylab::study
