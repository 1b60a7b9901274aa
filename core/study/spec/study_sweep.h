#pragma once
// A sweep: the study's backends crossed with every combination of some hyperparameters' values,
// "sweep": {"weight_decay": [5e-4, 1.25e-4], "batch_size": [64, 512]}. Each backend of the spec
// becomes one entry per cell of the grid (BackendEntry::cell), named "<backend> <cell>", e.g.
// "tpu-bf16 batch_size=64 weight_decay=0.000125", so that everything a study does per backend
// entry (the store, resume, extension, shards and merge, MPI) does it per cell. The factors are
// kept in the order of their names (JSON objects are unordered); the grid runs through the last
// factor fastest. The reasoning: docs/study-designs.md.

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paritylab::study {

// The hyperparameters a backend entry may override ("overrides") and a sweep may vary, named as
// the spec names them. Unset fields use the study's values.
inline constexpr std::array<std::string_view, 6> kHyperparameterNames = {
    "lr", "weight_decay", "batch_size", "epochs", "warmup_epochs", "grad_clip"};

// batch_size and epochs: whole numbers, written as integers.
bool isIntegerHyperparameter(std::string_view name);

struct BackendOverrides {
  std::optional<double> lr, weightDecay;
  std::optional<int> batchSize, epochs;
  std::optional<double> warmupEpochs, gradClip;

  // The field called `name` (one of kHyperparameterNames) as a number; nullopt when unset.
  std::optional<double> get(std::string_view name) const;
  // Sets the field called `name`; an integer field takes `value` as it is (the reader checked it).
  void set(std::string_view name, double value);
  // Unsets the field called `name`.
  void reset(std::string_view name);
};

// Reads one hyperparameter `name` from `value` (its limits: lr > 0, batch size and epochs
// positive integers, the rest >= 0); throws SpecError naming `field` in `file`.
double readHyperparameter(std::string_view name, const nlohmann::json& value,
                          const std::string& field, const std::string& file);

struct SweepFactor {
  std::string field;           // one of kHyperparameterNames
  std::vector<double> values;  // as listed, distinct
};

// One factor's value in one cell of the grid.
struct SweptValue {
  std::string field;
  double value = 0.0;
};

// "sweep": {FIELD: [values...], ...}: every field one of kHyperparameterNames, every list
// non-empty and its values distinct (as written in entry names). Throws SpecError naming the
// field ("sweep.lr[2]"). The factors in name order.
std::vector<SweepFactor> parseSweep(const nlohmann::json& j, const std::string& file);
nlohmann::json sweepToJson(const std::vector<SweepFactor>& factors);

// Every combination of the factors' values, the last factor fastest.
std::vector<std::vector<SweptValue>> sweepCells(const std::vector<SweepFactor>& factors);
std::size_t sweepCellCount(const std::vector<SweepFactor>& factors);

// A value as entry names and tables show it: 0.000125, 64, 1e-05 (up to 10 significant digits).
std::string sweptValueText(double value);
// "batch_size=64 weight_decay=0.000125".
std::string cellName(const std::vector<SweptValue>& cell);

}  // namespace paritylab::study
