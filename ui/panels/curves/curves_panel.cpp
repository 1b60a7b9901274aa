#include "ui/panels/curves/curves_panel.h"

#include <QAreaSeries>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSlider>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>
#include <limits>
#include <utility>

#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_crosshair.h"
#include "ui/charts/chart_hint.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/legend_fit.h"
#include "ui/charts/nice_ticks.h"
#include "ui/charts/point_markers.h"
#include "ui/panels/curves/equivalence_band.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {
namespace {

QColor withAlpha(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

QList<QPointF> toPoints(const std::vector<XY>& xy, bool logX, bool logY) {
  QList<QPointF> points;
  points.reserve(static_cast<qsizetype>(xy.size()));
  for (const XY& p : xy) {
    if (!std::isfinite(p.y) || (logX && p.x <= 0) || (logY && p.y <= 0)) continue;
    points.append(QPointF(p.x, p.y));
  }
  return points;
}

}  // namespace

CurvesPanel::CurvesPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      data_(study->runs()),
      chart_(new QChart),
      view_(new ChartView(chart_, this)),
      crosshair_(new ChartCrosshair(view_)),
      hint_(new ChartHint(chart_)),
      equivalence_(new EquivalenceBand(study, this)) {
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->legend()->setShowToolTips(true);  // a label cut short reads whole on hover
  view_->setLegendFitted(true);             // at the right when a row would cut names short
  chart_->setMargins(QMargins(6, 6, 6, 6));
  chart_->setAnimationOptions(QChart::NoAnimation);
  buildControls();
  setUpCrosshair();
  // The curve of the metric the study is compared on (its test loss for a language model).
  connect(shown_, &ShownStudy::metricChanged, this, &CurvesPanel::followComparedMetric);
  followComparedMetric();
  // A language model's held-out loss is its validation loss, in the chooser as in the chart.
  connect(shown_, &ShownStudy::specChanged, this, [this] {
    nameMetrics();
    rebuild();
  });
  connect(data_, &RunData::reset, this, &CurvesPanel::rebuild);
  connect(data_, &RunData::rowsAppended, this, &CurvesPanel::rebuild);
  connect(data_, &RunData::updated, this, &CurvesPanel::refreshPoints);
  connect(equivalence_, &EquivalenceBand::changed, this, &CurvesPanel::rebuild);
  rebuild();
}

void CurvesPanel::buildControls() {
  metricBox_ = new QComboBox;
  for (CurveMetric m : kCurveMetrics) metricBox_->addItem(QString(), static_cast<int>(m));
  nameMetrics();
  bandBox_ = new QComboBox;
  bandBox_->addItem(tr("band: ± std dev"), 0);
  bandBox_->addItem(tr("band: ± std error"), 1);
  bandBox_->addItem(tr("band: min–max"), 2);
  bandBox_->addItem(tr("no band"), 3);
  for (QComboBox* box : {metricBox_, bandBox_})
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  runsCheck_ = new QCheckBox(tr("each run"));
  runsCheck_->setChecked(true);
  interruptedCheck_ = new QCheckBox(tr("cancelled in means"));
  interruptedCheck_->setToolTip(
      tr("Cancelled and failed runs are drawn dashed and, unless this is checked, left out of "
         "the means and bands"));
  smoothSlider_ = new QSlider(Qt::Horizontal);
  smoothSlider_->setRange(0, 99);
  smoothSlider_->setFixedWidth(100);
  smoothSlider_->setToolTip(
      tr("EMA smoothing weight (debiased, as TensorBoard); means and bands are computed from the "
         "smoothed runs; the raw curves stay faint behind"));
  smoothLabel_ = new QLabel;
  smoothLabel_->setMinimumWidth(
      smoothLabel_->fontMetrics().horizontalAdvance(QStringLiteral("0.00")));
  logXCheck_ = new QCheckBox(tr("log x"));
  logYCheck_ = new QCheckBox(tr("log y"));
  auto* reset = new QPushButton(tr("Reset zoom"));
  reset->setToolTip(
      tr("Drag: zoom to box · wheel: zoom · Shift/middle drag: pan · "
         "double click or Home: reset"));
  // Two rows, so nothing is squeezed in a 1024-pixel window.
  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("Metric")));
  row1->addWidget(metricBox_);
  row1->addWidget(bandBox_);
  row1->addWidget(runsCheck_);
  row1->addStretch(1);
  row1->addWidget(reset);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(interruptedCheck_);
  row2->addSpacing(8);
  row2->addWidget(new QLabel(tr("Smoothing")));
  row2->addWidget(smoothSlider_);
  row2->addWidget(smoothLabel_);
  row2->addSpacing(8);
  row2->addWidget(logXCheck_);
  row2->addWidget(logYCheck_);
  row2->addStretch(1);
  // The equivalence band's choosers on a row of their own: in a 1024-pixel window the first two
  // rows are full.
  auto* row3 = new QHBoxLayout;
  row3->addWidget(equivalence_->controls());
  row3->addStretch(1);
  // The band's verdict in words: wraps within the window, never widens it.
  equivalenceWords_ = new QLabel;
  equivalenceWords_->setWordWrap(true);
  equivalenceWords_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  equivalenceWords_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(2);
  layout->addLayout(row1);
  layout->addLayout(row2);
  layout->addLayout(row3);
  layout->addWidget(view_, 1);
  layout->addWidget(equivalenceWords_);
  const auto changed = [this] { readControls(); };
  connect(metricBox_, &QComboBox::currentIndexChanged, this, changed);
  connect(bandBox_, &QComboBox::currentIndexChanged, this, changed);
  for (QCheckBox* box : {runsCheck_, interruptedCheck_, logXCheck_, logYCheck_})
    connect(box, &QCheckBox::toggled, this, changed);
  connect(smoothSlider_, &QSlider::valueChanged, this, changed);
  connect(reset, &QPushButton::clicked, view_, &ChartView::resetZoom);
  smoothLabel_->setText(QStringLiteral("0.00"));
}

