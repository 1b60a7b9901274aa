#include "ui/xray_heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

namespace paritylab::ui {
namespace {

constexpr int kTitle = 22;     // block titles
constexpr int kSiteAxis = 96;  // site names left of the first block
constexpr int kStepAxis = 34;  // step labels and the axis title below the blocks
constexpr int kLegend = 96;    // the colour scale on the right
constexpr int kGap = 10;

// A perceptually ordered ramp (viridis stops): low = dark blue, high = yellow.
QColor ramp(double t) {
  static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
                                 QColor(0x21, 0x90, 0x8d), QColor(0x5d, 0xc9, 0x63),
                                 QColor(0xfd, 0xe7, 0x25)};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(float(a.redF() + f * (b.redF() - a.redF())),
                          float(a.greenF() + f * (b.greenF() - a.greenF())),
                          float(a.blueF() + f * (b.blueF() - a.blueF())));
}

QString scaleLabel(double v, XrayStatistic s) {
  if (s == XrayStatistic::Amax) return QStringLiteral("2^%1").arg(v, 0, 'f', 1);
  return QString::number(v, 'g', 4);
}

}  // namespace

XrayHeatmap::XrayHeatmap(QWidget* parent) : QWidget(parent) {
  setMouseTracking(false);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void XrayHeatmap::setGrid(const XrayGrid* grid, XrayStatistic statistic) {
  grid_ = grid;
  statistic_ = statistic;
  low_ = std::numeric_limits<double>::infinity();
  high_ = -low_;
  if (grid_) {
    for (const XrayBlock& b : grid_->blocks) {
      for (int index : b.cells) {
        if (index < 0) continue;
        const double v = xrayStatisticValue(grid_->rows[std::size_t(index)].xray, statistic_);
        if (!std::isfinite(v)) continue;
        low_ = std::min(low_, v);
        high_ = std::max(high_, v);
      }
    }
  }
  if (low_ > high_) low_ = high_ = std::numeric_limits<double>::quiet_NaN();
  update();
}

QRectF XrayHeatmap::blockRect(const QSize& size, int block) const {
  const int n = grid_ ? static_cast<int>(grid_->blocks.size()) : 1;
  const double width =
      (size.width() - kSiteAxis - kLegend - kGap * (n - 1)) / double(std::max(1, n));
  return {kSiteAxis + block * (width + kGap), double(kTitle), width,
          double(size.height() - kTitle - kStepAxis)};
}

QRectF XrayHeatmap::cellRectAt(const QSize& size, int block, int site, int step) const {
  const XrayBlock& b = grid_->blocks[std::size_t(block)];
  const QRectF r = blockRect(size, block);
  const double w = r.width() / double(std::max<std::size_t>(1, b.steps.size()));
  const double h = r.height() / double(std::max<qsizetype>(1, b.sites.size()));
  return {r.left() + step * w, r.top() + site * h, w, h};
}

QColor XrayHeatmap::colourOf(double value) const {
  if (std::isnan(value)) return QColor(0xe0, 0xe0, 0xe0);
  if (std::isinf(value)) return ramp(value > 0 ? 1.0 : 0.0);  // SQNR +inf: exact, top colour
  // One value everywhere: the bottom colour, as the legend labels it.
  return ramp(high_ > low_ ? (value - low_) / (high_ - low_) : 0.0);
}

void XrayHeatmap::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  if (!grid_ || grid_->blocks.empty()) return;
  const QFontMetrics fm(p.font());
  p.setPen(Qt::black);
  for (int bi = 0; bi < int(grid_->blocks.size()); ++bi) {
    const XrayBlock& b = grid_->blocks[std::size_t(bi)];
    const QRectF r = blockRect(size, bi);
    p.drawText(QRectF(r.left(), 0, r.width(), kTitle), Qt::AlignCenter,
               fm.elidedText(QStringLiteral("%1 (seed %2)").arg(b.backend).arg(b.seed),
                             Qt::ElideRight, int(r.width())));
    for (int si = 0; si < b.sites.size(); ++si) {
      for (int ti = 0; ti < int(b.steps.size()); ++ti) {
        const int index = b.cell(si, ti);
        const double v = index < 0
                             ? std::numeric_limits<double>::quiet_NaN()
                             : xrayStatisticValue(grid_->rows[std::size_t(index)].xray, statistic_);
        p.fillRect(cellRectAt(size, bi, si, ti), colourOf(v));
      }
    }
    p.setPen(QColor(0x50, 0x50, 0x50));
    p.setBrush(Qt::NoBrush);
    p.drawRect(r);
    // Site names left of the first block (every block has the same model's sites).
    if (bi == 0) {
      for (int si = 0; si < b.sites.size(); ++si) {
        const QRectF c = cellRectAt(size, bi, si, 0);
        if (c.height() < fm.height() * 0.8 && si % 2) continue;
        p.drawText(QRectF(2, c.top(), kSiteAxis - 6, c.height()), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(b.sites[si], Qt::ElideLeft, kSiteAxis - 6));
      }
    }
    // First and last sampled step under each block.
    if (!b.steps.empty()) {
      const double y = r.bottom() + 2;
      p.drawText(QRectF(r.left(), y, r.width(), fm.height()), Qt::AlignLeft,
                 QString::number(b.steps.front()));
      p.drawText(QRectF(r.left(), y, r.width(), fm.height()), Qt::AlignRight,
                 QString::number(b.steps.back()));
      p.drawText(QRectF(r.left(), y + fm.height(), r.width(), fm.height()), Qt::AlignCenter,
                 tr("training step (%1 samples)").arg(b.steps.size()));
    }
    p.setPen(Qt::black);
  }
  // The one colour scale, shared by every block.
  const QRectF bar(size.width() - kLegend + 12, kTitle + 16, 16,
                   size.height() - kTitle - kStepAxis - 16);
  p.drawText(QRectF(size.width() - kLegend + 2, 0, kLegend - 2, kTitle + 14), Qt::AlignCenter,
             xrayStatisticName(statistic_));
  for (int y = 0; y < int(bar.height()); ++y)
    p.fillRect(QRectF(bar.left(), bar.bottom() - y - 1, bar.width(), 1), ramp(y / bar.height()));
  p.setPen(QColor(0x50, 0x50, 0x50));
  p.drawRect(bar);
  const double textX = bar.right() + 4;
  if (std::isfinite(low_)) {
    p.drawText(QPointF(textX, bar.bottom()), scaleLabel(low_, statistic_));
    p.drawText(QPointF(textX, bar.top() + fm.ascent()), scaleLabel(high_, statistic_));
  } else {
    p.drawText(QPointF(textX, bar.center().y()), tr("no values"));
  }
  p.fillRect(QRectF(bar.left(), bar.bottom() + fm.height() + 8, 10, 10), colourOf(NAN));
  p.drawText(QPointF(bar.left() + 14, bar.bottom() + fm.height() + 17), tr("none"));
}

void XrayHeatmap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paintTo(p, size());
}

void XrayHeatmap::mousePressEvent(QMouseEvent* event) {
  if (!grid_) return;
  const QPointF at = event->position();
  for (int bi = 0; bi < int(grid_->blocks.size()); ++bi) {
    const XrayBlock& b = grid_->blocks[std::size_t(bi)];
    if (!blockRect(size(), bi).contains(at)) continue;
    for (int si = 0; si < b.sites.size(); ++si) {
      for (int ti = 0; ti < int(b.steps.size()); ++ti) {
        if (cellRectAt(size(), bi, si, ti).contains(at)) {
          emit cellClicked(bi, si, ti);
          return;
        }
      }
    }
  }
}

Exportable exportableXray(const XrayHeatmap* heatmap) {
  static const char* slugs[] = {"underflow", "overflow", "subnormal", "sqnr", "amax"};
  return Exportable{
      QStringLiteral("xray-") + QLatin1String(slugs[static_cast<int>(heatmap->statistic())]),
      QSize(1200, 600), [heatmap](QPainter& p, const QSize& s) { heatmap->paintTo(p, s); }};
}

}  // namespace paritylab::ui
