#include "ui/panels/curves/equivalence_band.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <algorithm>
#include <cmath>

#include "core/study/store/results_store.h"
#include "ui/charts/backend_pair_choosers.h"
#include "ui/session/background_read.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {
namespace {

constexpr double kAlpha = 0.05;

}  // namespace

EquivalenceBand::EquivalenceBand(ShownStudy* study, QObject* parent)
    : QObject(parent),
      shown_(study),
      controls_(new QWidget),
      on_(new QCheckBox(tr("Equivalence:"))),
      aBox_(new QComboBox),
      bBox_(new QComboBox),
      reader_(std::make_unique<BackgroundRead<Read>>(
          [this](const Read* read, const QString&) { take(*read); })) {
  on_->setChecked(true);
  on_->setToolTip(
      tr("Draw the reference's simultaneous seed band on the step loss and on the compared "
         "metric per epoch, and mark where the examined backend's mean first leaves it (from the "
         "completed runs in the database)"));
  aBox_->setToolTip(tr("The backend examined"));
  bBox_->setToolTip(tr("The reference: its seeds set the band"));
  auto* row = new QHBoxLayout(controls_);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(on_);
  row->addWidget(aBox_);
  row->addWidget(new QLabel(tr("in the seed band of")));
  row->addWidget(bBox_);
  connect(on_, &QCheckBox::toggled, this, [this](bool on) {
    aBox_->setEnabled(on);
    bBox_->setEnabled(on);
    if (on) recompute();
    emit changed();
  });
  for (QComboBox* box : {aBox_, bBox_})
    connect(box, &QComboBox::activated, this, [this] {
      userPicked_ = true;
      recompute();
    });
  soon_.setSingleShot(true);
  soon_.setInterval(0);
  connect(&soon_, &QTimer::timeout, this, &EquivalenceBand::recompute);
  RunData* runs = shown_->runs();
  connect(shown_, &ShownStudy::databaseChanged, this, [this] {
    result_.reset();
    soon_.start();
  });
  connect(shown_, &ShownStudy::metricChanged, &soon_, qOverload<>(&QTimer::start));
  connect(runs, &RunData::reset, this, [this] {
    relist();
    soon_.start();
  });
  connect(runs, &RunData::rowsAppended, this, [this] {
    relist();
    soon_.start();
  });
  connect(runs, &RunData::runFinished, &soon_, qOverload<>(&QTimer::start));
  relist();
  recompute();
}

EquivalenceBand::~EquivalenceBand() = default;

bool EquivalenceBand::isOn() const {
  return on_->isChecked();
}

void EquivalenceBand::setOn(bool on) {
  on_->setChecked(on);
}

QString EquivalenceBand::backendA() const {
  return aBox_->currentText();
}

QString EquivalenceBand::backendB() const {
  return bBox_->currentText();
}

void EquivalenceBand::setPair(const QString& a, const QString& b) {
  userPicked_ = true;
  aBox_->setCurrentText(a);
  bBox_->setCurrentText(b);
  recompute();
}

void EquivalenceBand::relist() {
  const QString a = backendA(), b = backendB();
  const QStringList names = shown_->runs()->backends();
  if (!relistBackendPair(*aBox_, *bBox_, names)) return;
  const QSignalBlocker ba(aBox_), bb(bBox_);
  if (userPicked_ && names.contains(a) && names.contains(b)) {
    aBox_->setCurrentText(a);
    bBox_->setCurrentText(b);
    return;
  }
  userPicked_ = false;
  auto [da, db] = defaultBackendPair(names, shown_->chaosFloorBackends());
  if (suggestion_) {
    const auto [sa, sb] = suggestion_();
    if (sa != sb && names.contains(sa) && names.contains(sb)) da = sa, db = sb;
  }
  aBox_->setCurrentText(da);
  bBox_->setCurrentText(db);
}

bool EquivalenceBand::adoptSuggestion() {
  if (userPicked_ || !suggestion_) return false;
  const auto [a, b] = suggestion_();
  const QStringList names = shown_->runs()->backends();
  if (a == b || !names.contains(a) || !names.contains(b)) return false;
  if (a == backendA() && b == backendB()) return false;
  const QSignalBlocker ba(aBox_), bb(bBox_);
  aBox_->setCurrentText(a);
  bBox_->setCurrentText(b);
  return true;
}

void EquivalenceBand::followSuggestion() {
  if (adoptSuggestion()) recompute();
}

