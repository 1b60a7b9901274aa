#include "ui/main_window.h"

#include <QLabel>

namespace paritylab::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("ParityLab"));
  auto* note = new QLabel(tr("Backends are emulated on this CPU."), this);
  setCentralWidget(note);
  resize(1200, 800);
}

}  // namespace paritylab::ui
