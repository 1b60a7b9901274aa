#pragma once
// The X-ray tab: heatmaps of site x sampled step per backend for a chosen statistic,
// operand and seed on one colour scale; clicking a cell shows that tensor's exponent histogram
// against its format's ranges, and "Show in Formats" asks for the Formats tab at the tensor's
// amax. A newly opened X-ray starts at its worst case (worstXrayView), not at whatever the first
// entries of the choosers show.

#include <QWidget>

#include "ui/charts/chart_export.h"
#include "ui/panels/xray/xray_grid.h"

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace paritylab::ui {

class XrayHeatmap;
class XrayHistogram;

class XrayPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  explicit XrayPanel(QWidget* parent = nullptr);
  // Reads the X-ray of the database at `dbPath` (read-only); an empty path: no results.
  void setDatabase(const QString& dbPath);
  void reload() { setDatabase(dbPath_); }
  QString database() const { return dbPath_; }
  void setStatistic(XrayStatistic statistic);
  void setOperand(const QString& operand);         // "input", "weight", "grad", "output"
  void setSeed(std::uint64_t seed);                // one of the seeds the chooser lists
  void selectCell(int block, int site, int step);  // as a click on that cell
  XrayView view() const;                           // what the heatmaps show

  const XrayGrid& grid() const { return grid_; }
  bool hasXray() const { return !grid_.rows.empty(); }
  XrayHeatmap* heatmap() const { return heatmap_; }
  XrayHistogram* histogram() const { return histogram_; }
  QPushButton* showInFormatsButton() const { return showInFormats_; }
  QLabel* emptyMessage() const { return empty_; }
  QComboBox* seedChooser() const { return seedBox_; }
  // The heatmaps (xray-<statistic>) when the results hold X-ray samples, else nothing.
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 signals:
  void showInFormatsRequested(double amax);

 private:
  void rebuild();
  void fillSeeds();
  void showView(const XrayView& view);

  QString dbPath_;
  std::vector<study::RunRecord> runs_;
  XrayGrid grid_;
  QComboBox* statisticBox_;
  QComboBox* operandBox_;
  QComboBox* seedBox_;
  QStackedWidget* stack_;
  QLabel* empty_;
  QLabel* caption_;
  XrayHeatmap* heatmap_;
  XrayHistogram* histogram_;
  QPushButton* showInFormats_;
  double selectedAmax_ = 0.0;
};

}  // namespace paritylab::ui
