#pragma once
// The Samples view of the Divergence tab (a language-model study): the text each backend's model
// writes from the study's prompt, per seed, the reference B first. In each other text the first
// character that differs from B's at the same seed is marked (red, bold) and what follows is
// grey: where the two models part. Above, per backend, how many characters it agrees with B for
// (median over seeds) beside two seeds of B (the floor). A seed chooser shows one seed or all.

#include <QString>
#include <QWidget>
#include <optional>

#include "core/study/analysis/divergence_analysis.h"
#include "ui/charts/chart_export.h"

class QComboBox;
class QTextBrowser;

namespace paritylab::ui {

// The view's HTML for `samples` (every seed when `seed` is empty).
QString samplesHtml(const study::SamplesReport& samples, std::optional<std::uint64_t> seed);

class SamplesView : public QWidget {
  Q_OBJECT

 public:
  explicit SamplesView(QWidget* parent = nullptr);
  // report.samples, or why there are none (a study that is not a language model has none).
  void setReport(const study::DivergenceReport& report);
  bool hasSamples() const { return samples_.has_value() && !samples_->seeds.empty(); }
  QString emptyReason() const { return empty_; }
  QString html() const;  // what is shown
  QComboBox* seedChooser() const { return seed_; }
  std::optional<std::uint64_t> shownSeed() const;  // empty: every seed

  // Paints the shown HTML at `size` (exports).
  void paintTo(QPainter& p, const QSize& size) const;
  int documentHeight(int width) const;

 private:
  void refresh();

  QComboBox* seed_;
  QTextBrowser* text_;
  std::optional<study::SamplesReport> samples_;
  QString empty_;
};

// "divergence-samples": the view as shown, 1000 pixels wide.
Exportable exportableSamples(const SamplesView* view);

}  // namespace paritylab::ui
