#include "core/study/spec/study_spec.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <span>
#include <string_view>

#include "core/backends/policy_overrides.h"
#include "core/data/dataset_kinds.h"
#include "core/data/text_split.h"
#include "core/input/input_limits.h"
#include "core/input/json_input.h"
#include "core/input/text_file.h"
#include "core/nn/fp64_training.h"
#include "core/nn/lockstep.h"
#include "core/nn/site_policies.h"
#include "core/nn/training_choices.h"
#include "core/study/spec/study_memory.h"

namespace paritylab::study {
namespace {

// The entry a spec's field names: the entry of that name, or, for a backend as written in a sweep,
// its first cell (the cells share its policy; the chaos floor perturbs the first). Null if none.
const BackendEntry* entryNamed(const std::vector<BackendEntry>& entries, const std::string& name) {
  for (const BackendEntry& e : entries)
    if (e.name == name) return &e;
  for (const BackendEntry& e : entries)
    if (e.sweptFrom == name) return &e;
  return nullptr;
}

using nlohmann::json;

// Reads the fields of one JSON object, checking types and limits (core/input/input_limits.h),
// and rejects unknown fields. Values in messages are bounded excerpts.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path, const std::string& file)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object()) fail(path_, "expected an object, got " + input::jsonExcerpt(object_));
  }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError(file_ + ": " + field + ": " + what, field);
  }
  std::string fieldPath(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  // Runs `read` (a core/input check of `field`) with its InputError as a SpecError naming the
  // field, so that checkStudySpec can locate it and go on to the next problem.
  template <typename Read>
  static auto checked(const std::string& field, Read read) -> decltype(read()) {
    try {
      return read();
    } catch (const input::InputError& e) {
      throw SpecError(e.what(), field);
    }
  }
  const json* find(const std::string& key) {
    known_.insert(key);
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  // Whether the object has `key` (without marking it read).
  bool has(const std::string& key) const { return object_.contains(key); }
  void read(const std::string& key, bool& out) {
    if (const json* v = find(key)) {
      if (!v->is_boolean()) fail(fieldPath(key), "expected true/false, got " + excerpt(*v));
      out = v->get<bool>();
    }
  }
  void read(const std::string& key, std::string& out) {
    if (const json* v = find(key)) {
      if (!v->is_string()) fail(fieldPath(key), "expected a string, got " + excerpt(*v));
      out = v->get<std::string>();
    }
  }
  // An integer within `limits`, converted without overflow into any integer type that holds them.
  template <typename T>
  void readInt(const std::string& key, T& out, input::IntegerLimits limits) {
    if (const json* v = find(key))
      out = T(checked(fieldPath(key), [&] {
        return input::requireJsonInteger(*v, file_ + ": " + fieldPath(key), limits);
      }));
  }
  void readReal(const std::string& key, double& out, input::RealLimits limits) {
    if (const json* v = find(key))
      out = checked(fieldPath(key), [&] {
        return input::requireJsonReal(*v, file_ + ": " + fieldPath(key), limits);
      });
  }
  // One of `choices`; an unknown value is named with the choices in their order.
  void readChoice(const std::string& key, std::string& out,
                  std::span<const std::string_view> choices) {
    read(key, out);
    if (!nn::isOneOf(out, choices))
      fail(fieldPath(key), "unknown value '" + input::excerpt(out) +
                               "' (one of: " + nn::joinedNames(choices) + ")");
  }
  // A list of class indices (at most kMaxClasses, each in [0, kMaxClasses)).
  void readClasses(const std::string& key, std::vector<int>& out) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_array() || v->size() > std::size_t(input::kMaxClasses))
      fail(fieldPath(key), "expected an array of at most " + std::to_string(input::kMaxClasses) +
                               " class indices, got " + excerpt(*v));
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i)
      out.push_back(int(checked(fieldPath(key) + "[" + std::to_string(i) + "]", [&] {
        return input::requireJsonInteger(
            (*v)[i], file_ + ": " + fieldPath(key) + "[" + std::to_string(i) + "]",
            {0, input::kMaxClasses - 1});
      })));
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t k = 0; k < i; ++k)
        if (out[k] == out[i])
          fail(fieldPath(key) + "[" + std::to_string(i) + "]",
               "class " + std::to_string(out[i]) + " is listed twice (at " + std::to_string(k) +
                   " and " + std::to_string(i) + "; each class once)");
    if (out.size() == 1)
      fail(fieldPath(key), "a single class (" + std::to_string(out[0]) +
                               "): a classifier needs at least 2 classes");
  }
  void finish() const {
    for (auto it = object_.begin(); it != object_.end(); ++it)
      if (!known_.count(it.key()))
        fail(fieldPath(input::excerpt(it.key())),
             "unknown field (value " + excerpt(it.value()) + ")");
  }
  const std::string& file() const { return file_; }
  static std::string excerpt(const json& v) { return input::jsonExcerpt(v); }

 private:
  const json& object_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> known_;
};

// 5 as "5", 0.5 as "0.5".
std::string shownNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

constexpr input::IntegerLimits kEpochs{1, input::kMaxEpochs};
constexpr input::IntegerLimits kBatch{1, input::kMaxBatchSize};
constexpr input::IntegerLimits kSeedValue{0, input::kMaxSeedValue};
constexpr input::RealLimits kNonNegative{0, input::kMaxHyperparameter};
constexpr input::RealLimits kPositive{0, input::kMaxHyperparameter, true};
constexpr input::RealLimits kFraction{0, 1};                   // [0, 1]
constexpr input::RealLimits kOpenFraction{0, 1, false, true};  // [0, 1)
// StudySpec::keepWeights.
constexpr std::string_view kKeepWeights[] = {"epochs", "final", "none"};
// SequentialStudy's alpha-spending functions.
constexpr std::string_view kSpendingNames[] = {"obrien-fleming", "pocock"};

