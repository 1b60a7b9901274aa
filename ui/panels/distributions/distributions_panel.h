#pragma once
// The Distributions tab: the final-accuracy histogram of each backend on one shared axis
// (adjustable bins). Within every bin the backends' bars stand side by side, each filled and
// outlined in its backend's colour (BackendColours), so bars never overlap and colours never
// blend. A grey baseline at zero; each run as a dot beneath, each mean as a dashed line.
// Rebuilt when runs finish.

#include <QChart>
#include <QWidget>
#include <vector>

#include "ui/charts/chart_export.h"

class QSpinBox;

namespace paritylab::ui {

class ChartHint;
class ChartView;
class RunData;
class ShownStudy;

struct HistogramBar {
  QString backend;
  double x0 = 0.0, x1 = 0.0;  // percent
  int count = 0;
};

class DistributionsPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  // Shows the runs of `study` (the window's one shown study).
  explicit DistributionsPanel(ShownStudy* study, QWidget* parent = nullptr);
  ChartView* view() const { return view_; }
  QChart* chart() const { return chart_; }
  ChartHint* hint() const { return hint_; }
  void setBins(int bins);
  int histogramCount() const { return histograms_; }  // backends with at least one finished run
  const std::vector<HistogramBar>& bars() const { return bars_; }  // the drawn bars (count > 0)
  // The histogram ("histogram").
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 public slots:
  void rebuild();

 private:
  ShownStudy* shown_;
  RunData* data_;  // the shown study's runs
  QChart* chart_;
  ChartView* view_;
  ChartHint* hint_;
  QSpinBox* binsBox_;
  int histograms_ = 0;
  std::vector<HistogramBar> bars_;
};

}  // namespace paritylab::ui
