#include "ui/shell/study_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QVBoxLayout>
#include <nlohmann/json.hpp>
#include <span>
#include <string_view>

#include "core/backends/precision_policy.h"
#include "core/data/dataset_kinds.h"
#include "core/input/json_input.h"
#include "core/nn/training_choices.h"
#include "core/study/spec/spec_check.h"
#include "core/study/spec/study_sweep.h"
#include "ui/session/core_errors.h"
#include "ui/session/study_bridge.h"
#include "ui/session/study_time_estimator.h"
#include "ui/shell/study_spec_fields.h"

namespace paritylab::ui {
namespace {

using nlohmann::json;
constexpr int kEntryRole = Qt::UserRole + 1;  // the backend's spec entry as JSON text

// One item per name, shown as written (the names of the spec file), in core's order.
void addNames(QComboBox* box, std::span<const std::string_view> names) {
  for (std::string_view name : names) {
    const QString text = QString::fromUtf8(name.data(), qsizetype(name.size()));
    box->addItem(text, text);
  }
}

// Whether the dataset kind chosen in `box` reads only a folder the user gives (core's rule).
bool needsFolder(const QComboBox* box) {
  return data::datasetNeedsFolder(box->currentData().toString().toStdString());
}

QDoubleSpinBox* doubleBox(double lo, double hi, int decimals, double step) {
  auto* box = new QDoubleSpinBox;
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  return box;
}
QSpinBox* intBox(int lo, int hi) {
  auto* box = new QSpinBox;
  box->setRange(lo, hi);
  return box;
}

}  // namespace

StudyDialog::StudyDialog(const QString& specJson, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Study"));
  buildForm();
  QString reason;
  if (!loadSpec(specJson, &reason)) setError(reason);
  resize(980, 660);
}

void StudyDialog::buildForm() {
  name_ = new QLineEdit;
  dataset_ = new QComboBox;
  for (const data::DatasetKind& kind : data::kDatasetKinds)
    dataset_->addItem(tr(kind.label), QString::fromUtf8(kind.name));
  datasetDir_ = new QLineEdit;
  trainSize_ = intBox(0, 10'000'000);
  trainSize_->setSpecialValueText(tr("all"));
  testSize_ = intBox(0, 10'000'000);
  testSize_->setSpecialValueText(tr("all"));
  model_ = new QComboBox;
  addNames(model_, nn::kModelNames);
  width_ = intBox(1, 1024);
  nLayer_ = intBox(1, 64);
  nHead_ = intBox(1, 64);
  nEmbd_ = intBox(1, 4096);
  blockSize_ = intBox(1, 4096);
  nLayer_->setToolTip(tr("Transformer blocks (n_layer)"));
  nHead_->setToolTip(tr("Attention heads (n_head)"));
  nEmbd_->setToolTip(tr("Embedding width (n_embd), a multiple of the heads"));
  blockSize_->setToolTip(tr("Tokens of context per window (block_size)"));
  epochs_ = intBox(1, 10'000);
  steps_ = intBox(0, 100'000'000);
  steps_->setSpecialValueText(tr("count epochs"));
  steps_->setToolTip(tr("Train exactly this many steps instead of epochs (nanoGPT's iterations)"));
  batch_ = intBox(1, 65'536);
  evalBatch_ = intBox(1, 1'000'000);
  optimizer_ = new QComboBox;
  addNames(optimizer_, nn::kOptimizerKinds);
  lr_ = doubleBox(0.0, 10.0, 6, 1e-4);
  weightDecay_ = doubleBox(0.0, 1.0, 6, 1e-4);
  momentum_ = doubleBox(0.0, 0.9999, 4, 0.01);
  schedule_ = new QComboBox;
  addNames(schedule_, nn::kScheduleKinds);
  warmup_ = doubleBox(0.0, 1000.0, 2, 0.5);
  stepEpochs_ = intBox(1, 10'000);
  gamma_ = doubleBox(0.0, 1.0, 4, 0.05);
  freeze_ = intBox(0, 10'000);
  freeze_->setToolTip(tr("Backbone frozen (head only) for the first K epochs, then all layers"));
  seeds_ = new QLineEdit;
  seeds_->setPlaceholderText(tr("a count (5) or a list (0, 1, 2, 42)"));
  threads_ = intBox(0, 1024);
  threads_->setSpecialValueText(tr("one per core"));
  chaosFloor_ = new QCheckBox(tr("Chaos floor (2 more runs per seed)"));
  chaosFloor_->setToolTip(
      tr("Train the first backend again at every seed, once with one initial weight moved one "
         "ulp and once with another fp32 summation order: how much of a precision's effect any "
         "rounding-level perturbation would have had (docs/chaos-floor.md)"));

  backends_ = new QListWidget;
  backends_->setMinimumWidth(260);
  for (const auto& p : backends::presetPolicies()) {
    auto* item = new QListWidgetItem(QString::fromStdString(p.name));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
    item->setToolTip(QString::fromStdString(p.description));
    item->setData(kEntryRole, QString::fromStdString(json(p.name).dump()));
    backends_->addItem(item);
  }
  // Read-only text of a fixed height (four lines, scrolling beyond): a word-wrapped label's
  // height follows its text, and selecting a backend with a longer description reflowed the
  // dialog and squeezed the spin boxes above.
  backendDescription_ = new QPlainTextEdit;
  backendDescription_->setReadOnly(true);
  backendDescription_->setFrameShape(QFrame::NoFrame);
  backendDescription_->viewport()->setAutoFillBackground(false);
  backendDescription_->setFixedHeight(backendDescription_->fontMetrics().lineSpacing() * 4 + 8);
  backendJson_ = new QPlainTextEdit;
  backendJson_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  backendJson_->setPlaceholderText(
      tr("\"tpu-bf16\", or {\"preset\": \"tpu-bf16\", ...fields to adjust}, or a full custom "
         "policy; per-backend hyperparameters go in \"overrides\""));
  auto* addCustom = new QPushButton(tr("Add custom policy…"));
  auto* applyBackend = new QPushButton(tr("Apply edit"));

  auto* data = new QGroupBox(tr("Data and model"));
  auto* f1 = new QFormLayout(data);
  f1->addRow(tr("Name"), name_);
  f1->addRow(tr("Dataset"), dataset_);
  f1->addRow(tr("Folder or file"), datasetDir_);
  f1->addRow(tr("Train examples"), trainSize_);
  f1->addRow(tr("Test examples"), testSize_);
  f1->addRow(tr("Model"), model_);
  f1->addRow(tr("Width"), width_);
  auto* shape = new QHBoxLayout;
  for (auto [label, box] : {std::pair{tr("layers"), nLayer_}, std::pair{tr("heads"), nHead_},
                            std::pair{tr("width"), nEmbd_}, std::pair{tr("block"), blockSize_}}) {
    shape->addWidget(new QLabel(label));
    shape->addWidget(box, 1);
  }
  f1->addRow(tr("Transformer"), shape);
  f1->addRow(tr("Freeze backbone"), freeze_);
  // Freezing, seeds and threads on the left: two columns of similar height fit a 700-pixel
  // screen.
  f1->addRow(tr("Seeds"), seeds_);
  f1->addRow(tr("Threads"), threads_);
  f1->addRow(QString(), chaosFloor_);
  auto* training = new QGroupBox(tr("Training"));
  auto* f2 = new QFormLayout(training);
  f2->addRow(tr("Epochs"), epochs_);
  f2->addRow(tr("Steps"), steps_);
  f2->addRow(tr("Batch size"), batch_);
  f2->addRow(tr("Eval batch size"), evalBatch_);
  f2->addRow(tr("Optimizer"), optimizer_);
  f2->addRow(tr("Learning rate"), lr_);
  f2->addRow(tr("Weight decay"), weightDecay_);
  f2->addRow(tr("Momentum (SGD)"), momentum_);
  f2->addRow(tr("Schedule"), schedule_);
  f2->addRow(tr("Warmup epochs"), warmup_);
  f2->addRow(tr("Step every"), stepEpochs_);
  f2->addRow(tr("Step gamma"), gamma_);

  // Backends and the sweep share the bottom as two tabs: the form fits a 700-pixel screen.
  auto* backendBox = new QWidget;
  auto* bl = new QVBoxLayout(backendBox);
  auto* split = new QHBoxLayout;
  split->addWidget(backends_, 2);
  auto* editor = new QVBoxLayout;
  editor->addWidget(backendDescription_);
  editor->addWidget(backendJson_, 1);
  auto* editorButtons = new QHBoxLayout;
  editorButtons->addWidget(addCustom);
  editorButtons->addStretch(1);
  editorButtons->addWidget(applyBackend);
  editor->addLayout(editorButtons);
  split->addLayout(editor, 3);
  bl->addLayout(split);

  // The sweep: values per hyperparameter, each crossed with every backend and seed; two
  // factors a row.
  auto* sweepBox = new QWidget;
  auto* grid = new QGridLayout(sweepBox);
  auto* sweepHint = new QLabel(
      tr("Values of a hyperparameter, separated by commas, are each crossed with every backend "
         "and seed; empty: the study's own value. Runs are named by their cell, e.g. \"tpu-bf16 "
         "lr=0.01\"."));
  sweepHint->setWordWrap(true);
  grid->addWidget(sweepHint, 0, 0, 1, 4);
  int at = 0;
  for (std::string_view field : study::kHyperparameterNames) {
    const QString name = QString::fromUtf8(field.data(), qsizetype(field.size()));
    auto* edit = new QLineEdit;
    edit->setPlaceholderText(study::isIntegerHyperparameter(field) ? tr("e.g. 64, 512")
                                                                   : tr("e.g. 0.1, 0.01"));
    grid->addWidget(new QLabel(name), 1 + at / 2, (at % 2) * 2);
    grid->addWidget(edit, 1 + at / 2, (at % 2) * 2 + 1);
    ++at;
    sweep_.emplace_back(name, edit);
    connect(edit, &QLineEdit::textChanged, this, &StudyDialog::revalidate);
  }
  policySweepLabel_ = new QLabel;
  policySweepLabel_->setWordWrap(true);
  policySweepLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  policySweepLabel_->hide();
  grid->addWidget(policySweepLabel_, 1 + (at + 1) / 2, 0, 1, 4);
  grid->setRowStretch(2 + (at + 1) / 2, 1);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  bottomTabs_ = new QTabWidget;
  bottomTabs_->addTab(backendBox, tr("Backends (check to include; select to adjust)"));
  bottomTabs_->addTab(sweepBox, tr("Sweep"));

  size_ = new QLabel;
  size_->setWordWrap(true);
  size_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  estimator_ = new StudyTimeEstimator(this);
  connect(estimator_, &StudyTimeEstimator::sized, this,
          [this](const QString& words) { size_->setText(words + tr("; timing a few steps…")); });
  connect(estimator_, &StudyTimeEstimator::estimated, size_, &QLabel::setText);
  connect(estimator_, &StudyTimeEstimator::failed, this, [this](const QString& reason) {
    size_->setText(tr("Time not estimated: %1").arg(reason));
  });

  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  auto* load = buttons_->addButton(tr("Load JSON…"), QDialogButtonBox::ActionRole);
  auto* save = buttons_->addButton(tr("Save JSON…"), QDialogButtonBox::ActionRole);

  auto* top = new QHBoxLayout;
  top->addWidget(data, 1);
  top->addWidget(training, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(bottomTabs_, 1);
  layout->addWidget(error_);
  auto* foot = new QHBoxLayout;
  foot->addWidget(size_, 1);
  foot->addWidget(buttons_);
  layout->addLayout(foot);

  connect(buttons_, &QDialogButtonBox::accepted, this, &StudyDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(load, &QPushButton::clicked, this, &StudyDialog::loadFromFile);
  connect(save, &QPushButton::clicked, this, &StudyDialog::saveToFile);
  connect(backends_, &QListWidget::currentRowChanged, this, &StudyDialog::onBackendSelected);
  connect(backends_, &QListWidget::itemChanged, this, &StudyDialog::revalidate);
  connect(applyBackend, &QPushButton::clicked, this, &StudyDialog::storeBackendEdit);
  connect(addCustom, &QPushButton::clicked, this, &StudyDialog::addCustomBackend);
  connect(seeds_, &QLineEdit::textChanged, this, &StudyDialog::revalidate);
  connect(datasetDir_, &QLineEdit::textChanged, this, &StudyDialog::revalidate);
  connect(dataset_, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabledFields();
    revalidate();
  });
  connect(model_, &QComboBox::currentIndexChanged, this, [this] {
    // An evaluation batch left at the previous model's default takes the new model's.
    const std::string model = model_->currentData().toString().toStdString();
    if (evalBatch_->value() == nn::defaultEvalBatchSize(shownModel_, batch_->value()))
      evalBatch_->setValue(nn::defaultEvalBatchSize(model, batch_->value()));
    shownModel_ = model;
    updateEnabledFields();
    revalidate();
  });
  for (QSpinBox* box : {nHead_, nEmbd_, steps_})
    connect(box, &QSpinBox::valueChanged, this, &StudyDialog::revalidate);
  connect(steps_, &QSpinBox::valueChanged, this, &StudyDialog::updateEnabledFields);
  // What changes the study's size or time is checked (and timed) again as well.
  for (QSpinBox* box :
       {epochs_, freeze_, batch_, trainSize_, threads_, width_, nLayer_, blockSize_})
    connect(box, &QSpinBox::valueChanged, this, &StudyDialog::revalidate);
  connect(chaosFloor_, &QCheckBox::toggled, this, &StudyDialog::revalidate);
  for (QSpinBox* box : {epochs_, freeze_, stepEpochs_})
    connect(box, &QSpinBox::valueChanged, this,
            [box] { box->setSuffix(box->value() == 1 ? tr(" epoch") : tr(" epochs")); });
  connect(optimizer_, &QComboBox::currentIndexChanged, this, &StudyDialog::updateEnabledFields);
  connect(schedule_, &QComboBox::currentIndexChanged, this, &StudyDialog::updateEnabledFields);
  connect(lr_, &QDoubleSpinBox::valueChanged, this, &StudyDialog::revalidate);
}

void StudyDialog::onBackendSelected() {
  QListWidgetItem* item = backends_->currentItem();
  if (!item) return;
  backendDescription_->setPlainText(item->toolTip());
  const json entry = json::parse(item->data(kEntryRole).toString().toStdString(), nullptr, false);
  backendJson_->setPlainText(
      QString::fromStdString(entry.is_discarded() ? std::string() : entry.dump(2)));
}

void StudyDialog::storeBackendEdit() {
  QListWidgetItem* item = backends_->currentItem();
  if (!item) return;
  QString reason;
  const QString text = backendJson_->toPlainText();
  json entry;
  try {  // typed text: no unbounded nesting (dump() recurses), no duplicate keys
    entry = input::parseJsonText(text.toStdString(), "backend JSON");
  } catch (const input::InputError& e) {
    setError(tr("Backend %1: the JSON does not parse (%2)").arg(item->text(), ui::errorText(e)));
    return;
  }
  if (!validateBackendEntry(entry, &reason)) {
    setError(tr("Backend %1: %2").arg(item->text(), reason));
    return;
  }
  item->setData(kEntryRole, QString::fromStdString(entry.dump()));
  item->setText(QString::fromStdString(backendEntryName(entry)));
  item->setCheckState(Qt::Checked);
  revalidate();
}

void StudyDialog::addCustomBackend() {
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Custom policy"), tr("Name"),
                                             QLineEdit::Normal, tr("my-policy"), &ok);
  if (!ok || name.trimmed().isEmpty()) return;
  json entry = backends::policyToJson(backends::presetPolicy("cpu-fp32"));
  entry["name"] = name.trimmed().toStdString();
  entry["description"] = "custom policy";
  auto* item = new QListWidgetItem(name.trimmed());
  item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
  item->setCheckState(Qt::Checked);
  item->setToolTip(tr("Custom policy (edit its JSON on the right)"));
  item->setData(kEntryRole, QString::fromStdString(entry.dump()));
  backends_->addItem(item);
  backends_->setCurrentItem(item);
}

bool StudyDialog::loadSpec(const QString& text, QString* reason) {
  json spec;
  try {  // no unbounded nesting (dump() recurses), no duplicate keys
    spec = input::parseJsonText(text.toStdString(), "study spec");
  } catch (const input::InputError& e) {
    if (reason) *reason = ui::errorText(e);
    return false;
  }
  if (!spec.is_object()) {
    if (reason) *reason = tr("The study spec is not a JSON object");
    return false;
  }
  SpecFields f;
  if (!readSpecFields(spec, &f, reason)) return false;
  extraJson_ = text;
  name_->setText(QString::fromStdString(f.name));
  dataset_->setCurrentIndex(std::max(0, dataset_->findData(QString::fromStdString(f.dataset))));
  datasetDir_->setText(QString::fromStdString(f.datasetDir));
  trainSize_->setValue(f.trainSize);
  testSize_->setValue(f.testSize);
  model_->setCurrentIndex(std::max(0, model_->findData(QString::fromStdString(f.model))));
  shownModel_ = f.model;
  width_->setValue(f.width);
  nLayer_->setValue(f.nLayer);
  nHead_->setValue(f.nHead);
  nEmbd_->setValue(f.nEmbd);
  blockSize_->setValue(f.blockSize);
  epochs_->setValue(f.epochs);
  steps_->setValue(f.steps);
  batch_->setValue(f.batch);
  evalBatch_->setValue(f.evalBatch);
  optimizer_->setCurrentIndex(
      std::max(0, optimizer_->findData(QString::fromStdString(f.optimizer))));
  lr_->setValue(f.lr);
  weightDecay_->setValue(f.weightDecay);
  momentum_->setValue(f.momentum);
  schedule_->setCurrentIndex(std::max(0, schedule_->findData(QString::fromStdString(f.schedule))));
  warmup_->setValue(f.warmupEpochs);
  stepEpochs_->setValue(f.stepEpochs);
  gamma_->setValue(f.gamma);
  freeze_->setValue(f.freezeEpochs);
  seeds_->setText(QString::fromStdString(f.seeds));
  threads_->setValue(f.threads);
  chaosFloor_->setChecked(f.chaosFloor);
  for (auto& [name, edit] : sweep_) {
    const QSignalBlocker blockEdit(edit);
    edit->clear();
    for (const study::SweepFactor& factor : f.sweep)
      if (QString::fromStdString(factor.field) == name)
        edit->setText(sweepValuesText(factor.values));
  }
  policySweep_.clear();
  QStringList policyFactors;
  for (const study::SweepFactor& factor : f.sweep)
    if (study::isPolicyField(factor.field)) {
      policySweep_.push_back(factor);
      policyFactors << tr("%1 = %2").arg(QString::fromStdString(factor.field),
                                         sweepValuesText(factor.values));
    }
  policySweepLabel_->setText(
      tr("Also swept, as the spec gives them (edit them in the spec file): %1")
          .arg(policyFactors.join(QStringLiteral("; "))));
  policySweepLabel_->setVisible(!policySweep_.empty());
  const QSignalBlocker block(backends_);
  for (int i = 0; i < backends_->count(); ++i) backends_->item(i)->setCheckState(Qt::Unchecked);
  for (const json& entry : f.backends) {
    const QString name = QString::fromStdString(backendEntryName(entry));
    QListWidgetItem* item = nullptr;
    for (int i = 0; i < backends_->count(); ++i)
      if (backends_->item(i)->text() == name) item = backends_->item(i);
    if (!item) {
      item = new QListWidgetItem(name);
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setToolTip(tr("Custom policy"));
      backends_->addItem(item);
    }
    item->setCheckState(Qt::Checked);
    item->setData(kEntryRole, QString::fromStdString(entry.dump()));
  }
  for (QSpinBox* box : {epochs_, freeze_, stepEpochs_})
    box->setSuffix(box->value() == 1 ? tr(" epoch") : tr(" epochs"));
  updateEnabledFields();
  revalidate();
  return true;
}

void StudyDialog::updateEnabledFields() {
  // The dataset's folder (or file) only for a kind that reads one; each model's own fields only
  // when it is the one chosen; a run counted in steps has no epochs to set.
  const std::string kind = dataset_->currentData().toString().toStdString();
  const data::DatasetKind* dataKind = data::findDatasetKind(kind);
  const bool readsFile = dataKind && dataKind->readsFile;
  datasetDir_->setEnabled(needsFolder(dataset_));
  datasetDir_->setPlaceholderText(readsFile ? tr("the text file (any bytes; gzip allowed)")
                                            : tr("folder with the dataset's files"));
  // A text trains on its first 90% (no subset) and validates on windows of its last 10%.
  const bool text = data::datasetIsText(kind);
  trainSize_->setEnabled(!text);
  trainSize_->setToolTip(text ? tr("A text trains on its first 90%") : QString());
  testSize_->setToolTip(text ? tr("Validation windows (all = at most 128)") : QString());
  const std::string model = model_->currentData().toString().toStdString();
  width_->setEnabled(model == "resnet18");
  width_->setToolTip(model == "resnet18" ? tr("Channels of the first stage")
                                         : tr("Applies to resnet18 only"));
  const bool gpt = nn::isLanguageModel(model);
  for (QSpinBox* box : {nLayer_, nHead_, nEmbd_, blockSize_}) box->setEnabled(gpt);
  freeze_->setEnabled(!gpt);
  epochs_->setEnabled(steps_->value() == 0);
  // Fields of one optimizer or schedule are editable only when it is the one chosen.
  const bool sgd = optimizer_->currentData().toString() == QLatin1String("sgd");
  momentum_->setEnabled(sgd);
  momentum_->setToolTip(sgd ? QString() : tr("Momentum applies to SGD only"));
  const bool step = schedule_->currentData().toString() == QLatin1String("step");
  stepEpochs_->setEnabled(step);
  gamma_->setEnabled(step);
  for (QWidget* w : {static_cast<QWidget*>(stepEpochs_), static_cast<QWidget*>(gamma_)})
    w->setToolTip(step ? QString() : tr("Applies to the step schedule only"));
}

QString StudyDialog::specJson() const {
  json spec = json::parse(extraJson_.toStdString(), nullptr, false);
  if (!spec.is_object()) spec = json::object();
  SpecFields f;
  f.name = name_->text().toStdString();
  f.dataset = dataset_->currentData().toString().toStdString();
  f.datasetDir = datasetDir_->isEnabled() ? datasetDir_->text().toStdString() : std::string();
  f.trainSize = trainSize_->isEnabled() ? trainSize_->value() : 0;  // text: not a subset
  f.testSize = testSize_->value();
  f.model = model_->currentData().toString().toStdString();
  f.width = width_->value();
  f.nLayer = nLayer_->value();
  f.nHead = nHead_->value();
  f.nEmbd = nEmbd_->value();
  f.blockSize = blockSize_->value();
  f.epochs = epochs_->value();
  f.steps = steps_->value();
  f.batch = batch_->value();
  f.evalBatch = evalBatch_->value();
  f.optimizer = optimizer_->currentData().toString().toStdString();
  f.lr = lr_->value();
  f.weightDecay = weightDecay_->value();
  f.momentum = momentum_->value();
  f.schedule = schedule_->currentData().toString().toStdString();
  f.warmupEpochs = warmup_->value();
  f.stepEpochs = stepEpochs_->value();
  f.gamma = gamma_->value();
  f.freezeEpochs = freeze_->value();
  f.seeds = seeds_->text().toStdString();
  f.threads = threads_->value();
  f.chaosFloor = chaosFloor_->isChecked();
  for (const auto& [name, edit] : sweep_) {
    study::SweepFactor factor{name.toStdString(), {}};
    // Values that do not parse are left out here; validate() names them.
    if (parseSweepValues(edit->text(), &factor.values, nullptr) && !factor.values.empty())
      f.sweep.push_back(std::move(factor));
  }
  f.sweep.insert(f.sweep.end(), policySweep_.begin(), policySweep_.end());
  for (int i = 0; i < backends_->count(); ++i)
    if (backends_->item(i)->checkState() == Qt::Checked)
      f.backends.push_back(
          json::parse(backends_->item(i)->data(kEntryRole).toString().toStdString()));
  writeSpecFields(f, &spec);
  return QString::fromStdString(spec.dump(2));
}

bool StudyDialog::validate(QString* reason) const {
  // Every problem at once, one a line: the fields' own checks, then (when they pass) every
  // problem the core parser finds, as `paritylab-cli run` would report them.
  QStringList problems;
  if (name_->text().trimmed().isEmpty()) problems << tr("Name: the study needs a name");
  if (needsFolder(dataset_) && datasetDir_->text().trimmed().isEmpty())
    problems << (data::datasetIsText(dataset_->currentData().toString().toStdString())
                     ? tr("Dataset file: %1 needs the text file to read")
                     : tr("Dataset folder: %1 needs the folder holding its files"))
                    .arg(dataset_->currentData().toString());
  if (lr_->value() <= 0) problems << tr("Learning rate: must be > 0 (got %1)").arg(lr_->value());
  if (steps_->value() == 0 && freeze_->value() >= epochs_->value() && freeze_->value() > 0)
    problems << tr("Freeze backbone: %1 epochs frozen leaves none of the %2 epochs to train the "
                   "whole model")
                    .arg(freeze_->value())
                    .arg(epochs_->value());
  std::vector<std::uint64_t> seeds;
  QString seedError;
  if (!parseSeeds(seeds_->text(), &seeds, &seedError)) problems << tr("Seeds: %1").arg(seedError);
  int checked = 0;
  for (int i = 0; i < backends_->count(); ++i)
    checked += backends_->item(i)->checkState() == Qt::Checked ? 1 : 0;
  if (checked == 0) problems << tr("Backends: check at least one backend");
  for (const auto& [name, edit] : sweep_) {
    std::vector<nlohmann::json> values;
    QString valueError;
    if (!parseSweepValues(edit->text(), &values, &valueError))
      problems << tr("Sweep %1: %2").arg(name, valueError);
  }
  if (problems.isEmpty())  // core has the last word: the checks `paritylab-cli run` makes
    for (const study::SpecIssue& issue : study::checkStudySpec(specJson().toStdString(), "study"))
      problems << QString::fromStdString(issue.message);
  if (reason) *reason = problems.join(QLatin1Char('\n'));
  return problems.isEmpty();
}

QLineEdit* StudyDialog::sweepEdit(const QString& name) const {
  for (const auto& [field, edit] : sweep_)
    if (field == name) return edit;
  return nullptr;
}

void StudyDialog::setError(const QString& text) {
  error_->setText(text);
  error_->setVisible(!text.isEmpty());  // no empty line taking the form's height
}

QString StudyDialog::errorText() const {
  return error_->text();
}

void StudyDialog::revalidate() {
  QString reason;
  const bool ok = validate(&reason);
  setError(ok ? QString() : reason);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(ok);
  int factors = 0;
  for (const auto& [name, edit] : sweep_) factors += edit->text().trimmed().isEmpty() ? 0 : 1;
  factors += int(policySweep_.size());
  bottomTabs_->setTabText(1, factors == 0   ? tr("Sweep")
                             : factors == 1 ? tr("Sweep (1 factor)")
                                            : tr("Sweep (%1 factors)").arg(factors));
  if (ok) {
    estimator_->setSpec(specJson());
  } else {
    estimator_->clear();
    size_->clear();
  }
}

void StudyDialog::accept() {
  QString reason;
  if (!validate(&reason)) {
    setError(reason);  // refused, with the reason; the dialog stays open
    return;
  }
  QDialog::accept();
}

void StudyDialog::loadFromFile() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Load study spec"), {}, tr("Study (*.json)"));
  if (path.isEmpty()) return;
  QFile file(path);
  QString reason;
  if (!file.open(QIODevice::ReadOnly)) {
    setError(tr("%1: %2").arg(path, file.errorString()));
    return;
  }
  if (!loadSpec(QString::fromUtf8(file.readAll()), &reason))
    setError(tr("%1: %2").arg(path, reason));
}

void StudyDialog::saveToFile() {
  QString reason;
  if (!validate(&reason)) {
    setError(reason);
    return;
  }
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save study spec"), name_->text() + QStringLiteral(".json"), tr("Study (*.json)"));
  if (path.isEmpty()) return;
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(specJson().toUtf8()) < 0)
    setError(tr("%1: %2").arg(path, file.errorString()));
}

}  // namespace paritylab::ui
