#include "ui/panels/xray/xray_heatmap.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/backend_colours.h"

namespace paritylab::ui {
namespace {

constexpr int kSiteAxis = 96;  // site names left of the first block
constexpr int kGap = 10;
constexpr int kBarLeft = 12;  // the colour bar's offset in the legend, its width, its labels' gap
constexpr int kBarWidth = 16;
constexpr int kLabelGap = 4;

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

// The colour band above a block's title (its backend's colour).
constexpr int kSwatchHeight = 4;

}  // namespace

int siteLabelStride(double rowHeight, double textHeight) {
  if (!(rowHeight > 0.0)) return 1;
  return std::max(1, static_cast<int>(std::ceil(textHeight * 0.9 / rowHeight)));
}

StepAxisText stepAxisText(int firstStep, int lastStep, int samples, double width,
                          const QFontMetrics& metrics) {
  StepAxisText text;
  const QString first = QString::number(firstStep), last = QString::number(lastStep);
  const int space = metrics.horizontalAdvance(QStringLiteral(" "));
  if (metrics.horizontalAdvance(first) + space + metrics.horizontalAdvance(last) <= width) {
    text.first = first;
    text.last = last;
  } else if (const QString range = first + QStringLiteral("-") + last;
             metrics.horizontalAdvance(range) <= width) {
    text.range = range;
  }
  for (const QString& title : {QObject::tr("training step (%1 samples)").arg(samples),
                               QObject::tr("step (%1 samples)").arg(samples), QObject::tr("step")})
    if (metrics.horizontalAdvance(title) <= width) {
      text.title = title;
      break;
    }
  return text;
}

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
  updateGeometry();  // the legend's width follows its labels
  update();
}

QString XrayHeatmap::title() const {
  if (!grid_) return {};
  return xrayViewTitle({statistic_, grid_->operand, grid_->seed});
}

QStringList XrayHeatmap::scaleLabels() const {
  if (!std::isfinite(low_)) return {tr("no values")};
  if (low_ == high_) return {tr("all %1").arg(scaleLabel(low_, statistic_))};
  return {scaleLabel(low_, statistic_), scaleLabel(high_, statistic_)};
}

int XrayHeatmap::headerHeight() const {
  return fontMetrics().height() + 8;
}

double XrayHeatmap::blockWidth(const QSize& size) const {
  const int n = grid_ ? std::max(1, static_cast<int>(grid_->blocks.size())) : 1;
  return (size.width() - kSiteAxis - legendWidth() - kGap * (n - 1)) / double(n);
}

int XrayHeatmap::blockTitleHeight(const QSize& size) const {
  // Two lines when a backend's name is wider than its block (it wraps after a hyphen).
  const QFontMetrics fm = fontMetrics();
  bool wraps = false;
  if (grid_)
    for (const XrayBlock& b : grid_->blocks)
      wraps = wraps || fm.horizontalAdvance(b.backend) > blockWidth(size);
  return (wraps ? 2 : 1) * fm.height() + 6 + kSwatchHeight;
}

int XrayHeatmap::stepAxisHeight() const {
  return 2 * fontMetrics().height() + 6;
}

int XrayHeatmap::legendWidth() const {
  // Wide enough for the statistic's name above the bar and the labels beside it, whatever the
  // font: a clipped legend title or value says nothing.
  const QFontMetrics fm = fontMetrics();
  int labels = fm.horizontalAdvance(tr("none"));
  for (const QString& label : scaleLabels()) labels = std::max(labels, fm.horizontalAdvance(label));
  return std::max({96, fm.horizontalAdvance(xrayStatisticName(statistic_)) + 8,
                   kBarLeft + kBarWidth + kLabelGap + labels + 4});
}

QSize XrayHeatmap::minimumSizeHint() const {
  return {std::max(300, kSiteAxis + legendWidth() + 120),
          std::max(180, headerHeight() + 2 * fontMetrics().height() + 6 + stepAxisHeight() + 80)};
}

QRectF XrayHeatmap::colourBarRect(const QSize& size) const {
  const int top = headerHeight() + blockTitleHeight(size) + fontMetrics().height() / 2;
  return {double(size.width() - legendWidth() + kBarLeft), double(top), double(kBarWidth),
          double(size.height() - top - stepAxisHeight())};
}

QRectF XrayHeatmap::scaleTitleRect(const QSize& size) const {
  return {double(size.width() - legendWidth()), double(headerHeight()), double(legendWidth()),
          double(blockTitleHeight(size))};
}

QRectF XrayHeatmap::blockTitleRect(const QSize& size, int block) const {
  const QRectF r = blockRect(size, block);
  return {r.left(), double(headerHeight()), r.width(), double(blockTitleHeight(size))};
}

