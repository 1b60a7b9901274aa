#pragma once
// Assembles the panels (runs, curves, distributions, statistics, divergence, formats, X-ray), the
// menus and the study session; the logic lives in the panels and models.

#include <QMainWindow>
#include <optional>
#include <vector>

#include "ui/charts/chart_export.h"
#include "ui/shell/report_charts.h"

class QLabel;
class QMenu;
class QTabWidget;

namespace paritylab::ui {

class CurvesPanel;
class DivergencePanel;
class DistributionsPanel;
class FormatsPanel;
class RunData;
class RunsPanel;
class ShownStudy;
class StatisticsPanel;
class SweepPanel;
class StudyActions;
class StudyController;
class XrayPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  bool openDatabase(const QString& path);
  // `target` = "" asks where the new database goes (see StudyController::importResults).
  bool importResultsFile(const QString& csvPath, const QString& target = {});
  // File > Import logs and tracker exports…: the Import dialog (its path `path`), its preview,
  // then the runs stored as importResultsFile stores them.
  bool importWithPreview(const QString& path = {});
  bool loadStudySpec(const QString& path);  // a spec JSON file (or ":/studies/quick.json")
  // Writes every chart and report into `dir`; `written` receives the files' names, `notes` what
  // was not written and why (no divergence charts without stored predictions). A chart that
  // cannot be made from the data (a damaged database) is an error, not a note.
  bool exportAllTo(const QString& dir, QString* error, QStringList* written = nullptr,
                   QStringList* notes = nullptr);

  ShownStudy* shownStudy() const { return shown_; }
  RunData* runData() const { return data_; }
  StudyActions* actions() const { return actions_; }
  StudyController* controller() const { return controller_; }
  QTabWidget* tabs() const { return tabs_; }
  CurvesPanel* curves() const { return curves_; }
  DistributionsPanel* distributions() const { return distributions_; }
  StatisticsPanel* statistics() const { return statistics_; }
  SweepPanel* sweep() const { return sweep_; }
  DivergencePanel* divergence() const { return divergence_; }
  FormatsPanel* formats() const { return formats_; }
  RunsPanel* runs() const { return runs_; }
  XrayPanel* xray() const { return xray_; }
  QLabel* databaseLabel() const { return location_; }  // the status bar's database
  // The tabs whose charts Export all writes (all but the Playground), the same ones as
  // `report --charts`; their charts, in tab order; and the visible tab's chart (Export PNG/SVG).
  ResultPanels resultPanels() const;
  std::vector<Exportable> exportables() const;
  std::optional<Exportable> currentExportable() const;

 private:
  void buildMenus();
  void updateRecentMenu();
  void addRecent(const QString& path);
  void setEmulated(bool emulated, const QString& source);
  void showError(const QString& what, const QString& error);
  void showState();
  void updateEmptyHint();
  void editStudy();
  void updateExportActions();
  void exportCurrent(const QString& suffix);
  void exportReport();
  void updateTitle();
  void suggestDivergencePair();

  ShownStudy* shown_;  // the one study every panel observes
  RunData* data_;      // shown_->runs()
  StudyActions* actions_;
  StudyController* controller_;
  RunsPanel* runs_;
  CurvesPanel* curves_;
  DistributionsPanel* distributions_;
  StatisticsPanel* statistics_;
  SweepPanel* sweep_;
  DivergencePanel* divergence_;
  FormatsPanel* formats_;
  XrayPanel* xray_;
  QTabWidget* tabs_;
  QLabel* banner_;
  QLabel* location_;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace paritylab::ui
