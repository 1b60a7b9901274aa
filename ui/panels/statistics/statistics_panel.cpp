#include "ui/panels/statistics/statistics_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLayout>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/stats/multiple_comparisons.h"
#include "core/study/analysis/sequential_analysis.h"
#include "core/study/spec/study_spec.h"
#include "ui/charts/backend_pair_choosers.h"
#include "ui/charts/metric_chooser.h"
#include "ui/panels/statistics/difference_plot.h"
#include "ui/panels/statistics/identical_runs_note.h"
#include "ui/charts/chart_view.h"
#include "ui/panels/statistics/sequential_chart.h"
#include "ui/session/core_errors.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {

StatisticsPanel::StatisticsPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      data_(study->runs()),
      metricBox_(new MetricChooser(study)),
      aBox_(new QComboBox),
      bBox_(new QComboBox),
      allBox_(new QCheckBox(tr("all against reference B"))),
      testBox_(new QComboBox),
      tailBox_(new QComboBox),
      alphaBox_(new QDoubleSpinBox),
      marginBox_(new QDoubleSpinBox),
      powerBox_(new QDoubleSpinBox),
      table_(new QTableWidget),
      verdict_(new QLabel),
      plot_(new DifferencePlot),
      sequential_(new SequentialChart) {
  testBox_->addItem(tr("Welch t-test"), static_cast<int>(StatTest::Welch));
  testBox_->addItem(tr("Student t-test"), static_cast<int>(StatTest::Student));
  testBox_->addItem(tr("Mann-Whitney U"), static_cast<int>(StatTest::MannWhitney));
  tailBox_->addItem(tr("two-sided"), static_cast<int>(stats::Tail::TwoSided));
  tailBox_->addItem(tr("A < B"), static_cast<int>(stats::Tail::Less));
  tailBox_->addItem(tr("A > B"), static_cast<int>(stats::Tail::Greater));
  // TOST reads the (1 - 2 alpha) interval, so alpha stays below 0.5.
  alphaBox_->setRange(0.001, 0.25);
  alphaBox_->setDecimals(3);
  alphaBox_->setSingleStep(0.01);
  alphaBox_->setValue(0.05);
  marginBox_->setSpecialValueText(tr("no TOST"));
  powerBox_->setRange(0.5, 0.99);
  powerBox_->setDecimals(2);
  powerBox_->setSingleStep(0.05);
  powerBox_->setValue(0.8);
  powerBox_->setToolTip(
      tr("Power for \"detectable ≥\" (the smallest true difference this design detects that often) "
         "and for the runs needed to show equivalence within the margin"));

  auto* controls = new QHBoxLayout;
  auto* form1 = new QFormLayout;
  form1->addRow(tr("Metric"), metricBox_);
  form1->addRow(tr("Backend A"), aBox_);
  form1->addRow(tr("Backend B"), bBox_);
  form1->addRow(QString(), allBox_);
  auto* form2 = new QFormLayout;
  form2->addRow(tr("Test"), testBox_);
  form2->addRow(tr("Alternative"), tailBox_);
  // Two columns of fields whose labels go above them when room is short, so a 1024-pixel
  // window cuts no label.
  for (QFormLayout* form : {form1, form2}) form->setRowWrapPolicy(QFormLayout::WrapLongRows);
  form2->addRow(tr("Alpha"), alphaBox_);
  form2->addRow(tr("Equivalence margin"), marginBox_);
  form2->addRow(tr("Power"), powerBox_);
  controls->addLayout(form1);
  controls->addSpacing(16);
  controls->addLayout(form2);
  controls->addStretch(1);

  setupStatisticsTable(table_);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
  table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);

  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  verdict_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  QFont f = verdict_->font();
  f.setPointSizeF(f.pointSizeF() * 1.15);
  verdict_->setFont(f);
  verdict_->setStyleSheet(
      QStringLiteral("QLabel { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; "
                     "padding: 14px; }"));

  // The tab scrolls vertically when the window is short, so the verdict is never cut; nothing
  // in it needs a horizontal scroll but the table's descriptive columns.
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->addLayout(controls);
  layout->addWidget(table_);
  layout->addWidget(new QLabel(tr("<b>Verdict</b>")));
  layout->addWidget(verdict_);
  layout->addWidget(plot_);
  layout->addWidget(sequential_);
  layout->addStretch(1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  for (QComboBox* box : {aBox_, bBox_, testBox_, tailBox_})
    connect(box, &QComboBox::currentIndexChanged, this, &StatisticsPanel::recompute);
  connect(allBox_, &QCheckBox::toggled, this, [this](bool on) {
    aBox_->setEnabled(!on);
    recompute();
  });
  connect(alphaBox_, &QDoubleSpinBox::valueChanged, this, &StatisticsPanel::recompute);
  connect(marginBox_, &QDoubleSpinBox::valueChanged, this, &StatisticsPanel::recompute);
  connect(powerBox_, &QDoubleSpinBox::valueChanged, this, &StatisticsPanel::recompute);
  connect(shown_, &ShownStudy::metricChanged, this, &StatisticsPanel::followMetric);
  followMetric();
  connect(data_, &RunData::reset, this, &StatisticsPanel::refillBackends);
  connect(data_, &RunData::rowsAppended, this, &StatisticsPanel::refillBackends);
  connect(data_, &RunData::runFinished, this, &StatisticsPanel::recompute);
  connect(data_, &RunData::reset, this, &StatisticsPanel::showSequentialDesign);
  connect(data_, &RunData::runFinished, this, &StatisticsPanel::showSequentialDesign);
  refillBackends();
  showSequentialDesign();
}

