#include "ui/panels/playground/playground_reduction_view.h"

#include <QApplication>
#include <QChart>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QListWidget>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <set>

#include "core/playground/playground_export.h"
#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_view.h"

namespace paritylab::ui {
namespace {

constexpr int kWideView = 900;    // from this width the list sits beside the chart
constexpr int kListHeight = 150;  // the list's height above the chart in a narrow view

// Shown at start: the TPU's and the CPU's operands in every order, and bf16 accumulation.
bool shownByDefault(const playground::ReductionCurve& c) {
  return (c.accumulation == "fp32" && (c.operands == "fp32" || c.operands == "bf16")) ||
         (c.accumulation == "bf16");
}

// Operand roundings in the backends' colours (three orders each); the low-precision contrast
// curves in colours of their own. Black belongs to the reference slopes alone.
QColor colorOf(const playground::ReductionCurve& c) {
  // The low-precision accumulation contrasts: vermillion and grey, no preset's colour.
  if (c.accumulation == "bf16") return QColor(0xd5, 0x5e, 0x00);
  if (c.accumulation != "fp32") return QColor(0x7f, 0x7f, 0x7f);
  // The colour of the first preset with this operand rounding (BackendColours, as everywhere).
  const std::string first = c.backends.substr(0, c.backends.find(','));
  return BackendColours::of(QString::fromStdString(first.empty() ? c.operands : first));
}

Qt::PenStyle styleOf(const playground::ReductionCurve& c) {
  if (c.accumulation != "fp32") return Qt::DotLine;
  if (c.order == "pairwise") return Qt::DashLine;
  if (c.order == "blocked-8") return Qt::DashDotLine;
  return Qt::SolidLine;
}

}  // namespace

PlaygroundReductionView::PlaygroundReductionView(QWidget* parent)
    : QWidget(parent),
      distributionBox_(new QComboBox),
      seedBox_(new QSpinBox),
      maxLengthBox_(new QComboBox),
      trialsBox_(new QSpinBox),
      metricBox_(new QComboBox),
      curves_(new QListWidget),
      split_(new QSplitter(Qt::Horizontal)),
      summary_(new QLabel) {
  distributionBox_->addItem(tr("uniform [0, 1)"), QStringLiteral("uniform"));
  distributionBox_->addItem(tr("normal"), QStringLiteral("normal"));
  distributionBox_->addItem(tr("wide range (±2^±12)"), QStringLiteral("wide"));
  seedBox_->setRange(0, 1 << 30);
  for (int k : {1 << 12, 1 << 16, 1 << 18, 1 << 20})
    maxLengthBox_->addItem(QStringLiteral("2^%1").arg(int(std::log2(k))), k);
  maxLengthBox_->setCurrentIndex(3);
  trialsBox_->setRange(1, 100);
  trialsBox_->setValue(8);
  trialsBox_->setToolTip(tr("Trials per length (2 from K = 2^18 on, to stay fast)"));
  metricBox_->addItem(tr("total error (vs exact dot of the fp32 inputs)"));
  metricBox_->addItem(tr("accumulation error (vs exact sum of the rounded products)"));
  for (QComboBox* box : {distributionBox_, metricBox_}) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
  }
  auto* runButton = new QPushButton(tr("Run"));
  connect(runButton, &QPushButton::clicked, this, [this] { run(); });
  connect(metricBox_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
  connect(curves_, &QListWidget::itemChanged, this, [this] { draw(); });

  // Two short rows rather than one long one: the section fits the narrow page of a 1024-pixel
  // window without scrolling sideways.
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Vectors")));
  controls->addWidget(distributionBox_);
  controls->addWidget(new QLabel(tr("seed")));
  controls->addWidget(seedBox_);
  controls->addStretch();
  controls->addWidget(runButton);

  // The legend names every line drawn, slopes included, with its colour and dash pattern (also
  // in the exported chart, which has no list beside it).
  chart_ = makePlaygroundChart(tr("Dot-product error against length K"), tr("length K"), true,
                               tr("|error| / Σ|aᵢbᵢ|"), true, true);
  // Its labels are long: one column on the right keeps them whole.
  chart_.chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  chart_.chart->legend()->setAlignment(Qt::AlignRight);
  chart_.chart->legend()->setShowToolTips(true);
  view_ = new ChartView(chart_.chart);
  view_->setMinimumHeight(260);
  curves_->setToolTip(
      tr("Solid: sequential · dashed: pairwise · dash-dot: 8 shards + all-reduce "
         "tree · dotted: low-precision accumulation"));
  split_->addWidget(curves_);
  split_->addWidget(view_);
  split_->setStretchFactor(1, 1);
  split_->setSizes({290, 700});
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  auto* styles =
      new QLabel(tr("Colour: operand rounding (as in the list) · line: solid "
                    "sequential, dashed pairwise, dash-dot 8 shards + all-reduce tree, "
                    "dotted low-precision accumulation (vermillion bf16, grey fp16) · thin "
                    "black: √K·u (dashed) and K·u (dotted) slopes"));
  styles->setWordWrap(true);
  styles->setStyleSheet(QStringLiteral("color: #57606a"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  auto* metricRow = new QHBoxLayout;
  metricRow->addWidget(new QLabel(tr("K up to")));
  metricRow->addWidget(maxLengthBox_);
  metricRow->addWidget(new QLabel(tr("trials")));
  metricRow->addWidget(trialsBox_);
  metricRow->addWidget(new QLabel(tr("Error")));
  metricRow->addWidget(metricBox_, 1);
  layout->addLayout(metricRow);
  layout->addWidget(split_, 1);
  layout->addWidget(styles);
  layout->addWidget(summary_);
  summary_->setText(tr("Runs when the tab is first shown (about a second)."));
}

void PlaygroundReductionView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!hasRun_) run();
}

void PlaygroundReductionView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitSummary();
  arrange();
}