void readDataset(const json& j, data::DatasetSpec& d, const std::string& file) {
  ObjectReader r(j, "dataset", file);
  r.read("source", d.source);
  r.readInt("train_size", d.trainSize, {0, input::kMaxDatasetImages});
  r.readInt("test_size", d.testSize, {0, input::kMaxDatasetImages});
  r.readReal("test_fraction", d.testFraction, kOpenFraction);
  r.readInt("seed", d.seed, kSeedValue);
  r.readInt("image_size", d.imageSize, {0, input::kMaxImageSide});
  r.readInt("celeba_identities", d.celebaIdentities, {1, input::kMaxClasses});
  r.readClasses("classes", d.classes);
  r.read("normalize", d.normalize);
  r.finish();
}

void readOptimizer(const json& j, nn::OptimizerConfig& o, const std::string& file) {
  ObjectReader r(j, "optimizer", file);
  r.readChoice("kind", o.kind, nn::kOptimizerKinds);
  r.readReal("lr", o.lr, kPositive);
  r.readReal("weight_decay", o.weightDecay, kNonNegative);
  r.readReal("beta1", o.beta1, kOpenFraction);
  r.readReal("beta2", o.beta2, kOpenFraction);
  r.readReal("eps", o.eps, {0, 1, true});
  r.readReal("momentum", o.momentum, kFraction);
  r.read("nesterov", o.nesterov);
  r.finish();
}

void readSchedule(const json& j, nn::ScheduleConfig& s, const std::string& file) {
  ObjectReader r(j, "schedule", file);
  r.readChoice("kind", s.kind, nn::kScheduleKinds);
  r.readReal("warmup_epochs", s.warmupEpochs, {0, double(input::kMaxEpochs)});
  r.readInt("warmup_steps", s.warmupSteps, {0, input::kMaxSteps});
  if (s.warmupSteps > 0 && s.warmupEpochs > 0)
    r.fail("schedule.warmup_steps", "give warmup_epochs or warmup_steps, not both");
  r.readInt("step_epochs", s.stepEpochs, kEpochs);
  r.readReal("gamma", s.gamma, kPositive);
  r.readReal("min_lr_fraction", s.minLrFraction, kFraction);
  r.finish();
}

// The language model's shape: top-level fields like resnet18's width, read for "gpt" only.
void readGptShape(ObjectReader& r, nn::TrainConfig& t) {
  static constexpr const char* kFields[] = {"n_layer", "n_head", "n_embd", "block_size",
                                            "tie_weights"};
  if (!nn::isLanguageModel(t.model)) {
    for (const char* field : kFields)
      if (r.has(field))
        r.fail(field,
               "applies to the language model (\"model\": \"gpt\"), not to '" + t.model + "'");
    return;
  }
  nn::GptShape& g = t.gpt;
  r.readInt("n_layer", g.nLayer, {1, input::kMaxGptLayers});
  r.readInt("n_head", g.nHead, {1, input::kMaxGptHeads});
  r.readInt("n_embd", g.nEmbd, {1, input::kMaxGptEmbedding});
  r.readInt("block_size", g.blockSize, {1, input::kMaxGptBlockSize});
  r.read("tie_weights", g.tieWeights);
  if (g.nEmbd % g.nHead != 0)
    r.fail("n_embd", std::to_string(g.nEmbd) + " is not a multiple of n_head = " +
                         std::to_string(g.nHead) + " (each head is n_embd / n_head wide)");
}

// What a language model writes at the end of each run: {"prompt", "length", "temperature"}.
void readSampling(const json& j, nn::TrainConfig& t, const std::string& file) {
  ObjectReader r(j, "samples", file);
  if (!nn::isLanguageModel(t.model))
    r.fail("samples",
           "applies to the language model (\"model\": \"gpt\"), not to '" + t.model + "'");
  nn::SamplingConfig& s = t.sampling;
  r.read("prompt", s.prompt);
  if (s.prompt.empty())
    r.fail("samples.prompt", "empty (the model needs at least one character to continue)");
  if (s.prompt.size() > std::size_t(input::kMaxSamplePrompt))
    r.fail("samples.prompt", std::to_string(s.prompt.size()) + " bytes (at most " +
                                 std::to_string(input::kMaxSamplePrompt) + ")");
  r.readInt("length", s.length, {0, input::kMaxSampleLength});
  r.readReal("temperature", s.temperature, {0.0, input::kMaxSampleTemperature});
  r.readInt("seed", s.seed, kSeedValue);
  r.finish();
}

BackendEntry readBackend(const json& j, const std::string& path, const std::string& file) {
  BackendEntry e;
  try {
    if (j.is_string()) {
      e.policy = backends::policyFromJson(j);
      e.policyJson = j;
    } else if (j.is_object() && j.contains("policy")) {
      ObjectReader r(j, path, file);
      r.read("name", e.name);
      const json* p = r.find("policy");
      e.policyJson = *p;
      try {
        e.policy = backends::policyFromJson(*p);
      } catch (const std::invalid_argument& ex) {
        r.fail(path + ".policy", ex.what());
      }
      if (const json* o = r.find("overrides")) {
        ObjectReader ro(*o, path + ".overrides", file);
        for (std::string_view name : kHyperparameterNames)
          if (const json* v = ro.find(std::string(name)))
            e.overrides.set(name,
                            readHyperparameter(name, *v, ro.fieldPath(std::string(name)), file));
        ro.finish();
      }
      r.finish();
    } else {
      e.policy = backends::policyFromJson(j);  // an inline policy object
      e.policyJson = j;
    }
  } catch (const std::invalid_argument& ex) {
    throw SpecError(file + ": " + path + ": " + ex.what(), path);
  }
  if (e.name.empty()) e.name = e.policy.name;
  return e;
}

