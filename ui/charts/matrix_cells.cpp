#include "ui/charts/matrix_cells.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

namespace paritylab::ui {

QColor rampColour(const QColor& low, const QColor& high, double t) {
  t = std::clamp(t, 0.0, 1.0);
  return QColor::fromRgbF(float(low.redF() + t * (high.redF() - low.redF())),
                          float(low.greenF() + t * (high.greenF() - low.greenF())),
                          float(low.blueF() + t * (high.blueF() - low.blueF())));
}

QColor undefinedCellColour() {
  return {0xe6, 0xe8, 0xeb};
}

void paintMatrixCell(QPainter& p, const QRectF& box, const QColor& fill, const QStringList& lines,
                     const QFont& font, const QColor& ink) {
  p.fillRect(box, fill);
  p.setPen(Qt::white);
  p.setBrush(Qt::NoBrush);
  p.drawRect(box);
  // Dark cells take white text.
  p.setPen(fill.lightnessF() < 0.55 ? QColor(Qt::white) : ink);
  QFont bold = font;
  bold.setBold(true);
  const QFontMetrics plain(font), boldMetrics(bold);
  const int lineHeight = plain.height();
  const int shown = std::min<int>(std::max(1, int(box.height() - 4) / lineHeight), lines.size());
  double y = box.center().y() - shown * lineHeight / 2.0;
  for (int i = 0; i < shown; ++i) {
    p.setFont(i == 0 ? bold : font);
    const QFontMetrics& m = i == 0 ? boldMetrics : plain;
    p.drawText(QRectF(box.left() + 2, y, box.width() - 4, lineHeight), Qt::AlignCenter,
               m.elidedText(lines[i], Qt::ElideRight, int(box.width()) - 4));
    y += lineHeight;
  }
  p.setFont(font);
}

}  // namespace paritylab::ui
