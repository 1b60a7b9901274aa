#include "ui/curves_panel.h"

#include <QAreaSeries>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QSlider>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>
#include <limits>

#include "ui/backend_colours.h"
#include "ui/chart_view.h"
#include "ui/run_data.h"

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

// Step losses arrive at different steps per run; bucket them so runs can be averaged.
std::vector<XY> bucketed(const std::vector<XY>& xy, double width) {
  std::map<long long, std::pair<double, int>> sums;
  for (const XY& p : xy)
    if (std::isfinite(p.y)) {
      auto& s = sums[static_cast<long long>(std::floor(p.x / width))];
      s.first += p.y;
      ++s.second;
    }
  std::vector<XY> out;
  for (const auto& [b, s] : sums)
    out.push_back({(static_cast<double>(b) + 0.5) * width, s.first / s.second});
  return out;
}

}  // namespace

QString curveMetricName(CurveMetric metric) {
  switch (metric) {
    case CurveMetric::TestAccuracy:
      return QObject::tr("test accuracy");
    case CurveMetric::TestLoss:
      return QObject::tr("test loss");
    case CurveMetric::TrainLoss:
      return QObject::tr("train loss");
    case CurveMetric::StepLoss:
      return QObject::tr("step loss (live)");
  }
  return {};
}

QString curveMetricSlug(CurveMetric metric) {
  switch (metric) {
    case CurveMetric::TestAccuracy:
      return QStringLiteral("accuracy");
    case CurveMetric::TestLoss:
      return QStringLiteral("test-loss");
    case CurveMetric::TrainLoss:
      return QStringLiteral("train-loss");
    case CurveMetric::StepLoss:
      return QStringLiteral("step-loss");
  }
  return {};
}

CurvesPanel::CurvesPanel(RunData* data, QWidget* parent)
    : QWidget(parent), data_(data), chart_(new QChart), view_(new ChartView(chart_, this)) {
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setMargins(QMargins(6, 6, 6, 6));
  chart_->setAnimationOptions(QChart::NoAnimation);
  buildControls();
  connect(data_, &RunData::reset, this, &CurvesPanel::rebuild);
  connect(data_, &RunData::rowsAppended, this, &CurvesPanel::rebuild);
  connect(data_, &RunData::updated, this, &CurvesPanel::refreshPoints);
  rebuild();
}

void CurvesPanel::buildControls() {
  auto* bar = new QHBoxLayout;
  metricBox_ = new QComboBox;
  for (CurveMetric m : {CurveMetric::TestAccuracy, CurveMetric::TestLoss, CurveMetric::TrainLoss,
                        CurveMetric::StepLoss})
    metricBox_->addItem(curveMetricName(m), static_cast<int>(m));
  bandBox_ = new QComboBox;
  bandBox_->addItem(tr("band: ± std dev"), 0);
  bandBox_->addItem(tr("band: ± std error"), 1);
  bandBox_->addItem(tr("band: min–max"), 2);
  bandBox_->addItem(tr("no band"), 3);
  runsCheck_ = new QCheckBox(tr("each run"));
  runsCheck_->setChecked(true);
  smoothSlider_ = new QSlider(Qt::Horizontal);
  smoothSlider_->setRange(0, 99);
  smoothSlider_->setFixedWidth(120);
  smoothSlider_->setToolTip(tr("EMA smoothing weight; the raw curve stays faint behind"));
  smoothLabel_ = new QLabel;
  smoothLabel_->setMinimumWidth(34);
  logXCheck_ = new QCheckBox(tr("log x"));
  logYCheck_ = new QCheckBox(tr("log y"));
  auto* reset = new QPushButton(tr("Reset zoom"));
  reset->setToolTip(
      tr("Drag: zoom to box · wheel: zoom · Shift/middle drag: pan · "
         "double click or Home: reset"));
  bar->addWidget(new QLabel(tr("Metric")));
  bar->addWidget(metricBox_);
  bar->addWidget(bandBox_);
  bar->addWidget(runsCheck_);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("Smoothing")));
  bar->addWidget(smoothSlider_);
  bar->addWidget(smoothLabel_);
  bar->addSpacing(12);
  bar->addWidget(logXCheck_);
  bar->addWidget(logYCheck_);
  bar->addStretch(1);
  bar->addWidget(reset);
  auto* top = new QWidget(this);
  top->setLayout(bar);
  bar->setContentsMargins(0, 0, 0, 0);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(top);
  layout->addWidget(view_, 1);
  const auto changed = [this] { readControls(); };
  connect(metricBox_, &QComboBox::currentIndexChanged, this, changed);
  connect(bandBox_, &QComboBox::currentIndexChanged, this, changed);
  connect(runsCheck_, &QCheckBox::toggled, this, changed);
  connect(logXCheck_, &QCheckBox::toggled, this, changed);
  connect(logYCheck_, &QCheckBox::toggled, this, changed);
  connect(smoothSlider_, &QSlider::valueChanged, this, changed);
  connect(reset, &QPushButton::clicked, view_, &ChartView::resetZoom);
  smoothLabel_->setText(QStringLiteral("0.00"));
}

