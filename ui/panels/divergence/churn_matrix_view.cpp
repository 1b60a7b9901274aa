#include "ui/panels/divergence/churn_matrix_view.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "ui/charts/matrix_cells.h"
#include "ui/panels/divergence/divergence_text.h"
#include "ui/panels/divergence/matrix_view_layout.h"

namespace paritylab::ui {
namespace {

// White to deep orange (ColorBrewer "Oranges"): more churn, darker.
QColor churnShade(double t) {
  return rampColour(QColor(0xff, 0xf5, 0xeb), QColor(0xd9, 0x48, 0x01), t);
}

}  // namespace

ChurnMatrixView::ChurnMatrixView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setReport({});
}

void ChurnMatrixView::setReport(const study::DivergenceReport& report) {
  backends_ = report.backends;
  cells_ = report.churnMatrix;
  predictions_ = QString::fromStdString(report.predictions);
  if (cells_.size() != backends_.size() * backends_.size()) cells_.clear(), backends_.clear();
  a_ = report.a;
  b_ = report.b;
  empty_ = churnMatrixEmptyReason(report);
  if (backends_.empty() && empty_.isEmpty()) empty_ = tr("No churn matrix in this analysis.");
  highest_ = 0.0;
  for (const study::ChurnCell& c : cells_)
    if (c.churn.pairs > 0 && std::isfinite(c.churn.mean))
      highest_ = std::max(highest_, c.churn.mean);
  update();
}

const study::ChurnCell* ChurnMatrixView::cell(int row, int column) const {
  const int n = backendCount();
  if (row < 0 || column < 0 || row >= n || column >= n) return nullptr;
  return &cells_[std::size_t(row * n + column)];
}

QStringList ChurnMatrixView::cellText(int row, int column) const {
  const study::ChurnCell* c = cell(row, column);
  return c ? churnCellLines(*c) : QStringList();
}

QColor ChurnMatrixView::cellColour(int row, int column) const {
  const study::ChurnCell* c = cell(row, column);
  if (!c || c->churn.pairs == 0 || !std::isfinite(c->churn.mean)) return undefinedCellColour();
  return churnShade(highest_ > 0 ? c->churn.mean / highest_ : 0.0);
}

QString ChurnMatrixView::title() const {
  return tr("Churn: % of %2 two runs disagree on (%1% bootstrap CI beneath). Off "
            "the diagonal: the two backends at the same seed (precision churn); on the diagonal: "
            "two seeds of one backend (seed churn, the noise floor).")
      .arg(100.0 * (1.0 - (cells_.empty() ? 0.05 : cells_.front().churn.ci.alpha)), 0, 'g', 3)
      .arg(predictions_);
}

int ChurnMatrixView::titleHeight(int width) const {
  return fontMetrics()
             .boundingRect(QRect(0, 0, std::max(100, width - 2 * kMatrixMargin), 1000),
                           Qt::AlignLeft | Qt::TextWordWrap, title())
             .height() +
         kMatrixGap;
}

QRectF ChurnMatrixView::gridRect(const QSize& size) const {
  const QFontMetrics fm = fontMetrics();
  int labelWidth = 0;
  for (const std::string& name : backends_)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(QString::fromStdString(name)));
  labelWidth = std::min(labelWidth + kMatrixGap + 4, size.width() / 4);
  const double top = kMatrixMargin + titleHeight(size.width()) + fm.height() + kMatrixGap;
  const double legend = 2.0 * fm.height() + kMatrixGap;
  const double width = size.width() - kMatrixMargin * 2 - labelWidth;
  const double height = size.height() - top - legend - kMatrixMargin;
  return {double(kMatrixMargin + labelWidth), top, std::max(1.0, width), std::max(1.0, height)};
}

QRectF ChurnMatrixView::cellRect(const QSize& size, int row, int column) const {
  const QRectF grid = gridRect(size);
  const int n = std::max(1, backendCount());
  const double w = grid.width() / n, h = grid.height() / n;
  return {grid.left() + column * w, grid.top() + row * h, w, h};
}

