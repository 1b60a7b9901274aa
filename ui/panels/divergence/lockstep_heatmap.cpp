#include "ui/panels/divergence/lockstep_heatmap.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/matrix_cells.h"
#include "ui/panels/divergence/matrix_view_layout.h"

namespace paritylab::ui {
namespace {

constexpr int kLegendWidth = 64;

// White to deep red (ColorBrewer "Reds"): a larger difference, darker.
QColor differenceShade(double t) {
  return rampColour(QColor(0xff, 0xf5, 0xf0), QColor(0x67, 0x00, 0x0d), t);
}

QString percentText(double v) {
  if (std::isinf(v)) return QObject::tr("not finite");
  return QStringLiteral("%1%").arg(100.0 * v, 0, 'g', 3);
}

}  // namespace

QString lockstepQuantityWords(nn::LockstepQuantity quantity) {
  switch (quantity) {
    case nn::LockstepQuantity::Activation:
      return QObject::tr("outputs");
    case nn::LockstepQuantity::ActivationGradient:
      return QObject::tr("gradients passed back");
    case nn::LockstepQuantity::WeightGradient:
      return QObject::tr("weight gradients");
    case nn::LockstepQuantity::Weight:
      return QObject::tr("weights");
  }
  return {};
}

LockstepHeatmap::LockstepHeatmap(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void LockstepHeatmap::setRecord(const study::LockstepRecord* record,
                                nn::LockstepQuantity quantity) {
  record_ = record ? std::optional(*record) : std::nullopt;
  quantity_ = quantity;
  // The scale spans the decades this quantity's differences take, at least two.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  if (record_)
    for (const nn::LockstepStep& s : record_->result.steps)
      for (const auto& layer : s.difference) {
        const double v = layer[std::size_t(quantity)];
        if (std::isfinite(v) && v > 0) lo = std::min(lo, v), hi = std::max(hi, v);
      }
  lowDecade_ = std::isfinite(lo) ? int(std::floor(std::log10(lo))) : -8;
  highDecade_ = std::isfinite(hi) ? int(std::ceil(std::log10(hi))) : 0;
  if (highDecade_ - lowDecade_ < 2) lowDecade_ = highDecade_ - 2;
  update();
}

QColor LockstepHeatmap::colourOf(double difference) const {
  if (std::isnan(difference)) return undefinedCellColour();
  if (std::isinf(difference)) return Qt::black;
  if (difference <= 0) return differenceShade(0.0);
  return differenceShade((std::log10(difference) - lowDecade_) / double(highDecade_ - lowDecade_));
}

QString LockstepHeatmap::title() const {
  if (!record_) return {};
  return tr("%1 against %2, %3 (emulated): relative RMS difference of each layer's %4 per step")
      .arg(QString::fromStdString(record_->backend), QString::fromStdString(record_->reference),
           record_->mode == "free" ? tr("free-running") : tr("re-synchronised"),
           lockstepQuantityWords(quantity_));
}

int LockstepHeatmap::labelEvery(double rowHeight, int lineHeight) {
  if (rowHeight <= 0) return 1;
  return std::max(1, int(std::ceil(double(lineHeight) / rowHeight)));
}

LockstepHeatmap::Geometry LockstepHeatmap::geometry(const QSize& size) const {
  Geometry g;
  const QFontMetrics fm(font());
  const nn::LockstepResult& r = record_->result;
  g.titleBox =
      fm.boundingRect(QRect(kMatrixMargin, kMatrixMargin, size.width() - 2 * kMatrixMargin, 1000),
                      Qt::AlignLeft | Qt::TextWordWrap, title());
  // The first crossing, outlined when it is in this quantity.
  const std::optional<nn::LockstepCrossing>& crossing = r.firstCrossing;
  QString& legend = g.legend;
  legend = tr("Grey: the layer has no such tensor. Black: not finite.");
  if (crossing) {
    legend += tr(" First difference above %1: %2's %3 at step %4 (%5)%6.")
                  .arg(percentText(record_->tolerance),
                       QString::fromStdString(r.layers[crossing->layer].name),
                       lockstepQuantityWords(crossing->quantity))
                  .arg(crossing->step)
                  .arg(percentText(crossing->value))
                  .arg(crossing->quantity == quantity_ ? tr(", outlined") : QString());
  } else {
    legend += tr(" No difference went above %1.").arg(percentText(record_->tolerance));
  }
  g.legendHeight = fm.boundingRect(QRect(0, 0, size.width() - 2 * kMatrixMargin, 1000),
                                   Qt::AlignLeft | Qt::TextWordWrap, legend)
                       .height();
  for (const nn::LockstepLayer& l : r.layers)
    g.labelWidth = std::max(g.labelWidth, fm.horizontalAdvance(QString::fromStdString(l.name)));
  g.labelWidth = std::min(g.labelWidth + kMatrixGap + 4, size.width() / 4);
  const double top = g.titleBox.bottom() + kMatrixGap;
  const double bottom =
      size.height() - kMatrixMargin - g.legendHeight - kMatrixGap - 2 * fm.height();
  g.grid =
      QRectF(kMatrixMargin + g.labelWidth, top,
             std::max(1.0, double(size.width() - 2 * kMatrixMargin - g.labelWidth - kLegendWidth)),
             std::max(1.0, bottom - top));
  g.cellWidth = g.grid.width() / double(r.steps.size());
  g.cellHeight = g.grid.height() / double(r.layers.size());
  return g;
}

QString LockstepHeatmap::cellText(const QPointF& at) const {
  if (!record_ || record_->result.steps.empty() || record_->result.layers.empty()) return {};
  const Geometry g = geometry(size());
  if (!g.grid.contains(at)) return {};
  const nn::LockstepResult& r = record_->result;
  const auto s = std::min(r.steps.size() - 1, std::size_t((at.x() - g.grid.left()) / g.cellWidth));
  const auto l = std::min(r.layers.size() - 1, std::size_t((at.y() - g.grid.top()) / g.cellHeight));
  const double v = r.steps[s].difference[l][std::size_t(quantity_)];
  const QString value =
      std::isnan(v) ? tr("no such tensor") : tr("%1 from the reference").arg(percentText(v));
  return tr("%1, step %2: %3 %4")
      .arg(QString::fromStdString(r.layers[l].name))
      .arg(r.steps[s].step)
      .arg(lockstepQuantityWords(quantity_), value);
}

bool LockstepHeatmap::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(e);
    const QString text = cellText(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(e);
}

void LockstepHeatmap::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  p.setFont(font());
  const QFontMetrics fm(font());
  const QColor ink(0x24, 0x29, 0x2f), muted(0x57, 0x60, 0x6a);
  if (!record_ || record_->result.steps.empty() || record_->result.layers.empty()) return;
  const nn::LockstepResult& r = record_->result;
  const Geometry g = geometry(size);
  p.setPen(muted);
  p.drawText(g.titleBox, Qt::AlignLeft | Qt::TextWordWrap, title());
  const std::optional<nn::LockstepCrossing>& crossing = r.firstCrossing;
  const QString& legend = g.legend;
  const int legendHeight = g.legendHeight, labelWidth = g.labelWidth;
  const QRectF& grid = g.grid;
  const std::size_t layers = r.layers.size(), steps = r.steps.size();
  const double w = g.cellWidth, h = g.cellHeight;
  // Labels a line apart at least: every row's when they fit, else every few rows' (the tooltip
  // names each cell).
  const int labelled = labelEvery(h, fm.height());
  for (std::size_t l = 0; l < layers; ++l) {
    p.setPen(ink);
    if (l % std::size_t(labelled) == 0)
      p.drawText(QRectF(kMatrixMargin, grid.top() + double(l) * h, labelWidth - kMatrixGap, h),
                 Qt::AlignRight | Qt::AlignVCenter | Qt::TextDontClip,
                 fm.elidedText(QString::fromStdString(r.layers[l].name), Qt::ElideMiddle,
                               labelWidth - kMatrixGap));
    for (std::size_t s = 0; s < steps; ++s) {
      // Each cell a little wider than its share, so no hairline gaps show between columns.
      const QRectF cell(grid.left() + double(s) * w, grid.top() + double(l) * h, w + 0.6, h + 0.6);
      p.fillRect(cell, colourOf(r.steps[s].difference[l][std::size_t(quantity_)]));
    }
  }
  // Rows apart by a white line when there is room.
  if (h >= 6) {
    p.setPen(QPen(Qt::white, 1));
    for (std::size_t l = 1; l < layers; ++l)
      p.drawLine(QPointF(grid.left(), grid.top() + double(l) * h),
                 QPointF(grid.right(), grid.top() + double(l) * h));
  }
  if (crossing && crossing->quantity == quantity_) {
    for (std::size_t s = 0; s < steps; ++s) {
      if (r.steps[s].step != crossing->step) continue;
      const QRectF cell(grid.left() + double(s) * w, grid.top() + double(crossing->layer) * h,
                        std::max(w, 3.0), h);
      p.setPen(QPen(QColor(0x0b, 0x72, 0xc9), 2.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(cell.adjusted(-1.5, -1.5, 1.5, 1.5));
    }
  }
  // The step axis: the first, the last and a few between, at their columns' centres.
  p.setPen(ink);
  const int ticks = std::min<int>(int(steps), std::max(2, int(grid.width()) / 90));
  for (int i = 0; i < ticks; ++i) {
    const std::size_t s =
        ticks == 1 ? 0 : std::size_t(std::lround(double(i) * double(steps - 1) / (ticks - 1)));
    const double x = grid.left() + (double(s) + 0.5) * w;
    const QString text = QString::number(r.steps[s].step);
    p.drawText(QRectF(x - 40, grid.bottom() + 2, 80, fm.height()), Qt::AlignCenter, text);
  }
  p.drawText(QRectF(grid.left(), grid.bottom() + 2 + fm.height(), grid.width(), fm.height()),
             Qt::AlignCenter, tr("step"));
  // The colour scale: the decades of the differences shown.
  const QRectF bar(grid.right() + kMatrixGap, grid.top(), 12, grid.height());
  for (int y = 0; y < int(bar.height()); ++y) {
    const double t = 1.0 - double(y) / std::max(1.0, bar.height() - 1);
    p.fillRect(QRectF(bar.left(), bar.top() + y, bar.width(), 1.0), differenceShade(t));
  }
  p.setPen(muted);
  p.drawRect(bar);
  const int span = highDecade_ - lowDecade_;
  const int every = span > 8 ? 2 : 1;  // a label every decade while they fit
  for (int decade = highDecade_; decade >= lowDecade_; decade -= every) {
    const double y = bar.top() + bar.height() * double(highDecade_ - decade) / double(span);
    p.drawText(QRectF(bar.right() + 3, y - fm.height() / 2.0, kLegendWidth, fm.height()),
               Qt::AlignLeft | Qt::AlignVCenter,
               decade >= -5 ? QStringLiteral("%1%").arg(std::pow(10.0, decade + 2), 0, 'g', 6)
                            : QStringLiteral("1e%1").arg(decade));
  }
  p.drawText(QRectF(kMatrixMargin, size.height() - kMatrixMargin - legendHeight,
                    size.width() - 2 * kMatrixMargin, legendHeight),
             Qt::AlignLeft | Qt::TextWordWrap, legend);
}

void LockstepHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintTo(p, size());
}

Exportable exportableLockstepHeatmap(const LockstepHeatmap* view) {
  return {QStringLiteral("divergence-lockstep"), QSize(1100, 500),
          [view](QPainter& p, const QSize& s) { view->paintTo(p, s); }};
}

}  // namespace paritylab::ui