// The chaos floor's perturbations, listed once: the spec's name, the words, the entry's prefix.
struct PerturbationNames {
  Perturbation kind;
  const char* name;
  const char* words;
  const char* prefix;  // the perturbation first: a name cut short still says which it is
};
constexpr PerturbationNames kPerturbations[] = {
    {Perturbation::InitialWeightUlp, "weight-ulp", "a one-ulp nudge of one initial weight",
     "nudged-"},
    {Perturbation::SummationOrder, "summation-order", "another fp32 summation order", "reordered-"},
};

const PerturbationNames* namesOf(Perturbation p) {
  for (const PerturbationNames& n : kPerturbations)
    if (n.kind == p) return &n;
  return nullptr;
}

// "chaos_floor": true | false | {"reference": NAME, "perturbations": ["weight-ulp", ...]}; absent:
// on for a study of at least two emulated backends. Appends the floor's entries.
void readChaosFloor(ObjectReader& r, StudySpec& s) {
  const json* c = r.find("chaos_floor");
  const bool emulated = s.origin.empty();
  if (!c && (!emulated || s.backends.size() < 2)) return;
  ChaosFloor floor;
  floor.reference = s.backends.front().name;
  if (c && c->is_boolean()) {
    if (!c->get<bool>()) return;
  } else if (c && c->is_object()) {
    ObjectReader rc(*c, "chaos_floor", r.file());
    rc.read("reference", floor.reference);
    if (const json* list = rc.find("perturbations")) {
      const std::string known =
          std::string(kPerturbations[0].name) + " or " + kPerturbations[1].name;
      if (!list->is_array() || list->empty() || list->size() > std::size(kPerturbations))
        rc.fail("chaos_floor.perturbations",
                "expected a list of " + known + ", each once, got " + ObjectReader::excerpt(*list));
      floor.perturbations.clear();
      for (std::size_t i = 0; i < list->size(); ++i) {
        const json& v = (*list)[i];
        const std::string field = "chaos_floor.perturbations[" + std::to_string(i) + "]";
        const std::string name = v.is_string() ? v.get<std::string>() : std::string();
        Perturbation p = Perturbation::None;
        for (const PerturbationNames& n : kPerturbations)
          if (name == n.name) p = n.kind;
        if (p == Perturbation::None)
          rc.fail(field, "expected " + known + ", got " + ObjectReader::excerpt(v));
        if (std::find(floor.perturbations.begin(), floor.perturbations.end(), p) !=
            floor.perturbations.end())
          rc.fail(field, std::string("'") + name + "' is listed twice");
        floor.perturbations.push_back(p);
      }
    }
    rc.finish();
  } else if (c) {
    r.fail("chaos_floor",
           "expected true, false or {\"reference\": NAME}, got " + ObjectReader::excerpt(*c));
  }
  if (!emulated) r.fail("chaos_floor", "an imported study has no emulated runs to perturb");
  const BackendEntry* reference = entryNamed(s.backends, floor.reference);
  if (reference) floor.reference = reference->name;  // a sweep's backend: its first cell
  if (!reference)
    r.fail("chaos_floor.reference",
           "'" + input::excerpt(floor.reference) + "' is not a backend of the study");
  s.chaosFloor = floor;
  for (BackendEntry& e : chaosFloorEntries(s)) {
    for (const BackendEntry& other : s.backends)
      if (other.name == e.name)
        r.fail("chaos_floor", "the chaos floor's backend '" + e.name +
                                  "' has the name of a backend of the study (rename that one)");
    s.backends.push_back(std::move(e));
  }
}

// "sweep": {FIELD: [values...]}: each backend entry read so far becomes one entry per cell.
void readSweep(const json& j, StudySpec& s, const std::string& file) {
  const auto fail = [&file](const std::string& field, const std::string& what) {
    throw SpecError(file + ": " + field + ": " + what, field);
  };
  s.sweep = parseSweep(j, file);
  const std::size_t cells = sweepCellCount(s.sweep);  // at most 1000^6: no overflow
  const long double runs = static_cast<long double>(cells) * s.backends.size() * s.seeds.size();
  if (runs > static_cast<long double>(input::kMaxStudyRuns))
    fail("sweep", "a grid of " + std::to_string(cells) + " cells x " +
                      std::to_string(s.backends.size()) + " backends x " +
                      std::to_string(s.seeds.size()) + " seeds is more than the " +
                      std::to_string(input::kMaxStudyRuns) + " runs a study may have");
  const nn::TrainConfig& t = s.train;
  for (const SweepFactor& f : s.sweep) {
    if (f.field == "epochs" && t.steps > 0)
      fail("sweep.epochs",
           "the study counts steps (\"steps\": " + std::to_string(t.steps) + "), not epochs");
    if (f.field == "warmup_epochs" && t.schedule.warmupSteps > 0)
      fail("sweep.warmup_epochs", "the study's schedule warms up over warmup_steps (" +
                                      std::to_string(t.schedule.warmupSteps) + ")");
    // A policy field: each value on its own, against each backend, so that a value no policy
    // takes is named where it is written.
    for (std::size_t v = 0; isPolicyField(f.field) && v < f.values.size(); ++v)
      for (const BackendEntry& b : s.backends) {
        try {
          backends::policyFromJson(policyWithFields(b.policyJson, {{f.field, f.values[v]}}));
        } catch (const std::invalid_argument& ex) {
          const std::string field = "sweep." + f.field + "[" + std::to_string(v) + "]";
          fail(field, "backend '" + b.name + "' does not take " + sweptValueText(f.values[v]) +
                          ": " + ex.what());
        }
      }
    for (std::size_t i = 0; !isPolicyField(f.field) && i < s.backends.size(); ++i)
      if (s.backends[i].overrides.get(f.field))
        fail(
            "backends[" + std::to_string(i) + "].overrides." + f.field,
            "is swept too (\"sweep\": {\"" + f.field + "\": ...}); give it in one place, not both");
  }
  s.backends = sweptEntries(s.backends, s.sweep);
  std::set<std::string> names;
  for (const BackendEntry& e : s.backends) {
    if (!names.insert(e.name).second)
      fail("sweep", "two entries are named '" + e.name + "' (rename the backend)");
    const nn::TrainConfig c = trainConfigFor(s, e);
    if (c.steps == 0 && c.schedule.warmupEpochs > double(c.epochs))
      fail("sweep", "'" + e.name + "' warms up for " + shownNumber(c.schedule.warmupEpochs) +
                        " epochs, more than its " + std::to_string(c.epochs));
  }
}

