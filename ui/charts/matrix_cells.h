#pragma once
// The cells of the kit's matrices (the Divergence tab's churn and train x serve matrices): a
// colour ramp from white to a hue, the grey of an undefined cell, and one cell painted as all
// of them paint it: filled, outlined in white, its lines centred (the first in bold, each elided
// to the cell's width, as many as fit), white text on a dark fill.

#include <QColor>
#include <QFont>
#include <QRectF>
#include <QStringList>

class QPainter;

namespace paritylab::ui {

// The colour a share `t` in [0, 1] of the way from `low` to `high` (clamped).
QColor rampColour(const QColor& low, const QColor& high, double t);

// The fill of a cell with no value.
QColor undefinedCellColour();

// Paints `lines` in `box` on `fill` with `font`; `ink` is the text colour on a light fill.
void paintMatrixCell(QPainter& p, const QRectF& box, const QColor& fill, const QStringList& lines,
                     const QFont& font, const QColor& ink);

}  // namespace paritylab::ui
