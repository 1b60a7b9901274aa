#pragma once
// Completed runs with known curves, stored for the curve-equivalence tests (core and app): each
// run of `backend` (seeds 0..seeds-1) has 40 sampled steps (every 5th, 5..200) and 4 epochs, a
// falling loss with noise correlated from step to step and `shift` added from step `from` on.
// `imported`: runs from hardware (source "imported", named "run-SEED").

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/study/store/results_store.h"

namespace paritylab::study::testing {

inline void addCurveRuns(ResultsStore& store, const std::string& backend, int seeds,
                         std::mt19937_64& rng, double shift = 0.0, std::int64_t from = 0,
                         bool imported = false) {
  std::normal_distribution<double> noise(0.0, 0.03);
  for (int seed = 0; seed < seeds; ++seed) {
    RunRecord r;
    r.backend = backend;
    r.seed = std::uint64_t(seed);
    r.status = RunState::Completed;
    r.epochsDone = 4;
    r.finalAccuracy = 0.8;
    if (imported) {
      r.source = "imported";
      r.message = backend + "-run-" + std::to_string(seed);  // the source's identity
      r.runName = "run-" + std::to_string(seed);
    }
    const std::int64_t id = store.addRun(r);
    std::vector<StepRecord> steps;
    double e = 0.0;
    for (std::int64_t s = 5; s <= 200; s += 5) {
      e = 0.6 * e + noise(rng);
      const double loss = 2.0 * std::exp(-double(s) / 60.0) + 0.4 + e + (s >= from ? shift : 0.0);
      steps.push_back({s, int((s - 1) / 50) + 1, loss, 1e-3});
    }
    store.addSteps(id, steps);
    for (int epoch = 1; epoch <= 4; ++epoch) {
      EpochRecord ep;
      ep.epoch = epoch;
      ep.testLoss = 1.0 / epoch + 0.01 * noise(rng);
      ep.testAccuracy = 0.8 + 0.01 * noise(rng);
      store.addEpoch(id, ep);
    }
  }
}

}  // namespace paritylab::study::testing
