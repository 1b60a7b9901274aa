#include "ui/charts/backend_pair_choosers.h"

#include <QSignalBlocker>

#include "core/study/files/study_report.h"
#include "ui/charts/backend_colours.h"

namespace paritylab::ui {

bool relistBackendPair(QComboBox& a, QComboBox& b, const QStringList& names) {
  QStringList current;
  for (int i = 0; i < a.count(); ++i) current << a.itemText(i);
  if (current == names) return false;
  const QSignalBlocker blockA(&a), blockB(&b);
  a.clear();
  b.clear();
  for (const QString& name : names) {
    a.addItem(BackendColours::swatch(name), name);
    b.addItem(BackendColours::swatch(name), name);
  }
  return true;
}

std::pair<QString, QString> defaultBackendPair(const QStringList& backends) {
  std::vector<std::string> names;
  for (const QString& name : backends) names.push_back(name.toStdString());
  const QString b = QString::fromStdString(study::referenceBackend(names));
  // The last backend that is not the reference: studies list their backends from the widest
  // format to the most reduced, the one most likely to change the model.
  for (auto it = backends.crbegin(); it != backends.crend(); ++it)
    if (*it != b) return {*it, b};
  return {b, b};
}

}  // namespace paritylab::ui
