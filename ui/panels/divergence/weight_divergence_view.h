#pragma once
// Weight divergence of the Divergence tab: per layer, the relative distance
// ||W_A - W_B|| / ||W_B|| over epochs, in percent on a log axis. Solid: A against B at the same
// seed (the precision's effect); dashed, same colour: two seeds of B (the seed floor). One legend
// entry per layer. Zero distances (identical weights) cannot sit on a log axis: they are counted
// in the title instead. A pure view of a study::DivergenceReport; empty, it says why.

#include <QWidget>

#include "core/study/analysis/divergence_analysis.h"

class QChart;
class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace paritylab::ui {

class ChartHint;
class ChartView;

class WeightDivergenceView : public QWidget {
  Q_OBJECT

 public:
  explicit WeightDivergenceView(QWidget* parent = nullptr);
  void setReport(const study::DivergenceReport& report);

  ChartView* view() const { return view_; }
  QChart* chart() const { return chart_; }
  ChartHint* hint() const { return hint_; }
  // The drawn series of layer i: precision (solid) and seed floor (dashed); points in percent.
  QLineSeries* precisionSeries(int layer) const;
  QLineSeries* floorSeries(int layer) const;
  // The chaos floor's dotted series, one per layer the perturbed runs have (in layer order).
  const std::vector<QLineSeries*>& chaosSeries() const { return chaos_; }
  int layerCount() const { return static_cast<int>(precision_.size()); }
  int zeroDistances() const { return zeros_; }  // values 0 left off the log axis
  QLogValueAxis* yAxis() const { return yAxis_; }

 private:
  QChart* chart_;
  ChartView* view_;
  ChartHint* hint_;
  QValueAxis* xAxis_ = nullptr;
  QLogValueAxis* yAxis_ = nullptr;
  std::vector<QLineSeries*> precision_, floor_, chaos_;
  int zeros_ = 0;
};

// A layer's colour: ColorBrewer's Paired, darkened, cycled (layers are not backends).
QColor layerColour(int layer);

}  // namespace paritylab::ui
