#pragma once
// The X-ray tab: heatmaps of site x sampled step per backend for a chosen statistic,
// operand and seed on one colour scale; clicking a cell shows that tensor's exponent histogram
// against its format's ranges, and "Show in Formats" asks for the Formats tab at the tensor's
// amax. A newly opened X-ray starts at its worst case (worstXrayView), not at whatever the first
// entries of the choosers show. It reads the shown study's database itself, read-only and off the
// GUI thread (BackgroundRead): when the database changes, when the runs are replaced and as runs
// finish.

#include <QTimer>
#include <QWidget>

#include "ui/charts/chart_export.h"
#include "ui/panels/xray/xray_grid.h"
#include "ui/session/background_read.h"

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;

namespace paritylab::ui {

class ShownStudy;
class XrayHeatmap;
class XrayHistogram;

class XrayPanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  // Follows `study` (null: no study, nothing to show).
  explicit XrayPanel(ShownStudy* study, QWidget* parent = nullptr);
  QString database() const { return dbPath_; }  // the database shown ("" = none)
  // Waits for the read asked for and shows it (exports, tests); busy() until then.
  void settle();
  bool busy() const { return readSoon_.isActive() || reader_.busy(); }
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
  struct XrayRead {
    QString path;  // the database read
    std::vector<study::XrayRow> rows;
    std::vector<study::RunRecord> runs;
    QString error;  // it could not be read: why
  };
  // Reads the X-ray of the database at `dbPath` (read-only); an empty path: no results.
  void setDatabase(const QString& dbPath);
  // The shown study's database changed, or its runs were replaced: one read for both, when
  // control returns to the event loop (opening a database does both at once).
  void followStudy(const QString& dbPath);
  void showRead(const XrayRead& read);
  // Another database is being read: the panel says so (neither the previous database's X-ray nor
  // "no X-ray" before its own is known).
  void showReading(const QString& dbPath);
  void rebuild();
  void fillSeeds();
  // The operands the rows hold: the products' (input, weight, left, right, grad, output) first,
  // then the held values between them (scores, mean, ...), so none is left out.
  void fillOperands();
  void showView(const XrayView& view);

  const ShownStudy* shown_;  // null: no study
  QString dbPath_;           // the database asked for
  QString shownPath_;        // the database whose X-ray is on screen
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
  BackgroundRead<XrayRead> reader_;
  QTimer readSoon_;  // single shot, 0 ms: the read the study's events ask for
};

}  // namespace paritylab::ui
