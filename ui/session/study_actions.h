#pragma once
// One QAction per command of the main window, shared by the menus, the toolbar and the Runs
// panel's buttons, so they can never disagree (enabled state, text, tooltip). The actions only
// describe commands; StudyController and MainWindow connect them and decide when each is enabled.

#include <QObject>

class QAction;

namespace paritylab::ui {

class StudyActions : public QObject {
  Q_OBJECT

 public:
  explicit StudyActions(QObject* parent = nullptr);

  QAction* openSpec;      // File > Open study spec…
  QAction* openDatabase;  // File > Open database…
  QAction* importCsv;     // File > Import CSV from real hardware…
  QAction* importLogs;    // File > Import logs and tracker exports…
  QAction* exportPng;     // current chart
  QAction* exportSvg;     // current chart
  QAction* exportReport;  // CSV report
  QAction* exportAll;     // every chart, the reports and the spec into a folder
  QAction* quit;
  QAction* editStudy;  // Study > Edit study…
  QAction* start;      // Study > Start
  QAction* resume;     // Study > Resume
  QAction* cancel;     // Study > Cancel
};

}  // namespace paritylab::ui