void PlaygroundReductionView::arrange() {
  const bool wide = width() >= kWideView;
  chart_.chart->legend()->setVisible(wide);
  curves_->setMinimumHeight(wide ? 0 : kListHeight);
  fitHeight();
  const int needed = curves_->count() == 0
                         ? 290
                         : curves_->sizeHintForColumn(0) + 2 * curves_->frameWidth() +
                               curves_->verticalScrollBar()->sizeHint().width() + 4;
  if (!wide) {
    if (split_->orientation() != Qt::Vertical) {
      split_->setOrientation(Qt::Vertical);
      split_->setSizes({kListHeight, 400});
    }
    return;
  }
  if (split_->orientation() != Qt::Horizontal) {
    split_->setOrientation(Qt::Horizontal);
    split_->setSizes({needed, 700});
  }
  const QList<int> sizes = split_->sizes();
  const int total = sizes.value(0) + sizes.value(1);
  if (sizes.value(0) >= needed || total <= 0) return;
  const int list = std::min(needed, total / 2);  // the chart keeps at least half
  split_->setSizes({list, total - list});
}

void PlaygroundReductionView::fitSummary() {
  const int width = std::max(300, this->width() - 24);  // the label spans the view
  summary_->setMinimumHeight(summary_->heightForWidth(width));
  fitHeight();
}

void PlaygroundReductionView::fitHeight() {
  // The page scrolls rather than squeezing its parts below their own minimum heights.
  setMinimumHeight(std::max(480, layout()->minimumSize().height()));
}

playground::ReductionConfig PlaygroundReductionView::config() const {
  playground::ReductionConfig c;
  c.distribution =
      playground::parseDistribution(distributionBox_->currentData().toString().toStdString());
  c.seed = std::uint64_t(seedBox_->value());
  const int maxK = maxLengthBox_->currentData().toInt();
  for (int k = 16; k <= maxK; k *= 4) c.lengths.push_back(k);
  c.trials = trialsBox_->value();
  c.largeTrials = std::min(c.trials, 2);
  return c;
}

void PlaygroundReductionView::run() {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  experiment_ = playground::runReductionExperiment(config());
  QApplication::restoreOverrideCursor();
  std::set<QString> checked;
  for (int i = 0; i < curves_->count(); ++i)
    if (curves_->item(i)->checkState() == Qt::Checked) checked.insert(curves_->item(i)->text());
  const bool first = !hasRun_;
  hasRun_ = true;
  curves_->blockSignals(true);
  curves_->clear();
  for (std::size_t i = 0; i < experiment_.curves.size(); ++i) {
    const auto& c = experiment_.curves[i];
    auto* item = new QListWidgetItem(QString::fromStdString(c.label), curves_);
    item->setToolTip(tr("Operand rounding of: %1").arg(QString::fromStdString(c.backends)));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    const bool on = first ? shownByDefault(c) : checked.count(item->text()) > 0;
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    item->setForeground(colorOf(c));
  }
  curves_->blockSignals(false);
  arrange();
  draw();
}

