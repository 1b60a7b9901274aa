#include "ui/panels/divergence/class_difference_view.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "ui/charts/nice_ticks.h"
#include "ui/charts/number_format.h"
#include "ui/panels/divergence/divergence_text.h"
#include "ui/panels/divergence/matrix_view_layout.h"

namespace paritylab::ui {
namespace {

constexpr int kRowHeight = 26;
constexpr int kAxisHeight = 40;  // tick labels and the axis title
constexpr int kPColumn = 76;     // "Holm p" on the right

const QColor kInk(0x24, 0x29, 0x2f);
const QColor kMuted(0x57, 0x60, 0x6a);
const QColor kBeyond(0xcf, 0x22, 0x2e);
const QColor kWithin(0x09, 0x69, 0xda);
const QColor kBand(0x8c, 0x95, 0x9f, 70);

}  // namespace

std::vector<ClassBar> classBars(const study::DivergenceReport& report) {
  std::vector<ClassBar> bars;
  for (const study::ClassRow& row : report.classes) {
    ClassBar b;
    b.label = QString::fromStdString(row.className);
    const stats::TTestResult& w = row.difference.welch;
    b.diff = 100.0 * (row.meanA - row.meanB);
    b.ciLow = w.defined ? 100.0 * w.ci_low : NAN;
    b.ciHigh = w.defined ? 100.0 * w.ci_high : NAN;
    b.noise = 100.0 * row.difference.sd_reference;
    b.pHolm = row.difference.p_holm;
    b.beyondNoise = row.difference.beyond_seed_noise;
    bars.push_back(b);
  }
  return bars;
}

ClassDifferenceView::ClassDifferenceView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  setReport({}, 0.05);
}

void ClassDifferenceView::setReport(const study::DivergenceReport& report, double alpha) {
  bars_ = classBars(report);
  a_ = report.a;
  b_ = report.b;
  alpha_ = alpha;
  bands_ = report.grouping == study::ClassGrouping::TokenFrequencyBands;
  members_.clear();
  for (const study::ClassRow& row : report.classes) {
    if (row.members.empty()) continue;
    members_ +=
        QStringLiteral("\n%1: %2")
            .arg(QString::fromStdString(row.className), QString::fromStdString(row.members));
  }
  empty_ = classDifferencesEmptyReason(report);
  updateGeometry();
  update();
}

QString ClassDifferenceView::title() const {
  const QString a = QString::fromStdString(a_.empty() ? "A" : a_);
  const QString b = QString::fromStdString(b_.empty() ? "B" : b_);
  if (bands_) {
    return tr("Next-token accuracy per token-frequency band, %1 − %2 (percentage points; the "
              "validation targets' symbols ranked by frequency and cut into thirds of the "
              "positions): bar = mean difference, whiskers = %3% Welch CI, grey band = ± %2's "
              "run-to-run SD of that band (the seed noise); red and ▲: beyond the seed noise "
              "(Holm p < %4).")
               .arg(a, b)
               .arg(100.0 * (1.0 - alpha_), 0, 'g', 3)
               .arg(alpha_, 0, 'g', 3) +
           members_;
  }
  return tr("Accuracy per class, %1 − %2 (percentage points): bar = mean difference, whiskers = "
            "%3% Welch CI, grey band = ± %2's run-to-run SD of that class (the seed noise); red "
            "and ▲: beyond the seed noise (Holm p < %4).")
      .arg(a, b)
      .arg(100.0 * (1.0 - alpha_), 0, 'g', 3)
      .arg(alpha_, 0, 'g', 3);
}

int ClassDifferenceView::titleHeight(int width) const {
  return fontMetrics()
             .boundingRect(QRect(0, 0, std::max(100, width - 2 * kMatrixMargin), 1000),
                           Qt::AlignLeft | Qt::TextWordWrap, title())
             .height() +
         8;
}

int ClassDifferenceView::heightForWidth(int width) const {
  const int rows = std::max<int>(1, int(bars_.size()));
  const int body = bars_.empty() ? 120 : kRowHeight * rows + kAxisHeight;
  return kMatrixMargin + titleHeight(width) + fontMetrics().height() + body + kMatrixMargin;
}

QSize ClassDifferenceView::sizeHint() const {
  return {800, heightForWidth(800)};
}

QRectF ClassDifferenceView::plotRect(const QSize& size) const {
  const QFontMetrics fm = fontMetrics();
  int labelWidth = 0;
  for (const ClassBar& b : bars_)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(b.label + QStringLiteral(" ▲")));
  labelWidth = std::min(labelWidth + 10, size.width() / 4);
  const double top = kMatrixMargin + titleHeight(size.width()) + fm.height();
  const double rows = std::max<double>(1, double(bars_.size()));
  return {double(kMatrixMargin + labelWidth), top,
          std::max(1.0, double(size.width() - 2 * kMatrixMargin - labelWidth - kPColumn)),
          kRowHeight * rows};
}

double ClassDifferenceView::extent() const {
  double e = 0.5;  // at least +-0.5 points
  for (const ClassBar& b : bars_)
    for (double v : {b.diff, b.ciLow, b.ciHigh, b.noise})
      if (std::isfinite(v)) e = std::max(e, std::abs(v) * 1.1);
  return e;
}

