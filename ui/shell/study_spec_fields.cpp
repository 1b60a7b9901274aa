#include "ui/shell/study_spec_fields.h"

#include <QRegularExpression>
#include <QStringList>
#include <cmath>
#include <stdexcept>

#include "core/backends/precision_policy.h"
#include "core/study/spec/study_spec.h"
#include "ui/session/core_errors.h"

namespace paritylab::ui {

bool parseSeeds(const QString& text, std::vector<std::uint64_t>* seeds, QString* reason) {
  seeds->clear();
  const QString t = text.trimmed();
  if (t.isEmpty()) {
    if (reason) *reason = QObject::tr("give a count (5) or a list (0, 1, 2)");
    return false;
  }
  const QStringList parts =
      t.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
  for (const QString& part : parts) {
    bool ok = false;
    const qulonglong v = part.toULongLong(&ok);
    if (!ok) {
      if (reason) *reason = QObject::tr("\"%1\" is not a non-negative whole number").arg(part);
      return false;
    }
    seeds->push_back(v);
  }
  if (parts.size() == 1) {  // a count
    if (seeds->front() < 1 || seeds->front() > 10000) {
      if (reason)
        *reason = QObject::tr("a count of seeds must be between 1 and 10000 (got %1)").arg(t);
      return false;
    }
    const std::uint64_t n = seeds->front();
    seeds->clear();
    for (std::uint64_t i = 0; i < n; ++i) seeds->push_back(i);
    return true;
  }
  for (std::size_t i = 0; i < seeds->size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if ((*seeds)[i] == (*seeds)[j]) {
        if (reason) *reason = QObject::tr("seed %1 is listed twice").arg((*seeds)[i]);
        return false;
      }
  return true;
}

bool parseSweepValues(const QString& text, std::vector<nlohmann::json>* values, QString* reason) {
  values->clear();
  const QStringList parts =
      text.trimmed().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
  for (const QString& part : parts) {
    bool ok = false;
    const double v = part.toDouble(&ok);  // the C locale's digits, as the spec writes them
    if (!ok || !std::isfinite(v)) {
      if (reason) *reason = QObject::tr("\"%1\" is not a number").arg(part);
      return false;
    }
    values->push_back(v);
  }
  return true;
}

QString sweepValuesText(const std::vector<nlohmann::json>& values) {
  QStringList parts;
  for (const nlohmann::json& v : values) parts << QString::fromStdString(study::sweptValueText(v));
  return parts.join(QStringLiteral(", "));
}

std::string backendEntryName(const nlohmann::json& entry) {
  if (entry.is_string()) return entry.get<std::string>();
  if (entry.is_object()) {
    if (entry.contains("name") && entry["name"].is_string()) return entry["name"];
    if (entry.contains("preset") && entry["preset"].is_string()) return entry["preset"];
  }
  return "custom";
}

}  // namespace paritylab::ui

namespace paritylab::ui {
bool readSpecFields(const nlohmann::json& json, SpecFields* f, QString* reason) {
  study::StudySpec spec;
  try {
    spec = study::parseStudySpec(json.dump());
  } catch (const std::exception& e) {
    if (reason) *reason = ui::errorText(e);
    return false;
  }
  f->name = spec.name;
  const std::string& source = spec.dataset.source;
  const auto colon = source.find(':');
  f->dataset = colon == std::string::npos ? source : source.substr(0, colon);
  f->datasetDir = colon == std::string::npos ? std::string() : source.substr(colon + 1);
  f->trainSize = static_cast<int>(spec.dataset.trainSize);
  f->testSize = static_cast<int>(spec.dataset.testSize);
  const nn::TrainConfig& t = spec.train;
  f->model = t.model;
  f->width = t.width;
  f->nLayer = t.gpt.nLayer;
  f->nHead = t.gpt.nHead;
  f->nEmbd = t.gpt.nEmbd;
  f->blockSize = t.gpt.blockSize;
  f->epochs = t.epochs;
  f->steps = int(t.steps);
  f->batch = t.batchSize;
  f->evalBatch = t.evalBatchSize;
  f->optimizer = t.optimizer.kind;
  f->lr = t.optimizer.lr;
  f->weightDecay = t.optimizer.weightDecay;
  f->momentum = t.optimizer.momentum;
  f->schedule = t.schedule.kind;
  f->warmupEpochs = t.schedule.warmupEpochs;
  f->stepEpochs = t.schedule.stepEpochs;
  f->gamma = t.schedule.gamma;
  f->freezeEpochs = t.freezeEpochs;
  QStringList seeds;
  for (std::uint64_t s : spec.seeds) seeds << QString::number(s);
  bool consecutive = true;
  for (std::size_t i = 0; i < spec.seeds.size(); ++i) consecutive &= spec.seeds[i] == i;
  f->seeds = consecutive ? std::to_string(spec.seeds.size()) : seeds.join(", ").toStdString();
  f->threads = spec.threads;
  f->chaosFloor = spec.chaosFloor.has_value();
  f->sweep = spec.sweep;
  f->backends.clear();
  const nlohmann::json full = study::studySpecToJson(spec);
  if (full.contains("backends"))
    for (const auto& entry : full["backends"]) f->backends.push_back(entry);
  return true;
}

void writeSpecFields(const SpecFields& f, nlohmann::json* spec) {
  study::StudySpec s;
  try {
    s = study::parseStudySpec(spec->dump());
  } catch (const std::exception&) {
    // Start from defaults; the fields below describe the whole study the form shows.
  }
  s.name = f.name;
  s.dataset.source = f.datasetDir.empty() ? f.dataset : f.dataset + ":" + f.datasetDir;
  s.dataset.trainSize = f.trainSize;
  s.dataset.testSize = f.testSize;
  s.train.model = f.model;
  s.train.width = f.width;
  s.train.gpt.nLayer = f.nLayer;
  s.train.gpt.nHead = f.nHead;
  s.train.gpt.nEmbd = f.nEmbd;
  s.train.gpt.blockSize = f.blockSize;
  s.train.epochs = f.epochs;
  s.train.steps = f.steps;
  s.train.batchSize = f.batch;
  s.train.evalBatchSize = f.evalBatch;
  s.train.optimizer.kind = f.optimizer;
  s.train.optimizer.lr = f.lr;
  s.train.optimizer.weightDecay = f.weightDecay;
  s.train.optimizer.momentum = f.momentum;
  s.train.schedule.kind = f.schedule;
  s.train.schedule.warmupEpochs = f.warmupEpochs;
  s.train.schedule.stepEpochs = f.stepEpochs;
  s.train.schedule.gamma = f.gamma;
  s.train.freezeEpochs = f.freezeEpochs;
  std::vector<std::uint64_t> seeds;
  if (parseSeeds(QString::fromStdString(f.seeds), &seeds, nullptr)) s.seeds = seeds;
  s.threads = f.threads;
  s.sweep = f.sweep;
  nlohmann::json out = study::studySpecToJson(s);
  out["backends"] = f.backends;
  // A reference the form's backends no longer have falls back to the default (the first).
  // The reference as the spec writes it (a sweep's first cell of a backend: that backend's name).
  bool referenceKept = false;
  const nlohmann::json& floor = out["chaos_floor"];
  if (f.chaosFloor && floor.is_object() && floor.contains("reference"))
    for (const nlohmann::json& entry : f.backends)
      referenceKept |= backendEntryName(entry) == floor["reference"];
  if (!f.chaosFloor)
    out["chaos_floor"] = false;
  else if (!referenceKept)
    out["chaos_floor"] = true;
  *spec = out;
}

bool validateBackendEntry(const nlohmann::json& entry, QString* reason) {
  // The entry as the spec would hold it, checked by the study parser on a one-backend study.
  try {
    nlohmann::json probe = {{"version", 1}, {"name", "probe"}, {"backends", {entry}}, {"seeds", 1}};
    study::parseStudySpec(probe.dump(), "backend");
  } catch (const std::exception& e) {
    if (reason) *reason = ui::errorText(e);
    return false;
  }
  return true;
}

}  // namespace paritylab::ui
