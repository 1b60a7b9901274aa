#include "ui/panels/divergence/lockstep_view.h"

#include <QChart>
#include <QComboBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <cmath>
#include <limits>

#include "ui/charts/chart_view.h"
#include "ui/charts/matrix_cells.h"
#include "ui/charts/nice_ticks.h"
#include "ui/panels/divergence/lockstep_heatmap.h"
#include "ui/panels/divergence/weight_divergence_view.h"

namespace paritylab::ui {
namespace {

// Layers beyond this many get no legend entry each: a legend beside the chart at 1024 x 700 shows
// five entries (these and the tolerance) before Qt cuts it short without saying so.
constexpr std::size_t kLayersInLegend = 4;

}  // namespace

LockstepView::LockstepView(QWidget* parent)
    : QWidget(parent),
      mode_(new QComboBox),
      quantity_(new QComboBox),
      chooser_(new QComboBox),
      stack_(new QStackedWidget),
      charts_(new QStackedWidget),
      empty_(new QLabel),
      heatmap_(new LockstepHeatmap),
      lines_(new QChart),
      linesView_(new ChartView(lines_)),
      words_(new QLabel) {
  mode_->setToolTip(
      tr("Re-synchronised: the backend starts every step from the reference's state (the error "
         "one step adds). Free-running: each trains on its own (the error accumulated)."));
  for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k)
    quantity_->addItem(lockstepQuantityWords(nn::LockstepQuantity(k)), int(k));
  auto* controls = new QHBoxLayout;
  // Three choosers whose entries say what they choose: no labels, so a 1024-pixel window fits.
  quantity_->setToolTip(tr("Which tensor of each layer is compared"));
  chooser_->setToolTip(tr("A layer x step heatmap, or one line per layer against the step"));
  for (QComboBox* box : {mode_, quantity_, chooser_})
    box->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  controls->addWidget(mode_);
  controls->addWidget(quantity_);
  controls->addWidget(chooser_);
  controls->addStretch(1);

  lines_->setAnimationOptions(QChart::NoAnimation);
  x_ = new QValueAxis;
  keepTicksNice(x_, 10, 1.0);
  x_->setTitleText(tr("step"));
  y_ = new QLogValueAxis;
  y_->setTitleText(tr("relative RMS difference (log)"));
  lines_->addAxis(x_, Qt::AlignBottom);
  lines_->addAxis(y_, Qt::AlignLeft);
  lines_->legend()->setAlignment(Qt::AlignRight);
  lines_->legend()->setShowToolTips(true);
  // One at a time, each with the whole height (a 700-pixel window has room for one).
  chooser_->addItem(tr("heatmap"));
  chooser_->addItem(tr("lines"));
  charts_->addWidget(heatmap_);
  charts_->addWidget(linesView_);
  connect(chooser_, &QComboBox::currentIndexChanged, charts_, &QStackedWidget::setCurrentIndex);
  words_->setWordWrap(true);
  words_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  words_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* page = new QWidget;
  auto* pageLayout = new QVBoxLayout(page);
  pageLayout->setContentsMargins(0, 0, 0, 0);
  pageLayout->addLayout(controls);
  pageLayout->addWidget(charts_, 1);
  pageLayout->addWidget(words_);
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(empty_);
  stack_->addWidget(page);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(stack_);
  connect(mode_, &QComboBox::currentIndexChanged, this, &LockstepView::redraw);
  connect(quantity_, &QComboBox::currentIndexChanged, this, &LockstepView::redraw);
  setRecords({});
}

void LockstepView::setRecords(const std::vector<study::LockstepRecord>& records,
                              bool measuredRuns) {
  const QString mode = mode_->currentData().toString();
  records_ = records;
  empty_->setText(
      measuredRuns
          ? tr("These runs were measured on hardware, not emulated: a lockstep comparison trains "
               "two emulated backends side by side (paritylab-cli lockstep --backend tpu-bf16, or "
               "\"lockstep\" in a study's spec).")
          : tr("This study ran no lockstep comparison. Add \"lockstep\": {\"backend\": "
               "\"tpu-bf16\", \"steps\": 200} to its spec (Edit study…) to train that backend and "
               "the reference side by side before the runs and see, step by step and layer by "
               "layer, when and where they part; or run paritylab-cli lockstep --backend "
               "tpu-bf16."));
  {
    const QSignalBlocker block(mode_);
    mode_->clear();
    for (const study::LockstepRecord& r : records_)
      mode_->addItem(r.mode == "free" ? tr("free-running") : tr("re-synchronised"),
                     QString::fromStdString(r.mode));
    mode_->setCurrentIndex(std::max(0, mode_->findData(mode)));
  }
  redraw();
}

QString LockstepView::emptyText() const {
  return empty_->text();
}

const study::LockstepRecord* LockstepView::shown() const {
  const int i = mode_->currentIndex();
  return i >= 0 && i < int(records_.size()) ? &records_[std::size_t(i)] : nullptr;
}

nn::LockstepQuantity LockstepView::shownQuantity() const {
  return nn::LockstepQuantity(std::max(0, quantity_->currentData().toInt()));
}