// "sequential": the seeds trained in rounds until the answer is known (the seeds it sets).
void readSequential(const json& j, StudySpec& s, const std::string& file, bool seedsGiven) {
  ObjectReader r(j, "sequential", file);
  if (seedsGiven)
    r.fail("seeds", "a sequential study sets its seeds (0 .. sequential.max_seeds - 1)");
  if (!s.sweep.empty()) r.fail("sequential", "not with a \"sweep\" (one or the other)");
  SequentialStudy q;
  stats::SequentialDesign& d = q.design;
  if (!r.has("margin"))
    r.fail("sequential.margin",
           "missing (the equivalence margin in the compared metric's units: accuracy as a "
           "fraction, 0.005 = half a point; a loss in nats)");
  r.readReal("margin", d.margin, kPositive);
  r.readReal("alpha", d.alpha, {0, 0.5, true, true});
  std::int64_t maxSeeds = 20, every = 5;
  r.readInt("max_seeds", maxSeeds, {2, input::kMaxSeeds});
  r.readInt("look_every", every, {1, input::kMaxSeeds});
  d.maxSeeds = std::size_t(maxSeeds);
  d.lookEvery = std::size_t(every);
  std::string spending = "obrien-fleming";
  r.readChoice("spending", spending, kSpendingNames);
  d.spending =
      spending == "pocock" ? stats::AlphaSpending::Pocock : stats::AlphaSpending::OBrienFleming;
  r.read("a", q.a);
  r.read("b", q.b);
  for (const auto& [field, name] : {std::pair{"sequential.a", q.a}, std::pair{"sequential.b", q.b}})
    if (!name.empty() && std::none_of(s.backends.begin(), s.backends.end(),
                                      [&](const BackendEntry& e) { return e.name == name; }))
      r.fail(field, "'" + name + "' is not a backend of the study");
  s.sequential = q;
  const auto [a, b] = sequentialBackends(s);
  if (a.empty() || b.empty()) r.fail("sequential", "compares two backends: the study has one");
  if (a == b) r.fail("sequential.b", "'" + b + "' is backend a itself: compare two backends");
  r.finish();
  s.seeds.clear();
  for (std::size_t i = 0; i < d.maxSeeds; ++i) s.seeds.push_back(i);
}

void readLockstep(const json& object, StudySpec& s, const std::string& file) {
  LockstepStudy l;
  ObjectReader r(object, "lockstep", file);
  if (s.pretrain)
    r.fail("lockstep", "not with a \"pretrain\" stage (the lockstep starts from new weights)");
  if (s.train.freezeEpochs > 0)
    r.fail("lockstep", "not with \"freeze_epochs\" (frozen layers are not compared yet)");
  r.read("backend", l.backend);
  if (l.backend.empty()) r.fail("lockstep.backend", "missing (the backend compared)");
  r.read("reference", l.reference);
  for (const auto& [field, name] :
       {std::pair{"lockstep.backend", l.backend}, std::pair{"lockstep.reference", l.reference}}) {
    if (name == nn::kFp64Reference && name == l.reference) continue;  // not a backend
    try {
      lockstepPolicy(s, name);
    } catch (const SpecError& e) {
      r.fail(field, e.what());
    }
  }
  if (l.reference == nn::kFp64Reference) {
    nn::ModelSpec model;  // which layers the model has; its input size does not matter here
    model.name = s.train.model;
    try {
      nn::Fp64Training(*nn::makeModel(model, false), s.train.optimizer);
    } catch (const std::invalid_argument& e) {
      r.fail("lockstep.reference", e.what());
    }
  }
  if (l.backend == l.reference)
    r.fail("lockstep.reference", "'" + l.reference +
                                     "' is the backend itself: compare it with "
                                     "another (the reference is cpu-fp32 unless named)");
  r.readInt("steps", l.steps, {1, input::kMaxSteps});
  r.readInt("every", l.every, {1, 1'000'000});
  r.readReal("tolerance", l.tolerance, kPositive);
  if (const json* m = r.find("modes")) {
    if (!m->is_array() || m->empty() || m->size() > 2)
      r.fail("lockstep.modes",
             "expected [\"resync\"], [\"free\"] or both, got " + ObjectReader::excerpt(*m));
    l.modes.clear();
    for (const json& mode : *m) {
      if (!mode.is_string() || !nn::parseLockstepMode(mode.get<std::string>()))
        r.fail("lockstep.modes",
               "unknown mode " + ObjectReader::excerpt(mode) + " (resync | free)");
      if (std::find(l.modes.begin(), l.modes.end(), mode.get<std::string>()) != l.modes.end())
        r.fail("lockstep.modes", "'" + mode.get<std::string>() + "' is listed twice");
      l.modes.push_back(mode.get<std::string>());
    }
  }
  r.finish();
  s.lockstep = l;
}

}  // namespace

std::pair<int, int> lineColumnOf(const std::string& text, std::size_t pos) {
  return input::lineColumnOf(text, pos);
}

