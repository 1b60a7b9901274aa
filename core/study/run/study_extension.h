#pragma once
// What editing the study of an existing results database adds to it: the same study with more
// seeds or backends keeps its database, and only the runs it does not hold yet are added.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/study/run/run_scheduler.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {

// A run by what it trains: its backend's name and its seed (a study has one run per pair).
struct RunIdentity {
  std::string backend;
  std::uint64_t seed = 0;
};

// The runs `next` adds to a database of `stored`. nullopt when `next` does not extend `stored`
// (extendsStudy): it is another study, which needs a database of its own. Otherwise the runs of
// plannedRunsOf(next), in that order, whose backend name and seed are not among `present` (the
// runs the database holds or already lists); empty when `next` adds none (another thread count,
// or the same study).
std::optional<std::vector<PlannedRun>> runsAddedByExtending(
    const StudySpec& stored, const StudySpec& next, const std::vector<RunIdentity>& present);

}  // namespace paritylab::study
