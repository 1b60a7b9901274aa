#include "ui/shell/import_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/study/files/import_format.h"
#include "core/study/files/tracker_import.h"

namespace paritylab::ui {
namespace {

// "val_acc, val_accuracy, accuracy, …": the first names tried when none is given.
QString defaultsHint(const std::vector<std::string>& names) {
  QStringList shown;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) shown << QString::fromStdString(names[i]);
  if (names.size() > 3) shown << QStringLiteral("…");
  return QObject::tr("first logged of %1").arg(shown.join(QStringLiteral(", ")));
}

QString shownNumber(double v, bool percent) {
  if (std::isnan(v)) return QStringLiteral("-");
  return percent ? QStringLiteral("%1%").arg(100.0 * v, 0, 'f', 2) : QString::number(v, 'g', 5);
}

}  // namespace

ImportDialog::ImportDialog(const QString& path, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Import runs measured on real hardware"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;

  path_ = new QLineEdit(path);
  path_->setPlaceholderText(tr("a CSV file, or a folder of logs or exports"));
  auto* file = new QPushButton(tr("File…"));
  auto* folder = new QPushButton(tr("Folder…"));
  auto* pathRow = new QHBoxLayout;
  pathRow->addWidget(path_, 1);
  pathRow->addWidget(file);
  pathRow->addWidget(folder);
  form->addRow(tr("Path"), pathRow);
  connect(file, &QPushButton::clicked, this, [this] {
    const QString chosen = QFileDialog::getOpenFileName(
        this, tr("Import runs from a file"), path_->text(),
        tr("CSV or TensorBoard events (*.csv events.out.tfevents.*);;All files (*)"));
    if (!chosen.isEmpty()) path_->setText(chosen);
  });
  connect(folder, &QPushButton::clicked, this, [this] {
    const QString chosen = QFileDialog::getExistingDirectory(
        this, tr("Import runs from a folder (one subfolder per run, or exports)"), path_->text());
    if (!chosen.isEmpty()) path_->setText(chosen);
  });

  format_ = new QComboBox;
  format_->addItem(tr("told by the header"), int(study::ImportFormat::Auto));
  for (const study::ImportFormat f : study::namedFormats())
    format_->addItem(QString::fromStdString(study::formatDescription(f)), int(f));
  form->addRow(tr("Format"), format_);

  rule_ = new QLineEdit;
  rule_->setPlaceholderText(tr("e.g. path:{backend}/seed{seed}, column:device, hparam:device"));
  rule_->setToolTip(
      tr("Which run is which backend and seed (--backend-from). Without a rule: a run folder's "
         "parent names the backend (TensorBoard), or a 'backend' or 'device' column or "
         "hyperparameter (trackers' exports). A results CSV names them in its columns."));
  form->addRow(tr("Backend and seed"), rule_);

  accuracy_ = new QLineEdit;
  accuracy_->setPlaceholderText(defaultsHint(study::defaultTrackerAccuracyMetrics()));
  testLoss_ = new QLineEdit;
  testLoss_->setPlaceholderText(defaultsHint(study::defaultTrackerTestLossMetrics()));
  trainLoss_ = new QLineEdit;
  trainLoss_->setPlaceholderText(defaultsHint(study::defaultTrackerTrainLossMetrics()));
  perplexity_ = new QLineEdit;
  perplexity_->setPlaceholderText(defaultsHint(study::defaultPerplexityTags()));
  for (QLineEdit* e : {accuracy_, testLoss_, trainLoss_})
    e->setToolTip(
        tr("The tag, column or metric key that holds it (--accuracy-tag, "
           "--test-loss-tag, --train-loss-tag); empty: the first default logged."));
  perplexity_->setToolTip(
      tr("The tag or metric key holding the perplexity (--perplexity-tag): read as the test loss "
         "ln(perplexity) when no test loss is read; empty: the first default logged when no "
         "test loss is. Not with a test loss named."));
  auto* metrics = new QHBoxLayout;
  metrics->addWidget(new QLabel(tr("accuracy")));
  metrics->addWidget(accuracy_, 1);
  metrics->addWidget(new QLabel(tr("test loss")));
  metrics->addWidget(testLoss_, 1);
  metrics->addWidget(new QLabel(tr("train loss")));
  metrics->addWidget(trainLoss_, 1);
  metrics->addWidget(new QLabel(tr("perplexity")));
  metrics->addWidget(perplexity_, 1);
  form->addRow(tr("Metrics"), metrics);

  unit_ = new QComboBox;
  unit_->addItem(tr("told by the values (percent when every one lies in (1, 100])"),
                 int(study::AccuracyUnit::Inferred));
  unit_->addItem(tr("fractions in [0, 1]"), int(study::AccuracyUnit::Fraction));
  unit_->addItem(tr("percent in [0, 100]"), int(study::AccuracyUnit::Percent));
  form->addRow(tr("Accuracy unit"), unit_);

  predictions_ = new QLineEdit;
  predictions_->setPlaceholderText(tr("optional: preds/{backend}/seed{seed}.csv (or .npy)"));
  predictions_->setToolTip(
      tr("Each run's answer on every test example (--predictions): a CSV index,predicted"
         "[,true_class_probability] or a .npy of classes, named by the run's {backend} and "
         "{seed}; churn, McNemar and the per-class table then work on these runs."));
  labels_ = new QLineEdit;
  labels_->setPlaceholderText(tr("the test set's labels: labels.csv (or .npy)"));
  auto* chooseLabels = new QPushButton(tr("Labels…"));
  connect(chooseLabels, &QPushButton::clicked, this, [this] {
    const QString chosen = QFileDialog::getOpenFileName(
        this, tr("The test set's labels"), labels_->text(), tr("Labels (*.csv *.npy)"));
    if (!chosen.isEmpty()) labels_->setText(chosen);
  });
  auto* predictionsRow = new QHBoxLayout;
  predictionsRow->addWidget(predictions_, 3);
  predictionsRow->addWidget(labels_, 2);
  predictionsRow->addWidget(chooseLabels);
  form->addRow(tr("Predictions"), predictionsRow);
  layout->addLayout(form);

  summary_ = new QLabel;
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  runs_ = new QTableWidget(0, 7);
  runs_->setHorizontalHeaderLabels({tr("backend"), tr("seed"), tr("epochs"), tr("final"),
                                    tr("status"), tr("predictions"), tr("run")});
  runs_->verticalHeader()->hide();
  runs_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  runs_->setSelectionMode(QAbstractItemView::NoSelection);
  runs_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(runs_, 1);
  notes_ = new QLabel;
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(notes_);

  buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel);
  buttons_->addButton(tr("Import"), QDialogButtonBox::AcceptRole);
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons_);
  importButton()->setEnabled(false);

  timer_.setSingleShot(true);
  timer_.setInterval(400);
  connect(&timer_, &QTimer::timeout, this, &ImportDialog::startRead);
  reader_ = std::make_unique<BackgroundRead<Read>>([this](const Read* read, const QString& error) {
    if (read) {
      show(*read);
    } else {
      Read failed;
      failed.error = error;
      failed.generation = generation_;
      show(failed);
    }
  });
  for (QLineEdit* e :
       {path_, rule_, accuracy_, testLoss_, trainLoss_, perplexity_, predictions_, labels_})
    connect(e, &QLineEdit::textChanged, this, &ImportDialog::choicesChanged);
  for (QComboBox* c : {format_, unit_})
    connect(c, &QComboBox::currentIndexChanged, this, &ImportDialog::choicesChanged);
  resize(860, 560);
  choicesChanged();
}