StudySpec parseStudySpec(const std::string& text, const std::string& file) {
  json j;
  try {
    j = input::parseJsonText(text, file);  // depth, duplicate keys, syntax ("file:line:col")
  } catch (const input::InputError& ex) {
    throw SpecError(ex.what());
  }
  StudySpec s;
  ObjectReader r(j, "", file);
  r.readInt("version", s.version, {1, 1});
  if (s.version != 1)
    r.fail("version", "unsupported version " + std::to_string(s.version) + " (this build reads 1)");
  r.read("name", s.name);
  if (s.name.empty()) r.fail("name", "missing (a study needs a name)");
  if (const json* d = r.find("dataset")) readDataset(*d, s.dataset, file);
  nn::TrainConfig& t = s.train;
  r.readChoice("model", t.model, nn::kModelNames);
  r.readInt("width", t.width, {1, input::kMaxModelWidth});
  readGptShape(r, t);
  r.readInt("epochs", t.epochs, kEpochs);
  r.readInt("steps", t.steps, {0, input::kMaxSteps});
  if (t.steps > 0 && r.has("epochs"))
    r.fail("steps", "give epochs or steps, not both (steps: the run trains exactly that many)");
  r.readInt("batch_size", t.batchSize, kBatch);
  t.evalBatchSize = nn::defaultEvalBatchSize(t.model, t.batchSize);
  r.readInt("eval_batch_size", t.evalBatchSize, kBatch);
  if (const json* o = r.find("optimizer")) readOptimizer(*o, t.optimizer, file);
  if (const json* o = r.find("schedule")) readSchedule(*o, t.schedule, file);
  r.readInt("freeze_epochs", t.freezeEpochs, {0, input::kMaxEpochs});
  if (t.steps == 0 && t.freezeEpochs > t.epochs)
    r.fail("freeze_epochs", std::to_string(t.freezeEpochs) + " is more than the study's " +
                                std::to_string(t.epochs) + " epochs");
  if (t.steps == 0 && t.schedule.warmupEpochs > double(t.epochs))
    r.fail("schedule.warmup_epochs", shownNumber(t.schedule.warmupEpochs) +
                                         " is more than the study's " + std::to_string(t.epochs) +
                                         " epochs");
  r.readReal("grad_clip", t.gradClipNorm, kNonNegative);
  r.read("augment", t.augment);
  s.dataset.augment = t.augment;
  if (const json* x = r.find("xray")) {
    // The X-ray: {"every_steps": N} measures every N-th step; {} about 50 samples per run.
    ObjectReader rx(*x, "xray", file);
    int every = -1;
    if (rx.find("every_steps")) rx.readInt("every_steps", every, {1, 1'000'000});
    rx.finish();
    t.xrayEverySteps = every;
  }
  if (const json* x = r.find("samples")) readSampling(*x, t, file);
  r.readChoice("keep_weights", s.keepWeights, kKeepWeights);
  r.read("serve", s.serve);
  if (const json* w = r.find("warnings")) {
    ObjectReader rw(*w, "warnings", file);
    rw.readReal("loss_spike_factor", s.lossSpikeFactor, {1, 1e6, true});
    rw.finish();
  }
  if (const json* p = r.find("pretrain")) {
    PretrainStage st;
    ObjectReader rp(*p, "pretrain", file);
    rp.readClasses("classes", st.classes);
    if (st.classes.empty())
      rp.fail("pretrain.classes", "must list the classes of the pretraining stage");
    rp.readInt("epochs", st.epochs, kEpochs);
    rp.read("policy", st.policy);
    try {
      backends::presetPolicy(st.policy);
    } catch (const std::invalid_argument& ex) {
      rp.fail("pretrain.policy", ex.what());
    }
    rp.readInt("seed", st.seed, kSeedValue);
    rp.finish();
    s.pretrain = st;
  }
  requireDataForModel(s, file);
  const json* b = r.find("backends");
  if (!b || !b->is_array() || b->empty())
    r.fail("backends", "expected a non-empty array of backends, got " +
                           (b ? ObjectReader::excerpt(*b) : std::string("nothing")));
  std::set<std::string> names;
  for (std::size_t i = 0; i < b->size(); ++i) {
    std::string path = "backends[" + std::to_string(i) + "]";
    s.backends.push_back(readBackend((*b)[i], path, file));
    if (!names.insert(s.backends.back().name).second)
      r.fail(path, "duplicate backend name '" + s.backends.back().name + "' (give it a \"name\")");
  }
  if (const json* sd = r.find("seeds")) {
    // A count N (seeds 0..N-1) or a list; both at most kMaxSeeds, checked before allocating.
    if (sd->is_number()) {
      std::int64_t count = 0;
      r.readInt("seeds", count, {1, input::kMaxSeeds});
      for (std::int64_t i = 0; i < count; ++i) s.seeds.push_back(std::uint64_t(i));
    } else if (sd->is_array() && !sd->empty() && sd->size() <= std::size_t(input::kMaxSeeds)) {
      for (std::size_t i = 0; i < sd->size(); ++i) {
        try {
          s.seeds.push_back(std::uint64_t(input::requireJsonInteger(
              (*sd)[i], file + ": seeds[" + std::to_string(i) + "]", kSeedValue)));
        } catch (const input::InputError& ex) {
          throw SpecError(ex.what(), "seeds[" + std::to_string(i) + "]");
        }
      }
    } else {
      r.fail("seeds", "expected a count in [1, " + std::to_string(input::kMaxSeeds) +
                          "] or a list of 1 to " + std::to_string(input::kMaxSeeds) +
                          " seeds, got " + ObjectReader::excerpt(*sd));
    }
  } else {
    s.seeds = {0, 1, 2};
  }
  if (const json* w = r.find("sweep")) readSweep(*w, s, file);
  if (const json* q = r.find("sequential")) readSequential(*q, s, file, r.has("seeds"));
  r.readInt("threads", s.threads, {0, input::kMaxThreads});
  r.read("origin", s.origin);
  readChaosFloor(r, s);
  if (const json* l = r.find("lockstep")) readLockstep(*l, s, file);
  r.finish();
  return s;
}

backends::PrecisionPolicy lockstepPolicy(const StudySpec& spec, const std::string& name) {
  // The chaos floor's entries perturb the training, not the arithmetic: not a lockstep's.
  if (const BackendEntry* e = entryNamed(spec.backends, name);
      e && e->perturbation == Perturbation::None)
    return e->policy;
  try {
    return backends::presetPolicy(name);
  } catch (const std::invalid_argument&) {
    std::string names;
    for (const BackendEntry& e : sweepBases(spec)) names += (names.empty() ? "" : ", ") + e.name;
    throw SpecError("'" + name + "' is neither a backend of the study (" + names + ") nor a preset",
                    "lockstep");
  }
}

