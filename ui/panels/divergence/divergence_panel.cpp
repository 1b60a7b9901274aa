#include "ui/panels/divergence/divergence_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTextDocument>
#include <QVBoxLayout>
#include <memory>
#include <utility>

#include "core/study/files/study_report.h"
#include "core/study/store/results_store.h"
#include "ui/charts/backend_pair_choosers.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/divergence/churn_matrix_view.h"
#include "ui/panels/divergence/class_difference_view.h"
#include "ui/panels/divergence/divergence_text.h"
#include "ui/panels/divergence/lockstep_view.h"
#include "ui/panels/divergence/samples_view.h"
#include "ui/panels/divergence/serve_matrix_view.h"
#include "ui/panels/divergence/weight_divergence_view.h"
#include "ui/session/core_errors.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {

study::DivergenceReport analyseDatabase(const QString& dbPath,
                                        const study::DivergenceOptions& options) {
  const auto store = study::ResultsStore::openReadOnly(dbPath.toStdString());
  return study::analyseDivergence(*store, options);
}

DivergencePanel::DivergencePanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      data_(study ? study->runs() : nullptr),
      analysis_(analyseDatabase),
      aBox_(new QComboBox),
      bBox_(new QComboBox),
      status_(new QLabel),
      summary_(new QLabel),
      stack_(new QStackedWidget),
      message_(new QLabel),
      charts_(new QTabWidget),
      churn_(new ChurnMatrixView),
      classes_(new ClassDifferenceView),
      weights_(new WeightDivergenceView),
      samples_(new SamplesView),
      serving_(new ServeMatrixView),
      lockstep_(new LockstepView),
      reader_([this](const Analysed* analysed, const QString&) { takeResult(*analysed); }) {
  aBox_->setToolTip(tr("The backend examined"));
  bBox_->setToolTip(tr("The reference: its seed-to-seed variation is the noise floor"));
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Backend A")));
  controls->addWidget(aBox_);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(tr("against reference B")));
  controls->addWidget(bBox_);
  controls->addSpacing(12);
  controls->addWidget(status_, 1);

  // "Updating… (showing the previous analysis)" takes the room right of the choosers and wraps
  // there: it never widens the window.
  status_->setWordWrap(true);
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  summary_->setStyleSheet(
      QStringLiteral("QLabel { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; "
                     "padding: 8px; }"));
  auto* summaryScroll = new QScrollArea;
  summaryScroll->setWidget(summary_);
  summaryScroll->setWidgetResizable(true);
  summaryScroll->setFrameShape(QFrame::NoFrame);

  classScroll_ = new QScrollArea;  // many classes scroll rather than squeeze
  classScroll_->setWidget(classes_);
  classScroll_->setWidgetResizable(true);
  classScroll_->setFrameShape(QFrame::NoFrame);
  auto* churnScroll = new QScrollArea;  // a narrow window scrolls the matrix, never grows
  churnScroll->setWidget(churn_);
  churnScroll->setWidgetResizable(true);
  churnScroll->setFrameShape(QFrame::NoFrame);
  charts_->addTab(churnScroll, tr("Churn matrix"));
  charts_->addTab(classScroll_, tr("Per class"));
  charts_->addTab(weights_, tr("Weights"));
  charts_->addTab(samples_, tr("Samples"));
  servingScroll_ = new QScrollArea;
  servingScroll_->setWidget(serving_);
  servingScroll_->setWidgetResizable(true);
  servingScroll_->setFrameShape(QFrame::NoFrame);
  charts_->addTab(servingScroll_, tr("Train × serve"));
  charts_->addTab(lockstep_, tr("Lockstep"));
  charts_->setDocumentMode(true);

  message_->setWordWrap(true);
  message_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(message_);
  stack_->addWidget(charts_);

  // The summary above the charts; drag the handle to read more of either.
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(summaryScroll);
  splitter->addWidget(stack_);
  splitter->setChildrenCollapsible(false);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({150, 560});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);

  for (QComboBox* box : {aBox_, bBox_})
    connect(box, &QComboBox::activated, this, [this] {
      userPicked_ = true;
      recompute();
    });
  analyseSoon_.setSingleShot(true);
  analyseSoon_.setInterval(0);
  connect(&analyseSoon_, &QTimer::timeout, this, &DivergencePanel::recompute);
  if (study) {
    // The shown study's database: a database Start creates, or one opened (with a reset).
    connect(study, &ShownStudy::databaseChanged, this, &DivergencePanel::followStudy);
    connect(data_, &RunData::reset, this, [this, study] { followStudy(study->database()); });
    // Until a report says otherwise, the spec says whether the groups are token bands.
    connect(study, &ShownStudy::specChanged, this, [this, study] {
      if (!hasReport_) nameGroupingTab(study->languageModel());
    });
    connect(data_, &RunData::rowsAppended, this, [this] {
      if (refillBackends()) recompute();  // a new backend: the pair may change
    });
    // Batched by RunData's timer: one recomputation for any number of runs finishing at once,
    // and one with a database opened (RunData announces its new runs as finished too).
    connect(data_, &RunData::runFinished, &analyseSoon_, qOverload<>(&QTimer::start));
    // A lockstep comparison is stored before the runs: shown at once, not after the first run.
    connect(study, &ShownStudy::lockstepStored, &analyseSoon_, qOverload<>(&QTimer::start));
  }
  refillBackends();
  recompute();
}

