#include "ui/backend_pair_choosers.h"

#include <QSignalBlocker>

#include "ui/backend_colours.h"

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

}  // namespace paritylab::ui
