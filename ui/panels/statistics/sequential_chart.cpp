#include "ui/panels/statistics/sequential_chart.h"

#include <QChart>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/charts/chart_view.h"

namespace paritylab::ui {
namespace {

// p-values are drawn on a log axis down to this floor (a p below it is drawn at it, and the axis
// says so).
constexpr double kFloorP = 1e-12;

double drawn(double p) {
  return std::isfinite(p) ? std::clamp(p, kFloorP, 1.0) : 1.0;
}

QString decisionWords(stats::SequentialDecision d) {
  switch (d) {
    case stats::SequentialDecision::Equivalent:
      return QObject::tr("equivalent");
    case stats::SequentialDecision::Different:
      return QObject::tr("different");
    case stats::SequentialDecision::Inconclusive:
      return QObject::tr("inconclusive");
    case stats::SequentialDecision::Continue:
      break;
  }
  return QObject::tr("continue");
}

}  // namespace

SequentialChart::SequentialChart(QWidget* parent)
    : QWidget(parent), chart_(new QChart), view_(new ChartView(chart_)), words_(new QLabel) {
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setAnimationOptions(QChart::NoAnimation);
  view_->setMinimumHeight(300);
  words_->setWordWrap(true);
  words_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  words_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(words_);
  layout->addWidget(view_, 1);
}

QString SequentialChart::wordsText() const {
  return words_->text();
}

void SequentialChart::setAnalysis(const study::SequentialAnalysis& analysis) {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  const stats::SequentialPlan& plan = analysis.plan;
  const stats::SequentialDesign& d = plan.design;
  chart_->setTitle(
      tr("Sequential design: %1 against %2, a look every %3 seeds up to %4, %5 spending, "
         "alpha %6")
          .arg(QString::fromStdString(analysis.a), QString::fromStdString(analysis.b))
          .arg(d.lookEvery)
          .arg(d.maxSeeds)
          .arg(d.spending == stats::AlphaSpending::Pocock ? tr("Pocock") : tr("O'Brien-Fleming"))
          .arg(d.alpha));

  // The boundaries at every planned look: what a test's p must reach there to stop the study.
  auto* equivalence = new QLineSeries;
  equivalence->setName(tr("equivalence boundary"));
  auto* difference = new QLineSeries;
  difference->setName(tr("difference boundary"));
  for (std::size_t k = 0; k < plan.looks.size(); ++k) {
    const double seeds = double(plan.looks[k]);
    equivalence->append(seeds, drawn(plan.equivalence.nominalP[k]));
    difference->append(seeds, drawn(2.0 * plan.difference.nominalP[k]));
  }
  equivalence->setColor(QColor(0x1a, 0x7f, 0x37));
  difference->setColor(QColor(0xb0, 0x00, 0x20));
  for (QLineSeries* line : {equivalence, difference}) {
    QPen pen = line->pen();
    pen.setStyle(Qt::DashLine);
    pen.setWidthF(2.0);
    line->setPen(pen);
    line->setPointsVisible(true);
  }

  // The looks made: each test's p-value, the deciding look ringed.
  auto* tostP = new QScatterSeries;
  tostP->setName(tr("TOST p"));
  tostP->setColor(equivalence->color());
  tostP->setMarkerSize(11);
  auto* welchP = new QScatterSeries;
  welchP->setName(tr("Welch p"));
  welchP->setColor(difference->color());
  welchP->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  welchP->setMarkerSize(10);
  auto* stop = new QScatterSeries;
  stop->setColor(Qt::transparent);
  stop->setBorderColor(Qt::black);
  stop->setMarkerSize(24);
  double lowest = 0.01;
  for (const stats::SequentialLook& look : analysis.looks) {
    const double seeds = double(look.seeds);
    if (look.tost.defined) tostP->append(seeds, drawn(look.tost.p_value));
    welchP->append(seeds, drawn(look.pDifference));
    lowest = std::min(
        {lowest, drawn(look.pDifference), look.tost.defined ? drawn(look.tost.p_value) : 1.0});
  }
  for (std::size_t k = 0; k < plan.looks.size(); ++k)
    lowest = std::min(
        {lowest, drawn(plan.equivalence.nominalP[k]), drawn(2.0 * plan.difference.nominalP[k])});
  if (analysis.stoppedAt && *analysis.stoppedAt < analysis.looks.size()) {
    const stats::SequentialLook& at = analysis.looks[*analysis.stoppedAt];
    const double p =
        at.decision == stats::SequentialDecision::Different ? at.pDifference : at.tost.p_value;
    stop->append(double(at.seeds), drawn(p));
    stop->setName(
        tr("stopped at look %1: %2").arg(*analysis.stoppedAt + 1).arg(decisionWords(at.decision)));
  }

  auto* x = new QValueAxis;
  x->setTitleText(tr("seeds per backend"));
  // A tick at every look when they are few (0, 5, ..., one interval past the last look).
  const std::size_t every = std::max<std::size_t>(1, d.lookEvery);
  const std::size_t intervals = d.maxSeeds / every + 1;
  if (intervals <= 10) {
    x->setRange(0.0, double(intervals * every));
    x->setTickCount(int(intervals) + 1);
  } else {
    x->setRange(0.0, double(d.maxSeeds) * 1.05);
  }
  x->setLabelFormat(QStringLiteral("%d"));
  auto* y = new QLogValueAxis;
  // A test stops the study where its p is at or below its boundary.
  y->setTitleText(lowest <= kFloorP ? tr("p-value (log scale; below %1 drawn at it)").arg(kFloorP)
                                    : tr("p-value (log scale)"));
  y->setBase(10.0);
  y->setRange(std::pow(10.0, std::floor(std::log10(lowest)) - 0.2), 1.0);
  y->setLabelFormat(QStringLiteral("%g"));
  chart_->addAxis(x, Qt::AlignBottom);
  chart_->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s :
       std::initializer_list<QAbstractSeries*>{equivalence, difference, tostP, welchP, stop}) {
    if (s == stop && stop->count() == 0) {
      delete s;
      continue;
    }
    chart_->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
  }

  QStringList sentences;
  for (const std::string& s : analysis.words) sentences << QString::fromStdString(s);
  words_->setText(sentences.join(QLatin1Char(' ')));
}

}  // namespace paritylab::ui
