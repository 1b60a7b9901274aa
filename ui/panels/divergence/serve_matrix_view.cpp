#include "ui/panels/divergence/serve_matrix_view.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/charts/matrix_cells.h"
#include "ui/panels/divergence/divergence_text.h"
#include "ui/panels/divergence/matrix_view_layout.h"

namespace paritylab::ui {
namespace {

// White to deep purple (ColorBrewer "Purples"): more flips, darker.
QColor flipShade(double t) {
  return rampColour(QColor(0xfc, 0xfb, 0xfd), QColor(0x54, 0x27, 0x8f), t);
}

}  // namespace

ServeMatrixView::ServeMatrixView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void ServeMatrixView::setMatrix(const study::TrainServeMatrix& matrix) {
  matrix_ = matrix;
  highest_ = 0.0;
  const int n = int(matrix_.backends.size());
  for (int r = 0; r < n; ++r)
    for (int c = 0; c <= n; ++c)
      if (const double v = valueAt(r, c); std::isfinite(v)) highest_ = std::max(highest_, v);
  update();
}

double ServeMatrixView::valueAt(int row, int column) const {
  const int n = int(matrix_.backends.size());
  if (row < 0 || row >= n || column < 0 || column > n) return std::nan("");
  if (column == n) {
    const auto& floor = matrix_.seedFloor[std::size_t(row)];
    return floor && floor->pairs > 0 ? floor->mean : std::nan("");
  }
  const study::ServeCell& c = matrix_.cell(std::size_t(row), std::size_t(column));
  return c.runs > 0 ? c.flipRate : std::nan("");
}

QStringList ServeMatrixView::cellText(int row, int column) const {
  const int n = int(matrix_.backends.size());
  const double v = valueAt(row, column);
  if (column == n)
    return std::isfinite(v) ? QStringList{formatChurnCell(v), tr("two seeds")}
                            : QStringList{tr("—"), tr("fewer than 2 runs")};
  const study::ServeCell& c = matrix_.cell(std::size_t(row), std::size_t(column));
  if (c.runs == 0) return {tr("—"), tr("not served")};
  QStringList lines{formatChurnCell(v)};
  if (row == column)
    lines << tr("one at a time");
  else
    lines << tr("KL %1 nats").arg(c.meanKl, 0, 'g', 2);
  lines << (c.runs == 1 ? tr("1 run") : tr("%1 runs").arg(c.runs));
  return lines;
}

QString ServeMatrixView::title() const {
  return tr("Trained on (row), served on (column): % of %1 that flip when a run's model is "
            "evaluated under the column's arithmetic, mean over the row's runs. Diagonal: the "
            "same backend one item at a time instead of in batches. Last column: two seeds of "
            "the row's backend (the seed floor).")
      .arg(QString::fromStdString(matrix_.predictions));
}

void ServeMatrixView::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  p.setFont(font());
  const QFontMetrics fm(font());
  const QColor ink(0x24, 0x29, 0x2f), muted(0x57, 0x60, 0x6a);
  const QRect titleBox =
      fm.boundingRect(QRect(kMatrixMargin, kMatrixMargin, size.width() - 2 * kMatrixMargin, 1000),
                      Qt::AlignLeft | Qt::TextWordWrap, title());
  p.setPen(muted);
  p.drawText(titleBox, Qt::AlignLeft | Qt::TextWordWrap, title());
  const int n = int(matrix_.backends.size());
  if (n == 0) {
    const QString why = matrix_.notes.empty() ? tr("No run was served by another backend.")
                                              : QString::fromStdString(matrix_.notes.front());
    p.drawText(
        QRect(kMatrixMargin, titleBox.bottom() + kMatrixGap, size.width() - 2 * kMatrixMargin,
              size.height() - titleBox.bottom() - kMatrixGap - kMatrixMargin),
        Qt::AlignCenter | Qt::TextWordWrap, why);
    return;
  }
  int labelWidth = 0;
  for (const std::string& name : matrix_.backends)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(QString::fromStdString(name)));
  labelWidth = std::min(labelWidth + kMatrixGap + 4, size.width() / 4);
  const double top = titleBox.bottom() + kMatrixGap + fm.height() + kMatrixGap;
  QString legend = tr("Grey: not measured. Darker: more flips (white 0%, darkest %1), on one "
                      "scale with the seed floor. Emulated backends.")
                       .arg(formatChurnCell(highest_));
  for (const std::string& line : matrix_.headlines)
    legend += QStringLiteral("\n") + QString::fromStdString(line);
  const double legendHeight = fm.boundingRect(QRect(0, 0, size.width() - 2 * kMatrixMargin, 2000),
                                              Qt::AlignLeft | Qt::TextWordWrap, legend)
                                  .height() +
                              kMatrixGap;
  const QRectF grid(kMatrixMargin + labelWidth, top,
                    std::max(1.0, double(size.width() - 2 * kMatrixMargin - labelWidth)),
                    std::max(1.0, size.height() - top - legendHeight - kMatrixMargin));
  const double w = grid.width() / (n + 1), h = grid.height() / n;
  for (int c = 0; c <= n; ++c) {
    const QString name =
        c == n ? tr("seed floor") : QString::fromStdString(matrix_.backends[std::size_t(c)]);
    p.setPen(ink);
    p.drawText(
        QRectF(grid.left() + c * w, grid.top() - fm.height() - kMatrixGap / 2.0, w, fm.height()),
        Qt::AlignCenter, fm.elidedText(name, Qt::ElideMiddle, int(w) - 4));
  }
  for (int r = 0; r < n; ++r) {
    p.setPen(ink);
    p.drawText(QRectF(kMatrixMargin, grid.top() + r * h, labelWidth - kMatrixGap, h),
               Qt::AlignRight | Qt::AlignVCenter,
               fm.elidedText(QString::fromStdString(matrix_.backends[std::size_t(r)]),
                             Qt::ElideMiddle, labelWidth - kMatrixGap));
    for (int c = 0; c <= n; ++c) {
      const QRectF box(grid.left() + c * w, grid.top() + r * h, w, h);
      const double v = valueAt(r, c);
      const QColor fill =
          std::isfinite(v) ? flipShade(highest_ > 0 ? v / highest_ : 0.0) : undefinedCellColour();
      paintMatrixCell(p, box, fill, cellText(r, c), font(), ink);
    }
  }
  p.setPen(muted);
  p.drawText(QRectF(kMatrixMargin, grid.bottom() + kMatrixGap, size.width() - 2 * kMatrixMargin,
                    legendHeight),
             Qt::AlignLeft | Qt::TextWordWrap, legend);
}

void ServeMatrixView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintTo(p, size());
}

Exportable exportableServeMatrix(const ServeMatrixView* view) {
  return {QStringLiteral("divergence-serving"), QSize(900, 600),
          [view](QPainter& p, const QSize& s) { view->paintTo(p, s); }};
}

}  // namespace paritylab::ui