void StatisticsPanel::showSequentialDesign() {
  std::optional<study::SequentialAnalysis> analysis;
  try {
    if (!shown_->specJson().isEmpty()) {
      const study::StudySpec spec =
          study::parseStudySpec(shown_->specJson().toStdString(), "study");
      if (spec.sequential) analysis = study::analyseSequential(spec, data_->records());
    }
  } catch (const std::exception&) {
    analysis.reset();  // the Runs tab says what is wrong with a stored spec
  }
  if (analysis) sequential_->setAnalysis(*analysis);
  sequential_->setVisible(analysis.has_value());
}

void StatisticsPanel::refillBackends() {
  const QStringList names = data_->backends();
  const QString a = aBox_->currentText(), b = bBox_->currentText();
  if (relistBackendPair(*aBox_, *bBox_, names)) {
    const QSignalBlocker ba(aBox_), bb(bBox_);
    // A pair chosen before (two different backends) is kept; otherwise a backend that is not the
    // reference against the reference, as the Divergence tab does: never a backend against
    // itself while there are two to compare.
    const bool keep = a != b && names.contains(a) && names.contains(b);
    const auto [defaultA, defaultB] = defaultBackendPair(names, shown_->chaosFloorBackends());
    aBox_->setCurrentText(keep ? a : defaultA);
    bBox_->setCurrentText(keep ? b : defaultB);
  }
  recompute();
}

stats::MetricWords StatisticsPanel::words() const {
  return study::metricWords(shown_->metric());
}

void StatisticsPanel::followMetric() {
  const study::ComparedMetric metric = shown_->metric();
  const stats::MetricWords w = words();
  const QSignalBlocker blockMargin(marginBox_);
  // A margin a user of this metric would start from: 1 accuracy point, 0.01 nats, 0.1 perplexity.
  const bool accuracy = metric == study::ComparedMetric::Accuracy;
  const bool perplexity = metric == study::ComparedMetric::Perplexity;
  marginBox_->setDecimals(w.decimals);
  marginBox_->setRange(0.0, accuracy ? 50.0 : perplexity ? 1000.0 : 10.0);
  marginBox_->setSingleStep(accuracy ? 0.25 : perplexity ? 0.05 : 0.005);
  marginBox_->setValue(accuracy ? 1.0 : perplexity ? 0.1 : 0.01);
  const QString unit = differenceUnit(w);
  marginBox_->setSuffix(unit.isEmpty() ? QString() : QStringLiteral(" ") + unit);
  marginBox_->setToolTip(
      accuracy ? tr("Equivalence margin in accuracy points (1.0 = ±1 percentage point)")
               : tr("Equivalence margin in %1 (the two backends count as equivalent when the "
                    "difference's interval lies within ±margin)")
                     .arg(perplexity ? tr("perplexity")
                                     : tr("nats of %1").arg(QString::fromStdString(w.name))));
  recompute();
}

void StatisticsPanel::setSelection(const QString& a, const QString& b) {
  const QSignalBlocker ba(aBox_), bb(bBox_);
  aBox_->setCurrentText(a);
  bBox_->setCurrentText(b);
  recompute();
}
void StatisticsPanel::setTest(StatTest test) {
  testBox_->setCurrentIndex(static_cast<int>(test));
}
void StatisticsPanel::setAlpha(double alpha) {
  alphaBox_->setValue(alpha);
}
void StatisticsPanel::setMargin(double margin) {
  marginBox_->setValue(margin);
}
void StatisticsPanel::setPower(double power) {
  powerBox_->setValue(power);
}
void StatisticsPanel::setAllAgainstReference(bool on) {
  allBox_->setChecked(on);
}
QString StatisticsPanel::verdictText() const {
  return verdict_->text();
}

