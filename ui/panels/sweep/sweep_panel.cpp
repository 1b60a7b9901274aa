#include "ui/panels/sweep/sweep_panel.h"

#include <QCategoryAxis>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_hint.h"
#include "ui/charts/chart_view.h"
#include "ui/charts/metric_chooser.h"
#include "ui/charts/nice_ticks.h"
#include "ui/charts/number_format.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {

SweepPanel::SweepPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      data_(study->runs()),
      factorBox_(new QComboBox),
      verdict_(new QLabel),
      chart_(new QChart),
      view_(new ChartView(chart_)),
      hint_(new ChartHint(chart_)) {
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setAnimationOptions(QChart::NoAnimation);
  verdict_->setWordWrap(true);
  // Long cell names must wrap, not widen the window.
  verdict_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Metric")));
  bar->addWidget(new MetricChooser(study));
  bar->addSpacing(8);
  bar->addWidget(new QLabel(tr("Along")));
  bar->addWidget(factorBox_);
  bar->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(verdict_);
  layout->addWidget(view_, 1);
  connect(factorBox_, &QComboBox::currentIndexChanged, this, &SweepPanel::draw);
  connect(shown_, &ShownStudy::metricChanged, this, &SweepPanel::rebuild);
  connect(data_, &RunData::reset, this, &SweepPanel::rebuild);
  connect(data_, &RunData::runFinished, this, &SweepPanel::rebuild);
  rebuild();
}

void SweepPanel::setFactor(const QString& name) {
  const int index = factorBox_->findText(name);
  if (index >= 0) factorBox_->setCurrentIndex(index);
}

QString SweepPanel::verdictText() const {
  return verdict_->text();
}

void SweepPanel::rebuild() {
  analysis_.reset();
  std::optional<study::StudySpec> spec;
  try {
    if (!shown_->specJson().isEmpty())
      spec = study::parseStudySpec(shown_->specJson().toStdString(), "study");
  } catch (const std::exception&) {
    spec.reset();  // the Runs tab says what is wrong with a stored spec
  }
  if (spec && !spec->sweep.empty()) {
    study::SweepOptions options;
    options.metric = shown_->metric();
    analysis_ = study::analyseSweep(*spec, data_->records(), options);
  }
  const QString kept = factorBox_->currentText();
  {
    const QSignalBlocker block(factorBox_);
    factorBox_->clear();
    if (analysis_)
      for (const study::SweepFactor& f : analysis_->factors)
        factorBox_->addItem(QString::fromStdString(f.field));
    if (factorBox_->findText(kept) >= 0) factorBox_->setCurrentIndex(factorBox_->findText(kept));
  }
  factorBox_->setEnabled(factorBox_->count() > 1);
  QStringList sentences;
  if (analysis_)
    for (const std::string& s : analysis_->verdict) sentences << QString::fromStdString(s);
  verdict_->setText(sentences.join(QLatin1Char(' ')));
  verdict_->setVisible(!sentences.isEmpty());
  draw();
}

