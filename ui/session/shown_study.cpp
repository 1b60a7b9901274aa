#include "ui/session/shown_study.h"

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
  emit specChanged();
}

void ShownStudy::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  emit modeChanged(mode);
}

}  // namespace paritylab::ui