void CurvesPanel::readControls() {
  CurveOptions o;
  o.metric = static_cast<CurveMetric>(metricBox_->currentData().toInt());
  const int band = bandBox_->currentData().toInt();
  o.showBand = band != 3;
  o.band = band == 1 ? BandKind::StdErr : band == 2 ? BandKind::MinMax : BandKind::StdDev;
  o.showRuns = runsCheck_->isChecked();
  o.logX = logXCheck_->isChecked();
  o.logY = logYCheck_->isChecked();
  o.smoothing = smoothSlider_->value() / 100.0;
  smoothLabel_->setText(QString::number(o.smoothing, 'f', 2));
  options_ = o;
  rebuild();
}

void CurvesPanel::setOptions(const CurveOptions& o) {
  const QSignalBlocker b1(metricBox_), b2(bandBox_), b3(runsCheck_), b4(logXCheck_), b5(logYCheck_),
      b6(smoothSlider_);
  metricBox_->setCurrentIndex(static_cast<int>(o.metric));
  bandBox_->setCurrentIndex(!o.showBand ? 3 : static_cast<int>(o.band));
  runsCheck_->setChecked(o.showRuns);
  logXCheck_->setChecked(o.logX);
  logYCheck_->setChecked(o.logY);
  smoothSlider_->setValue(static_cast<int>(std::lround(o.smoothing * 100)));
  smoothLabel_->setText(QString::number(o.smoothing, 'f', 2));
  options_ = o;
  rebuild();
}

std::vector<XY> CurvesPanel::curveOf(const RunRecord& run) const {
  std::vector<XY> xy;
  if (options_.metric == CurveMetric::StepLoss) {
    xy.reserve(run.steps.size());
    for (const StepPoint& s : run.steps) xy.push_back({static_cast<double>(s.step), s.loss});
    return xy;
  }
  xy.reserve(run.epochs.size());
  for (const EpochPoint& e : run.epochs) {
    const double y = options_.metric == CurveMetric::TestAccuracy ? e.testAccuracy
                     : options_.metric == CurveMetric::TestLoss   ? e.testLoss
                                                                  : e.trainLoss;
    xy.push_back({static_cast<double>(e.epoch), y});
  }
  return xy;
}

void CurvesPanel::attach(QAbstractSeries* series, bool inLegend) {
  chart_->addSeries(series);
  series->attachAxis(xAxis_);
  series->attachAxis(yAxis_);
  if (!inLegend)
    for (QLegendMarker* m : chart_->legend()->markers(series)) m->setVisible(false);
}

