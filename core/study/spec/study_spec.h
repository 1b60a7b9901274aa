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

// Hyperparameters a backend entry may override; unset fields use the study's values.
struct BackendOverrides {
  std::optional<double> lr, weightDecay;
  std::optional<int> batchSize, epochs;
};

struct BackendEntry {
  std::string name;  // display name (unique in the study); defaults to the policy's name
  backends::PrecisionPolicy policy;
  nlohmann::json policyJson;  // as written in the spec (preset name or object)
  BackendOverrides overrides;
};

// Optional first stage: a backbone trained once (fp32) on `classes`; every backend then fine-tunes
// it on the study's own dataset classes with a new head.
struct PretrainStage {
  std::vector<int> classes;
  int epochs = 1;
  std::string policy = "cpu-fp32";
  std::uint64_t seed = 0;
};

struct StudySpec {
  int version = 1;
  std::string name;
  data::DatasetSpec dataset;
  nn::TrainConfig train;  // model, width, epochs, batch sizes, optimizer, schedule, freeze, clip
  std::optional<PretrainStage> pretrain;
  std::vector<BackendEntry> backends;
  std::vector<std::uint64_t> seeds;
  // Weight snapshots kept per run for the weight divergence: "epochs" (the end of every
  // epoch), "final" (the last epoch only) or "none". Size: docs/divergence.md.
  std::string keepWeights = "epochs";
  int threads = 0;     // 0 = one per core
  std::string origin;  // imported studies: the file the results came from
};

// text: the JSON; sourceName: file name used in messages. Throws SpecError.
StudySpec parseStudySpec(const std::string& text, const std::string& sourceName = "<spec>");
StudySpec loadStudySpecFile(const std::string& path);
nlohmann::json studySpecToJson(const StudySpec& spec);
// `next` is `stored` with more of the same: every field equal (the thread count aside) except
// that it may list more seeds and more backends, and every stored seed and backend entry is still
// there unchanged. Resuming a study's database with such a spec extends it.
bool extendsStudy(const StudySpec& stored, const StudySpec& next);
// Opens the dataset (small subsets are cheap); throws SpecError naming the file/field on failure.
void validateDataset(const StudySpec& spec);
// The TrainConfig for one backend entry (study values + the entry's overrides).
nn::TrainConfig trainConfigFor(const StudySpec& spec, const BackendEntry& entry);
// Line/column (1-based) of byte offset `pos` in `text`.
std::pair<int, int> lineColumnOf(const std::string& text, std::size_t pos);

}  // namespace paritylab::study
