#include "ui/panels/distributions/distributions_panel.h"

#include <QAreaSeries>
#include <QCategoryAxis>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_hint.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/metric_chooser.h"
#include "ui/charts/nice_ticks.h"
#include "ui/charts/number_format.h"
#include "ui/charts/series_math.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {
namespace {

// Bars of one bin fill this share of its width, side by side; the rest separates the bins.
constexpr double kBarShare = 0.86;

}  // namespace

DistributionsPanel::DistributionsPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      data_(study->runs()),
      chart_(new QChart),
      view_(new ChartView(chart_)),
      hint_(new ChartHint(chart_)),
      binsBox_(new QSpinBox) {
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setAnimationOptions(QChart::NoAnimation);
  binsBox_->setRange(2, 100);
  binsBox_->setValue(12);
  auto* reset = new QPushButton(tr("Reset zoom"));
  auto* note = new QLabel(
      tr("The final value of each completed run; dots beneath are the runs, dashed lines the "
         "means."));
  note->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Metric")));
  bar->addWidget(new MetricChooser(study));
  bar->addSpacing(8);
  bar->addWidget(new QLabel(tr("Bins")));
  bar->addWidget(binsBox_);
  bar->addSpacing(8);
  bar->addWidget(note, 1);
  bar->addWidget(reset);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  connect(binsBox_, &QSpinBox::valueChanged, this, &DistributionsPanel::rebuild);
  connect(reset, &QPushButton::clicked, view_, &ChartView::resetZoom);
  connect(shown_, &ShownStudy::metricChanged, this, &DistributionsPanel::rebuild);
  connect(data_, &RunData::reset, this, &DistributionsPanel::rebuild);
  connect(data_, &RunData::runFinished, this, &DistributionsPanel::rebuild);
  rebuild();
}

void DistributionsPanel::setBins(int bins) {
  binsBox_->setValue(bins);
}