void CurvesPanel::rebuild() {
  chart_->removeAllSeries();
  runs_.clear();
  backends_.clear();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  const bool steps = options_.metric == CurveMetric::StepLoss;
  auto makeAxis = [](bool log, const QString& title) -> QAbstractAxis* {
    if (log) {
      auto* axis = new QLogValueAxis;
      axis->setBase(10);
      axis->setLabelFormat(QStringLiteral("%g"));
      axis->setMinorTickCount(-1);
      axis->setTitleText(title);
      return axis;
    }
    auto* axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setLabelFormat(QStringLiteral("%g"));
    return axis;
  };
  xAxis_ = makeAxis(options_.logX, steps ? tr("step") : tr("epoch"));
  yAxis_ = makeAxis(options_.logY, curveMetricName(options_.metric));
  chart_->addAxis(xAxis_, Qt::AlignBottom);
  chart_->addAxis(yAxis_, Qt::AlignLeft);
  chart_->setTitle(data_->title().isEmpty()
                       ? curveMetricName(options_.metric)
                       : tr("%1 — %2").arg(data_->title(), curveMetricName(options_.metric)));

  const QStringList names = data_->backends();
  // Bands first (beneath), then runs, then means on top.
  for (int i = 0; i < names.size(); ++i) {
    BackendSeries b;
    b.upper = new QLineSeries(chart_);
    b.lower = new QLineSeries(chart_);
    if (options_.showBand) {
      b.band = new QAreaSeries(b.upper, b.lower);
      b.band->setName(names[i] + tr(" band"));
      b.band->setPen(Qt::NoPen);
      b.band->setBrush(withAlpha(BackendColours::of(names[i]), 55));
      attach(b.band, false);
    }
    backends_.insert(names[i], b);
  }
  if (options_.showRuns) {
    for (const RunRecord& run : data_->runs()) {
      const QColor color = BackendColours::of(run.backend);
      RunSeries s;
      s.backend = run.backend;
      s.raw = new QLineSeries;
      s.raw->setName(run.label());
      s.raw->setPen(QPen(withAlpha(color, options_.smoothing > 0 ? 40 : 120), 1.0));
      attach(s.raw, false);
      if (options_.smoothing > 0) {
        s.smooth = new QLineSeries;
        s.smooth->setName(run.label());
        s.smooth->setPen(QPen(withAlpha(color, 140), 1.0));
        attach(s.smooth, false);
      }
      const QString who = run.label();
      for (QLineSeries* line : {s.raw, s.smooth})
        if (line)
          connect(line, &QLineSeries::hovered, this,
                  [this, who, line](const QPointF& p, bool on) { showHover(who, line, p, on); });
      runs_[run.runId] = s;
    }
  }
  for (int i = 0; i < names.size(); ++i) {
    BackendSeries& b = backends_[names[i]];
    b.mean = new QLineSeries;
    b.mean->setPen(QPen(BackendColours::of(names[i]), 2.6));
    attach(b.mean, true);
    const QString who = names[i] + tr(" mean");
    QLineSeries* line = b.mean;
    connect(line, &QLineSeries::hovered, this,
            [this, who, line](const QPointF& p, bool on) { showHover(who, line, p, on); });
    for (QLegendMarker* m : chart_->legend()->markers(b.mean)) {
      const QString backend = names[i];
      connect(m, &QLegendMarker::clicked, this,
              [this, backend] { setBackendHidden(backend, !hidden_.contains(backend)); });
    }
  }
  refreshPoints();
  for (const QString& name : names) applyVisibility(name);
}

void CurvesPanel::refreshPoints() {
  const bool steps = options_.metric == CurveMetric::StepLoss;
  double maxStep = 1.0;
  if (steps)
    for (const RunRecord& run : data_->runs())
      if (!run.steps.empty()) maxStep = std::max(maxStep, double(run.steps.back().step));
  QMap<QString, std::vector<std::vector<XY>>> perBackend;
  for (const RunRecord& run : data_->runs()) {
    const std::vector<XY> raw = curveOf(run);
    perBackend[run.backend].push_back(steps ? bucketed(raw, maxStep / 60.0) : raw);
    auto it = runs_.find(run.runId);
    if (it == runs_.end()) continue;
    it->second.raw->replace(toPoints(raw, options_.logX, options_.logY));
    if (it->second.smooth)
      it->second.smooth->replace(
          toPoints(emaSmooth(raw, options_.smoothing), options_.logX, options_.logY));
  }
  for (auto it = backends_.begin(); it != backends_.end(); ++it) {
    const auto band = meanBand(perBackend.value(it.key()), options_.band);
    std::vector<XY> mean, low, high;
    int n = 0;
    for (const BandPoint& b : band) {
      mean.push_back({b.x, b.mean});
      low.push_back({b.x, b.low});
      high.push_back({b.x, b.high});
      n = std::max(n, b.n);
    }
    it->mean->replace(toPoints(emaSmooth(mean, options_.smoothing), options_.logX, options_.logY));
    it->upper->replace(toPoints(high, options_.logX, options_.logY));
    it->lower->replace(toPoints(low, options_.logX, options_.logY));
    it->n = n;
    it->mean->setName(tr("%1 mean (N=%2)").arg(it.key()).arg(n));
  }
  autoRange();
}

