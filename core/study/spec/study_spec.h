#pragma once
// A study: one model trained under several backends x seeds. JSON format "version": 1, documented
// in docs/study-spec.md. Parsing validates everything (names, types, the dataset) before training.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/backends/precision_policy.h"
#include "core/data/dataset.h"
#include "core/input/error.h"
#include "core/nn/trainer.h"
#include "core/stats/group_sequential.h"
#include "core/study/spec/study_sweep.h"

namespace paritylab::study {

// Every spec problem: names the file (when known), the field path and the value, e.g.
// "quick.json: backends[1]: unknown preset 'gpu-tf33'", or "quick.json:3:7: JSON syntax error ...".
class SpecError : public ErrorOf<std::runtime_error> {
 public:
  using ErrorOf::ErrorOf;
  SpecError(const std::string& message, std::string field)
      : ErrorOf(message), field_(std::move(field)) {}
  // The field path the problem is in ("backends[1].policy", "epochs"); "" when not one field
  // (bad JSON syntax, the dataset's files).
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// A perturbation at the level of rounding noise, for the chaos floor: how much does a run change
// when nothing but one rounding changes? (docs/chaos-floor.md)
enum class Perturbation {
  None,
  InitialWeightUlp,  // the first initial weight of the model moved one fp32 ulp up
  SummationOrder,    // every product sums its K terms in reverse order
};
// "weight-ulp", "summation-order" (the spec's names); "" for None.
const char* perturbationName(Perturbation p);
// What it is, in words: "a one-ulp nudge of one initial weight", "another fp32 summation order".
const char* perturbationWords(Perturbation p);

struct BackendEntry {
  std::string name;  // display name (unique in the study); defaults to the policy's name
  backends::PrecisionPolicy policy;
  nlohmann::json policyJson;  // as written in the spec (preset name or object)
  BackendOverrides overrides;
  // A chaos-floor entry (made by the parser, never written in a spec): the entry `perturbs` with
  // `perturbation` and nothing else changed; its runs use the same seeds.
  Perturbation perturbation = Perturbation::None;
  std::string perturbs;
  // A sweep's cell (made by the parser from the spec's "sweep"): the backend entry it was made
  // from and the factors' values, which `overrides` holds too; empty outside a sweep.
  std::string sweptFrom;
  std::vector<SweptValue> cell;
};

// The chaos floor: for a reference backend, one more entry per perturbation (BackendEntry), named
// "nudged-<reference>" and "reordered-<reference>", trained at the study's seeds. Their churn
// against the reference, beside the seed's, says how much of a precision's effect any
// rounding-level change would have had (the analysis: core/study/analysis/chaos_floor.h).
struct ChaosFloor {
  std::string reference;  // a backend entry of the study
  std::vector<Perturbation> perturbations{Perturbation::InitialWeightUlp,
                                          Perturbation::SummationOrder};
};

// Optional first stage: a backbone trained once (fp32) on `classes`; every backend then fine-tunes
// it on the study's own dataset classes with a new head.
struct PretrainStage {
  std::vector<int> classes;
  int epochs = 1;
  std::string policy = "cpu-fp32";
  std::uint64_t seed = 0;
};

// Lockstep shadow runs kept with the study (core/nn/lockstep.h, docs/lockstep.md): `backend`
// and `reference` (entries of the study or preset names) train side by side from the first
// seed's initial weights on its batches, once per mode, before the study's runs.
struct LockstepStudy {
  std::string backend;
  std::string reference = "cpu-fp32";
  std::int64_t steps = 200;  // at most the runs' own steps
  int every = 1;             // compare every N-th step
  double tolerance = 0.01;   // the relative difference whose first crossing is reported
  std::vector<std::string> modes{"resync", "free"};  // nn::parseLockstepMode's names
};

// A sequential study (docs/study-designs.md): seeds trained in rounds of `lookEvery`, each round
// followed by a look at backend `a` against `b` on the study's compared metric; the study stops
// once equivalence within the margin or a difference is shown at the look's boundary, or after
// maxSeeds. The seeds are 0 .. maxSeeds - 1.
struct SequentialStudy {
  stats::SequentialDesign design;
  std::string a, b;  // entries of the study; "" = the second and the first
};

struct StudySpec {
  int version = 1;
  std::string name;
  data::DatasetSpec dataset;
  nn::TrainConfig train;  // model, width, epochs, batch sizes, optimizer, schedule, freeze, clip
  std::optional<PretrainStage> pretrain;
  // The spec's entries, then the chaos floor's (BackendEntry::perturbation != None).
  std::vector<BackendEntry> backends;
  std::vector<std::uint64_t> seeds;
  // "sweep": the hyperparameters crossed with the backends (study_sweep.h); `backends` holds one
  // entry per backend and cell. Empty: no sweep.
  std::vector<SweepFactor> sweep;
  // "chaos_floor": true (the default for a study of at least two emulated backends: the first is
  // the reference), false, or {"reference": NAME, "perturbations": [...]}.
  std::optional<ChaosFloor> chaosFloor;
  // Weight snapshots kept per run for the weight divergence: "epochs" (the end of every
  // epoch), "final" (the last epoch only) or "none". Size: docs/divergence.md.
  std::string keepWeights = "epochs";
  // Early warnings: a sampled step whose loss is above this many times the running median of
  // the losses before it is a loss spike ("warnings": {"loss_spike_factor": k}; k > 1).
  double lossSpikeFactor = 3.0;
  // Train under one backend, serve under another: each completed run's model evaluated under
  // every backend of the study and in batches of 1 ("serve": false leaves it out; its cost is
  // one evaluation per backend, docs/serving.md).
  bool serve = true;
  // "lockstep": {"backend": NAME, "reference": NAME, "steps": N, "every": N, "tolerance": X,
  // "modes": ["resync", "free"]}; none by default.
  std::optional<LockstepStudy> lockstep;
  // "sequential": {"margin": X, "alpha": 0.05, "max_seeds": 20, "look_every": 5, "a": NAME,
  // "b": NAME, "spending": "obrien-fleming" | "pocock"}; none by default.
  std::optional<SequentialStudy> sequential;
  int threads = 0;     // 0 = one per core
  std::string origin;  // imported studies: the file the results came from
};

// The backends a sequential study compares: (a, b), the unnamed ones defaulting to the study's
// second and first entries; ("", "") without a sequential design.
std::pair<std::string, std::string> sequentialBackends(const StudySpec& spec);
// The policy a lockstep names: the study's entry of that name, else the preset (SpecError
// naming the field when neither exists).
backends::PrecisionPolicy lockstepPolicy(const StudySpec& spec, const std::string& name);

// text: the JSON; sourceName: file name used in messages. Throws SpecError.
StudySpec parseStudySpec(const std::string& text, const std::string& sourceName = "<spec>");
// The chaos floor's entries of `spec` for its reference (appended to spec.backends by the parser).
std::vector<BackendEntry> chaosFloorEntries(const StudySpec& spec);
// The sweep's cells of each backend entry `bases` (entries of no cell): one entry per cell, named
// "<backend> <cell>", its overrides set to the cell's values. `bases` as they are without a sweep.
// Throws SpecError when a backend overrides a swept hyperparameter itself.
std::vector<BackendEntry> sweptEntries(const std::vector<BackendEntry>& bases,
                                       const std::vector<SweepFactor>& sweep);
// The backend entries a sweep was made from (as written in the spec), in order; the entries
// themselves without a sweep. The chaos floor's entries are left out.
std::vector<BackendEntry> sweepBases(const StudySpec& spec);
// After spec.backends was edited in code (a command line's --backends): drops the chaos floor's
// entries and appends them again for the edited backends (the reference kept if still there,
// else the first backend; no floor with fewer than two backends).
void rebuildChaosFloor(StudySpec& spec);
// What the chaos floor costs, in words ("cpu-fp32 trained 2 more times per seed (a one-ulp nudge
// of one initial weight, another fp32 summation order): 10 of the study's 25 runs;
// \"chaos_floor\": false leaves it out"); "" without one.
std::string chaosFloorCost(const StudySpec& spec);
StudySpec loadStudySpecFile(const std::string& path);
nlohmann::json studySpecToJson(const StudySpec& spec);
// The "optimizer" and "schedule" objects of a spec as studySpecToJson writes them.
nlohmann::json optimizerToJson(const nn::OptimizerConfig& optimizer);
nlohmann::json scheduleToJson(const nn::ScheduleConfig& schedule);
// `next` is `stored` with more of the same: every field equal (the thread count aside) except
// that it may list more seeds and more backends, and every stored seed and backend entry is still
// there unchanged. Resuming a study's database with such a spec extends it.
bool extendsStudy(const StudySpec& stored, const StudySpec& next);
// The model and the data must go together: the language model ("gpt") trains on a text source
// and an image classifier on images; options of the other kind (freeze_epochs, augment, pretrain
// for text) are refused. Sets the dataset's block size from the model's. The parser calls it;
// code that edits a parsed spec (a command line's --model, --dataset) calls it again. Throws
// SpecError naming `file` and the field.
void requireDataForModel(StudySpec& spec, const std::string& file);
// Opens the dataset (small subsets are cheap); throws SpecError naming the file/field on failure.
void validateDataset(const StudySpec& spec);
// The TrainConfig for one backend entry (study values + the entry's overrides).
nn::TrainConfig trainConfigFor(const StudySpec& spec, const BackendEntry& entry);
// Line/column (1-based) of byte offset `pos` in `text`.
std::pair<int, int> lineColumnOf(const std::string& text, std::size_t pos);

}  // namespace paritylab::study