void CurvesPanel::setUpCrosshair() {
  crosshair_->setXText([this](double x) {
    return isStepMetric(options_.metric) ? tr("step %1").arg(std::llround(x))
                                         : tr("epoch %1").arg(std::llround(x));
  });
  // Means first (with N at this x), then the runs; each group by value, highest first.
  const auto isMean = [this](const QXYSeries* s) {
    for (const BackendSeries& b : backends_)
      if (b.mean == s) return true;
    return false;
  };
  crosshair_->setRowOrder([isMean](const CrosshairRow& a, const CrosshairRow& b) {
    const bool ma = isMean(a.series), mb = isMean(b.series);
    return ma != mb ? ma : a.y > b.y;
  });
  crosshair_->setRowText([this, isMean](const CrosshairRow& row, double x) {
    if (!isMean(row.series)) return tr("%1: %2").arg(row.name, valueText(row.y));
    for (const BackendCurve& b : curves_.backends)
      if (backends_.value(b.backend).mean == row.series)
        for (const BandPoint& p : b.band)
          if (std::abs(p.x - x) < 1e-9 * std::max(1.0, std::abs(x)))
            return tr("%1 mean: %2 (N=%3)").arg(b.backend, valueText(row.y)).arg(p.n);
    return tr("%1: %2").arg(row.name, valueText(row.y));
  });
}

QString CurvesPanel::valueText(double y) const {
  return options_.metric == CurveMetric::TestAccuracy ? QStringLiteral("%1%").arg(y, 0, 'f', 2)
                                                      : QString::number(y, 'g', 4);
}

void CurvesPanel::nameMetrics() {
  for (int i = 0; i < metricBox_->count(); ++i) {
    const auto metric = static_cast<CurveMetric>(metricBox_->itemData(i).toInt());
    metricBox_->setItemText(i, curveMetricName(metric, shown_->languageModel()));
  }
}

void CurvesPanel::followComparedMetric() {
  CurveOptions o = options_;
  o.metric = curveOfComparedMetric(shown_->metric());
  if (o.metric != options_.metric) setOptions(o);
}

