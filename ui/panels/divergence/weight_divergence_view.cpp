#include "ui/panels/divergence/weight_divergence_view.h"

#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/chart_hint.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/nice_ticks.h"
#include "ui/panels/divergence/divergence_text.h"

namespace paritylab::ui {

QColor layerColour(int layer) {
  // ColorBrewer's Paired (a module's weight and bias side by side in one hue, light then dark),
  // its light entries darkened and its yellow made ochre so every line shows on white.
  static constexpr QRgb kPaired[] = {0x79a9c9, 0x1f78b4, 0x86b865, 0x33a02c, 0xe07a78, 0xe31a1c,
                                     0xe5a04a, 0xff7f00, 0xa38bb8, 0x6a3d9a, 0xc9a227, 0xb15928};
  return QColor(kPaired[std::size_t(layer) % std::size(kPaired)]);
}

WeightDivergenceView::WeightDivergenceView(QWidget* parent)
    : QWidget(parent),
      chart_(new QChart),
      view_(new ChartView(chart_)),
      hint_(new ChartHint(chart_)) {
  chart_->setAnimationOptions(QChart::NoAnimation);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  setReport({});
}

QLineSeries* WeightDivergenceView::precisionSeries(int layer) const {
  return layer >= 0 && layer < layerCount() ? precision_[std::size_t(layer)] : nullptr;
}

QLineSeries* WeightDivergenceView::floorSeries(int layer) const {
  return layer >= 0 && layer < layerCount() ? floor_[std::size_t(layer)] : nullptr;
}

void WeightDivergenceView::setReport(const study::DivergenceReport& report) {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  precision_.clear();
  floor_.clear();
  chaos_.clear();
  zeros_ = 0;
  xAxis_ = new QValueAxis;
  keepTicksNice(xAxis_, 10, 1.0);
  xAxis_->setTitleText(tr("epoch"));
  yAxis_ = new QLogValueAxis;
  yAxis_->setTitleText(tr("distance (%, log)"));
  chart_->addAxis(xAxis_, Qt::AlignBottom);
  chart_->addAxis(yAxis_, Qt::AlignLeft);

  const QString a = QString::fromStdString(report.a), b = QString::fromStdString(report.b);
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  std::size_t precisionPairs = 0, seedPairs = 0;
  const bool fewPoints = std::all_of(report.layers.begin(), report.layers.end(),
                                     [](const auto& l) { return l.epochs.size() <= 3; });
  // The chaos floor drawn dotted: the first perturbation with weight distances (one-ulp nudge
  // by default), matched to the pair's layers by name.
  const study::ChaosFloorPart* chaos = nullptr;
  if (report.chaos)
    for (const study::ChaosFloorPart& part : report.chaos->parts)
      if (!chaos && !part.layers.empty()) chaos = &part;
  std::size_t chaosPairs = 0;
  for (std::size_t i = 0; i < report.layers.size(); ++i) {
    const study::LayerDivergence& layer = report.layers[i];
    precisionPairs = std::max(precisionPairs, layer.precisionPairs);
    seedPairs = std::max(seedPairs, layer.seedPairs);
    const QColor colour = layerColour(int(i));
    auto* solid = new QLineSeries;
    auto* dashed = new QLineSeries;
    solid->setName(QString::fromStdString(layer.layer));
    dashed->setName(tr("%1, seed floor").arg(QString::fromStdString(layer.layer)));
    solid->setPen(QPen(colour, 2.2));
    dashed->setPen(QPen(colour, 1.6, Qt::DashLine));
    for (QLineSeries* s : {solid, dashed}) {
      s->setPointsVisible(fewPoints);  // a single epoch ("final" weights) is a point, not nothing
      s->setMarkerSize(7);
    }
    const auto add = [&](QLineSeries* s, const std::vector<double>& values) {
      for (std::size_t k = 0; k < layer.epochs.size() && k < values.size(); ++k) {
        const double v = 100.0 * values[k];
        if (!std::isfinite(v)) continue;
        if (v <= 0.0) {
          ++zeros_;
          continue;
        }
        const double x = layer.epochs[k];
        s->append(x, v);
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, v), y1 = std::max(y1, v);
      }
    };
    add(solid, layer.precision);
    add(dashed, layer.seedFloor);
    std::vector<QLineSeries*> drawnSeries{dashed};
    if (chaos) {
      const auto same = std::find_if(chaos->layers.begin(), chaos->layers.end(),
                                     [&](const auto& l) { return l.layer == layer.layer; });
      if (same != chaos->layers.end() && same->epochs == layer.epochs) {
        auto* dotted = new QLineSeries;
        dotted->setName(tr("%1, chaos floor").arg(QString::fromStdString(layer.layer)));
        dotted->setPen(QPen(colour, 1.6, Qt::DotLine));
        dotted->setPointsVisible(fewPoints);
        dotted->setMarkerSize(7);
        add(dotted, same->precision);
        chaosPairs = std::max(chaosPairs, same->precisionPairs);
        drawnSeries.push_back(dotted);
        chaos_.push_back(dotted);
      }
    }
    drawnSeries.push_back(solid);  // the precision on top
    for (QLineSeries* s : drawnSeries) {
      chart_->addSeries(s);
      s->attachAxis(xAxis_);
      s->attachAxis(yAxis_);
      if (s != solid)
        for (QLegendMarker* m : chart_->legend()->markers(s)) m->setVisible(false);
    }
    precision_.push_back(solid);
    floor_.push_back(dashed);
  }
  chart_->legend()->setAlignment(report.layers.size() > 3 ? Qt::AlignRight : Qt::AlignBottom);
  chart_->legend()->setVisible(!report.layers.empty());

  QString title = tr("‖W_A − W_B‖ / ‖W_B‖ per layer: A %1, B %2<br>solid: A vs B at the same seed "
                     "(%3 pairs)<br>dashed: two seeds of B, the floor (%4 pairs)")
                      .arg(a, b)
                      .arg(precisionPairs)
                      .arg(seedPairs);
  if (chaosPairs > 0)
    title += tr("<br>dotted: the chaos floor, %1 vs %2 (%3, %4 pairs)")
                 .arg(QString::fromStdString(chaos->backend),
                      QString::fromStdString(report.chaos->reference),
                      QString::fromStdString(chaos->words))
                 .arg(chaosPairs);
  if (zeros_ > 0)
    title +=
        tr("<br>%1 distances are 0 (identical weights): not drawn on the log axis").arg(zeros_);
  chart_->setTitle(report.layers.empty() ? tr("Weight divergence per layer") : title);

  const bool drawn = std::isfinite(x0);
  if (!drawn) x0 = 1, x1 = 2, y0 = 0.01, y1 = 10;
  xAxis_->setRange(std::max(0.0, x0 - 0.5), x1 + 0.5);
  setDecadeRange(yAxis_, y0 / 1.5, y1 * 1.5);  // no point on the plot's edge
  QString reason = weightDivergenceEmptyReason(report);
  if (reason.isEmpty() && !drawn)
    reason = tr("Every distance is 0 (identical weights): nothing to draw on a log axis.");
  // The hint is one text item: break the sentence into lines that fit a narrow chart.
  QStringList lines{QString()};
  for (const QString& word : reason.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (!lines.back().isEmpty() && lines.back().size() + word.size() > 52) lines << QString();
    lines.back() += (lines.back().isEmpty() ? QString() : QStringLiteral(" ")) + word;
  }
  hint_->setText(lines.join(QLatin1Char('\n')));
  hint_->setChartEmpty(!drawn);
}

}  // namespace paritylab::ui
