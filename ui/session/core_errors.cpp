#include "ui/session/core_errors.h"

#include <QObject>
#include <new>

namespace paritylab::ui {

QString errorText(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e))
    return QObject::tr("out of memory (the input asks for more than this machine can give)");
  return QString::fromUtf8(e.what());
}

}  // namespace paritylab::ui
