#pragma once
// A sweep: the study's backends crossed with every combination of some factors' values,
// "sweep": {"weight_decay": [5e-4, 1.25e-4], "batch_size": [64, 512]}. A factor is a
// hyperparameter (kHyperparameterNames) or a field of every backend's own policy, "policy."
// followed by its path in the policy's JSON ("policy.replicas": [1, 8],
// "policy.storage.activations": ["bf16", null]): each cell's policy is its backend's policy
// adjusted field by field, as {"preset": "tpu-bf16", "replicas": 1} adjusts a preset. Each backend
// of the spec becomes one entry per cell of the grid (BackendEntry::cell), named "<backend>
// <cell>", e.g. "tpu-bf16 batch_size=64 weight_decay=0.000125", so that everything a study does per
// backend entry (the store, resume, extension, shards and merge, MPI) does it per cell. The factors
// are kept in the order of their names (JSON objects are unordered); the grid runs through the last
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

// "policy.": the prefix of a factor that is a field of the backends' policies.
inline constexpr std::string_view kPolicyFieldPrefix = "policy.";
bool isPolicyField(std::string_view field);

struct SweepFactor {
  std::string field;  // one of kHyperparameterNames, or "policy." and a field's path
  // As listed, distinct: a hyperparameter's are numbers (integers for isIntegerHyperparameter);
  // a policy field's are JSON values as the policy format reads them ("bf16", null, 8, {...}).
  std::vector<nlohmann::json> values;
};

// One factor's value in one cell of the grid.
struct SweptValue {
  std::string field;
  nlohmann::json value;  // a number for a hyperparameter
  // A hyperparameter's value.
  double number() const { return value.get<double>(); }
};

// "sweep": {FIELD: [values...], ...}: every field one of kHyperparameterNames or a policy field
// (a path of names after "policy."), every list non-empty and its values distinct (as written in
// entry names). A policy field's values are checked against each backend when the cells' policies
// are made (policyWithFields). Throws SpecError naming the field ("sweep.lr[2]"). The factors in
// name order.
std::vector<SweepFactor> parseSweep(const nlohmann::json& j, const std::string& file);
nlohmann::json sweepToJson(const std::vector<SweepFactor>& factors);

// Every combination of the factors' values, the last factor fastest.
std::vector<std::vector<SweptValue>> sweepCells(const std::vector<SweepFactor>& factors);
std::size_t sweepCellCount(const std::vector<SweepFactor>& factors);

// A value as entry names and tables show it: 0.000125, 64, 1e-05 (up to 10 significant digits);
// a policy field's string as it is ("bf16"), null as "none", anything else as compact JSON.
std::string sweptValueText(double value);
std::string sweptValueText(const nlohmann::json& value);

// The policy `base` (as a spec writes it: a preset name or an object) with the cell's policy
// fields set: a preset name becomes {"preset": name, ...}; a field's path creates the objects it
// passes through and leaves the others' fields as they are ("policy.storage.activations" sets
// storage.activations only). The hyperparameters of the cell are not policy fields: ignored.
nlohmann::json policyWithFields(const nlohmann::json& base, const std::vector<SweptValue>& cell);
// "batch_size=64 weight_decay=0.000125".
std::string cellName(const std::vector<SweptValue>& cell);

}  // namespace paritylab::study