const char* perturbationName(Perturbation p) {
  const PerturbationNames* n = namesOf(p);
  return n ? n->name : "";
}

const char* perturbationWords(Perturbation p) {
  const PerturbationNames* n = namesOf(p);
  return n ? n->words : "no perturbation";
}

void rebuildChaosFloor(StudySpec& spec) {
  std::erase_if(spec.backends,
                [](const BackendEntry& e) { return e.perturbation != Perturbation::None; });
  if (!spec.chaosFloor) return;
  if (spec.backends.size() < 2) {
    spec.chaosFloor.reset();
    return;
  }
  if (std::none_of(spec.backends.begin(), spec.backends.end(),
                   [&](const BackendEntry& e) { return e.name == spec.chaosFloor->reference; }))
    spec.chaosFloor->reference = spec.backends.front().name;
  for (BackendEntry& e : chaosFloorEntries(spec)) spec.backends.push_back(std::move(e));
}

std::string chaosFloorCost(const StudySpec& spec) {
  if (!spec.chaosFloor) return {};
  const std::size_t perturbed = spec.chaosFloor->perturbations.size();
  std::string kinds;
  for (Perturbation p : spec.chaosFloor->perturbations)
    kinds += (kinds.empty() ? "" : ", ") + std::string(perturbationWords(p));
  return spec.chaosFloor->reference + " trained " + std::to_string(perturbed) + " more time" +
         (perturbed == 1 ? "" : "s") + " per seed (" + kinds +
         "): " + std::to_string(perturbed * spec.seeds.size()) + " of the study's " +
         std::to_string(spec.backends.size() * spec.seeds.size()) +
         " runs; \"chaos_floor\": false leaves it out";
}

std::pair<std::string, std::string> sequentialBackends(const StudySpec& spec) {
  if (!spec.sequential) return {};
  std::vector<std::string> names;  // the spec's own entries, not the chaos floor's
  for (const BackendEntry& e : spec.backends)
    if (e.perturbation == Perturbation::None) names.push_back(e.name);
  std::string a = spec.sequential->a, b = spec.sequential->b;
  const auto other = [&](const std::string& taken) {
    for (const std::string& n : names)
      if (n != taken) return n;
    return std::string();
  };
  if (b.empty() && !names.empty()) b = names[0] != a ? names[0] : other(a);
  if (a.empty()) a = other(b);
  return {a, b};
}

