#include "ui/charts/backend_pair_choosers.h"

#include <QAbstractItemView>
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
  for (QComboBox* box : {&a, &b}) {
    // As wide as "cpu-fp32", not the longest name listed (nudged-cpu-fp32, a custom policy's
    // name): the tab keeps fitting a 1024-pixel window; the open list shows every name whole.
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(8);
    for (const QString& name : names) box->addItem(BackendColours::swatch(name), name);
    box->view()->setMinimumWidth(box->view()->sizeHintForColumn(0) + 8);
  }
  return true;
}

std::pair<QString, QString> defaultBackendPair(const QStringList& backends,
                                               const QStringList& notExamined) {
  std::vector<std::string> names;
  for (const QString& name : backends) names.push_back(name.toStdString());
  const QString b = QString::fromStdString(study::referenceBackend(names));
  // The last backend that is not the reference: studies list their backends from the widest
  // format to the most reduced, the one most likely to change the model. In a sweep, of the
  // reference's cell ("tpu-bf16 lr=0.01" against "cpu-fp32 lr=0.01"): two cells would differ in
  // more than the backend.
  const qsizetype space = b.indexOf(QLatin1Char(' '));
  const QString cell = space < 0 ? QString() : b.mid(space);
  for (auto it = backends.crbegin(); !cell.isEmpty() && it != backends.crend(); ++it)
    if (*it != b && !notExamined.contains(*it) && it->endsWith(cell)) return {*it, b};
  for (auto it = backends.crbegin(); it != backends.crend(); ++it)
    if (*it != b && !notExamined.contains(*it)) return {*it, b};
  for (auto it = backends.crbegin(); it != backends.crend(); ++it)
    if (*it != b) return {*it, b};
  return {b, b};
}

}  // namespace paritylab::ui
