#pragma once
// The Runs panel: start / cancel / resume, the runs table with progress bars, and a summary line.

#include <QWidget>

class QAction;
class QLabel;
class QTableView;
class QToolButton;

namespace paritylab::ui {

class RunData;
class RunsTableModel;

class RunsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit RunsPanel(RunData* data, QWidget* parent = nullptr);
  RunsTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // The buttons show the shared actions (menus and toolbar use the same QActions).
  void setActions(QAction* start, QAction* cancel, QAction* resume, QAction* editStudy);
  void setStudyName(const QString& text);
  QString studyText() const;

 private:
  void updateSummary();

  RunData* data_;
  RunsTableModel* model_;
  QTableView* table_;
  QLabel* studyLabel_;
  QLabel* summary_;
  QToolButton* start_;
  QToolButton* cancel_;
  QToolButton* resume_;
  QToolButton* edit_;
};

}  // namespace paritylab::ui