DivergencePanel::~DivergencePanel() = default;

void DivergencePanel::setAnalysis(Analysis analysis) {
  analysis_ = std::move(analysis);
  recompute();
}

void DivergencePanel::suggestPair(const QString& a, const QString& b) {
  suggestedA_ = a;
  suggestedB_ = b;
  if (userPicked_) return;
  if (backendA() == a && backendB() == b) return;
  applyDefaultPair();
  recompute();
}

void DivergencePanel::setPair(const QString& a, const QString& b) {
  userPicked_ = true;
  aBox_->setCurrentText(a);
  bBox_->setCurrentText(b);
  recompute();
}

void DivergencePanel::unpickPair() {
  if (!userPicked_) return;
  userPicked_ = false;
  const QString a = backendA(), b = backendB();
  applyDefaultPair();
  if (backendA() != a || backendB() != b) recompute();
}

void DivergencePanel::setAlpha(double alpha) {
  if (alpha == alpha_) return;  // nothing to recompute
  alpha_ = alpha;
  recompute();
}

QString DivergencePanel::backendA() const {
  return aBox_->currentText();
}

QString DivergencePanel::backendB() const {
  return bBox_->currentText();
}

QStringList DivergencePanel::backends() const {
  QStringList names;
  for (int i = 0; i < aBox_->count(); ++i) names << aBox_->itemText(i);
  return names;
}

bool DivergencePanel::refillBackends() {
  const QStringList names = data_ ? data_->backends() : QStringList();
  const QString a = backendA(), b = backendB();
  if (!relistBackendPair(*aBox_, *bBox_, names)) return false;
  if (userPicked_ && names.contains(a) && names.contains(b)) {
    const QSignalBlocker ba(aBox_), bb(bBox_);
    aBox_->setCurrentText(a);
    bBox_->setCurrentText(b);
  } else {
    userPicked_ = false;
    applyDefaultPair();
  }
  return true;
}

void DivergencePanel::applyDefaultPair() {
  const QStringList names = backends();
  auto [a, b] = defaultBackendPair(names, shown_ ? shown_->chaosFloorBackends() : QStringList());
  if (names.contains(suggestedA_) && names.contains(suggestedB_) && suggestedA_ != suggestedB_)
    a = suggestedA_, b = suggestedB_;
  const QSignalBlocker ba(aBox_), bb(bBox_);
  aBox_->setCurrentText(a);
  bBox_->setCurrentText(b);
}

void DivergencePanel::recompute() {
  if (dbPath_.isEmpty() || backendA().isEmpty() || backendB().isEmpty() || !analysis_) {
    hasReport_ = false;
    showMessage(dbPath_.isEmpty() || backendA().isEmpty()
                    ? tr("Run a study or open a results database: once runs finish, this tab "
                         "shows whether the precision changes the model itself — which test "
                         "predictions change, which classes move, how far the weights drift — "
                         "against the noise of the seed.")
                    : tr("No divergence analysis is set."));
    return;
  }
  study::DivergenceOptions options;
  options.a = backendA().toStdString();
  options.b = backendB().toStdString();
  options.alpha = alpha_;
  options.bootstrap.alpha = alpha_;
  status_->setText(hasReport_ ? tr("Updating… (showing the previous analysis)") : tr("Analysing…"));
  reader_.start([analysis = analysis_, path = dbPath_, options] {
    Analysed analysed{path, {}, {}};
    try {
      analysed.report = analysis(path, options);
    } catch (const std::exception& e) {
      analysed.error = ui::errorText(e);
    }
    return analysed;
  });
}

