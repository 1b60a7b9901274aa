#pragma once
// The Runs table: one row per run (backend, run name, seed, status, epoch, progress, current loss,
// final accuracy, wall time), following RunData's batched signals.

#include <QAbstractTableModel>
#include <QSet>
#include <QStyledItemDelegate>

#include "core/study/analysis/compared_metric.h"

namespace paritylab::ui {

class RunData;

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  // Run: an imported run's name in its source (e.g. "prod_42"), an emulated run's database id.
  enum Column {
    Backend,
    Run,
    Seed,
    Status,
    Epoch,
    Progress,
    Loss,
    FinalMetric,  // the final value of the metric the study is compared on
    Wall,
    ColumnCount
  };
  static constexpr int ProgressRole = Qt::UserRole + 1;  // double in [0, 1]
  // What a column sorts by: numbers as numbers (seed, epoch, loss, accuracy, wall time), a run
  // without a value last in ascending order.
  static constexpr int SortRole = Qt::UserRole + 2;
  static constexpr int RunIdRole = Qt::UserRole + 3;  // the run's database id (qint64)

  explicit RunsTableModel(RunData* data, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  // Runs whose curves the charts hide: their rows are greyed and say so in their tooltip.
  void setHiddenRuns(const QSet<qint64>& runIds);
  // The metric the FinalMetric column shows (the shown study's compared metric).
  void setMetric(study::ComparedMetric metric);

 private:
  RunData* data_;
  QSet<qint64> hidden_;
  study::ComparedMetric metric_ = study::ComparedMetric::Accuracy;
  int rows_ = 0;  // rows announced to views (RunData may hold more until the next batch)
};

// Paints the Progress column as a progress bar.
class ProgressBarDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
};

}  // namespace paritylab::ui