std::pair<QString, QString> StatisticsPanel::comparedPair() const {
  const study::ReportOptions o = reportOptions();
  return {QString::fromStdString(o.a), QString::fromStdString(o.b.empty() ? o.reference : o.b)};
}

study::ReportOptions StatisticsPanel::reportOptions() const {
  study::ReportOptions o;
  const auto test = static_cast<StatTest>(testBox_->currentData().toInt());
  o.test = test == StatTest::Student       ? study::ReportTest::Student
           : test == StatTest::MannWhitney ? study::ReportTest::MannWhitney
                                           : study::ReportTest::Welch;
  o.tail = static_cast<stats::Tail>(tailBox_->currentData().toInt());
  o.alpha = alphaBox_->value();
  o.metric = shown_->metric();
  if (marginBox_->value() > 0) o.margin = marginBox_->value() / words().scale;
  if (allBox_->isChecked()) {
    o.reference = bBox_->currentText().toStdString();
  } else if (aBox_->currentText() == bBox_->currentText()) {
    o.reference = bBox_->currentText().toStdString();  // no pair: the others against it, if any
  } else if (!aBox_->currentText().isEmpty() && !bBox_->currentText().isEmpty()) {
    o.a = aBox_->currentText().toStdString();
    o.b = bBox_->currentText().toStdString();
  }
  return o;
}

