#pragma once
// The Runs panel: start / cancel / resume, the runs table with progress bars, and a summary line.

#include <QSet>
#include <QWidget>

class QAction;
class QSortFilterProxyModel;
class QLabel;
class QTableView;
class QToolButton;

namespace paritylab::ui {

class RunData;
class ShownStudy;
class RunsTableModel;

class RunsPanel : public QWidget {
  Q_OBJECT

 public:
  // Shows the runs of `study` (the window's one shown study).
  explicit RunsPanel(ShownStudy* study, QWidget* parent = nullptr);
  RunsTableModel* model() const { return model_; }
  QTableView* table() const { return table_; }
  // The buttons show the shared actions (menus and toolbar use the same QActions).
  void setActions(QAction* start, QAction* cancel, QAction* resume, QAction* editStudy);
  void setStudyName(const QString& text);
  QString studyText() const;
  // The database ids of the runs selected in the table (any sort order).
  QSet<qint64> selectedRuns() const;
  // Sorts the table by `column` (RunsTableModel::Column; -1: the study's order).
  void sortBy(int column, Qt::SortOrder order = Qt::AscendingOrder);
  QSet<qint64> hiddenRuns() const { return hidden_; }
  // Hides (or shows again) the curves of these runs; the table greys them.
  void setRunsHidden(const QSet<qint64>& runIds, bool hidden);

 signals:
  void runSelectionChanged(const QSet<qint64>& runIds);
  void hiddenRunsChanged(const QSet<qint64>& runIds);

 private:
  void updateSummary();
  void updateMinimumWidth();
  void showContextMenu(const QPoint& pos);

  RunData* data_;  // the shown study's runs
  RunsTableModel* model_;
  QSortFilterProxyModel* sorted_;  // what the table shows: model_ sorted by a clicked column
  QTableView* table_;
  QSet<qint64> hidden_;
  QLabel* studyLabel_;
  QLabel* summary_;
  QToolButton* start_;
  QToolButton* cancel_;
  QToolButton* resume_;
  QToolButton* edit_;
};

}  // namespace paritylab::ui