ImportDialog::~ImportDialog() {
  ++generation_;  // a read still under way is not shown
  reader_->settle();
}

QPushButton* ImportDialog::importButton() const {
  return buttons_->buttons().size() > 1 ? qobject_cast<QPushButton*>(buttons_->buttons().first())
                                        : nullptr;
}

ImportChoices ImportDialog::choices() const {
  ImportChoices c;
  c.format = study::ImportFormat(format_->currentData().toInt());
  c.logs.backendRule = rule_->text().trimmed().toStdString();
  c.logs.accuracyTag = accuracy_->text().trimmed().toStdString();
  c.logs.testLossTag = testLoss_->text().trimmed().toStdString();
  c.logs.trainLossTag = trainLoss_->text().trimmed().toStdString();
  c.logs.perplexityTag = perplexity_->text().trimmed().toStdString();
  c.logs.accuracyUnit = study::AccuracyUnit(unit_->currentData().toInt());
  // A generic results CSV names its metrics by column: the same names, when given.
  if (!c.logs.accuracyTag.empty()) c.csv.accuracyColumn = c.logs.accuracyTag;
  c.csv.testLossColumn = c.logs.testLossTag;
  c.csv.trainLossColumn = c.logs.trainLossTag;
  c.csv.accuracyUnit = c.logs.accuracyUnit;
  c.predictions = predictions_->text().trimmed().toStdString();
  c.labels = labels_->text().trimmed().toStdString();
  return c;
}