QRectF XrayHeatmap::blockRect(const QSize& size, int block) const {
  const double width = blockWidth(size);
  const int top = headerHeight() + blockTitleHeight(size);
  return {kSiteAxis + block * (width + kGap), double(top), width,
          double(size.height() - top - stepAxisHeight())};
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
  // One value everywhere: the bottom colour, which the legend shows as its one swatch.
  return ramp(high_ > low_ ? (value - low_) / (high_ - low_) : 0.0);
}

void XrayHeatmap::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  if (!grid_ || grid_->blocks.empty()) return;
  p.setFont(font());  // the geometry is measured in the widget's font
  const QFontMetrics fm(p.font());
  p.setPen(Qt::black);
  QFont bold = p.font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(QRectF(4, 0, size.width() - 8, headerHeight()), Qt::AlignCenter,
             QFontMetrics(bold).elidedText(title(), Qt::ElideRight, size.width() - 8));
  p.setFont(font());
  for (int bi = 0; bi < int(grid_->blocks.size()); ++bi) {
    const XrayBlock& b = grid_->blocks[std::size_t(bi)];
    const QRectF r = blockRect(size, bi);
    const QRectF titleBand = blockTitleRect(size, bi);
    p.fillRect(QRectF(titleBand.left(), titleBand.top(), titleBand.width(), kSwatchHeight),
               BackendColours::of(b.backend));
    const QRectF titleRect = titleBand.adjusted(0, kSwatchHeight, 0, 0);
    const QRect wrapped =
        fm.boundingRect(titleRect.toAlignedRect(), Qt::AlignCenter | Qt::TextWordWrap, b.backend);
    if (wrapped.width() <= titleRect.width() && wrapped.height() <= titleRect.height())
      p.drawText(titleRect, Qt::AlignCenter | Qt::TextWordWrap, b.backend);
    else  // no place to break it: cut, rather than overlap the next block's title
      p.drawText(titleRect, Qt::AlignCenter,
                 fm.elidedText(b.backend, Qt::ElideRight, int(titleRect.width())));
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
      const int stride = siteLabelStride(cellRectAt(size, bi, 0, 0).height(), fm.height());
      for (int si = 0; si < b.sites.size(); si += stride) {
        // A name centred on its row, over the rows it stands for when they are thin; cut in its
        // middle, so that both its layer (h0...) and its product (...dgrad) stay.
        const QRectF c = cellRectAt(size, bi, si, 0);
        const double h = std::max(c.height(), double(fm.height()));
        p.drawText(QRectF(2, c.center().y() - h / 2.0, kSiteAxis - 6, h),
                   Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(b.sites[si], Qt::ElideMiddle, kSiteAxis - 6));
      }
    }
    // First and last sampled step under each block, and the axis title, as the width holds them.
    if (!b.steps.empty()) {
      const double y = r.bottom() + 2;
      const StepAxisText axis =
          stepAxisText(b.steps.front(), b.steps.back(), int(b.steps.size()), r.width(), fm);
      const QRectF row(r.left(), y, r.width(), fm.height());
      p.drawText(row, Qt::AlignLeft, axis.first);
      p.drawText(row, Qt::AlignRight, axis.last);
      p.drawText(row, Qt::AlignHCenter, axis.range);
      p.drawText(row.translated(0, fm.height()), Qt::AlignCenter, axis.title);
    }
    p.setPen(Qt::black);
  }
  // The one colour scale, shared by every block; its title above it on the block titles' row.
  const QRectF bar = colourBarRect(size);
  p.drawText(scaleTitleRect(size), Qt::AlignCenter, xrayStatisticName(statistic_));
  const QStringList labels = scaleLabels();
  if (labels.size() == 2) {
    for (int y = 0; y < int(bar.height()); ++y)
      p.fillRect(QRectF(bar.left(), bar.bottom() - y - 1, bar.width(), 1), ramp(y / bar.height()));
  } else if (std::isfinite(low_)) {
    p.fillRect(bar, colourOf(low_));  // every cell has this one colour
  }
  p.setPen(QColor(0x50, 0x50, 0x50));
  p.drawRect(bar);
  const double textX = bar.right() + kLabelGap;
  if (labels.size() == 2) {
    p.drawText(QPointF(textX, bar.bottom()), labels[0]);
    p.drawText(QPointF(textX, bar.top() + fm.ascent()), labels[1]);
  } else {
    p.drawText(QPointF(textX, bar.center().y() + fm.ascent() / 2.0), labels[0]);
  }
  p.fillRect(QRectF(bar.left(), bar.bottom() + fm.height() / 2.0 + 2, 10, 10),
             colourOf(std::numeric_limits<double>::quiet_NaN()));
  p.drawText(QPointF(bar.left() + 14, bar.bottom() + fm.height() / 2.0 + 11), tr("none"));
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
