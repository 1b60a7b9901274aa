#pragma once
// A sequential study's looks (docs/study-designs.md): after each round of seeds, backend a
// against b on the study's compared metric, judged at the round's boundaries; where the study
// stopped and why, in words that say the design (the p-values are read against each look's
// boundary, not against alpha).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/stats/group_sequential.h"
#include "core/study/analysis/compared_metric.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct SequentialAnalysis {
  stats::SequentialPlan plan;
  std::string a, b;
  ComparedMetric metric = ComparedMetric::Accuracy;
  // The looks made: a look is made once every run of a and b at its seeds has ended; its values
  // are the completed runs' (a diverged run has none).
  std::vector<stats::SequentialLook> looks;
  std::size_t ended = 0;  // the first looks whose runs have all ended (made, or none possible)
  std::optional<std::size_t> stoppedAt;  // the look that decided (or the last, inconclusive)
  std::vector<std::string> words;
};

// spec.sequential must be set (std::invalid_argument otherwise); runs: the store's.
SequentialAnalysis analyseSequential(const StudySpec& spec, const std::vector<RunRecord>& runs);

// The seeds per backend the study must have trained before its next look; nullopt once it has
// stopped (decided, or at max_seeds).
std::optional<std::size_t> seedsForNextLook(const SequentialAnalysis& analysis);

}  // namespace paritylab::study
