#pragma once

#include <QMainWindow>

namespace paritylab::ui {

// Assembles the panels; owns no logic of its own.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
};

}  // namespace paritylab::ui
