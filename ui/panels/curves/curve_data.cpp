#include "ui/panels/curves/curve_data.h"

#include <QObject>
#include <algorithm>
#include <cmath>
#include <map>

#include "ui/session/run_data.h"

namespace paritylab::ui {
namespace {

double warningValue(const study::SignalPoint& p, CurveMetric metric) {
  switch (metric) {
    case CurveMetric::GradNorm:
      return p.gradNorm;
    case CurveMetric::UpdateRatio:
      return p.updateRatio;
    case CurveMetric::AttentionLogit:
      return p.attentionLogit;
    default:
      return p.outputLogitNorm;
  }
}

std::vector<XY> rawCurve(const ShownRun& run, CurveMetric metric) {
  std::vector<XY> xy;
  if (isEarlyWarning(metric)) {
    xy.reserve(run.warnings.size());
    for (const study::SignalPoint& p : run.warnings)
      xy.push_back({static_cast<double>(p.step), warningValue(p, metric)});
    return xy;
  }
  if (metric == CurveMetric::StepLoss) {
    xy.reserve(run.steps.size());
    for (const StepPoint& s : run.steps) xy.push_back({static_cast<double>(s.step), s.loss});
    return xy;
  }
  xy.reserve(run.epochs.size());
  for (const EpochPoint& e : run.epochs) {
    const double y = metric == CurveMetric::TestAccuracy ? 100.0 * e.testAccuracy
                     : metric == CurveMetric::TestLoss   ? e.testLoss
                     : metric == CurveMetric::Perplexity ? std::exp(e.testLoss)
                                                         : e.trainLoss;
    xy.push_back({static_cast<double>(e.epoch), y});
  }
  return xy;
}

// Step losses arrive at different steps per run; bucket them (bucket means at bucket centres) so
// runs can be averaged point by point.
std::vector<XY> bucketed(const std::vector<XY>& xy, double width) {
  std::map<long long, std::pair<double, int>> sums;
  for (const XY& p : xy) {
    if (!std::isfinite(p.y)) continue;
    auto& s = sums[static_cast<long long>(std::floor(p.x / width))];
    s.first += p.y;
    ++s.second;
  }
  std::vector<XY> out;
  out.reserve(sums.size());
  for (const auto& [b, s] : sums)
    out.push_back({(static_cast<double>(b) + 0.5) * width, s.first / s.second});
  return out;
}

}  // namespace

CurveMetric curveOfComparedMetric(study::ComparedMetric metric) {
  switch (metric) {
    case study::ComparedMetric::Accuracy:
      return CurveMetric::TestAccuracy;
    case study::ComparedMetric::TestLoss:
    case study::ComparedMetric::ValidationLoss:
      return CurveMetric::TestLoss;
    case study::ComparedMetric::Perplexity:
      return CurveMetric::Perplexity;
  }
  return CurveMetric::TestAccuracy;
}

QString curveMetricName(CurveMetric metric, bool languageModel) {
  switch (metric) {
    case CurveMetric::TestAccuracy:
      return QObject::tr("test accuracy");
    case CurveMetric::TestLoss:
      return languageModel ? QObject::tr("validation loss") : QObject::tr("test loss");
    case CurveMetric::TrainLoss:
      return QObject::tr("train loss");
    case CurveMetric::StepLoss:
      return QObject::tr("batch loss per step");  // live, or the stored sample when reopened
    case CurveMetric::Perplexity:
      return QObject::tr("perplexity");
    case CurveMetric::GradNorm:
      return QObject::tr("gradient norm");
    case CurveMetric::UpdateRatio:
      return QObject::tr("max update ratio");
    case CurveMetric::AttentionLogit:
      return QObject::tr("attention logit");
    case CurveMetric::OutputLogitNorm:
      return QObject::tr("output-logit norm");
  }
  return {};
}

QString curveMetricSlug(CurveMetric metric, bool languageModel) {
  switch (metric) {
    case CurveMetric::TestAccuracy:
      return QStringLiteral("accuracy");
    case CurveMetric::TestLoss:
      return languageModel ? QStringLiteral("validation-loss") : QStringLiteral("test-loss");
    case CurveMetric::TrainLoss:
      return QStringLiteral("train-loss");
    case CurveMetric::StepLoss:
      return QStringLiteral("step-loss");
    case CurveMetric::Perplexity:
      return QStringLiteral("perplexity");
    case CurveMetric::GradNorm:
      return QStringLiteral("grad-norm");
    case CurveMetric::UpdateRatio:
      return QStringLiteral("update-ratio");
    case CurveMetric::AttentionLogit:
      return QStringLiteral("attention-logit");
    case CurveMetric::OutputLogitNorm:
      return QStringLiteral("logit-norm");
  }
  return {};
}

QString curveAxisTitle(CurveMetric metric, bool languageModel) {
  switch (metric) {
    case CurveMetric::TestAccuracy:
      return QObject::tr("test accuracy (%)");
    case CurveMetric::Perplexity:
      return QObject::tr("perplexity, exp(%1)")
          .arg(curveMetricName(CurveMetric::TestLoss, languageModel));
    case CurveMetric::GradNorm:
      return QObject::tr("gradient norm (L2, all parameters)");
    case CurveMetric::UpdateRatio:
      return QObject::tr("largest ‖ΔW‖ / ‖W‖ over the layers");
    case CurveMetric::AttentionLogit:
      return QObject::tr("largest attention logit q·k/√d");
    case CurveMetric::OutputLogitNorm:
      return QObject::tr("output-logit norm (L2, mean per prediction)");
    default:
      return QObject::tr("%1 (nats)").arg(curveMetricName(metric, languageModel));
  }
}

bool isStepMetric(CurveMetric metric) {
  return metric == CurveMetric::StepLoss || isEarlyWarning(metric);
}

bool isEarlyWarning(CurveMetric metric) {
  return metric == CurveMetric::GradNorm || metric == CurveMetric::UpdateRatio ||
         metric == CurveMetric::AttentionLogit || metric == CurveMetric::OutputLogitNorm;
}

bool isInterrupted(const ShownRun& run) {
  return run.state == study::RunState::Cancelled || run.state == study::RunState::Failed;
}

CurveSet buildCurves(const std::vector<ShownRun>& runs, const QStringList& backendOrder,
                     const CurveOptions& options) {
  const bool steps = isStepMetric(options.metric);
  const bool warnings = isEarlyWarning(options.metric);
  double maxStep = 1.0;
  for (const ShownRun& run : runs) {
    if (warnings && !run.warnings.empty())
      maxStep = std::max(maxStep, double(run.warnings.back().step));
    if (steps && !warnings && !run.steps.empty())
      maxStep = std::max(maxStep, double(run.steps.back().step));
  }
  const double bucketWidth = maxStep / 60.0;

  CurveSet set;
  std::map<QString, std::vector<std::vector<XY>>> perBackend;
  std::map<QString, int> leftOut;
  for (const ShownRun& run : runs) {
    RunCurve c;
    c.runId = run.runId;
    c.backend = run.backend;
    c.label = run.label();
    c.interrupted = isInterrupted(run);
    c.inMean = !c.interrupted || options.includeInterrupted;
    c.raw = rawCurve(run, options.metric);
    c.smooth = emaSmooth(c.raw, options.smoothing);
    if (c.inMean)
      perBackend[run.backend].push_back(steps ? bucketed(c.smooth, bucketWidth) : c.smooth);
    else
      ++leftOut[run.backend];
    set.runs.push_back(std::move(c));
  }
  for (const QString& name : backendOrder) {
    BackendCurve b;
    b.backend = name;
    const auto& curves = perBackend[name];
    b.runsInMean = static_cast<int>(curves.size());
    b.runsLeftOut = leftOut[name];
    b.band = meanBand(curves, options.band);
    for (const BandPoint& p : b.band) {
      b.nMin = b.nMin == 0 ? p.n : std::min(b.nMin, p.n);
      b.nMax = std::max(b.nMax, p.n);
    }
    set.backends.push_back(std::move(b));
  }
  return set;
}

QString meanLegendName(const BackendCurve& curve, bool steps) {
  QString n = curve.nMin == curve.nMax
                  ? QObject::tr("N=%1").arg(curve.nMax)
                  : QObject::tr("N=%1–%2 per %3")
                        .arg(curve.nMin)
                        .arg(curve.nMax)
                        .arg(steps ? QObject::tr("point") : QObject::tr("epoch"));
  if (curve.runsLeftOut > 0) n += QObject::tr(", %1 left out").arg(curve.runsLeftOut);
  return QObject::tr("%1 (%2)").arg(curve.backend, n);
}

}  // namespace paritylab::ui