void DistributionsPanel::rebuild() {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  bars_.clear();
  const stats::MetricWords words = study::metricWords(shown_->metric());
  const QString metric = QString::fromStdString(words.name);
  const QString unit = valueUnit(words);
  hint_->setText(tr("The final %1 of each completed run appears here.").arg(metric));
  auto* x = new QValueAxis;
  x->setTitleText(unit.isEmpty() ? tr("final %1").arg(metric)
                                 : tr("final %1 (%2)").arg(metric, unit));
  // Counts above zero; beneath it one labelled row of dots per backend.
  auto* y = new QCategoryAxis;
  y->setTitleText(tr("runs"));
  y->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  chart_->addAxis(x, Qt::AlignBottom);
  chart_->addAxis(y, Qt::AlignLeft);
  // Said in the title, which has the window's width (a 1024-pixel window cut it off the axis).
  const QString better = words.lowerIsBetter ? tr(" (lower is better)") : QString();
  chart_->setTitle(data_->title().isEmpty()
                       ? tr("Final %1 by backend%2").arg(metric, better)
                       : tr("%1 — final %2 by backend%3").arg(data_->title(), metric, better));

  // Backends with at least one completed run, in RunData order.
  QStringList names;
  std::vector<std::vector<double>> samples;
  double lo = INFINITY, hi = -INFINITY;
  for (const QString& name : data_->backends()) {
    std::vector<double> v = data_->finalValues(name, shown_->metric());
    if (v.empty()) continue;
    for (double& a : v) a *= words.scale;  // accuracy: percent on the axis
    for (double a : v) lo = std::min(lo, a), hi = std::max(hi, a);
    names << name;
    samples.push_back(std::move(v));
  }
  histograms_ = static_cast<int>(names.size());
  hint_->setChartEmpty(names.isEmpty());
  if (names.isEmpty()) {
    x->setRange(0, 100);
    keepTicksNice(x, 10);
    y->setRange(0, 5);
    for (int c = 0; c <= 5; ++c) y->append(QString::number(c), c);
    return;
  }
  const double span = std::max(hi - lo, 50.0 * std::pow(10.0, -words.decimals));
  lo -= span * 0.05;
  hi += span * 0.05;
  const int bins = binsBox_->value();
  int maxCount = 1;
  std::vector<HistogramBins> hists;
  for (const auto& v : samples) {
    hists.push_back(histogram(v, lo, hi, bins));
    for (int c : hists.back().counts) maxCount = std::max(maxCount, c);
  }
  const double dotStep = maxCount * 0.09;
  auto attach = [&](QAbstractSeries* s, bool legend) {
    chart_->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    if (!legend)
      for (QLegendMarker* m : chart_->legend()->markers(s)) m->setVisible(false);
  };
  // The zero line in neutral grey, beneath the bars.
  auto* baseline = new QLineSeries;
  baseline->setPen(QPen(QColor(0x8c, 0x95, 0x9f), 1.0));
  baseline->append(lo, 0);
  baseline->append(hi, 0);
  attach(baseline, false);

  const int k = static_cast<int>(names.size());
  for (int i = 0; i < k; ++i) {
    const auto& v = samples[static_cast<std::size_t>(i)];
    const QColor color = BackendColours::of(names[i]);
    QColor fill = color;
    fill.setAlpha(150);
    double mean = 0;
    for (double a : v) mean += a;
    mean /= static_cast<double>(v.size());
    const QString legend = tr("%1 (N=%2, mean %3)")
                               .arg(names[i])
                               .arg(v.size())
                               .arg(QString::fromStdString(words.value(mean / words.scale)));
    const HistogramBins& h = hists[static_cast<std::size_t>(i)];
    bool named = false;
    for (std::size_t b = 0; b < h.counts.size(); ++b) {
      if (h.counts[b] == 0) continue;
      const double binLeft = h.lo + h.width * static_cast<double>(b);
      const double slot = h.width * kBarShare / k;
      const double x0 = binLeft + h.width * (1 - kBarShare) / 2 + slot * i, x1 = x0 + slot;
      auto* upper = new QLineSeries;
      auto* lower = new QLineSeries;
      upper->append(x0, h.counts[b]);
      upper->append(x1, h.counts[b]);
      lower->append(x0, 0);
      lower->append(x1, 0);
      auto* bar = new QAreaSeries(upper, lower);
      bar->setBrush(fill);
      bar->setPen(QPen(color.darker(115), 1.2));
      if (!named) bar->setName(legend);
      attach(bar, !named);
      named = true;
      bars_.push_back({names[i], x0, x1, h.counts[b]});
    }

    auto* dots = new QScatterSeries;
    dots->setMarkerSize(7);
    dots->setColor(color);
    dots->setBorderColor(color.darker(130));
    const double yDot = -dotStep * (i + 1);
    for (double a : v) dots->append(a, yDot);
    attach(dots, false);

    auto* meanLine = new QLineSeries;
    meanLine->setPen(QPen(color.darker(120), 2.0, Qt::DashLine));
    meanLine->append(mean, yDot - dotStep * 0.4);
    meanLine->append(mean, maxCount * 1.05);
    attach(meanLine, false);
  }
  x->setRange(lo, hi);
  keepTicksNice(x, 10);
  const double yMin = -dotStep * (k + 0.8);
  y->setRange(yMin, maxCount * 1.1);
  y->setStartValue(yMin);
  for (int i = k - 1; i >= 0; --i) y->append(names[i] + QStringLiteral(" "), -dotStep * (i + 1));
  const int step = std::max(1, maxCount / 6);
  for (int c = 0; c <= maxCount; c += step) y->append(QString::number(c), c);
}

std::vector<Exportable> DistributionsPanel::exportables() const {
  return {exportableChart(view_, QStringLiteral("histogram"), QSize(1100, 680))};
}

std::optional<Exportable> DistributionsPanel::currentExportable() const {
  return exportables().front();
}

}  // namespace paritylab::ui
