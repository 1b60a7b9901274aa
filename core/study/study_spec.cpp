#include "core/study/study_spec.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace paritylab::study {
namespace {

using nlohmann::json;

// Reads the fields of one JSON object, checking types, and rejects unknown fields.
class ObjectReader {
 public:
  ObjectReader(const json& object, std::string path, const std::string& file)
      : object_(object), path_(std::move(path)), file_(file) {
    if (!object_.is_object()) fail(path_, "expected an object, got " + object_.dump());
  }
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw SpecError(file_ + ": " + field + ": " + what, field);
  }
  std::string fieldPath(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  const json* find(const std::string& key) {
    known_.insert(key);
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }
  template <typename T>
  void read(const std::string& key, T& out) {
    const json* v = find(key);
    if (!v) return;
    bool ok = false;
    if constexpr (std::is_same_v<T, bool>)
      ok = v->is_boolean();
    else if constexpr (std::is_same_v<T, std::string>)
      ok = v->is_string();
    else if constexpr (std::is_integral_v<T>)
      ok = v->is_number_integer() ||
           (v->is_number_float() && v->get<double>() == std::int64_t(v->get<double>()));
    else
      ok = v->is_number();
    if (!ok) fail(fieldPath(key), "expected " + typeName<T>() + ", got " + v->dump());
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (std::is_unsigned_v<T> && v->get<double>() < 0)
        fail(fieldPath(key), "must not be negative, got " + v->dump());
      out = T(v->get<double>());
    } else {
      out = v->get<T>();
    }
  }
  template <typename T>
  void readPositive(const std::string& key, T& out, bool allowZero = false) {
    read(key, out);
    if (out < 0 || (!allowZero && out == 0))
      fail(fieldPath(key),
           std::string("must be ") + (allowZero ? ">= 0" : "> 0") + ", got " + std::to_string(out));
  }
  void readChoice(const std::string& key, std::string& out, const std::set<std::string>& choices) {
    read(key, out);
    if (!choices.count(out)) {
      std::string list;
      for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
      fail(fieldPath(key), "unknown value '" + out + "' (one of: " + list + ")");
    }
  }
  void readInts(const std::string& key, std::vector<int>& out) {
    const json* v = find(key);
    if (!v) return;
    if (!v->is_array()) fail(fieldPath(key), "expected an array of integers, got " + v->dump());
    out.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      if (!(*v)[i].is_number_integer())
        fail(fieldPath(key) + "[" + std::to_string(i) + "]",
             "expected an integer, got " + (*v)[i].dump());
      out.push_back((*v)[i].get<int>());
    }
  }
  void finish() const {
    for (auto it = object_.begin(); it != object_.end(); ++it)
      if (!known_.count(it.key()))
        fail(fieldPath(it.key()), "unknown field (value " + it.value().dump() + ")");
  }
  const std::string& file() const { return file_; }

 private:
  template <typename T>
  static std::string typeName() {
    if constexpr (std::is_same_v<T, bool>)
      return "true/false";
    else if constexpr (std::is_same_v<T, std::string>)
      return "a string";
    else if constexpr (std::is_integral_v<T>)
      return "an integer";
    else
      return "a number";
  }
  const json& object_;
  std::string path_;
  const std::string& file_;
  std::set<std::string> known_;
};

void readDataset(const json& j, data::DatasetSpec& d, const std::string& file) {
  ObjectReader r(j, "dataset", file);
  r.read("source", d.source);
  r.readPositive("train_size", d.trainSize, true);
  r.readPositive("test_size", d.testSize, true);
  r.read("test_fraction", d.testFraction);
  if (d.testFraction < 0 || d.testFraction >= 1)
    r.fail("dataset.test_fraction", "must be in [0, 1), got " + std::to_string(d.testFraction));
  r.read("seed", d.seed);
  r.readPositive("image_size", d.imageSize, true);
  r.readPositive("celeba_identities", d.celebaIdentities);
  r.readInts("classes", d.classes);
  r.read("normalize", d.normalize);
  r.finish();
}

void readOptimizer(const json& j, nn::OptimizerConfig& o, const std::string& file) {
  ObjectReader r(j, "optimizer", file);
  r.readChoice("kind", o.kind, {"adamw", "sgd"});
  r.readPositive("lr", o.lr);
  r.readPositive("weight_decay", o.weightDecay, true);
  r.read("beta1", o.beta1);
  r.read("beta2", o.beta2);
  r.readPositive("eps", o.eps);
  r.readPositive("momentum", o.momentum, true);
  r.read("nesterov", o.nesterov);
  r.finish();
}

