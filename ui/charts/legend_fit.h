#pragma once
// Where a chart's legend goes: below the plot while its entries fit there on one row at their full
// length, else at its right as a column, where every name reads whole. Qt's legend cuts the labels
// of a row short to fit it: nine backends in a 1024-pixel window read "g...", "f...", and two
// entries that begin alike ("gpu-amp-bf16" and its band) become one name twice.

class QAbstractSeries;
class QChart;

namespace paritylab::ui {

// Hides series' entry in chart's legend for good, and leaves it out of fitLegend's count (a
// marker's own visibility is unknown until the chart is laid out, and never known in a chart that
// is not shown, as a headless report's).
void hideFromLegend(QChart* chart, QAbstractSeries* series);

// Aligns chart's legend for a chart `width` pixels wide: every entry counts but those hidden by
// hideFromLegend.
void fitLegend(QChart* chart, double width);

}  // namespace paritylab::ui
