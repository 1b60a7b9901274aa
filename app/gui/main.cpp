// paritylab: the desktop app.
#include <QApplication>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("ParityLab"));
  QApplication::setOrganizationName(QStringLiteral("ParityLab"));
  paritylab::ui::MainWindow window;
  window.show();
  return QApplication::exec();
}