void EquivalenceBand::recompute() {
  soon_.stop();
  adoptSuggestion();  // the Statistics tab's pair may have settled since the lists changed
  const QString path = shown_->database();
  if (!isOn() || path.isEmpty() || backendA().isEmpty() || backendB().isEmpty()) {
    if (result_) {
      result_.reset();
      emit changed();
    }
    return;
  }
  reader_->start([path, a = backendA().toStdString(), b = backendB().toStdString(),
                  metric = shown_->metric()] {
    Read read{path, {}, {}};
    try {
      const auto store = study::ResultsStore::openReadOnly(path.toStdString());
      read.result = study::analyseCurveEquivalence(*store, b, a, kAlpha, metric);
    } catch (const std::exception& e) {
      read.error = errorText(e);
    }
    return read;
  });
}

void EquivalenceBand::take(const Read& read) {
  if (read.path != shown_->database()) return;  // read for the database shown before
  result_ = read.result;
  error_ = read.error;
  emit changed();
}

void EquivalenceBand::settle() {
  if (soon_.isActive()) recompute();
  reader_->settle();
}

std::optional<EquivalenceBand::Drawn> EquivalenceBand::bandOf(CurveMetric metric) const {
  if (!isOn() || !result_) return std::nullopt;
  const study::CurveEquivalence& e = *result_;
  const bool steps = metric == CurveMetric::StepLoss;
  if (!steps && metric != curveOfComparedMetric(shown_->metric())) return std::nullopt;
  const std::optional<stats::CurveBandResult>& band = steps ? e.trainLoss : e.testMetric;
  if (!band) return std::nullopt;
  const double scale = metric == CurveMetric::TestAccuracy ? 100.0 : 1.0;
  Drawn d;
  for (std::size_t i = 0; i < band->meanA.size(); ++i) {
    const double x = steps ? double(e.steps[i]) : double(e.epochs[i]);
    const double mid = band->meanA[i], half = band->halfWidth[i];
    if (!std::isfinite(half)) continue;  // no band where the reference's seeds do not vary
    // Every curve of the tab is non-negative, an accuracy at most 100%: the band is drawn within.
    d.lower.push_back({x, std::max(0.0, scale * (mid - half))});
    d.upper.push_back({x, scale * (mid + half)});
    if (metric == CurveMetric::TestAccuracy) d.upper.back().y = std::min(100.0, d.upper.back().y);
  }
  const QString reference = QString::fromStdString(e.reference);
  // The band's width is the seed spread of both backends (a Welch standard error): B's band for A.
  d.bandName = tr("%1 seed band for %2 (simultaneous %3%)")
                   .arg(reference, QString::fromStdString(e.backend))
                   .arg(100.0 * (1.0 - band->alpha), 0, 'g', 3);
  if (band->firstExit) {
    const std::size_t i = *band->firstExit;
    const double x = steps ? double(e.steps[i]) : double(e.epochs[i]);
    d.exit = XY{x, scale * band->meanB[i]};
    d.exitName = tr("%1 leaves it at %2 %3")
                     .arg(QString::fromStdString(e.backend), steps ? tr("step") : tr("epoch"),
                          QString::number(qlonglong(x)));
  }
  return d;
}

QString EquivalenceBand::words(CurveMetric metric) const {
  if (!isOn()) return {};
  const CurveMetric compared = curveOfComparedMetric(shown_->metric());
  if (metric != CurveMetric::StepLoss && metric != compared)
    return tr("The equivalence band is drawn on the step loss and on the %1 per epoch.")
        .arg(curveMetricName(compared, shown_->languageModel()));
  if (shown_->database().isEmpty())
    return tr("The equivalence band appears once runs are stored in a results database.");
  if (!error_.isEmpty()) return tr("No equivalence band: %1").arg(error_);
  if (!result_) return tr("Reading the equivalence band…");
  const study::CurveEquivalence& e = *result_;
  const std::string& said = metric == CurveMetric::StepLoss ? e.trainLossWords : e.testMetricWords;
  if (!said.empty())
    return QString::fromStdString(said) +
           (e.imported && e.emulated ? tr(" (emulated runs and runs measured on hardware)")
            : e.imported             ? tr(" (runs measured on hardware)")
                                     : tr(" (emulated backends)"));
  return tr("No equivalence band of %1 against %2: %3.")
      .arg(QString::fromStdString(e.backend), QString::fromStdString(e.reference),
           e.notes.empty() ? tr("nothing to compare") : QString::fromStdString(e.notes.front()));
}

}  // namespace paritylab::ui