void CurvesPanel::autoRange() {
  if (view_->userZoomed()) return;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  auto scan = [&](QLineSeries* s) {
    if (!s || !s->isVisible()) return;
    for (const QPointF& p : s->points()) {
      x0 = std::min(x0, p.x()), x1 = std::max(x1, p.x());
      y0 = std::min(y0, p.y()), y1 = std::max(y1, p.y());
    }
  };
  for (auto& [id, s] : runs_) scan(s.raw);
  for (auto& b : backends_) scan(b.mean), scan(b.upper), scan(b.lower);
  if (!std::isfinite(x0)) {
    x0 = options_.logX ? 1 : 0, x1 = 10, y0 = options_.logY ? 0.01 : 0, y1 = 1;
  }
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + (y0 == 0 ? 1 : std::abs(y0) * 0.1);
  const auto setRange = [](QAbstractAxis* axis, double lo, double hi, bool log) {
    if (log) {
      axis->setRange(lo / 1.15, hi * 1.15);
      return;
    }
    auto* v = static_cast<QValueAxis*>(axis);
    const double pad = (hi - lo) * 0.04;
    // Never pad a non-negative quantity (accuracy, loss, step) below zero.
    v->setRange(lo >= 0 ? std::max(0.0, lo - pad) : lo - pad, hi + pad);
    v->applyNiceNumbers();
  };
  setRange(xAxis_, x0, x1, options_.logX);
  if (!options_.logX && options_.metric != CurveMetric::StepLoss) {
    // Epochs: whole numbers from 0 with a round step (1, 2, 5, 10, ...).
    auto* x = static_cast<QValueAxis*>(xAxis_);
    x->setRange(0, std::ceil(x1) + (x1 >= 10 ? 0.5 : 0.25));
    const double raw = std::max(1.0, x1 / 8.0);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag <= 1   ? mag
                        : raw / mag <= 2 ? 2 * mag
                        : raw / mag <= 5 ? 5 * mag
                                         : 10 * mag;
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(step);
    x->setLabelFormat(QStringLiteral("%d"));
  }
  setRange(yAxis_, y0, y1, options_.logY);
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
  for (auto& [id, s] : runs_)
    if (s.backend == backend)
      for (QLineSeries* line : {s.raw, s.smooth})
        if (line) {
          line->setVisible(visible);
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

void CurvesPanel::showHover(const QString& who, QLineSeries* line, const QPointF& at, bool state) {
  if (!state || line->count() == 0) {
    QToolTip::hideText();
    return;
  }
  // Snap to the nearest recorded point (the hover position lies anywhere on a segment).
  const QList<QPointF> points = line->points();
  QPointF point = points.front();
  for (const QPointF& p : points)
    if (std::abs(p.x() - at.x()) < std::abs(point.x() - at.x())) point = p;
  const bool steps = options_.metric == CurveMetric::StepLoss;
  const QString x = steps ? tr("step %1").arg(std::llround(point.x()))
                          : tr("epoch %1").arg(std::llround(point.x()));
  QToolTip::showText(
      QCursor::pos(),
      tr("%1\n%2\n%3 = %4").arg(who, x, curveMetricName(options_.metric)).arg(point.y(), 0, 'g', 5),
      view_);
}

}  // namespace paritylab::ui