void DivergencePanel::followStudy(const QString& dbPath) {
  dbPath_ = dbPath;
  if (suggestion_) {
    const Suggestion suggested = suggestion_();
    suggestedA_ = suggested.a;
    suggestedB_ = suggested.b;
    alpha_ = suggested.alpha;
  }
  hasReport_ = false;  // another database: the old report says nothing about it
  // Named before the analysis arrives, so the tab is found by its name from the start.
  if (shown_) nameGroupingTab(shown_->languageModel());
  refillBackends();  // at once: a pair can be chosen before the analysis starts
  analyseSoon_.start();
}

void DivergencePanel::settle() {
  if (analyseSoon_.isActive()) {
    analyseSoon_.stop();
    recompute();
  }
  reader_.settle();
}

void DivergencePanel::takeResult(const Analysed& analysed) {
  status_->clear();
  if (analysed.path != dbPath_) {  // computed for the database shown before: never shown
    recompute();
    return;
  }
  if (!analysed.error.isEmpty()) {
    hasReport_ = false;
    error_ = analysed.error;
    showMessage(tr("Cannot analyse %1 against %2: %3").arg(backendA(), backendB(), error_));
  } else {
    error_.clear();
    showReport(analysed.report);
  }
  emit reportShown();
}

void DivergencePanel::showReport(const study::DivergenceReport& report) {
  report_ = report;
  hasReport_ = true;
  summary_->setText(divergenceSummaryHtml(summarizeDivergence(report_, alpha_)));
  churn_->setReport(report_);
  classes_->setReport(report_, alpha_);
  nameGroupingTab(report_.grouping == study::ClassGrouping::TokenFrequencyBands);
  weights_->setReport(report_);
  samples_->setReport(report_);
  // The Samples tab is a language model's: an image study does not show it.
  charts_->setTabVisible(charts_->indexOf(samples_), report_.samples.has_value());
  serving_->setMatrix(report_.serving.value_or(study::TrainServeMatrix{}));
  lockstep_->setRecords(report_.lockstep, shown_ && shown_->mode() == ShownStudy::Mode::Imported);
  // Shown when runs were served otherwise; otherwise the notes say why not.
  charts_->setTabVisible(charts_->indexOf(servingScroll_), serving_->hasMatrix());
  stack_->setCurrentWidget(charts_);
}

void DivergencePanel::nameGroupingTab(bool tokenBands) {
  charts_->setTabText(charts_->indexOf(classScroll_),
                      tokenBands ? tr("Per token band") : tr("Per class"));
}

void DivergencePanel::showMessage(const QString& text) {
  summary_->setText(text.toHtmlEscaped());
  message_->setText(text);
  stack_->setCurrentWidget(message_);
}

QString DivergencePanel::messageText() const {
  return message_->text();
}

QString DivergencePanel::summaryText() const {
  QTextDocument doc;
  doc.setHtml(summary_->text());
  return doc.toPlainText();
}

std::vector<Exportable> DivergencePanel::exportables() const {
  std::vector<Exportable> items;
  if (!hasReport_) return items;
  if (!report_.backends.empty()) items.push_back(exportableChurnMatrix(churn_));
  if (!report_.classes.empty()) items.push_back(exportableClassDifferences(classes_));
  if (!report_.layers.empty())
    items.push_back(
        exportableChart(weights_->view(), QStringLiteral("divergence-weights"), QSize(1100, 680)));
  if (samples_->hasSamples()) items.push_back(exportableSamples(samples_));
  if (serving_->hasMatrix()) items.push_back(exportableServeMatrix(serving_));
  for (Exportable& e : lockstep_->exportables()) items.push_back(std::move(e));
  return items;
}

std::optional<Exportable> DivergencePanel::currentExportable() const {
  const QString name =
      charts_->currentWidget() == weights_         ? QStringLiteral("divergence-weights")
      : charts_->currentWidget() == samples_       ? QStringLiteral("divergence-samples")
      : charts_->currentWidget() == servingScroll_ ? QStringLiteral("divergence-serving")
      : charts_->currentWidget() == lockstep_      ? QStringLiteral("divergence-lockstep")
      : charts_->currentIndex() == 1               ? QStringLiteral("divergence-classes")
                                                   : QStringLiteral("divergence-churn");
  return exportableNamed(exportables(), name);
}

}  // namespace paritylab::ui
