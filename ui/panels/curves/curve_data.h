#pragma once
// What the Curves tab draws, computed from the runs without Qt Charts: each run's curve (raw and
// EMA-smoothed) and each backend's mean and band.
//
// Rules:
// - The band and the mean come from the same smoothed per-run series: smoothing first, then the
//   mean and the band across runs, so a smoothed mean always lies inside its own band.
// - At each x, the mean and the band use only the runs that have a value at that x; each point
//   carries its N, and nMin/nMax say whether N varies along the curve.
// - Cancelled and failed runs stopped for reasons that have nothing to do with the backend: they
//   are drawn (dashed) but left out of the means unless `includeInterrupted` is set. Diverged runs
//   are a result of the backend's arithmetic and stay in (their NaN losses are skipped).
// Accuracy is in percent (0..100), losses as recorded (nats per example or token), perplexity
// exp(test loss).

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

#include "core/study/analysis/compared_metric.h"
#include "ui/charts/series_math.h"

namespace paritylab::ui {

struct ShownRun;

// In the order the Curves tab offers them (a chooser's index is the enum's value). The last four
// are the early warnings of the stored sampled steps (docs/early-warnings.md).
enum class CurveMetric {
  TestAccuracy,
  TestLoss,
  TrainLoss,
  StepLoss,
  Perplexity,
  GradNorm,
  UpdateRatio,
  AttentionLogit,
  OutputLogitNorm
};
inline constexpr CurveMetric kCurveMetrics[] = {
    CurveMetric::TestAccuracy, CurveMetric::TestLoss,       CurveMetric::TrainLoss,
    CurveMetric::StepLoss,     CurveMetric::Perplexity,     CurveMetric::GradNorm,
    CurveMetric::UpdateRatio,  CurveMetric::AttentionLogit, CurveMetric::OutputLogitNorm};
// "test accuracy", "test loss", ...; a language model's held-out loss is its "validation loss"
// (as its runs table, statistics and verdicts call it).
QString curveMetricName(CurveMetric metric, bool languageModel = false);
// "accuracy", "test-loss", "train-loss", "step-loss", ...; "validation-loss" for a language model
// (an exported chart is named as its title names the metric).
QString curveMetricSlug(CurveMetric metric, bool languageModel = false);
// "test accuracy (%)", "test loss (nats)", ...; "validation loss (nats)" for a language model.
QString curveAxisTitle(CurveMetric metric, bool languageModel = false);
bool isStepMetric(CurveMetric metric);    // against the step (else the epoch)
bool isEarlyWarning(CurveMetric metric);  // one of the stored early warnings
// The per-epoch curve of the metric a study's backends are compared on (its test loss for a
// validation loss).
CurveMetric curveOfComparedMetric(study::ComparedMetric metric);

struct CurveOptions {
  CurveMetric metric = CurveMetric::TestAccuracy;
  BandKind band = BandKind::StdDev;
  bool showBand = true;
  bool showRuns = true;
  bool includeInterrupted = false;  // cancelled/failed runs in the means and bands
  double smoothing = 0.0;           // EMA weight in [0, 1)
  bool logX = false, logY = false;
};

struct RunCurve {  // buildCurves makes one per run, in the order of the runs given
  std::int64_t runId = 0;
  QString backend;
  QString label;             // "cpu-fp32 seed 3"
  bool interrupted = false;  // cancelled or failed: drawn dashed
  bool inMean = true;
  std::vector<XY> raw;     // as recorded (accuracy in percent)
  std::vector<XY> smooth;  // debiased EMA of raw (== raw when smoothing is 0)
};

struct BackendCurve {
  QString backend;
  std::vector<BandPoint> band;  // mean, low, high and N at each x
  int nMin = 0, nMax = 0;       // N over the curve's points (0 when there are none)
  int runsInMean = 0;           // runs of this backend feeding the mean
  int runsLeftOut = 0;          // interrupted runs left out of the mean
};

struct CurveSet {
  std::vector<RunCurve> runs;
  std::vector<BackendCurve> backends;  // in `backendOrder`
};

bool isInterrupted(const ShownRun& run);  // cancelled or failed

// Builds every curve of `metric` for `runs`; backends listed in `backendOrder` (RunData order).
CurveSet buildCurves(const std::vector<ShownRun>& runs, const QStringList& backendOrder,
                     const CurveOptions& options);

// The legend text of a backend's mean (the thick line): "cpu-fp32 (N=5)", or "(N=1–2 per
// epoch)" when N varies along the curve, plus ", 1 left out" when cancelled or failed runs were
// left out of it. Short, so that a 1024-pixel window's legend keeps N.
QString meanLegendName(const BackendCurve& curve, bool steps);

}  // namespace paritylab::ui
