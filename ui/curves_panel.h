#pragma once
// The Curves tab: train loss, test loss or test accuracy against epoch (or the live step loss
// against step). Each run is a thin line; each backend's mean is a thick line with a band (std,
// std-err or min-max; N in the legend). EMA smoothing keeps the raw curve faint behind it. Either
// axis can be logarithmic. Hover a line for run/step/value; click a legend entry to hide a backend.

#include <QChart>
#include <QMap>
#include <QWidget>
#include <map>

#include "ui/series_math.h"

class QAreaSeries;
class QCheckBox;
class QComboBox;
class QLineSeries;
class QSlider;
class QLabel;
class QAbstractAxis;

namespace paritylab::ui {

class ChartView;
class RunData;

enum class CurveMetric { TestAccuracy, TestLoss, TrainLoss, StepLoss };
QString curveMetricName(CurveMetric metric);  // "test accuracy", ...
QString curveMetricSlug(CurveMetric metric);  // "accuracy", "test-loss", "train-loss", "step-loss"

struct CurveOptions {
  CurveMetric metric = CurveMetric::TestAccuracy;
  BandKind band = BandKind::StdDev;
  bool showBand = true;
  bool showRuns = true;
  double smoothing = 0.0;  // EMA weight in [0, 1)
  bool logX = false, logY = false;
};

class CurvesPanel : public QWidget {
  Q_OBJECT

 public:
  explicit CurvesPanel(RunData* data, QWidget* parent = nullptr);

  void setOptions(const CurveOptions& options);
  const CurveOptions& options() const { return options_; }
  ChartView* view() const { return view_; }
  QChart* chart() const { return chart_; }
  int runSeriesCount() const { return static_cast<int>(runs_.size()); }
  int backendSeriesCount() const { return static_cast<int>(backends_.size()); }
  void setBackendHidden(const QString& backend, bool hidden);
  bool backendHidden(const QString& backend) const { return hidden_.contains(backend); }

 public slots:
  void rebuild();        // series structure changed (runs added, options changed)
  void refreshPoints();  // values changed: replace points, keep zoom

 private:
  struct RunSeries {
    QLineSeries* raw = nullptr;
    QLineSeries* smooth = nullptr;
    QString backend;
  };
  struct BackendSeries {
    QLineSeries* mean = nullptr;
    QLineSeries* upper = nullptr;
    QLineSeries* lower = nullptr;
    QAreaSeries* band = nullptr;
    int n = 0;
  };

  void buildControls();
  void readControls();
  void attach(QAbstractSeries* series, bool inLegend);
  std::vector<XY> curveOf(const struct RunRecord& run) const;
  void applyVisibility(const QString& backend);
  void autoRange();
  void showHover(const QString& who, QLineSeries* line, const QPointF& at, bool state);

  RunData* data_;
  CurveOptions options_;
  QChart* chart_;
  ChartView* view_;
  QAbstractAxis* xAxis_ = nullptr;
  QAbstractAxis* yAxis_ = nullptr;
  std::map<std::int64_t, RunSeries> runs_;
  QMap<QString, BackendSeries> backends_;
  QSet<QString> hidden_;
  QComboBox* metricBox_ = nullptr;
  QComboBox* bandBox_ = nullptr;
  QCheckBox* runsCheck_ = nullptr;
  QCheckBox* logXCheck_ = nullptr;
  QCheckBox* logYCheck_ = nullptr;
  QSlider* smoothSlider_ = nullptr;
  QLabel* smoothLabel_ = nullptr;
};

}  // namespace paritylab::ui