void CurvesPanel::readControls() {
  CurveOptions o;
  o.metric = static_cast<CurveMetric>(metricBox_->currentData().toInt());
  const int band = bandBox_->currentData().toInt();
  o.showBand = band != 3;
  o.band = band == 1 ? BandKind::StdErr : band == 2 ? BandKind::MinMax : BandKind::StdDev;
  o.showRuns = runsCheck_->isChecked();
  o.includeInterrupted = interruptedCheck_->isChecked();
  o.logX = logXCheck_->isChecked();
  o.logY = logYCheck_->isChecked();
  o.smoothing = smoothSlider_->value() / 100.0;
  smoothLabel_->setText(QString::number(o.smoothing, 'f', 2));
  options_ = o;
  rebuild();
}

void CurvesPanel::setOptions(const CurveOptions& o) {
  const QSignalBlocker b1(metricBox_), b2(bandBox_), b3(runsCheck_), b4(logXCheck_), b5(logYCheck_),
      b6(smoothSlider_), b7(interruptedCheck_);
  metricBox_->setCurrentIndex(static_cast<int>(o.metric));
  bandBox_->setCurrentIndex(!o.showBand ? 3 : static_cast<int>(o.band));
  runsCheck_->setChecked(o.showRuns);
  interruptedCheck_->setChecked(o.includeInterrupted);
  logXCheck_->setChecked(o.logX);
  logYCheck_->setChecked(o.logY);
  smoothSlider_->setValue(static_cast<int>(std::lround(o.smoothing * 100)));
  smoothLabel_->setText(QString::number(o.smoothing, 'f', 2));
  options_ = o;
  rebuild();
}

void CurvesPanel::setEmptyHint(const QString& text, int expectedEpochs) {
  expectedEpochs_ = expectedEpochs;
  emptyHint_ = text;
  autoRange();
}

QString CurvesPanel::hintText() const {
  if (!isEarlyWarning(options_.metric) || data_->runs().empty()) return emptyHint_;
  if (options_.metric == CurveMetric::AttentionLogit && !shown_->languageModel())
    return tr("The model has no attention layers: no attention logits to draw");
  bool unfinished = false;
  for (const ShownRun& run : data_->runs()) {
    if (!run.warnings.empty()) return emptyHint_;
    unfinished = unfinished || !run.finished();
  }
  return unfinished ? tr("The early warnings appear as each run's epochs are stored")
                    : tr("These runs stored no early warnings (imported, or trained by a "
                         "ParityLab that did not measure them)");
}

void CurvesPanel::attach(QAbstractSeries* series, bool inLegend) {
  chart_->addSeries(series);
  series->attachAxis(xAxis_);
  series->attachAxis(yAxis_);
  if (!inLegend) hideFromLegend(chart_, series);
}