void readSchedule(const json& j, nn::ScheduleConfig& s, const std::string& file) {
  ObjectReader r(j, "schedule", file);
  r.readChoice("kind", s.kind, {"constant", "step", "cosine"});
  r.readPositive("warmup_epochs", s.warmupEpochs, true);
  r.readPositive("step_epochs", s.stepEpochs);
  r.readPositive("gamma", s.gamma);
  r.readPositive("min_lr_fraction", s.minLrFraction, true);
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
        double lr = 0, wd = 0;
        int batch = 0, epochs = 0;
        if (ro.find("lr")) ro.readPositive("lr", lr), e.overrides.lr = lr;
        if (ro.find("weight_decay"))
          ro.readPositive("weight_decay", wd, true), e.overrides.weightDecay = wd;
        if (ro.find("batch_size"))
          ro.readPositive("batch_size", batch), e.overrides.batchSize = batch;
        if (ro.find("epochs")) ro.readPositive("epochs", epochs), e.overrides.epochs = epochs;
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

}  // namespace

std::pair<int, int> lineColumnOf(const std::string& text, std::size_t pos) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  }
  return {line, col};
}

StudySpec parseStudySpec(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& ex) {
    // ex.byte is 1-based: the byte where parsing stopped.
    auto [line, col] = lineColumnOf(text, ex.byte > 0 ? ex.byte - 1 : 0);
    std::string what = ex.what();
    auto p = what.find("syntax error");
    throw SpecError(file + ":" + std::to_string(line) + ":" + std::to_string(col) +
                    ": invalid JSON: " + (p == std::string::npos ? what : what.substr(p)));
  }
  StudySpec s;
  ObjectReader r(j, "", file);
  r.read("version", s.version);
  if (s.version != 1)
    r.fail("version", "unsupported version " + std::to_string(s.version) + " (this build reads 1)");
  r.read("name", s.name);
  if (s.name.empty()) r.fail("name", "missing (a study needs a name)");
  if (const json* d = r.find("dataset")) readDataset(*d, s.dataset, file);
  nn::TrainConfig& t = s.train;
  r.readChoice("model", t.model, {"mlp", "small-cnn", "resnet18"});
  r.readPositive("width", t.width);
  r.readPositive("epochs", t.epochs);
  r.readPositive("batch_size", t.batchSize);
  r.readPositive("eval_batch_size", t.evalBatchSize);
  if (const json* o = r.find("optimizer")) readOptimizer(*o, t.optimizer, file);
  if (const json* o = r.find("schedule")) readSchedule(*o, t.schedule, file);
  r.readPositive("freeze_epochs", t.freezeEpochs, true);
  r.readPositive("grad_clip", t.gradClipNorm, true);
  r.read("augment", t.augment);
  s.dataset.augment = t.augment;
  if (const json* x = r.find("xray")) {
    // Issue 14: {"every_steps": N} measures every N-th step; {} about 50 samples per run.
    ObjectReader rx(*x, "xray", file);
    int every = -1;
    if (rx.find("every_steps")) rx.readPositive("every_steps", every);
    rx.finish();
    t.xrayEverySteps = every;
  }
  if (const json* p = r.find("pretrain")) {
    PretrainStage st;
    ObjectReader rp(*p, "pretrain", file);
    rp.readInts("classes", st.classes);
    if (st.classes.empty())
      rp.fail("pretrain.classes", "must list the classes of the pretraining stage");
    rp.readPositive("epochs", st.epochs);
    rp.read("policy", st.policy);
    try {
      backends::presetPolicy(st.policy);
    } catch (const std::invalid_argument& ex) {
      rp.fail("pretrain.policy", ex.what());
    }
    rp.read("seed", st.seed);
    rp.finish();
    s.pretrain = st;
  }
  const json* b = r.find("backends");
  if (!b || !b->is_array() || b->empty())
    r.fail("backends", "expected a non-empty array of backends, got " +
                           (b ? b->dump() : std::string("nothing")));
  std::set<std::string> names;
  for (std::size_t i = 0; i < b->size(); ++i) {
    std::string path = "backends[" + std::to_string(i) + "]";
    s.backends.push_back(readBackend((*b)[i], path, file));
    if (!names.insert(s.backends.back().name).second)
      r.fail(path, "duplicate backend name '" + s.backends.back().name + "' (give it a \"name\")");
  }
  if (const json* sd = r.find("seeds")) {
    if (sd->is_number_integer() && sd->get<long long>() > 0) {
      for (long long i = 0; i < sd->get<long long>(); ++i) s.seeds.push_back(std::uint64_t(i));
    } else if (sd->is_array() && !sd->empty()) {
      for (std::size_t i = 0; i < sd->size(); ++i) {
        if (!(*sd)[i].is_number_unsigned())
          r.fail("seeds[" + std::to_string(i) + "]",
                 "expected a non-negative integer, got " + (*sd)[i].dump());
        s.seeds.push_back((*sd)[i].get<std::uint64_t>());
      }
    } else {
      r.fail("seeds", "expected a count > 0 or a list of seeds, got " + sd->dump());
    }
  } else {
    s.seeds = {0, 1, 2};
  }
  r.readPositive("threads", s.threads, true);
  r.read("origin", s.origin);
  r.finish();
  return s;
}

