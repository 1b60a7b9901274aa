#pragma once
// A sequential study's design and where it stands (core/study/analysis/sequential_analysis.h), in
// the Statistics tab: at each planned look (seeds per backend) the nominal p-value each test must
// reach, the equivalence boundary (TOST) and the difference boundary (Welch, two-sided), drawn as
// lines on a log scale; the p-values of the looks made as points; the look that decided marked;
// and the analysis' words, which say the design so the p-values are read against the boundaries,
// not against alpha.

#include <QWidget>

#include "core/study/analysis/sequential_analysis.h"

class QChart;
class QLabel;

namespace paritylab::ui {

class ChartView;

class SequentialChart : public QWidget {
  Q_OBJECT

 public:
  explicit SequentialChart(QWidget* parent = nullptr);
  void setAnalysis(const study::SequentialAnalysis& analysis);
  QChart* chart() const { return chart_; }
  ChartView* view() const { return view_; }
  QString wordsText() const;

 private:
  QChart* chart_;
  ChartView* view_;
  QLabel* words_;
};

}  // namespace paritylab::ui