void CurvesPanel::rebuild() {
  crosshair_->hide();
  chart_->removeAllSeries();
  runs_.clear();
  backends_.clear();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  const bool steps = isStepMetric(options_.metric);
  auto makeAxis = [](bool log, const QString& title, int maxTicks, double minStep) {
    QAbstractAxis* axis = nullptr;
    if (log) {
      axis = new QLogValueAxis;
    } else {
      auto* value = new QValueAxis;
      keepTicksNice(value, maxTicks, minStep);
      axis = value;
    }
    axis->setTitleText(title);
    return axis;
  };
  xAxis_ = makeAxis(options_.logX, steps ? tr("step") : tr("epoch"), 10, 1.0);
  const bool languageModel = shown_->languageModel();
  yAxis_ = makeAxis(options_.logY, curveAxisTitle(options_.metric, languageModel), 8, 0.0);
  chart_->addAxis(xAxis_, Qt::AlignBottom);
  chart_->addAxis(yAxis_, Qt::AlignLeft);
  const QString metricName = curveMetricName(options_.metric, languageModel);
  chart_->setTitle(data_->title().isEmpty() ? metricName
                                            : tr("%1 — %2").arg(data_->title(), metricName));

  const QStringList names = data_->backends();
  // Bands first (beneath), then runs, then means on top.
  for (const QString& name : names) {
    BackendSeries b;
    b.upper = new QLineSeries(chart_);
    b.lower = new QLineSeries(chart_);
    if (options_.showBand) {
      b.band = new QAreaSeries(b.upper, b.lower);
      b.band->setName(name + tr(" band"));
      b.band->setPen(Qt::NoPen);
      b.band->setBrush(withAlpha(BackendColours::of(name), 55));
      attach(b.band, false);
    }
    backends_.insert(name, b);
  }
  drawEquivalenceBand();
  // Runs beneath the means, except the highlighted ones, drawn thick above everything.
  std::vector<std::pair<int, const ShownRun*>> onTop;
  const auto addRun = [this](int row, const ShownRun& run, bool highlighted) {
    const QColor color = BackendColours::of(run.backend);
    const Qt::PenStyle style = isInterrupted(run) ? Qt::DashLine : Qt::SolidLine;
    const double width = highlighted ? 2.4 : 1.0;
    RunSeries s;
    s.backend = run.backend;
    s.raw = new QLineSeries;
    // With smoothing the raw line is only the faint trace: the crosshair reads the smooth one.
    if (options_.smoothing <= 0) s.raw->setName(run.label());
    s.raw->setPen(QPen(withAlpha(color, options_.smoothing > 0 ? 40
                                        : highlighted          ? 255
                                                               : 120),
                       width, style));
    attach(s.raw, false);
    if (options_.smoothing > 0) {
      s.smooth = new QLineSeries;
      s.smooth->setName(run.label());
      s.smooth->setPen(QPen(withAlpha(color, highlighted ? 255 : 140), width, style));
      attach(s.smooth, false);
    }
    runs_[row] = s;
  };
  if (options_.showRuns) {
    int row = 0;
    for (const ShownRun& run : data_->runs()) {
      if (highlightedRuns_.contains(run.runId))
        onTop.emplace_back(row, &run);
      else
        addRun(row, run, false);
      ++row;
    }
  }
  for (const QString& name : names) {
    BackendSeries& b = backends_[name];
    b.mean = new QLineSeries;
    b.mean->setPen(QPen(BackendColours::of(name), 2.6));
    attach(b.mean, true);
    for (QLegendMarker* m : chart_->legend()->markers(b.mean))
      connect(m, &QLegendMarker::clicked, this,
              [this, name] { setBackendHidden(name, !hidden_.contains(name)); });
  }
  for (const auto& [row, run] : onTop) addRun(row, *run, true);
  if (exitMarker_) attach(std::exchange(exitMarker_, nullptr), true);
  for (const QString& name : names) applyVisibility(name);
  refreshPoints();
  view_->refitLegend();
}

void CurvesPanel::drawEquivalenceBand() {
  equivalenceUpper_ = equivalenceLower_ = nullptr;
  equivalenceWords_->setText(equivalence_->words(options_.metric));
  equivalenceWords_->setVisible(!equivalenceWords_->text().isEmpty());
  const std::optional<EquivalenceBand::Drawn> drawn = equivalence_->bandOf(options_.metric);
  if (!drawn) return;
  const QColor reference = BackendColours::of(equivalence_->backendB());
  equivalenceUpper_ = new QLineSeries(chart_);
  equivalenceLower_ = new QLineSeries(chart_);
  equivalenceUpper_->replace(toPoints(drawn->upper, options_.logX, options_.logY));
  equivalenceLower_->replace(toPoints(drawn->lower, options_.logX, options_.logY));
  auto* band = new QAreaSeries(equivalenceUpper_, equivalenceLower_);
  equivalenceUpper_->setParent(band);  // removed with the band at the next rebuild
  equivalenceLower_->setParent(band);
  band->setName(drawn->bandName);
  // Light, beneath the runs: per-step losses of different batches make a ragged band that must
  // not hide the curves it judges.
  band->setPen(Qt::NoPen);
  band->setBrush(withAlpha(reference, 50));
  attach(band, true);
  if (drawn->exit) {
    auto* exit = new QScatterSeries;
    exit->setName(drawn->exitName);
    exit->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    exit->setMarkerSize(11);
    exit->setColor(BackendColours::of(equivalence_->backendA()));
    exit->setBorderColor(Qt::black);
    exit->append(drawn->exit->x, drawn->exit->y);
    exitMarker_ = exit;  // attached last, on top of every line
  }
}

QString CurvesPanel::equivalenceWords() const {
  return equivalenceWords_->text();
}

void CurvesPanel::settle() {
  equivalence_->settle();
}