void ChurnMatrixView::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  p.setFont(font());
  const QFontMetrics fm(font());
  const QColor ink(0x24, 0x29, 0x2f), muted(0x57, 0x60, 0x6a);
  p.setPen(muted);
  const int titleH = titleHeight(size.width());
  p.drawText(QRect(kMatrixMargin, kMatrixMargin, size.width() - 2 * kMatrixMargin, titleH),
             Qt::AlignLeft | Qt::TextWordWrap, title());
  if (backends_.empty()) {
    p.drawText(QRect(kMatrixMargin, kMatrixMargin + titleH, size.width() - 2 * kMatrixMargin,
                     size.height() - 2 * kMatrixMargin - titleH),
               Qt::AlignCenter | Qt::TextWordWrap, empty_);
    return;
  }
  const int n = backendCount();
  const QRectF grid = gridRect(size);
  for (int r = 0; r < n; ++r) {
    const QString rowName = QString::fromStdString(backends_[std::size_t(r)]);
    const QRectF first = cellRect(size, r, 0);
    p.setPen(ink);
    p.drawText(
        QRectF(kMatrixMargin, first.top(), grid.left() - kMatrixMargin - kMatrixGap,
               first.height()),
        Qt::AlignRight | Qt::AlignVCenter,
        fm.elidedText(rowName, Qt::ElideMiddle, int(grid.left()) - kMatrixMargin - kMatrixGap));
    const QRectF top = cellRect(size, 0, r);
    p.drawText(
        QRectF(top.left(), grid.top() - fm.height() - kMatrixGap / 2, top.width(), fm.height()),
        Qt::AlignCenter, fm.elidedText(rowName, Qt::ElideMiddle, int(top.width()) - 4));
    for (int c = 0; c < n; ++c) {
      paintMatrixCell(p, cellRect(size, r, c), cellColour(r, c), cellText(r, c), font(), ink);
    }
  }
  // The headline's pair: row A, column B.
  const auto index = [this](const std::string& name) {
    return int(std::find(backends_.begin(), backends_.end(), name) - backends_.begin());
  };
  const int ra = index(a_), cb = index(b_);
  QString legend = tr("Grey: undefined. Darker: more churn (white 0%, darkest %1).")
                       .arg(formatChurnCell(highest_));
  if (ra < n && cb < n) {
    p.setPen(QPen(ink, 2.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cellRect(size, ra, cb).adjusted(1.5, 1.5, -1.5, -1.5));
    legend += tr(" Outlined: %1 (row) against %2 (column).")
                  .arg(QString::fromStdString(a_), QString::fromStdString(b_));
  }
  p.setPen(muted);
  p.drawText(QRectF(kMatrixMargin, grid.bottom() + kMatrixGap, size.width() - 2 * kMatrixMargin,
                    size.height() - grid.bottom() - kMatrixGap),
             Qt::AlignLeft | Qt::TextWordWrap, legend);
}

void ChurnMatrixView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintTo(p, size());
}

bool ChurnMatrixView::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  const auto* help = static_cast<QHelpEvent*>(e);
  for (int r = 0; r < backendCount(); ++r) {
    for (int c = 0; c < backendCount(); ++c) {
      if (!cellRect(size(), r, c).contains(help->pos())) continue;
      const study::ChurnCell& x = *cell(r, c);
      const QString what =
          r == c ? tr("%1: two runs with different seeds (seed churn)")
                       .arg(QString::fromStdString(x.row))
                 : tr("%1 against %2 at the same seed (precision churn)")
                       .arg(QString::fromStdString(x.row), QString::fromStdString(x.column));
      const QString value = x.churn.pairs == 0 ? churnCellReason(x)
                                               : tr("%1 of %3 differ, mean over %2 run pairs")
                                                     .arg(formatChurnCell(x.churn.mean))
                                                     .arg(x.churn.pairs)
                                                     .arg(predictions_);
      QToolTip::showText(help->globalPos(), what + QStringLiteral("\n") + value, this);
      return true;
    }
  }
  QToolTip::hideText();
  e->ignore();
  return true;
}

Exportable exportableChurnMatrix(const ChurnMatrixView* view) {
  return {QStringLiteral("divergence-churn"), QSize(900, 600),
          [view](QPainter& p, const QSize& s) { view->paintTo(p, s); }};
}

}  // namespace paritylab::ui
