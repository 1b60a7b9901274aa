#include "ui/panels/runs/runs_table_model.h"

#include <QApplication>
#include <QColor>
#include <QPainter>
#include <cmath>
#include <limits>

#include "ui/charts/backend_colours.h"
#include "ui/session/run_data.h"

namespace paritylab::ui {

RunsTableModel::RunsTableModel(RunData* data, QObject* parent)
    : QAbstractTableModel(parent), data_(data), rows_(static_cast<int>(data->runs().size())) {
  connect(data_, &RunData::reset, this, [this] {
    beginResetModel();
    rows_ = static_cast<int>(data_->runs().size());
    endResetModel();
  });
  connect(data_, &RunData::rowsAppended, this, [this](int, int last) {
    if (last < rows_) return;
    beginInsertRows({}, rows_, last);
    rows_ = last + 1;
    endInsertRows();
  });
  connect(data_, &RunData::updated, this, [this] {
    if (rows_ > 0) emit dataChanged(index(0, 0), index(rows_ - 1, ColumnCount - 1));
  });
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}
int RunsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    return role == Qt::DisplayRole ? QVariant(section + 1) : QVariant();
  }
  if (role == Qt::ToolTipRole && section == Run)
    return tr(
        "Imported runs: the run's name in the source file. Emulated runs: the run's id in "
        "the results database.");
  if (role == Qt::ToolTipRole && section == Loss)
    return tr(
        "Training loss. \"batch\": while a run trains, the loss of its latest step's batch. "
        "\"epoch\": otherwise, the mean training loss of its last finished epoch.");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Backend:
      return tr("Backend");
    case Run:
      return tr("Run");
    case Seed:
      return tr("Seed");
    case Status:
      return tr("Status");
    case Epoch:
      return tr("Epoch");
    case Progress:
      return tr("Progress");
    case Loss:
      return tr("Train loss");
    case FinalMetric:  // "Final accuracy", "Final validation loss": the metric compared
      return tr("Final %1").arg(QString::fromStdString(study::metricWords(metric_).name));
    case Wall:
      return tr("Wall time");
    default:
      return {};
  }
}