void CurvesPanel::refreshPoints() {
  curves_ = buildCurves(data_->runs(), data_->backends(), options_);
  const bool steps = isStepMetric(options_.metric);
  const bool logX = options_.logX, logY = options_.logY;
  for (std::size_t row = 0; row < curves_.runs.size(); ++row) {  // one curve per row, in order
    const RunCurve& c = curves_.runs[row];
    auto it = runs_.find(static_cast<int>(row));
    if (it == runs_.end()) continue;
    it->second.raw->replace(toPoints(c.raw, logX, logY));
    markPointsIfFew(it->second.raw, 5);
    if (it->second.smooth) {
      it->second.smooth->replace(toPoints(c.smooth, logX, logY));
      markPointsIfFew(it->second.smooth, 5);
    }
  }
  for (const BackendCurve& c : curves_.backends) {
    auto it = backends_.find(c.backend);
    if (it == backends_.end()) continue;
    std::vector<XY> mean, low, high;
    for (const BandPoint& b : c.band) {
      mean.push_back({b.x, b.mean});
      low.push_back({b.x, b.low});
      high.push_back({b.x, b.high});
    }
    it->mean->replace(toPoints(mean, logX, logY));
    markPointsIfFew(it->mean, 9);
    // A band of one point has no width: drawn as a narrow box around it, so the spread shows.
    if (c.band.size() == 1) {
      const double halfWidth = 0.06 * std::max(1.0, c.band.front().x);
      const XY h = high.front(), l = low.front();
      high = {{h.x - halfWidth, h.y}, {h.x + halfWidth, h.y}};
      low = {{l.x - halfWidth, l.y}, {l.x + halfWidth, l.y}};
    }
    it->upper->replace(toPoints(high, logX, logY));
    it->lower->replace(toPoints(low, logX, logY));
    it->mean->setName(meanLegendName(c, steps));
  }
  autoRange();
}

void CurvesPanel::autoRange() {
  // x: every run's data, visible or not, so hiding a backend never moves the x axis.
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0;
  for (const RunCurve& c : curves_.runs)
    for (const XY& p : c.raw)
      if (std::isfinite(p.y) && (!options_.logX || p.x > 0))
        x0 = std::min(x0, p.x), x1 = std::max(x1, p.x);
  hint_->setText(hintText());
  hint_->setChartEmpty(!std::isfinite(x0));
  if (view_->userZoomed()) return;
  // y: what is visible.
  double y0 = std::numeric_limits<double>::infinity(), y1 = -y0;
  auto scan = [&](QLineSeries* s, bool visible) {
    if (!s || !visible) return;
    for (const QPointF& p : s->points()) y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
  };
  for (auto& [id, s] : runs_) scan(s.raw, s.raw->isVisible());
  scan(equivalenceUpper_, true);
  scan(equivalenceLower_, true);
  for (auto it = backends_.begin(); it != backends_.end(); ++it) {
    const bool visible = !hidden_.contains(it.key());
    scan(it->mean, visible);
    if (it->band) scan(it->upper, visible), scan(it->lower, visible);
  }
  const bool steps = isStepMetric(options_.metric);
  const bool accuracy = options_.metric == CurveMetric::TestAccuracy;
  if (!std::isfinite(x0))
    x0 = options_.logX ? 1 : 0, x1 = expectedEpochs_ > 0 ? expectedEpochs_ : 10;
  if (!std::isfinite(y0)) y0 = options_.logY ? (accuracy ? 1 : 0.01) : 0, y1 = accuracy ? 100 : 1;
  if (options_.logX) {
    setDecadeRange(static_cast<QLogValueAxis*>(xAxis_), x0, x1);
  } else {
    // From 0 (epochs, steps) to the last x.
    const double lo = std::min(0.0, x0);
    double hi = std::max(x1, lo + (steps ? 10 : 1));
    // Every point at one x (a 1-epoch study): that x in the middle, not on the right edge.
    if (x1 == x0 && x0 > 0) hi = 2 * x0;
    // Room after the last x for the mean's marker (about 9 px) in a narrow window too.
    xAxis_->setRange(lo, hi + (hi - lo) * 0.04);
  }
  if (options_.logY) {
    setFittedLogRange(static_cast<QLogValueAxis*>(yAxis_), y0, y1);
    return;
  }
  if (y1 <= y0) y1 = y0 + (y0 == 0 ? 1 : std::abs(y0) * 0.1);
  const double pad = (y1 - y0) * 0.05;
  // Never pad a non-negative quantity below zero, nor an accuracy above 100%.
  double lo = y0 >= 0 ? std::max(0.0, y0 - pad) : y0 - pad, hi = y1 + pad;
  if (accuracy) hi = std::min(hi, std::max(100.0, y1));
  yAxis_->setRange(lo, hi);
}