StudySpec loadStudySpecFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(path + ": cannot open the study file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseStudySpec(ss.str(), path);
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
  j["width"] = t.width;
  j["epochs"] = t.epochs;
  j["batch_size"] = t.batchSize;
  j["eval_batch_size"] = t.evalBatchSize;
  j["optimizer"] = {{"kind", t.optimizer.kind},
                    {"lr", t.optimizer.lr},
                    {"weight_decay", t.optimizer.weightDecay},
                    {"beta1", t.optimizer.beta1},
                    {"beta2", t.optimizer.beta2},
                    {"eps", t.optimizer.eps},
                    {"momentum", t.optimizer.momentum},
                    {"nesterov", t.optimizer.nesterov}};
  j["schedule"] = {{"kind", t.schedule.kind},
                   {"warmup_epochs", t.schedule.warmupEpochs},
                   {"step_epochs", t.schedule.stepEpochs},
                   {"gamma", t.schedule.gamma},
                   {"min_lr_fraction", t.schedule.minLrFraction}};
  j["freeze_epochs"] = t.freezeEpochs;
  j["grad_clip"] = t.gradClipNorm;
  j["augment"] = t.augment;
  if (s.pretrain)
    j["pretrain"] = {{"classes", s.pretrain->classes},
                     {"epochs", s.pretrain->epochs},
                     {"policy", s.pretrain->policy},
                     {"seed", s.pretrain->seed}};
  json bs = json::array();
  for (const auto& e : s.backends) {
    json o = json::object();
    if (e.overrides.lr) o["lr"] = *e.overrides.lr;
    if (e.overrides.weightDecay) o["weight_decay"] = *e.overrides.weightDecay;
    if (e.overrides.batchSize) o["batch_size"] = *e.overrides.batchSize;
    if (e.overrides.epochs) o["epochs"] = *e.overrides.epochs;
    json pj = e.policyJson.is_null() ? backends::policyToJson(e.policy) : e.policyJson;
    json b = {{"name", e.name}, {"policy", pj}};
    if (!o.empty()) b["overrides"] = o;
    bs.push_back(b);
  }
  j["backends"] = bs;
  j["seeds"] = s.seeds;
  j["threads"] = s.threads;
  if (t.xrayEverySteps > 0) j["xray"] = {{"every_steps", t.xrayEverySteps}};
  if (t.xrayEverySteps < 0) j["xray"] = json::object();
  if (!s.origin.empty()) j["origin"] = s.origin;
  return j;
}

bool extendsStudy(const StudySpec& stored, const StudySpec& next) {
  json a = studySpecToJson(stored), b = studySpecToJson(next);
  for (const char* field : {"threads", "seeds", "backends"}) a.erase(field), b.erase(field);
  if (a != b) return false;
  for (std::uint64_t seed : stored.seeds)
    if (std::find(next.seeds.begin(), next.seeds.end(), seed) == next.seeds.end()) return false;
  const json nextBackends = studySpecToJson(next)["backends"];
  const json storedBackends = studySpecToJson(stored)["backends"];
  for (const json& entry : storedBackends)
    if (std::find(nextBackends.begin(), nextBackends.end(), entry) == nextBackends.end())
      return false;
  return true;
}

void validateDataset(const StudySpec& spec) {
  data::DatasetSpec probe = spec.dataset;
  // A tiny subset proves the files exist and parse without loading the full set twice.
  if (probe.trainSize == 0 || probe.trainSize > 200) probe.trainSize = 200;
  if (probe.testSize == 0 || probe.testSize > 100) probe.testSize = 100;
  try {
    data::loadDataset(probe);
  } catch (const std::exception& ex) {
    throw SpecError("dataset '" + spec.dataset.source + "': " + ex.what());
  }
}

nn::TrainConfig trainConfigFor(const StudySpec& spec, const BackendEntry& e) {
  nn::TrainConfig c = spec.train;
  c.augment = spec.dataset.augment || spec.train.augment;
  if (e.overrides.lr) c.optimizer.lr = *e.overrides.lr;
  if (e.overrides.weightDecay) c.optimizer.weightDecay = *e.overrides.weightDecay;
  if (e.overrides.batchSize) c.batchSize = *e.overrides.batchSize;
  if (e.overrides.epochs) c.epochs = *e.overrides.epochs;
  return c;
}

}  // namespace paritylab::study