void ImportDialog::choicesChanged() {
  ++generation_;
  importButton()->setEnabled(false);  // what is shown no longer matches the choices
  if (path_->text().trimmed().isEmpty()) {
    timer_.stop();
    summary_->setText(
        tr("Choose a CSV file or a folder of logs: the runs it holds are shown here "
           "before anything is written."));
    runs_->setRowCount(0);
    notes_->clear();
    return;
  }
  summary_->setText(tr("Reading…"));
  timer_.start();
}

void ImportDialog::startRead() {
  reader_->start([path = path_->text().trimmed(), chosen = choices(), generation = generation_] {
    Read read;
    read.generation = generation;
    if (!readImportedResults(path, chosen, &read.import, &read.error)) read.import = {};
    return read;
  });
}

void ImportDialog::show(const Read& read) {
  if (read.generation != generation_) return;  // the choices changed since: a newer read comes
  runs_->setRowCount(0);
  if (!read.error.isEmpty()) {
    summary_->setText(tr("Nothing can be imported: %1").arg(read.error));
    notes_->clear();
    return;
  }
  previewed_ = read.import;
  const auto& runs = previewed_.runs;
  const bool accuracy = std::any_of(runs.begin(), runs.end(), [](const study::ImportedRun& r) {
    return !std::isnan(r.run.finalAccuracy);
  });
  runs_->horizontalHeaderItem(3)->setText(
      accuracy ? tr("final accuracy")
      : previewed_.perplexity.isEmpty()
          ? tr("final test loss")
          : tr("final test loss (ln of %1)").arg(previewed_.perplexity));
  runs_->setRowCount(int(runs.size()));
  for (int i = 0; i < int(runs.size()); ++i) {
    const study::RunRecord& r = runs[std::size_t(i)].run;
    const bool diverged = r.status == study::RunState::Diverged;
    const QStringList cells = {
        QString::fromStdString(r.backend),
        QString::number(r.seed) + (r.seedGiven ? QString() : QStringLiteral("*")),
        QString::number(runs[std::size_t(i)].epochs.size()),
        shownNumber(accuracy ? r.finalAccuracy : r.finalTestLoss, accuracy),
        diverged ? tr("diverged at epoch %1").arg(r.divergedEpoch) : tr("finished"),
        !previewed_.predictions ? QStringLiteral("-")
        : previewed_.predictions->perRun[std::size_t(i)]
            ? tr("%1 examples").arg(previewed_.predictions->testSet.labels.size())
            : tr("no file"),
        QString::fromStdString(r.message)};
    for (int c = 0; c < cells.size(); ++c) runs_->setItem(i, c, new QTableWidgetItem(cells[c]));
  }
  runs_->resizeColumnsToContents();
  summary_->setText(tr("%1 read as %2. %3 Nothing is written until Import; each run is kept as "
                       "measured on real hardware, with the file it came from.")
                        .arg(previewed_.path, previewed_.format, importPreview(previewed_)));
  QStringList notes = previewed_.notes;
  if (std::any_of(runs.begin(), runs.end(), [](const auto& r) { return !r.run.seedGiven; }))
    notes << tr("* a seed numbered by ParityLab: the source names none");
  notes_->setText(notes.join(QLatin1Char('\n')));
  importButton()->setEnabled(!runs.empty());
}

void ImportDialog::settle() {
  if (timer_.isActive()) {
    timer_.stop();
    startRead();
  }
  reader_->settle();
}

}  // namespace paritylab::ui