void CurvesPanel::setHighlightedRuns(const QSet<qint64>& runIds) {
  if (runIds == highlightedRuns_) return;
  highlightedRuns_ = runIds;
  rebuild();
}

void CurvesPanel::setHiddenRuns(const QSet<qint64>& runIds) {
  if (runIds == hiddenRuns_) return;
  hiddenRuns_ = runIds;
  for (const QString& name : data_->backends()) applyVisibility(name);
  autoRange();
}

bool CurvesPanel::runDrawn(qint64 runId) const {
  for (const auto& [row, s] : runs_)
    if (runIdAt(row) == runId) return s.raw->isVisible() && !s.raw->points().isEmpty();
  return false;
}

qint64 CurvesPanel::runIdAt(int row) const {
  // The id now: a planned run takes its database id once the runner starts it.
  return row < static_cast<int>(data_->runs().size())
             ? data_->runs()[static_cast<std::size_t>(row)].runId
             : 0;
}

void CurvesPanel::setBackendHidden(const QString& backend, bool hidden) {
  if (hidden)
    hidden_.insert(backend);
  else
    hidden_.remove(backend);
  applyVisibility(backend);
  autoRange();
}

void CurvesPanel::applyVisibility(const QString& backend) {
  const bool visible = !hidden_.contains(backend);
  auto it = backends_.find(backend);
  if (it == backends_.end()) return;
  for (auto& [row, s] : runs_)
    if (s.backend == backend)
      for (QLineSeries* line : {s.raw, s.smooth})
        if (line) {
          line->setVisible(visible && !hiddenRuns_.contains(runIdAt(row)));
          for (QLegendMarker* m : chart_->legend()->markers(line)) m->setVisible(false);
        }
  if (it->band) {
    it->band->setVisible(visible);
    for (QLegendMarker* m : chart_->legend()->markers(it->band)) m->setVisible(false);
  }
  it->mean->setVisible(visible);
  // Keep the legend entry so it can be clicked back; fade it while hidden.
  for (QLegendMarker* m : chart_->legend()->markers(it->mean)) {
    m->setVisible(true);
    QColor label = m->labelBrush().color();
    label.setAlpha(visible ? 255 : 90);
    m->setLabelBrush(label);
    QBrush brush = m->brush();
    QColor c = brush.color();
    c.setAlpha(visible ? 255 : 60);
    brush.setColor(c);
    m->setBrush(brush);
  }
}

std::vector<Exportable> CurvesPanel::exportables() const {
  std::vector<Exportable> items;
  auto* panel = const_cast<CurvesPanel*>(this);  // switching the metric to draw one, then back
  for (CurveMetric m : kCurveMetrics) {
    // Perplexity and attention logits are a language model's curves: exported for one, offered
    // for any.
    if ((m == CurveMetric::Perplexity || m == CurveMetric::AttentionLogit) &&
        !shown_->languageModel())
      continue;
    Exportable e = exportableChart(
        view_, QStringLiteral("curves-") + curveMetricSlug(m, shown_->languageModel()),
        QSize(1100, 680));
    e.paint = [panel, m, paint = e.paint](QPainter& p, const QSize& s) {
      if (panel->options().metric == m) {  // on screen: drawn as it is, zoom included
        paint(p, s);
        return;
      }
      const CurveOptions saved = panel->options();
      CurveOptions o = saved;
      o.metric = m;
      panel->setOptions(o);
      paint(p, s);
      panel->setOptions(saved);
    };
    items.push_back(std::move(e));
  }
  return items;
}

std::optional<Exportable> CurvesPanel::currentExportable() const {
  return exportableNamed(
      exportables(),
      QStringLiteral("curves-") + curveMetricSlug(options_.metric, shown_->languageModel()));
}

}  // namespace paritylab::ui