void SweepPanel::draw() {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  lines_ = 0;
  const stats::MetricWords words = study::metricWords(shown_->metric());
  const QString metric = QString::fromStdString(words.name);
  const QString unit = valueUnit(words);
  auto* x = new QCategoryAxis;
  auto* y = new QValueAxis;
  y->setTitleText(unit.isEmpty() ? tr("final %1").arg(metric)
                                 : tr("final %1 (%2)").arg(metric, unit));
  chart_->addAxis(x, Qt::AlignBottom);
  chart_->addAxis(y, Qt::AlignLeft);
  if (!analysis_) {
    chart_->setTitle(tr("Sweep"));
    hint_->setText(shown_->specJson().isEmpty() && !data_->runs().empty()
                       ? tr("Imported runs carry no sweep: a sweep is a study's design.")
                       : tr("This study has no sweep (docs/study-designs.md)."));
    hint_->setChartEmpty(true);
    x->setVisible(false);  // no axes of a chart that cannot exist
    y->setVisible(false);
    return;
  }
  const study::SweepAnalysis& s = *analysis_;
  const std::size_t along = std::size_t(std::max(0, factorBox_->currentIndex()));
  const study::SweepFactor& factor = s.factors[along];
  const QString better = words.lowerIsBetter ? tr(" (lower is better)") : QString();
  chart_->setTitle(tr("Final %1 by %2, mean and %3% interval per cell%4")
                       .arg(metric, QString::fromStdString(factor.field))
                       .arg(100.0 * (1.0 - s.alpha), 0, 'g', 3)
                       .arg(better));
  x->setTitleText(QString::fromStdString(factor.field));
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (std::size_t i = 0; i < factor.values.size(); ++i)
    x->append(QString::fromStdString(study::sweptValueText(factor.values[i])), double(i));
  x->setRange(-0.3, double(factor.values.size()) - 0.7);
  const std::vector<std::vector<study::SweptValue>> grid = study::sweepCells(s.factors);
  // One line per backend and combination of the other factors' values ("rest").
  double lo = INFINITY, hi = -INFINITY;
  bool any = false;
  for (std::size_t b = 0; b < s.backends.size(); ++b) {
    std::vector<std::string> rests;
    for (const auto& cell : grid) {
      std::vector<study::SweptValue> rest = cell;
      rest.erase(rest.begin() + std::ptrdiff_t(along));
      const std::string name = study::cellName(rest);
      if (std::find(rests.begin(), rests.end(), name) == rests.end()) rests.push_back(name);
    }
    for (std::size_t r = 0; r < rests.size(); ++r) {
      const QString backend = QString::fromStdString(s.backends[b]);
      auto* line = new QLineSeries;
      auto* dots = new QScatterSeries;
      line->setName(rests[r].empty()
                        ? backend
                        : backend + QStringLiteral(" ") + QString::fromStdString(rests[r]));
      QColor colour = BackendColours::of(backend);
      if (rests.size() > 1) colour = colour.darker(100 + int(60 * r / (rests.size() - 1)));
      QPen pen(colour, 2);
      if (r % 2 == 1) pen.setStyle(Qt::DashLine);
      line->setPen(pen);
      dots->setColor(colour);
      dots->setBorderColor(colour);
      dots->setMarkerSize(7);
      std::vector<QLineSeries*> bars;
      for (std::size_t c = 0; c < grid.size(); ++c) {
        std::vector<study::SweptValue> rest = grid[c];
        rest.erase(rest.begin() + std::ptrdiff_t(along));
        if (study::cellName(rest) != rests[r]) continue;
        const study::SweepCell& cell = s.at(b, c);
        if (cell.finished == 0) continue;  // the verdict names the cells left out
        const double at =
            double(std::find(factor.values.begin(), factor.values.end(), grid[c][along].value) -
                   factor.values.begin());
        const double mean = words.scale * cell.mean;
        line->append(at, mean);
        dots->append(at, mean);
        lo = std::min(lo, mean), hi = std::max(hi, mean);
        any = true;
        if (cell.finished > 1) {
          auto* bar = new QLineSeries;
          bar->setPen(QPen(colour, 1.5));
          bar->append(at, words.scale * cell.ciLow);
          bar->append(at, words.scale * cell.ciHigh);
          lo = std::min(lo, words.scale * cell.ciLow);
          hi = std::max(hi, words.scale * cell.ciHigh);
          bars.push_back(bar);
        }
      }
      for (QAbstractSeries* series : std::vector<QAbstractSeries*>{line, dots}) {
        chart_->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
      }
      for (QLegendMarker* m : chart_->legend()->markers(dots)) m->setVisible(false);
      for (QLineSeries* bar : bars) {
        chart_->addSeries(bar);
        bar->attachAxis(x);
        bar->attachAxis(y);
        for (QLegendMarker* m : chart_->legend()->markers(bar)) m->setVisible(false);
      }
      ++lines_;
    }
  }
  hint_->setText(tr("Each cell's mean appears here once one of its runs has finished."));
  hint_->setChartEmpty(!any);
  if (!any) {
    y->setRange(0, 1);
    return;
  }
  const double span = std::max(hi - lo, 50.0 * std::pow(10.0, -words.decimals));
  y->setRange(lo - 0.08 * span, hi + 0.08 * span);
  keepTicksNice(y, 8);
}

std::vector<Exportable> SweepPanel::exportables() const {
  if (!analysis_) return {};
  return {exportableChart(view_, QStringLiteral("sweep"), QSize(1100, 680))};
}

std::optional<Exportable> SweepPanel::currentExportable() const {
  const std::vector<Exportable> all = exportables();
  if (all.empty()) return std::nullopt;
  return all.front();
}

}  // namespace paritylab::ui
