#pragma once
// The Playground tab: each cause of "why do TPU and GPU results differ" in seconds, without a
// study — the regression example, error against reduction length and order, and any product
// under every backend. Every section exports its charts/tables (PNG, SVG) and data (CSV, the same
// text `paritylab-cli playground ... --csv` writes).

#include <QWidget>

#include "ui/charts/chart_export.h"

class QLabel;
class QTabWidget;

namespace paritylab::ui {

class PlaygroundRegressionView;
class PlaygroundReductionView;
class PlaygroundProductView;

class PlaygroundPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  explicit PlaygroundPanel(QWidget* parent = nullptr);

  PlaygroundRegressionView* regression() const { return regression_; }
  PlaygroundReductionView* reduction() const { return reduction_; }
  PlaygroundProductView* product() const { return product_; }
  QTabWidget* sections() const { return sections_; }

  // Writes the current section (or all) into `dir`: <name>.png and .svg per chart/table and
  // <section>.csv. The reduction runs first if it has not yet. False with *error naming the file.
  bool exportTo(const QString& dir, bool allSections, QStringList* written, QString* error);
  // Every section's charts and tables (playground-*; the reduction runs first if it has not yet),
  // and the chart of the section shown (the regression's loss chart).
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 private:
  const QWidget* currentSection() const;
  std::vector<Exportable> sectionExportables(const QWidget* section) const;
  void exportInteractively(bool allSections);

  QTabWidget* sections_;
  PlaygroundRegressionView* regression_;
  PlaygroundReductionView* reduction_;
  PlaygroundProductView* product_;
  QLabel* status_;
};

}  // namespace paritylab::ui
