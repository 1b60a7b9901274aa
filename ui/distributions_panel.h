#pragma once
// The Distributions tab: the final-accuracy histogram of each backend, overlaid on one shared
// axis (adjustable bins), each run as a dot beneath its histogram and each mean as a dashed line.
// Rebuilt when runs finish.

#include <QChart>
#include <QWidget>

class QSpinBox;

namespace paritylab::ui {

class ChartView;
class RunData;

class DistributionsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DistributionsPanel(RunData* data, QWidget* parent = nullptr);
  ChartView* view() const { return view_; }
  QChart* chart() const { return chart_; }
  void setBins(int bins);
  int histogramCount() const { return histograms_; }  // backends with at least one finished run

 public slots:
  void rebuild();

 private:
  RunData* data_;
  QChart* chart_;
  ChartView* view_;
  QSpinBox* binsBox_;
  int histograms_ = 0;
};

}  // namespace paritylab::ui
