#pragma once
// What a run starts from: its model's initial weights and the order in which each epoch visits the
// training examples. train() and the run-start export (core/study/files/run_start_export.h) use
// these same functions, so an exported start is exactly what training reads.

#include <cstdint>
#include <vector>

#include "core/data/dataset.h"
#include "core/nn/trainer.h"
#include "core/nn/training_session.h"

namespace paritylab::nn {

// The model `config` trains on images shaped as `trainSet`'s, with its classes.
ModelSpec modelSpecFor(const TrainConfig& config, const data::Dataset& trainSet);

// After TrainingSession's seeded initialisation: the config's checkpoint loaded and the chaos
// floor's one-ulp nudge applied, as train() does before its first step.
void applyStartingWeights(const TrainConfig& config, TrainingSession& session);

// Fills `order` (its size is the number of training examples n) with the permutation of [0, n)
// that epoch `epoch` (1-based) of a run with `seed` visits: step i of the epoch trains on the
// examples order[i*B .. min((i+1)*B, n)), B the batch size, in that order. Fisher-Yates on the
// run's own stream, the same on every platform and under every backend.
void fillEpochOrder(std::vector<std::uint32_t>& order, std::uint64_t seed, int epoch);

}  // namespace paritylab::nn
