#pragma once
// Small chart pieces shared by the Playground tab's views: a chart with axes, lines and bands.

#include <QColor>
#include <QPointF>
#include <QString>
#include <vector>

class QAbstractAxis;
class QChart;
class QLineSeries;

namespace paritylab::ui {

// A chart with the given axes (log10 when `logX`/`logY`) and a legend at the bottom unless
// `legend` is false (charts whose colours are explained next to them).
struct PlaygroundChart {
  QChart* chart = nullptr;
  QAbstractAxis* x = nullptr;
  QAbstractAxis* y = nullptr;
};
PlaygroundChart makePlaygroundChart(const QString& title, const QString& xTitle, bool logX,
                                    const QString& yTitle, bool logY, bool legend = true);
// Removes every series (the axes stay).
void clearPlaygroundChart(const PlaygroundChart& c);

// Adds a line; points that a log axis cannot show (<= 0, NaN, inf) are left out. `inLegend`:
// whether the legend lists it.
QLineSeries* addPlaygroundLine(const PlaygroundChart& c, const QString& name,
                               const std::vector<QPointF>& points, const QColor& color,
                               double width = 2.0, Qt::PenStyle style = Qt::SolidLine,
                               bool inLegend = true);
// A shaded band between `lower` and `upper` (same x values), not in the legend.
void addPlaygroundBand(const PlaygroundChart& c, const std::vector<QPointF>& lower,
                       const std::vector<QPointF>& upper, const QColor& color);
// Sets an axis' range: log axes to whole decades (positive values only), value axes widened to
// round tick values.
void setPlaygroundRange(QAbstractAxis* axis, double min, double max);

}  // namespace paritylab::ui
