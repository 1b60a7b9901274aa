#pragma once
// The Runs panel: start / cancel / resume, the runs table with progress bars, and a summary line.

#include <QWidget>

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
  void setRunning(bool running, bool canResume);
  void setStudyName(const QString& text);

 signals:
  void startRequested();
  void cancelRequested();
  void resumeRequested();
  void editStudyRequested();

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