namespace {

// The run's message (why it failed or diverged) and, under loss scaling, the optimizer steps it
// skipped on inf/NaN gradients, per epoch.
QVariant toolTip(const ShownRun& run) {
  QStringList lines;
  if (run.state == study::RunState::Running && !run.runningElsewhere.isEmpty())
    lines << RunsTableModel::tr(
                 "Trained by another process (%1); shown as it commits its epochs to the database")
                 .arg(run.runningElsewhere);
  if (run.ownerGone)
    lines << RunsTableModel::tr(
        "Marked running in the database, but the process that trained it is gone; Start "
        "redoes it from scratch");
  if (!run.message.isEmpty()) lines << run.message;
  if (run.state == study::RunState::Diverged)
    lines << RunsTableModel::tr("Diverged in epoch %1: kept as a result").arg(run.epoch);
  int skipped = 0;
  QStringList perEpoch;
  for (const EpochPoint& e : run.epochs) {
    skipped += e.skippedSteps;
    if (e.skippedSteps > 0)
      perEpoch << RunsTableModel::tr("epoch %1: %2").arg(e.epoch).arg(e.skippedSteps);
  }
  if (skipped > 0)
    lines << RunsTableModel::tr(
                 "Optimizer steps skipped by loss scaling (inf/NaN gradients): "
                 "%1 (%2)")
                 .arg(skipped)
                 .arg(perEpoch.join(QStringLiteral(", ")));
  return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
}

// A run without the value sorts after every run with one (ascending).
QVariant numberOrLast(double value) {
  return std::isfinite(value) ? QVariant(value) : QVariant(std::numeric_limits<double>::max());
}

QVariant sortKey(const ShownRun& run, int column, double progress, study::ComparedMetric metric) {
  switch (column) {
    case RunsTableModel::Backend:
      return run.backend;
    case RunsTableModel::Run:
      return run.runName.isEmpty() ? QVariant::fromValue<qint64>(run.runId) : run.runName;
    case RunsTableModel::Seed:
      return QVariant::fromValue<qulonglong>(run.seed);
    case RunsTableModel::Status:
      return static_cast<int>(run.state);
    case RunsTableModel::Epoch:
      return run.epoch;
    case RunsTableModel::Progress:
      return progress;
    case RunsTableModel::Loss:
      return numberOrLast(run.state == study::RunState::Running ? run.currentLoss
                          : run.epochs.empty()                  ? std::nan("")
                                                                : run.epochs.back().trainLoss);
    case RunsTableModel::FinalMetric:
      return numberOrLast(run.state == study::RunState::Completed
                              ? study::metricValue(metric, run.finalAccuracy, run.finalTestLoss)
                              : std::nan(""));
    case RunsTableModel::Wall:
      return numberOrLast(run.wallSeconds > 0 ? run.wallSeconds : std::nan(""));
    default:
      return {};
  }
}

}  // namespace

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_) return {};
  const ShownRun& run = data_->runs()[static_cast<std::size_t>(index.row())];
  const double progress = run.progress();
  if (role == ProgressRole) return progress;
  if (role == RunIdRole) return QVariant::fromValue<qint64>(run.runId);
  if (role == SortRole) return sortKey(run, index.column(), progress, metric_);
  if (role == Qt::TextAlignmentRole)
    return index.column() == Backend || index.column() == Run || index.column() == Status
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  const bool hidden = hidden_.contains(run.runId);
  if (role == Qt::ForegroundRole && hidden) return QColor(0x8c, 0x95, 0x9f);
  if (role == Qt::ToolTipRole && hidden)
    return tr("Hidden in the charts (right click to show it again); the means still count it");
  if (role == Qt::ForegroundRole && index.column() == Status) {
    switch (run.state) {
      case study::RunState::Completed:
        return QColor(0x1a, 0x7f, 0x37);
      case study::RunState::Running:
        return QColor(0x09, 0x69, 0xda);
      case study::RunState::Diverged:
      case study::RunState::Failed:
        return QColor(0xcf, 0x22, 0x2e);
      case study::RunState::Cancelled:
        return QColor(0x9a, 0x67, 0x00);
      default:
        return QColor(0x65, 0x6d, 0x76);
    }
  }
  if (role == Qt::DecorationRole && index.column() == Backend)
    return BackendColours::swatch(run.backend);  // the backend's colour in every chart
  if (role == Qt::ToolTipRole && index.column() == Seed && !run.seedGiven)
    return tr("The source gives no seed for this run; it is numbered %1 among its backend's runs.")
        .arg(run.seed);
  if (role == Qt::ToolTipRole && index.column() == Loss) {
    if (run.state == study::RunState::Running && std::isfinite(run.currentLoss))
      return tr("Training loss of the batch at step %1 (epoch %2)")
          .arg(run.currentStep)
          .arg(run.currentEpoch);
    if (!run.epochs.empty())
      return tr("Mean training loss of epoch %1, the last finished").arg(run.epochs.back().epoch);
  }
  if (role == Qt::ToolTipRole) return toolTip(run);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Backend:
      return run.backend;
    case Run:
      return run.runName.isEmpty() ? QStringLiteral("#%1").arg(run.runId) : run.runName;
    case Seed:  // as the source gives it; a seed the source does not give is not shown
      return run.seedGiven ? QString::number(run.seed) : QStringLiteral("—");
    case Status: {
      QString s = QString::fromUtf8(study::toString(run.state).data());
      // The epoch it diverged in is the Epoch column's and the tooltip's: a longer status would
      // widen the table past what a 1024-pixel window holds.
      if (run.state == study::RunState::Running && !run.runningElsewhere.isEmpty())
        s = tr("running elsewhere");
      if (run.ownerGone) s = tr("interrupted");
      return s;
    }
    case Epoch: {
      // While training: the epoch in progress; otherwise the epochs finished.
      const int shown = run.state == study::RunState::Running && run.currentEpoch > 0
                            ? run.currentEpoch
                            : run.epoch;
      return run.totalEpochs > 0 ? QStringLiteral("%1/%2").arg(shown).arg(run.totalEpochs)
                                 : QString::number(shown);
    }
    case Progress:
      return QStringLiteral("%1%").arg(std::lround(progress * 100));
    case Loss: {
      // Running: the latest step's batch loss. Otherwise the last epoch's mean training loss, the
      // same measure for every run (the last step event is whichever step the throttle let
      // through). The cell says which it is.
      if (run.state == study::RunState::Running && std::isfinite(run.currentLoss))
        return tr("%1 batch").arg(run.currentLoss, 0, 'f', 4);
      if (!run.epochs.empty() && std::isfinite(run.epochs.back().trainLoss))
        return tr("%1 epoch").arg(run.epochs.back().trainLoss, 0, 'f', 4);
      return QString();
    }
    case FinalMetric: {
      const double value = study::metricValue(metric_, run.finalAccuracy, run.finalTestLoss);
      return run.state == study::RunState::Completed && std::isfinite(value)
                 ? QString::fromStdString(study::metricWords(metric_).value(value))
                 : QString();
    }
    case Wall:
      return run.wallSeconds > 0 ? QStringLiteral("%1 s").arg(run.wallSeconds, 0, 'f', 1)
                                 : QString();
    default:
      return {};
  }
}

void RunsTableModel::setHiddenRuns(const QSet<qint64>& runIds) {
  hidden_ = runIds;
  if (rows_ > 0) emit dataChanged(index(0, 0), index(rows_ - 1, ColumnCount - 1));
}

void RunsTableModel::setMetric(study::ComparedMetric metric) {
  if (metric == metric_) return;
  metric_ = metric;
  emit headerDataChanged(Qt::Horizontal, FinalMetric, FinalMetric);
  if (rows_ > 0) emit dataChanged(index(0, FinalMetric), index(rows_ - 1, FinalMetric));
}

void ProgressBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const {
  QStyleOptionProgressBar bar;
  bar.rect = option.rect.adjusted(3, 3, -3, -3);
  bar.minimum = 0;
  bar.maximum = 1000;
  bar.progress = static_cast<int>(index.data(RunsTableModel::ProgressRole).toDouble() * 1000);
  bar.text = index.data(Qt::DisplayRole).toString();
  bar.textVisible = true;
  bar.textAlignment = Qt::AlignCenter;
  bar.state = option.state | QStyle::State_Horizontal;
  const QWidget* widget = option.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
}

}  // namespace paritylab::ui