void PlaygroundReductionView::draw() {
  clearPlaygroundChart(chart_);
  if (!hasRun_) return;
  const bool total = metricBox_->currentIndex() == 0;
  const double u = std::ldexp(1.0, -24);
  double lo = INFINITY, hi = -INFINITY;
  const auto& lengths = experiment_.config.lengths;
  for (std::size_t i = 0; i < experiment_.curves.size(); ++i) {
    if (curves_->item(int(i))->checkState() != Qt::Checked) continue;
    const auto& c = experiment_.curves[i];
    std::vector<QPointF> median, low, high;
    for (const auto& p : c.points) {
      const auto b = playground::band(total ? p.totalError : p.accumulationError);
      median.emplace_back(p.length, b.median);
      low.emplace_back(p.length, b.min);
      high.emplace_back(p.length, b.max);
      for (double v : {b.min, b.max})
        if (v > 0 && std::isfinite(v)) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
    }
    const QColor color = colorOf(c);
    addPlaygroundBand(chart_, low, high, color);
    addPlaygroundLine(chart_, QString::fromStdString(c.label), median, color, 2.0, styleOf(c));
  }
  const double k0 = lengths.front(), k1 = lengths.back();
  addPlaygroundLine(chart_, tr("√K·u"),
                    {QPointF(k0, std::sqrt(k0) * u), QPointF(k1, std::sqrt(k1) * u)}, Qt::black,
                    1.0, Qt::DashLine);
  addPlaygroundLine(chart_, tr("K·u"), {QPointF(k0, k0 * u), QPointF(k1, k1 * u)}, Qt::black, 1.0,
                    Qt::DotLine);
  chart_.x->setRange(k0 / 1.5, k1 * 1.5);
  setPlaygroundRange(chart_.y, std::min(lo, std::sqrt(k0) * u), std::max(hi, k1 * u));

  // The figures behind the plain-words summary: fp32 and bf16 operands at the largest K.
  auto medianOf = [&](const std::string& operands, const std::string& order,
                      const std::string& acc) {
    for (const auto& c : experiment_.curves)
      if (c.operands == operands && c.order == order && c.accumulation == acc)
        return playground::band(total ? c.points.back().totalError
                                      : c.points.back().accumulationError)
            .median;
    return double(NAN);
  };
  auto fmt = [](double v) {
    return std::isfinite(v) ? QString::number(v, 'e', 1) : QStringLiteral("—");
  };
  summary_->setText(
      tr("<b>Emulated.</b> Line: median over trials, band: min–max; error |computed − exact| / "
         "Σ|aᵢbᵢ|, u = 2<sup>-24</sup>. At K = %1 — fp32 operands: sequential %2, pairwise %3, "
         "8 shards %4; bf16 operands (tpu-bf16, gpu-amp-bf16, pure-bf16): sequential %5, pairwise "
         "%6; bf16 accumulation %7. <i>Why:</i> every fp32 addition rounds relative to the running "
         "sum, so a sequential sum's error grows with K (bound: the K·u slope; random roundings "
         "grow like √K·u); a pairwise tree adds partial sums of like size (bound "
         "log<sub>2</sub>K·u); "
         "8 shards make each sequential run 8 times shorter. Operand rounding (in the total error) "
         "adds an error per product that no summation order removes. A bf16 running sum drops "
         "every term below half its ulp (2<sup>-9</sup> to 2<sup>-8</sup> of the sum), so long "
         "sums stall.")
          .arg(int(k1))
          .arg(fmt(medianOf("fp32", "sequential", "fp32")))
          .arg(fmt(medianOf("fp32", "pairwise", "fp32")))
          .arg(fmt(medianOf("fp32", "blocked-8", "fp32")))
          .arg(fmt(medianOf("bf16", "sequential", "fp32")))
          .arg(fmt(medianOf("bf16", "pairwise", "fp32")))
          .arg(fmt(medianOf("bf16", "sequential", "bf16"))));
  fitSummary();
}

std::vector<Exportable> PlaygroundReductionView::exportables() const {
  // The exported chart stands alone: it always carries its legend.
  Exportable chart =
      exportableChart(view_, QStringLiteral("playground-reduction"), QSize(1100, 680));
  QLegend* legend = chart_.chart->legend();
  chart.paint = [legend, paint = chart.paint](QPainter& p, const QSize& size) {
    const bool shown = legend->isVisible();
    legend->setVisible(true);
    paint(p, size);
    legend->setVisible(shown);
  };
  return {chart};
}

QString PlaygroundReductionView::csv() const {
  return QString::fromStdString(playground::reductionCsv(experiment_));
}

}  // namespace paritylab::ui