double ClassDifferenceView::xOf(const QSize& size, double points) const {
  const QRectF plot = plotRect(size);
  const double e = extent();
  return plot.left() + (points + e) / (2 * e) * plot.width();
}

double ClassDifferenceView::rowCentre(const QSize& size, int row) const {
  return plotRect(size).top() + kRowHeight * (row + 0.5);
}

void ClassDifferenceView::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  p.setFont(font());
  const QFontMetrics fm(font());
  const int titleH = titleHeight(size.width());
  p.setPen(kMuted);
  p.drawText(QRect(kMatrixMargin, kMatrixMargin, size.width() - 2 * kMatrixMargin, titleH),
             Qt::AlignLeft | Qt::TextWordWrap, title());
  if (bars_.empty()) {
    p.drawText(QRect(kMatrixMargin, kMatrixMargin + titleH, size.width() - 2 * kMatrixMargin,
                     size.height() - 2 * kMatrixMargin - titleH),
               Qt::AlignCenter | Qt::TextWordWrap, empty_);
    return;
  }
  const QRectF plot = plotRect(size);
  const double e = extent();
  // Grid and axis: nice ticks, about one label per 70 pixels.
  const NiceTicks ticks = niceTicks(-e, e, std::max(2, int(plot.width()) / 70));
  const int count = int(std::floor((e - ticks.first) / ticks.step + 1e-9));
  for (int k = 0; k <= count; ++k) {
    const double t = ticks.first + k * ticks.step;
    const double v = std::abs(t) < ticks.step * 1e-6 ? 0.0 : t;
    const double x = xOf(size, v);
    p.setPen(QColor(0xe5, 0xe7, 0xea));
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(kMuted);
    p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter,
               (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', ticks.decimals));
  }
  p.drawText(QRectF(plot.left(), plot.bottom() + 6 + fm.height(), plot.width(), fm.height()),
             Qt::AlignHCenter,
             (bands_ ? tr("%1 − %2, percentage points of next-token accuracy in the band")
                     : tr("%1 − %2, percentage points of class accuracy"))
                 .arg(QString::fromStdString(a_), QString::fromStdString(b_)));
  p.drawText(QRectF(plot.right() + 6, plot.top() - fm.height() - 2, kPColumn, fm.height()),
             Qt::AlignLeft, tr("Holm p"));

  QFont bold = font();
  bold.setBold(true);
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    const ClassBar& b = bars_[i];
    const double y = rowCentre(size, int(i));
    const double half = kRowHeight / 2.0 - 2;
    // The seed-noise band of this class, centred on zero.
    if (std::isfinite(b.noise) && b.noise > 0)
      p.fillRect(
          QRectF(QPointF(xOf(size, -b.noise), y - half), QPointF(xOf(size, b.noise), y + half)),
          kBand);
    const QColor colour = b.beyondNoise ? kBeyond : kWithin;
    p.setFont(b.beyondNoise ? bold : font());
    p.setPen(b.beyondNoise ? kBeyond : kInk);
    p.drawText(
        QRectF(kMatrixMargin, y - kRowHeight / 2.0, plot.left() - kMatrixMargin - 8, kRowHeight),
        Qt::AlignRight | Qt::AlignVCenter,
        fm.elidedText(b.label + (b.beyondNoise ? QStringLiteral(" ▲") : QString()), Qt::ElideMiddle,
                      int(plot.left()) - kMatrixMargin - 8));
    p.drawText(QRectF(plot.right() + 6, y - kRowHeight / 2.0, kPColumn - 6, kRowHeight),
               Qt::AlignLeft | Qt::AlignVCenter, formatPValue(b.pHolm));
    p.setFont(font());
    if (!std::isfinite(b.diff)) continue;
    const QColor fill(colour.red(), colour.green(), colour.blue(), 150);
    p.fillRect(QRectF(QPointF(xOf(size, 0), y - 5), QPointF(xOf(size, b.diff), y + 5)).normalized(),
               fill);
    if (std::isfinite(b.ciLow) && std::isfinite(b.ciHigh)) {
      p.setPen(QPen(colour.darker(120), 1.6));
      const double x0 = xOf(size, b.ciLow), x1 = xOf(size, b.ciHigh);
      p.drawLine(QPointF(x0, y), QPointF(x1, y));
      p.drawLine(QPointF(x0, y - 5), QPointF(x0, y + 5));
      p.drawLine(QPointF(x1, y - 5), QPointF(x1, y + 5));
    }
  }
  p.setPen(QPen(kInk, 1.2, Qt::DashLine));
  p.drawLine(QPointF(xOf(size, 0), plot.top()), QPointF(xOf(size, 0), plot.bottom()));
}

void ClassDifferenceView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  paintTo(p, size());
}

Exportable exportableClassDifferences(const ClassDifferenceView* view) {
  return {QStringLiteral("divergence-classes"), QSize(1000, view->heightForWidth(1000)),
          [view](QPainter& p, const QSize& s) { view->paintTo(p, s); }};
}

}  // namespace paritylab::ui
