#pragma once
// The X-ray tab (issue 14.4): heatmaps of site x sampled step per backend for a chosen statistic
// and operand on one colour scale; clicking a cell shows that tensor's exponent histogram against
// its format's ranges, and "Show in Formats" asks for the Formats tab at the tensor's amax.

#include <QWidget>

#include "ui/xray_grid.h"

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace paritylab::ui {

class XrayHeatmap;
class XrayHistogram;

class XrayPanel : public QWidget {
  Q_OBJECT

 public:
  explicit XrayPanel(QWidget* parent = nullptr);
  // Reads the X-ray of the database at `dbPath` (read-only); an empty path: no results.
  void setDatabase(const QString& dbPath);
  void reload() { setDatabase(dbPath_); }
  QString database() const { return dbPath_; }
  void setStatistic(XrayStatistic statistic);
  void setOperand(const QString& operand);         // "input", "weight", "grad", "output"
  void selectCell(int block, int site, int step);  // as a click on that cell

  const XrayGrid& grid() const { return grid_; }
  bool hasXray() const { return !grid_.rows.empty(); }
  XrayHeatmap* heatmap() const { return heatmap_; }
  XrayHistogram* histogram() const { return histogram_; }
  QPushButton* showInFormatsButton() const { return showInFormats_; }
  QLabel* emptyMessage() const { return empty_; }

 signals:
  void showInFormatsRequested(double amax);

 private:
  void rebuild();

  QString dbPath_;
  std::vector<study::RunRecord> runs_;
  XrayGrid grid_;
  QComboBox* statisticBox_;
  QComboBox* operandBox_;
  QStackedWidget* stack_;
  QLabel* empty_;
  QLabel* caption_;
  XrayHeatmap* heatmap_;
  XrayHistogram* histogram_;
  QPushButton* showInFormats_;
  double selectedAmax_ = 0.0;
};

}  // namespace paritylab::ui
