#include "ui/session/shown_study.h"

#include <exception>

#include "core/nn/training_choices.h"
#include "core/study/spec/study_spec.h"
#include "ui/session/run_data.h"

namespace paritylab::ui {

ShownStudy::ShownStudy(QObject* parent) : QObject(parent), runs_(new RunData(this)) {}

void ShownStudy::setDatabase(const QString& path) {
  if (path == database_) return;
  database_ = path;
  emit databaseChanged(path);
}

void ShownStudy::setSpec(const QString& json, const QString& name) {
  if (json == specJson_ && name == specName_) return;
  specJson_ = json;
  specName_ = name;
  chaosFloor_.clear();
  specBackends_.clear();
  languageModel_ = false;
  xrayEverySteps_ = 0;
  study::ComparedMetric metric = study::ComparedMetric::Accuracy;  // imported results: accuracy
  try {
    const study::StudySpec spec = study::parseStudySpec(json.toStdString());
    for (const study::BackendEntry& e : spec.backends) {
      specBackends_ << QString::fromStdString(e.name);
      if (e.perturbation != study::Perturbation::None)
        chaosFloor_ << QString::fromStdString(e.name);
    }
    metric = study::defaultComparedMetric(spec);
    languageModel_ = nn::isLanguageModel(spec.train.model);
    xrayEverySteps_ = spec.train.xrayEverySteps;
  } catch (const std::exception&) {
    // An invalid spec (the dialog's problems say why) has no chaos floor to leave out.
  }
  emit specChanged();
  setMetric(metric);
}

void ShownStudy::setMetric(study::ComparedMetric metric) {
  if (metric == metric_) return;
  metric_ = metric;
  emit metricChanged();
}

void ShownStudy::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  emit modeChanged(mode);
}

}  // namespace paritylab::ui