QString LockstepView::words() const {
  const study::LockstepRecord* r = shown();
  if (!r) return {};
  nn::LockstepOptions options;
  options.mode = *nn::parseLockstepMode(r->mode);
  options.tolerance = r->tolerance;
  options.steps = r->result.stepsTrained;
  return QString::fromStdString(nn::describeLockstep(r->result, options, r->backend, r->reference));
}

void LockstepView::redraw() {
  const study::LockstepRecord* r = shown();
  stack_->setCurrentIndex(r ? 1 : 0);
  heatmap_->setRecord(r, shownQuantity());
  if (r) drawLines(*r, shownQuantity());
  // The comparison is the spec's, whatever pair the tab's choosers show.
  words_->setText(r ? tr("The study's lockstep (its spec's choice of backends). %1").arg(words())
                    : QString());
}

void LockstepView::drawLines(const study::LockstepRecord& record, nn::LockstepQuantity quantity) {
  // The axes stay (made once); the series are made anew.
  lines_->removeAllSeries();
  const nn::LockstepResult& r = record.result;
  QValueAxis* x = x_;
  QLogValueAxis* y = y_;
  double y0 = std::numeric_limits<double>::infinity(), y1 = -y0;
  int zeros = 0;
  const auto attach = [&](QAbstractSeries* s) {
    lines_->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  };
  // A legend entry per layer while they fit beside the chart; a deeper stack (resnet18's 21
  // layers) is coloured by depth instead, the legend keeping the tolerance, and each line names
  // its layer on hover.
  const bool byDepth = r.layers.size() > kLayersInLegend;
  const auto colourOf = [&](std::size_t l) {
    if (!byDepth) return layerColour(int(l));
    return rampColour(QColor(0x9e, 0xca, 0xe1), QColor(0x08, 0x30, 0x6b),
                      double(l) / double(r.layers.size() - 1));
  };
  for (std::size_t l = 0; l < r.layers.size(); ++l) {
    auto* line = new QLineSeries;
    const QString name = QString::fromStdString(r.layers[l].name);
    line->setName(name);
    line->setPen(QPen(colourOf(l), 1.6));
    connect(line, &QLineSeries::hovered, line, [name](const QPointF& point, bool inside) {
      if (inside)
        QToolTip::showText(QCursor::pos(), tr("%1, step %2").arg(name).arg(std::lround(point.x())));
    });
    for (const nn::LockstepStep& s : r.steps) {
      const double v = s.difference[l][std::size_t(quantity)];
      if (std::isnan(v) || std::isinf(v)) continue;
      if (v <= 0) {
        ++zeros;
        continue;
      }
      line->append(double(s.step), v);
      y0 = std::min(y0, v), y1 = std::max(y1, v);
    }
    attach(line);
    if (line->points().isEmpty() || byDepth)
      for (QLegendMarker* m : lines_->legend()->markers(line)) m->setVisible(false);
  }
  auto* tolerance = new QLineSeries;
  tolerance->setName(tr("tolerance %1%").arg(100.0 * record.tolerance, 0, 'g', 3));
  tolerance->setPen(QPen(QColor(0x57, 0x60, 0x6a), 1.2, Qt::DashLine));
  const double first = r.steps.empty() ? 1.0 : double(r.steps.front().step);
  const double last = r.steps.empty() ? 1.0 : double(r.steps.back().step);
  tolerance->append(first, record.tolerance);
  tolerance->append(last, record.tolerance);
  attach(tolerance);
  y0 = std::min(y0, record.tolerance), y1 = std::max(y1, record.tolerance);
  if (r.firstCrossing && r.firstCrossing->quantity == quantity &&
      std::isfinite(r.firstCrossing->value)) {
    auto* crossing = new QScatterSeries;
    crossing->setName(tr("first crossing: %1, step %2")
                          .arg(QString::fromStdString(r.layers[r.firstCrossing->layer].name))
                          .arg(r.firstCrossing->step));
    crossing->setMarkerSize(11);
    crossing->setColor(colourOf(r.firstCrossing->layer));
    crossing->setBorderColor(Qt::black);
    crossing->append(double(r.firstCrossing->step), r.firstCrossing->value);
    attach(crossing);
    // Named on hover and in the words beneath, not in the legend (whose room is the layers').
    for (QLegendMarker* m : lines_->legend()->markers(crossing)) m->setVisible(false);
    const QString what = crossing->name();
    connect(crossing, &QScatterSeries::hovered, crossing, [what](const QPointF&, bool inside) {
      if (inside) QToolTip::showText(QCursor::pos(), what);
    });
  }
  x->setRange(first - 1 < 0 ? 0 : first - 1, std::max(last, first + 1));
  setDecadeRange(y, std::min(y0, y1 / 100), y1);  // two decades at least: labels at both ends
  QString title = tr("%1 per layer and step").arg(lockstepQuantityWords(quantity));
  if (byDepth) title += tr(" (%1 layers: deeper, darker)").arg(r.layers.size());
  if (zeros > 0)
    title += tr(" (%1 zero differences, equal tensors, cannot sit on the log axis)").arg(zeros);
  lines_->setTitle(title);
}

std::vector<Exportable> LockstepView::exportables() const {
  if (!shown()) return {};
  return {
      exportableLockstepHeatmap(heatmap_),
      exportableChart(linesView_, QStringLiteral("divergence-lockstep-lines"), QSize(1100, 600))};
}

}  // namespace paritylab::ui
