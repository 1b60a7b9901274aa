#pragma once
// The fields of a study spec that the Study dialog edits, read from and written to the spec JSON
// through core/study's parser and serializer (the one place the ui knows the spec's layout).

#include <QString>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/study/spec/study_sweep.h"

namespace paritylab::ui {

struct SpecFields {
  std::string name;
  std::string dataset = "fashion-mnist";  // a kind of core/data/dataset_kinds.h
  std::string datasetDir;                 // the folder of a kind that takes one
  int trainSize = 0, testSize = 0;        // 0 = all
  std::string model = "mlp";
  int width = 64;
  int nLayer = 4, nHead = 4, nEmbd = 128, blockSize = 64;  // gpt's shape
  int epochs = 2, batch = 128, evalBatch = 1000;
  int steps = 0;  // > 0: the runs train this many steps instead of `epochs` epochs
  std::string optimizer = "adamw";
  double lr = 1e-3, weightDecay = 0.0, momentum = 0.9;
  std::string schedule = "constant";
  double warmupEpochs = 0.0;
  int stepEpochs = 10;
  double gamma = 0.1;
  int freezeEpochs = 0;
  std::string seeds = "5";  // "5" (a count) or "0, 1, 2" (a list)
  int threads = 0;          // 0 = one per core
  // The chaos floor (docs/chaos-floor.md): the reference trained again at every seed, perturbed
  // at the level of rounding noise. The spec's default: on for two or more backends.
  bool chaosFloor = true;
  std::vector<nlohmann::json> backends;  // spec entries: "preset" or {...}
  // "sweep": the hyperparameters crossed with the backends, in core's order; none: no sweep.
  std::vector<study::SweepFactor> sweep;
};

bool readSpecFields(const nlohmann::json& spec, SpecFields* out, QString* reason);
// Writes the fields into `spec`, keeping the fields the form does not show.
void writeSpecFields(const SpecFields& fields, nlohmann::json* spec);
// "5" -> 0..4 is NOT expanded here: a count gives `count` seeds; a list gives those seeds.
bool parseSeeds(const QString& text, std::vector<std::uint64_t>* seeds, QString* reason);
// A sweep factor's values as typed, "0.1, 0.01" (commas or spaces between): empty text gives no
// values; a value that is not a number is refused with the reason naming it.
bool parseSweepValues(const QString& text, std::vector<nlohmann::json>* values, QString* reason);
// A factor's values as the form shows them: "0.1, 0.01" (a policy field's: "bf16, none").
QString sweepValuesText(const std::vector<nlohmann::json>& values);
// A backend entry checks out with core/backends' policy parser.
bool validateBackendEntry(const nlohmann::json& entry, QString* reason);
std::string backendEntryName(const nlohmann::json& entry);

}  // namespace paritylab::ui
