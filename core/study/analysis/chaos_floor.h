// The chaos floor of a divergence pair: how much would the model have changed had nothing but one
// rounding changed? Training amplifies any rounding-level perturbation (a one-bit change of one
// initial weight yields models about as diverse as a new seed's), so part of what a precision
// changes is not specific to the precision. For the pair's reference B, the runs of B perturbed at
// the level of rounding noise at the same seeds (StudySpec::chaosFloor: one initial weight moved
// one ulp, another fp32 summation order) are compared with B like the examined backend A is:
//   churn           perturbed vs B at the same seed, with a bootstrap CI;
//   McNemar         per seed-matched pair, Holm across pairs;
//   paired          the final-accuracy difference perturbed - B (paired t);
//   weights         per layer and epoch, ||W_P - W_B|| / ||W_B|| at the same seed;
//   excess          per seed, churn(A, B) - churn(P, B): how much of the precision's churn exceeds
//                   the perturbation's, with a bootstrap CI over seeds.
// docs/chaos-floor.md explains the design and how to read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/stats/bootstrap.h"
#include "core/stats/churn.h"
#include "core/stats/mcnemar.h"
#include "core/stats/paired_tests.h"
#include "core/study/analysis/divergence_analysis.h"
#include "core/study/spec/study_spec.h"

namespace paritylab::study {

class ResultsStore;
struct BackendRuns;

// The chaos floor for report.a against report.b, or nothing when the study has no perturbed
// entries (`entries`: the study's backend entries). `all` as collectBackendRuns gives it, `labels`
// the test set's (empty: none stored); report.churn, weightsKept and notes are read and
// added to.
std::optional<ChaosFloorReport> chaosFloor(const ResultsStore& store,
                                           const std::vector<BackendRuns>& all,
                                           const std::vector<BackendEntry>& entries,
                                           const std::vector<std::int32_t>& labels,
                                           const DivergenceOptions& options,
                                           const DivergenceReport& report);

}  // namespace paritylab::study
