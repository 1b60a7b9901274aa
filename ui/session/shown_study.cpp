#include "ui/session/shown_study.h"

#include <exception>

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
  try {
    for (const study::BackendEntry& e : study::parseStudySpec(json.toStdString()).backends)
      if (e.perturbation != study::Perturbation::None)
        chaosFloor_ << QString::fromStdString(e.name);
  } catch (const std::exception&) {
    // An invalid spec (the dialog's problems say why) has no chaos floor to leave out.
  }
  emit specChanged();
}

void ShownStudy::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  emit modeChanged(mode);
}

}  // namespace paritylab::ui
