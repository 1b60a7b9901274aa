#include "ui/panels/runs/runs_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/panels/runs/runs_table_model.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {

RunsPanel::RunsPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      data_(study->runs()),
      model_(new RunsTableModel(data_, this)),
      sorted_(new QSortFilterProxyModel(this)),
      table_(new QTableView),
      studyLabel_(new QLabel),
      summary_(new QLabel),
      start_(new QToolButton),
      cancel_(new QToolButton),
      resume_(new QToolButton),
      edit_(new QToolButton) {
  studyLabel_->setTextFormat(Qt::RichText);
  studyLabel_->setWordWrap(true);

  model_->setMetric(study->metric());
  connect(study, &ShownStudy::metricChanged, this,
          [this, study] { model_->setMetric(study->metric()); });
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(RunsTableModel::SortRole);
  table_->setModel(sorted_);
  table_->setItemDelegateForColumn(RunsTableModel::Progress, new ProgressBarDelegate(table_));
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setAlternatingRowColors(true);
  // Backend names differ at either end (gpu-amp-bf16 / gpu-amp-fp16, nudged-cpu-fp32 /
  // reordered-cpu-fp32): a name cut short keeps both.
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->setDefaultSectionSize(22);
  table_->verticalHeader()->hide();
  QHeaderView* header = table_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  // A progress bar reads at any width: a fixed one leaves room for the columns after it.
  header->setSectionResizeMode(RunsTableModel::Progress, QHeaderView::Fixed);
  // A long backend name ("fp16-no-scaling") is cut with "…" past 110 px (its colour and
  // tooltip still name it) rather than pushing the window past a 1024-pixel screen.
  header->setSectionResizeMode(RunsTableModel::Backend, QHeaderView::Interactive);
  header->resizeSection(RunsTableModel::Progress, 46);
  header->setStretchLastSection(true);
  // The panel never gets narrower than the table up to its final metric's column (1024-pixel
  // windows cut it otherwise); columns after it may scroll.
  connect(header, &QHeaderView::sectionResized, this, &RunsPanel::updateMinimumWidth);
  // Click a column to sort by it (numbers as numbers; again to reverse); until then the runs keep
  // the study's order. The arrow shows only on the sorted column, so no column is wider for it.
  header->setSectionsClickable(true);
  connect(header, &QHeaderView::sectionClicked, this, [this, header](int section) {
    const Qt::SortOrder order = header->isSortIndicatorShown() &&
                                        header->sortIndicatorSection() == section &&
                                        header->sortIndicatorOrder() == Qt::AscendingOrder
                                    ? Qt::DescendingOrder
                                    : Qt::AscendingOrder;
    sortBy(section, order);
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] { emit runSelectionChanged(selectedRuns()); });
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, &RunsPanel::showContextMenu);
  table_->setToolTip(QString());

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(start_);
  buttons->addWidget(cancel_);
  buttons->addWidget(resume_);
  buttons->addStretch(1);
  buttons->addWidget(edit_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(studyLabel_);
  layout->addLayout(buttons);
  layout->addWidget(table_, 1);
  layout->addWidget(summary_);

  for (QToolButton* b : {start_, cancel_, resume_, edit_}) {
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setAutoRaise(true);
  }
  connect(data_, &RunData::updated, this, &RunsPanel::updateSummary);
  connect(data_, &RunData::reset, this, [this] {
    hidden_.clear();  // other runs: nothing of theirs was hidden
    model_->setHiddenRuns(hidden_);
    emit hiddenRunsChanged(hidden_);
    updateSummary();
  });
  updateSummary();
}

void RunsPanel::setActions(QAction* start, QAction* cancel, QAction* resume, QAction* editStudy) {
  start_->setDefaultAction(start);
  cancel_->setDefaultAction(cancel);
  resume_->setDefaultAction(resume);
  edit_->setDefaultAction(editStudy);
}

void RunsPanel::updateMinimumWidth() {
  const QHeaderView* header = table_->horizontalHeader();
  const int fa = RunsTableModel::FinalMetric;
  table_->setMinimumWidth(header->sectionPosition(fa) + header->sectionSize(fa) +
                          2 * table_->frameWidth() +
                          table_->verticalScrollBar()->sizeHint().width());
}

