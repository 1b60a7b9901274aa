#pragma once
// The Curves tab: train loss, test loss or test accuracy (percent) against epoch, or the step loss
// and the early warnings (gradient norm, update ratio, attention and output logits) against step.
// Each run is a thin line (cancelled or failed runs dashed); each backend's mean is a thick line
// with a band (std, std-err or min-max) computed from the same smoothed per-run series
// (curve_data.h has the rules). Series with few points show their points. A crosshair lists every
// visible series' value at the hovered x; click a legend entry to hide a backend. Either axis can
// be logarithmic. Colours come from BackendColours.

#include <QChart>
#include <QMap>
#include <QWidget>
#include <map>

#include "ui/charts/chart_export.h"
#include "ui/panels/curves/curve_data.h"

class QAreaSeries;
class QCheckBox;
class QComboBox;
class QLineSeries;
class QScatterSeries;
class QSlider;
class QLabel;
class QAbstractAxis;

namespace paritylab::ui {

class ChartCrosshair;
class ChartHint;
class ChartView;
class EquivalenceBand;
class RunData;
class ShownStudy;

class CurvesPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  // Shows the runs of `study` (the window's one shown study).
  explicit CurvesPanel(ShownStudy* study, QWidget* parent = nullptr);

  void setOptions(const CurveOptions& options);
  const CurveOptions& options() const { return options_; }
  ChartView* view() const { return view_; }
  QChart* chart() const { return chart_; }
  ChartCrosshair* crosshair() const { return crosshair_; }
  ChartHint* hint() const { return hint_; }
  int runSeriesCount() const { return static_cast<int>(runs_.size()); }
  int backendSeriesCount() const { return static_cast<int>(backends_.size()); }
  void setBackendHidden(const QString& backend, bool hidden);
  bool backendHidden(const QString& backend) const { return hidden_.contains(backend); }
  // What the chart shows while it has no data, e.g. "Press Start: 15 runs (3 backends x 5
  // seeds)", and the number of epochs the x axis spans meanwhile (0: a default range).
  void setEmptyHint(const QString& text, int expectedEpochs);
  // The curves last drawn (means, bands, N per point).
  const CurveSet& curves() const { return curves_; }
  // The reference's simultaneous seed band and the examined backend's first exit (step loss and
  // the compared metric), and the sentence beneath the chart that says what they show.
  EquivalenceBand* equivalence() const { return equivalence_; }
  QString equivalenceWords() const;
  void settle();  // the equivalence band's read in flight delivered (exports and tests)
  // Runs drawn thick and on top (the runs selected in the table), by database id.
  void setHighlightedRuns(const QSet<qint64>& runIds);
  // Runs whose own curves are not drawn (the means still count them), by database id.
  void setHiddenRuns(const QSet<qint64>& runIds);
  bool runDrawn(qint64 runId) const;  // a visible series shows this run's curve
  // Every metric, curves-<metric slug> (each drawn by switching the metric and back), and the
  // metric shown.
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 public slots:
  void rebuild();        // series structure changed (runs added, options changed)
  void refreshPoints();  // values changed: replace points, keep zoom

 private:
  void followComparedMetric();  // the study's compared metric changed: draw its curve
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
  };

  void buildControls();
  // The metric chooser's entries named for the shown study (a language model's held-out loss is
  // its validation loss).
  void nameMetrics();
  void readControls();
  void setUpCrosshair();
  void attach(QAbstractSeries* series, bool inLegend);
  void applyVisibility(const QString& backend);
  qint64 runIdAt(int row) const;
  void autoRange();
  void drawEquivalenceBand();
  QString valueText(double y) const;
  // What an empty chart says: the owner's hint, or why an early-warning chart has nothing.
  QString hintText() const;

  ShownStudy* shown_;
  RunData* data_;  // the shown study's runs
  CurveOptions options_;
  CurveSet curves_;
  QChart* chart_;
  ChartView* view_;
  ChartCrosshair* crosshair_;
  ChartHint* hint_;
  int expectedEpochs_ = 0;
  QString emptyHint_;  // setEmptyHint's text
  QAbstractAxis* xAxis_ = nullptr;
  QAbstractAxis* yAxis_ = nullptr;
  // By row of RunData: a planned run keeps its row when the runner gives it a database id.
  std::map<int, RunSeries> runs_;
  QMap<QString, BackendSeries> backends_;
  EquivalenceBand* equivalence_;
  QLabel* equivalenceWords_ = nullptr;
  QLineSeries* equivalenceUpper_ = nullptr;  // the band's edges (null when not drawn)
  QLineSeries* equivalenceLower_ = nullptr;
  QScatterSeries* exitMarker_ = nullptr;  // made with the band, attached above the runs
  QSet<QString> hidden_;
  QSet<qint64> highlightedRuns_, hiddenRuns_;
  QComboBox* metricBox_ = nullptr;
  QComboBox* bandBox_ = nullptr;
  QCheckBox* runsCheck_ = nullptr;
  QCheckBox* interruptedCheck_ = nullptr;
  QCheckBox* logXCheck_ = nullptr;
  QCheckBox* logYCheck_ = nullptr;
  QSlider* smoothSlider_ = nullptr;
  QLabel* smoothLabel_ = nullptr;
};

}  // namespace paritylab::ui