void StatisticsPanel::recompute() {
  rows_.clear();
  const auto test = static_cast<StatTest>(testBox_->currentData().toInt());
  stats::CompareOptions options;
  options.kind = test == StatTest::Student ? stats::TTestKind::Student : stats::TTestKind::Welch;
  options.tail = static_cast<stats::Tail>(tailBox_->currentData().toInt());
  options.alpha = alphaBox_->value();
  const stats::MetricWords w = words();
  const QString unit = differenceUnit(w);
  const auto withUnit = [&](const QString& amount) {
    return unit.isEmpty() ? amount : amount + QStringLiteral(" ") + unit;
  };
  options.words = w;
  if (marginBox_->value() > 0) options.margin = marginBox_->value() / w.scale;
  options.target_power = powerBox_->value();

  const QString reference = bBox_->currentText();
  QStringList sides;
  if (allBox_->isChecked()) {
    for (const QString& name : data_->backends())
      if (name != reference) sides << name;
  } else if (!aBox_->currentText().isEmpty() && aBox_->currentText() != reference) {
    sides << aBox_->currentText();
  }
  QStringList sentences;
  const bool samePair =
      !allBox_->isChecked() && !reference.isEmpty() && aBox_->currentText() == reference;
  try {
    for (const QString& a : sides) {
      const std::vector<double> va = data_->finalValues(a, shown_->metric());
      const std::vector<double> vb = data_->finalValues(reference, shown_->metric());
      StatRow row;
      row.comparison =
          stats::compareSamples(a.toStdString(), va, reference.toStdString(), vb, options);
      if (test == StatTest::MannWhitney && !va.empty() && !vb.empty()) {
        row.mannWhitney = stats::mannWhitneyU(va, vb, options.tail);
        row.hodgesLehmann = stats::hodgesLehmann(va, vb, options.tail, options.alpha);
      }
      rows_.push_back(std::move(row));
    }
    // Holm over the family when comparing everything against the reference.
    if (allBox_->isChecked() && rows_.size() > 1) {
      std::vector<double> ps;
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < rows_.size(); ++i) {
        const auto& c = rows_[i].comparison;
        const double p = rows_[i].mannWhitney            ? rows_[i].mannWhitney->p_value
                         : c.t_test && c.t_test->defined ? c.t_test->p_value
                                                         : NAN;
        if (std::isfinite(p)) ps.push_back(p), idx.push_back(i);
      }
      const stats::HolmResult holm = stats::holm(ps, options.alpha);
      for (std::size_t k = 0; k < idx.size(); ++k) rows_[idx[k]].pAdjusted = holm.adjusted[k];
    }
    for (const StatRow& row : rows_) {
      if (row.mannWhitney) {
        const auto& m = *row.mannWhitney;
        const auto& hl = *row.hodgesLehmann;
        const bool sig = m.p_value < options.alpha;
        const QString metricName = QString::fromStdString(w.name);
        sentences << tr("%1 vs %2: Mann-Whitney U = %3, p = %4 (alpha %5): %6; Hodges-Lehmann "
                        "shift %7, %8% CI %9. %10")
                         .arg(QString::fromStdString(row.comparison.name_a),
                              QString::fromStdString(row.comparison.name_b),
                              QString::number(m.u, 'g', 7), formatPValue(m.p_value),
                              QString::number(options.alpha, 'g', 3),
                              sig ? tr("the %1 distributions differ").arg(metricName)
                                  : tr("no significant difference in the %1 distributions")
                                        .arg(metricName),
                              QString::fromStdString(w.difference(hl.estimate)),
                              QString::number(100.0 * (1.0 - options.alpha), 'g', 3),
                              formatInterval(hl.ci_low, hl.ci_high, w))
                         .arg(tr("(t-test verdict: %1)")
                                  .arg(QString::fromStdString(row.comparison.verdict)));
      } else {
        sentences << QString::fromStdString(row.comparison.verdict);
      }
    }
  } catch (const std::exception& e) {
    sentences << tr("Cannot compute: %1").arg(ui::errorText(e));
  }
  if (samePair)
    sentences
        << (data_->backends().size() > 1
                ? tr("A and B are both %1: choose two different backends to compare.")
                      .arg(reference)
                : tr("Only %1 has runs: a comparison needs a second backend.").arg(reference));
  else if (sides.isEmpty())
    sentences << tr("Open a results database, import a CSV or run a study to compare backends.");
  else
    sentences << identicalRunsNotes(*data_, QStringList(sides) << reference);
  verdict_->setText(sentences.join(QStringLiteral("\n\n")));
  fillTable();
  std::vector<DifferenceRow> plotRows;
  for (const StatRow& row : rows_) {
    const auto& c = row.comparison;
    if (!c.t_test || !c.t_test->defined) continue;
    DifferenceRow d;
    d.label = QStringLiteral("%1 − %2").arg(QString::fromStdString(c.name_a),
                                            QString::fromStdString(c.name_b));
    double p = c.t_test->p_value;
    if (row.mannWhitney && row.hodgesLehmann) {  // the shift the table shows, with its CI
      p = row.mannWhitney->p_value;
      d.diff = row.hodgesLehmann->estimate * w.scale;
      d.ciLow = row.hodgesLehmann->ci_low * w.scale;
      d.ciHigh = row.hodgesLehmann->ci_high * w.scale;
      d.tostLow = d.tostHigh = NAN;  // TOST is a test of the mean difference
    } else {
      d.diff = c.t_test->mean_diff * w.scale;
      d.ciLow = c.t_test->ci_low * w.scale;
      d.ciHigh = c.t_test->ci_high * w.scale;
      d.tostLow = c.tost ? c.tost->ci_low * w.scale : NAN;
      d.tostHigh = c.tost ? c.tost->ci_high * w.scale : NAN;
    }
    const bool holm = row.pAdjusted >= 0;
    if (holm) p = row.pAdjusted;
    d.significant = p < options.alpha;
    d.equivalent = c.tost && c.tost->equivalent;
    const QString pText = formatPValue(p);  // "0.0305", or "< 0.001" (then no "=")
    d.outcome = tr("%1 %2 · %3")
                    .arg(holm ? tr("Holm p") : tr("p"),
                         pText.startsWith('<') ? pText : QStringLiteral("= ") + pText,
                         d.significant  ? tr("significant difference")
                         : d.equivalent ? tr("not significant; equivalent within ±%1")
                                              .arg(withUnit(QString::number(marginBox_->value())))
                                        : tr("no significant difference"));
    plotRows.push_back(d);
  }
  const QString estimate = test == StatTest::MannWhitney
                               ? tr("Mann-Whitney U: Hodges–Lehmann shift, distribution-free")
                           : test == StatTest::Student ? tr("Student t-test: difference of means")
                                                       : tr("Welch t-test: difference of means");
  plot_->setRows(std::move(plotRows), marginBox_->value(), options.alpha, estimate, w);
}

void StatisticsPanel::fillTable() {
  const auto test = static_cast<StatTest>(testBox_->currentData().toInt());
  StatTableContext context;
  context.mannWhitney = test == StatTest::MannWhitney;
  context.tTestName = test == StatTest::Student ? tr("Student") : tr("Welch");
  context.margin = marginBox_->value();
  context.words = words();
  fillStatisticsTable(table_, rows_, context);
}

std::vector<Exportable> StatisticsPanel::exportables() const {
  DifferencePlot* plot = plot_;
  // 900 pixels wide, as tall as the plot is at that width (its title wrapped, a row per
  // comparison, the axis), painted at that size whatever the tab's own.
  constexpr int kWidth = 900;
  std::vector<Exportable> out{
      Exportable{QStringLiteral("difference"), QSize(kWidth, plot->heightForWidth(kWidth)),
                 [plot](QPainter& p, const QSize& s) { plot->paintTo(p, s); }}};
  if (!sequential_->isHidden())
    out.push_back(exportableChart(sequential_->view(), QStringLiteral("sequential"), {1100, 620}));
  return out;
}

std::optional<Exportable> StatisticsPanel::currentExportable() const {
  return exportables().front();
}

}  // namespace paritylab::ui