std::vector<BackendEntry> sweptEntries(const std::vector<BackendEntry>& bases,
                                       const std::vector<SweepFactor>& sweep) {
  if (sweep.empty()) return bases;
  std::vector<BackendEntry> out;
  const std::vector<std::vector<SweptValue>> cells = sweepCells(sweep);
  for (const BackendEntry& base : bases) {
    for (const std::vector<SweptValue>& cell : cells) {
      BackendEntry e = base;
      e.name = base.name + " " + cellName(cell);
      e.sweptFrom = base.name;
      e.cell = cell;
      bool policyField = false;
      for (const SweptValue& v : cell) {
        if (isPolicyField(v.field))
          policyField = true;
        else
          e.overrides.set(v.field, v.number());
      }
      // The cell's own policy; policyJson stays the backend's as written (sweepBases).
      if (policyField) {
        try {
          e.policy = backends::policyFromJson(policyWithFields(base.policyJson, cell));
        } catch (const std::invalid_argument& ex) {
          throw SpecError("sweep: '" + e.name + "': " + ex.what(), "sweep");
        }
      }
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<BackendEntry> sweepBases(const StudySpec& spec) {
  std::vector<BackendEntry> out;
  for (const BackendEntry& e : spec.backends) {
    if (e.perturbation != Perturbation::None) continue;
    if (e.sweptFrom.empty()) {
      out.push_back(e);
      continue;
    }
    if (std::any_of(out.begin(), out.end(),
                    [&](const BackendEntry& b) { return b.name == e.sweptFrom; }))
      continue;
    BackendEntry base = e;
    base.name = e.sweptFrom;
    bool policyField = false;
    for (const SweptValue& v : e.cell) {
      if (isPolicyField(v.field))
        policyField = true;
      else
        base.overrides.reset(v.field);
    }
    if (policyField) base.policy = backends::policyFromJson(base.policyJson);
    base.sweptFrom.clear();
    base.cell.clear();
    out.push_back(std::move(base));
  }
  return out;
}

std::vector<BackendEntry> chaosFloorEntries(const StudySpec& spec) {
  std::vector<BackendEntry> out;
  if (!spec.chaosFloor) return out;
  const auto reference =
      std::find_if(spec.backends.begin(), spec.backends.end(),
                   [&](const BackendEntry& e) { return e.name == spec.chaosFloor->reference; });
  if (reference == spec.backends.end()) return out;
  for (Perturbation p : spec.chaosFloor->perturbations) {
    BackendEntry e = *reference;  // a sweep's cell keeps its hyperparameters, not its place
    e.perturbation = p;
    e.perturbs = reference->name;
    e.sweptFrom.clear();
    e.cell.clear();
    e.name = namesOf(p)->prefix + reference->name;
    if (p == Perturbation::SummationOrder) {
      for (backends::ProductPolicy* product :
           {&e.policy.linear, &e.policy.conv, &e.policy.attention})
        for (backends::GemmPolicy* g :
             {&product->forward, &product->backwardData, &product->backwardWeight})
          g->reverseSummation = true;
      e.policyJson = backends::policyToJson(e.policy);
    }
    out.push_back(std::move(e));
  }
  return out;
}

StudySpec loadStudySpecFile(const std::string& path) {
  std::string text;
  try {
    text = input::readTextFile(path, "study file", input::kMaxJsonFileBytes);
  } catch (const input::InputError& ex) {
    throw SpecError(ex.what());
  }
  return parseStudySpec(text, path);
}

nlohmann::json optimizerToJson(const nn::OptimizerConfig& o) {
  return {{"kind", o.kind},
          {"lr", o.lr},
          {"weight_decay", o.weightDecay},
          {"beta1", o.beta1},
          {"beta2", o.beta2},
          {"eps", o.eps},
          {"momentum", o.momentum},
          {"nesterov", o.nesterov}};
}

nlohmann::json scheduleToJson(const nn::ScheduleConfig& s) {
  json j = {{"kind", s.kind},
            {"warmup_epochs", s.warmupEpochs},
            {"step_epochs", s.stepEpochs},
            {"gamma", s.gamma},
            {"min_lr_fraction", s.minLrFraction}};
  if (s.warmupSteps > 0) j["warmup_steps"] = s.warmupSteps;
  return j;
}

nlohmann::json studySpecToJson(const StudySpec& s) {
  const auto& d = s.dataset;
  const auto& t = s.train;
  json j = {{"version", s.version}, {"name", s.name}};
  j["dataset"] = {{"source", d.source},
                  {"train_size", d.trainSize},
                  {"test_size", d.testSize},
                  {"test_fraction", d.testFraction},
                  {"seed", d.seed},
                  {"image_size", d.imageSize},
                  {"celeba_identities", d.celebaIdentities},
                  {"classes", d.classes},
                  {"normalize", d.normalize}};
  j["model"] = t.model;
  if (nn::isLanguageModel(t.model)) {
    j["n_layer"] = t.gpt.nLayer;
    j["n_head"] = t.gpt.nHead;
    j["n_embd"] = t.gpt.nEmbd;
    j["block_size"] = t.gpt.blockSize;
    j["tie_weights"] = t.gpt.tieWeights;
    j["samples"] = {{"prompt", t.sampling.prompt},
                    {"length", t.sampling.length},
                    {"temperature", t.sampling.temperature},
                    {"seed", t.sampling.seed}};
  } else {
    j["width"] = t.width;
  }
  if (t.steps > 0)
    j["steps"] = t.steps;
  else
    j["epochs"] = t.epochs;
  j["batch_size"] = t.batchSize;
  j["eval_batch_size"] = t.evalBatchSize;
  j["optimizer"] = optimizerToJson(t.optimizer);
  j["schedule"] = scheduleToJson(t.schedule);
  j["freeze_epochs"] = t.freezeEpochs;
  j["grad_clip"] = t.gradClipNorm;
  j["augment"] = t.augment;
  if (s.pretrain)
    j["pretrain"] = {{"classes", s.pretrain->classes},
                     {"epochs", s.pretrain->epochs},
                     {"policy", s.pretrain->policy},
                     {"seed", s.pretrain->seed}};
  json bs = json::array();
  for (const BackendEntry& e : sweepBases(s)) {
    json o = json::object();
    for (std::string_view name : kHyperparameterNames)
      if (const std::optional<double> v = e.overrides.get(name))
        o[std::string(name)] = isIntegerHyperparameter(name) ? json(std::int64_t(*v)) : json(*v);
    json pj = e.policyJson.is_null() ? backends::policyToJson(e.policy) : e.policyJson;
    json b = {{"name", e.name}, {"policy", pj}};
    if (!o.empty()) b["overrides"] = o;
    bs.push_back(b);
  }
  j["backends"] = bs;
  if (!s.sweep.empty()) j["sweep"] = sweepToJson(s.sweep);
  if (s.sequential) {  // its seeds are its own
    const stats::SequentialDesign& d = s.sequential->design;
    j["sequential"] = {
        {"margin", d.margin},
        {"alpha", d.alpha},
        {"max_seeds", d.maxSeeds},
        {"look_every", d.lookEvery},
        {"spending", d.spending == stats::AlphaSpending::Pocock ? "pocock" : "obrien-fleming"},
        {"a", s.sequential->a},
        {"b", s.sequential->b}};
  } else {
    j["seeds"] = s.seeds;
  }
  j["threads"] = s.threads;
  j["keep_weights"] = s.keepWeights;
  j["warnings"] = {{"loss_spike_factor", s.lossSpikeFactor}};
  j["serve"] = s.serve;
  if (s.lockstep) {
    const LockstepStudy& l = *s.lockstep;
    j["lockstep"] = {{"backend", l.backend}, {"reference", l.reference}, {"steps", l.steps},
                     {"every", l.every},     {"tolerance", l.tolerance}, {"modes", l.modes}};
  }
  if (s.chaosFloor) {
    json perturbations = json::array();
    for (Perturbation p : s.chaosFloor->perturbations) perturbations.push_back(perturbationName(p));
    // A sweep's first cell of a backend as that backend's name (what the reader takes it for).
    std::string reference = s.chaosFloor->reference;
    const auto byName = [&](const std::string& name) {
      return std::find_if(s.backends.begin(), s.backends.end(),
                          [&](const BackendEntry& e) { return e.name == name; });
    };
    const auto cell = byName(reference);
    if (cell != s.backends.end() && !cell->sweptFrom.empty() &&
        std::find_if(s.backends.begin(), s.backends.end(),
                     [&](const BackendEntry& e) { return e.sweptFrom == cell->sweptFrom; }) == cell)
      reference = cell->sweptFrom;
    j["chaos_floor"] = {{"reference", reference}, {"perturbations", perturbations}};
  } else {
    j["chaos_floor"] = false;
  }
  if (t.xrayEverySteps > 0) j["xray"] = {{"every_steps", t.xrayEverySteps}};
  if (t.xrayEverySteps < 0) j["xray"] = json::object();
  if (!s.origin.empty()) j["origin"] = s.origin;
  return j;
}

bool extendsStudy(const StudySpec& stored, const StudySpec& next) {
  json a = studySpecToJson(stored), b = studySpecToJson(next);
  // A chaos floor may be added (its runs are more runs), never changed or dropped.
  if (stored.chaosFloor && a["chaos_floor"] != b["chaos_floor"]) return false;
  for (const char* field : {"threads", "seeds", "backends", "chaos_floor", "sweep"})
    a.erase(field), b.erase(field);
  if (a != b) return false;
  // A sweep may list more values of its factors, never other factors or fewer values.
  if (stored.sweep.size() != next.sweep.size()) return false;
  for (std::size_t f = 0; f < stored.sweep.size(); ++f) {
    const SweepFactor &was = stored.sweep[f], &now = next.sweep[f];
    if (was.field != now.field) return false;
    for (const json& v : was.values)
      if (std::find(now.values.begin(), now.values.end(), v) == now.values.end()) return false;
  }
  for (std::uint64_t seed : stored.seeds)
    if (std::find(next.seeds.begin(), next.seeds.end(), seed) == next.seeds.end()) return false;
  const json nextBackends = studySpecToJson(next)["backends"];
  const json storedBackends = studySpecToJson(stored)["backends"];
  for (const json& entry : storedBackends)
    if (std::find(nextBackends.begin(), nextBackends.end(), entry) == nextBackends.end())
      return false;
  return true;
}

void requireDataForModel(StudySpec& s, const std::string& file) {
  const nn::TrainConfig& t = s.train;
  const auto fail = [&file](const std::string& field, const std::string& what) {
    throw SpecError(file + ": " + field + ": " + what, field);
  };
  const bool text = data::datasetIsText(data::datasetKindOf(s.dataset.source));
  const std::string source = "'" + input::excerpt(s.dataset.source) + "'";
  if (nn::isLanguageModel(t.model) != text)
    fail("dataset.source", text ? source +
                                      " is text: it trains the language model (\"model\": "
                                      "\"gpt\"), not '" +
                                      t.model + "'"
                                : source + " is images: the language model '" + t.model +
                                      "' trains on \"text:FILE\"");
  if (!text) return;
  if (t.freezeEpochs > 0) fail("freeze_epochs", "applies to image classifiers, not to 'gpt'");
  if (t.augment) fail("augment", "applies to images, not to text");
  if (s.pretrain) fail("pretrain", "applies to image classifiers, not to 'gpt'");
  s.dataset.blockSize = t.gpt.blockSize;  // the windows the model reads
}

// A backend's per-layer overrides must each name a layer of the study's model: a pattern that
// names none is a typo, found before anything runs. The model is built (not trained) only when a
// backend has overrides.
static void requireOverridesNameLayers(const StudySpec& spec, const data::Dataset& sample) {
  std::unique_ptr<nn::Model> model;
  for (std::size_t i = 0; i < spec.backends.size(); ++i) {
    const BackendEntry& backend = spec.backends[i];
    if (backend.policy.overrides.empty()) continue;
    if (!model) model = nn::makeModel(modelSpecFor(spec, sample));
    try {
      backends::checkOverridesMatch(backend.policy, nn::productLayers(*model), model->name);
    } catch (const std::invalid_argument& ex) {
      const std::string field = "backends[" + std::to_string(i) + "].policy.overrides";
      throw SpecError("backend '" + backend.name + "': " + ex.what(), field);
    }
  }
}

void validateDataset(const StudySpec& spec) {
  data::DatasetSpec probe = spec.dataset;
  // A small subset proves the files exist and parse without holding the full set twice. A size
  // of 0 ("all") stays 0: a small real dataset may have fewer images than any fixed sample.
  probe.trainSize = std::min<std::int64_t>(probe.trainSize, 200);
  probe.testSize = std::min<std::int64_t>(probe.testSize, 100);
  data::DataSplit sample;
  try {
    sample = data::loadDataset(probe);
  } catch (const std::exception& ex) {
    throw SpecError("dataset '" + spec.dataset.source + "': " + ex.what());
  }
  // Refuse, with the figure, a study this machine cannot hold.
  const auto images = [](std::int64_t asked, std::size_t loaded) {
    return asked > 0 ? std::uint64_t(asked) : std::uint64_t(loaded);
  };
  MemoryEstimate estimate;
  try {
    estimate =
        estimateStudyMemory(spec, sample.train, images(spec.dataset.trainSize, sample.train.size()),
                            images(spec.dataset.testSize, sample.test.size()));
  } catch (const std::invalid_argument& ex) {
    throw SpecError(std::string("model: ") + ex.what());
  }
  if (sample.text) {  // 2 bytes a token; the validation windows as floats and int32 targets
    const data::TextSplit& text = *sample.text;
    estimate.datasetBytes = 2 * (text.corpus.train.size() + text.corpus.validation.size()) +
                            text.validationTargets.size() * (sizeof(float) + sizeof(std::int32_t));
  }
  requireStudyFitsMemory(estimate, physicalMemoryBytes());
  requireOverridesNameLayers(spec, sample.train);
}

nn::TrainConfig trainConfigFor(const StudySpec& spec, const BackendEntry& e) {
  nn::TrainConfig c = spec.train;
  c.augment = spec.dataset.augment || spec.train.augment;
  if (e.overrides.lr) c.optimizer.lr = *e.overrides.lr;
  if (e.overrides.weightDecay) c.optimizer.weightDecay = *e.overrides.weightDecay;
  if (e.overrides.batchSize) c.batchSize = *e.overrides.batchSize;
  if (e.overrides.epochs) c.epochs = *e.overrides.epochs;
  if (e.overrides.warmupEpochs) c.schedule.warmupEpochs = *e.overrides.warmupEpochs;
  if (e.overrides.gradClip) c.gradClipNorm = *e.overrides.gradClip;
  c.nudgeFirstWeight = e.perturbation == Perturbation::InitialWeightUlp;
  return c;
}

}  // namespace paritylab::study
