#pragma once
// The runs a divergence analysis may use, per backend, with what is missing said in words.
// Internal to core/study/analysis: the divergence analysis and the train x serve matrix.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/stats/churn.h"
#include "core/study/analysis/divergence_analysis.h"
#include "core/study/analysis/train_serve.h"
#include "core/study/store/results_store.h"

namespace paritylab::study {

struct BackendRuns {
  std::string name;
  std::vector<RunRecord> completed;                       // emulated, completed, by seed
  std::vector<stats::SeededPredictions> withPredictions;  // those with stored predictions, by seed
  std::vector<double> allFinalAccuracies;                 // every completed run (imported too)
};

// The study's backends (the spec's order, then any other backend of a stored run) with their
// usable runs. Adds notes for imported runs, diverged or failed runs (named), and completed runs
// without predictions.
std::vector<BackendRuns> collectBackendRuns(const ResultsStore& store,
                                            const std::vector<std::string>& specBackends,
                                            std::size_t testExamples,
                                            std::vector<std::string>& notes);

// The entry of `all` named `name`, or null.
const BackendRuns* findBackendRuns(const std::vector<BackendRuns>& all, const std::string& name);

// Per layer and epoch: ||W_A - W_B|| / ||W_B|| over seed-matched completed runs, and the floor
// between B's runs with different seeds. Notes say why a part is empty.
std::vector<LayerDivergence> weightDivergence(const ResultsStore& store, const BackendRuns& a,
                                              const BackendRuns& b, const std::string& keepWeights,
                                              std::vector<std::string>& notes);

// The train x serve matrix of the runs `all` holds (collectBackendRuns over the spec's backends);
// `spec` is the study's, or null for a database that holds none.
TrainServeMatrix trainServeMatrix(const ResultsStore& store, const StudySpec* spec,
                                  const std::vector<BackendRuns>& all);

}  // namespace paritylab::study