void RunsPanel::sortBy(int column, Qt::SortOrder order) {
  QHeaderView* header = table_->horizontalHeader();
  header->setSortIndicator(column, order);
  header->setSortIndicatorShown(column >= 0);
  sorted_->sort(column, order);
}

QSet<qint64> RunsPanel::selectedRuns() const {
  QSet<qint64> ids;
  for (const QModelIndex& row : table_->selectionModel()->selectedRows())
    ids.insert(row.data(RunsTableModel::RunIdRole).toLongLong());
  return ids;
}

void RunsPanel::setRunsHidden(const QSet<qint64>& runIds, bool hidden) {
  const QSet<qint64> before = hidden_;
  if (hidden)
    hidden_.unite(runIds);
  else
    hidden_.subtract(runIds);
  if (hidden_ == before) return;
  model_->setHiddenRuns(hidden_);
  emit hiddenRunsChanged(hidden_);
}

void RunsPanel::showContextMenu(const QPoint& pos) {
  const QSet<qint64> selected = selectedRuns();
  if (selected.isEmpty()) return;
  QMenu menu(this);
  const QString what = selected.size() == 1 ? tr("this run") : tr("%1 runs").arg(selected.size());
  menu.addAction(tr("Hide the curves of %1").arg(what), this,
                 [this, selected] { setRunsHidden(selected, true); });
  menu.addAction(tr("Show the curves of %1").arg(what), this,
                 [this, selected] { setRunsHidden(selected, false); });
  if (!hidden_.isEmpty())
    menu.addAction(tr("Show every run"), this, [this] { setRunsHidden(hidden_, false); });
  menu.exec(table_->viewport()->mapToGlobal(pos));
}

QString RunsPanel::studyText() const {
  return studyLabel_->text();
}

void RunsPanel::setStudyName(const QString& text) {
  studyLabel_->setText(text);
}

void RunsPanel::updateSummary() {
  // The Run column names runs from a source file (imported: prod_42); emulated runs are named by
  // backend and seed already, so it is shown only when some run has a name of its own.
  const bool named = std::any_of(data_->runs().begin(), data_->runs().end(),
                                 [](const ShownRun& run) { return !run.runName.isEmpty(); });
  table_->setColumnHidden(RunsTableModel::Run, !named);
  // Likewise the Seed column when no run has a seed of its own (torchprime's runs give none).
  const bool seeded = std::any_of(data_->runs().begin(), data_->runs().end(),
                                  [](const ShownRun& run) { return run.seedGiven; });
  table_->setColumnHidden(RunsTableModel::Seed, !seeded && !data_->runs().empty());
  // Progress says something only while some run is unfinished (every finished run is 100%).
  const bool allDone =
      !data_->runs().empty() &&
      std::all_of(data_->runs().begin(), data_->runs().end(), [](const ShownRun& run) {
        return run.state == study::RunState::Completed || run.state == study::RunState::Diverged;
      });
  table_->setColumnHidden(RunsTableModel::Progress, allDone);
  constexpr int kBackendWidth = 96;  // "cpu-fp32" whole; longer names elided in the middle
  int backendWidth = table_->horizontalHeader()->sectionSizeHint(RunsTableModel::Backend);
  const int swatch = table_->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, table_);
  for (const QString& name : data_->backends())  // the swatch, the name and the cell's margins
    backendWidth =
        std::max(backendWidth, table_->fontMetrics().horizontalAdvance(name) + swatch + 24);
  table_->horizontalHeader()->resizeSection(RunsTableModel::Backend,
                                            std::min(kBackendWidth, backendWidth));
  updateMinimumWidth();
  int counts[6] = {};
  for (const ShownRun& run : data_->runs()) ++counts[static_cast<int>(run.state)];
  const int total = static_cast<int>(data_->runs().size());
  QStringList parts;
  parts << tr("%1 runs").arg(total);
  const char* names[] = {"pending", "running", "completed", "diverged", "failed", "cancelled"};
  for (int i = 0; i < 6; ++i)
    if (counts[i] > 0) parts << QStringLiteral("%1 %2").arg(counts[i]).arg(tr(names[i]));
  summary_->setText(parts.join(QStringLiteral(" · ")));
}

}  // namespace paritylab::ui
