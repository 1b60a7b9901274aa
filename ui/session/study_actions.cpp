#include "ui/session/study_actions.h"

#include <QAction>
#include <QIcon>
#include <QKeySequence>

namespace paritylab::ui {
namespace {

QAction* make(QObject* parent, const char* icon, const QString& text, const QString& tip,
              const QString& name) {
  auto* action = icon ? new QAction(QIcon(QString::fromLatin1(icon)), text, parent)
                      : new QAction(text, parent);
  action->setToolTip(tip);
  action->setStatusTip(tip);
  action->setObjectName(name);
  return action;
}

}  // namespace

StudyActions::StudyActions(QObject* parent)
    : QObject(parent),
      openSpec(make(this, ":/icons/study.svg", tr("Open study spec…"),
                    tr("Load a study spec (JSON) to run"), QStringLiteral("openSpec"))),
      openDatabase(make(this, ":/icons/open.svg", tr("&Open database…"),
                        tr("Open a results database: its runs, and its study to resume"),
                        QStringLiteral("openDatabase"))),
      importCsv(make(this, ":/icons/import.svg", tr("&Import CSV from real hardware…"),
                     tr("Import runs measured on real hardware into a results database"),
                     QStringLiteral("importCsv"))),
      importLogs(make(this, ":/icons/import.svg", tr("Import &logs and tracker exports…"),
                      tr("Import runs measured on real hardware from TensorBoard logs or the "
                         "CSV exports of W&B, MLflow or Lightning, previewed before anything "
                         "is written"),
                      QStringLiteral("importLogs"))),
      exportPng(make(this, nullptr, tr("Current chart as PNG…"), tr("Save the current chart"),
                     QStringLiteral("exportPng"))),
      exportSvg(make(this, nullptr, tr("Current chart as SVG…"), tr("Save the current chart"),
                     QStringLiteral("exportSvg"))),
      exportReport(make(this, nullptr, tr("CSV report…"),
                        tr("The runs and the statistics as the Statistics tab shows them"),
                        QStringLiteral("exportReport"))),
      exportAll(make(this, ":/icons/export.svg", tr("Export all to folder…"),
                     tr("Every chart, the CSV reports, the per-step CSV and the study spec"),
                     QStringLiteral("exportAll"))),
      quit(make(this, nullptr, tr("&Quit"), tr("Quit ParityLab"), QStringLiteral("quit"))),
      editStudy(make(this, ":/icons/study.svg", tr("&Edit study…"), tr("Edit the study spec"),
                     QStringLiteral("editStudy"))),
      start(make(this, ":/icons/start.svg", tr("&Start"), tr("Run the study"),
                 QStringLiteral("start"))),
      resume(make(this, ":/icons/resume.svg", tr("&Resume"),
                  tr("Finish the study in its database without repeating finished runs"),
                  QStringLiteral("resume"))),
      cancel(make(this, ":/icons/cancel.svg", tr("&Cancel"),
                  tr("Stop every run within one step; finished epochs stay in the database"),
                  QStringLiteral("cancel"))) {
  openDatabase->setShortcut(QKeySequence::Open);
  quit->setShortcut(QKeySequence::Quit);
  editStudy->setText(tr("&Edit study…"));
  cancel->setEnabled(false);
  resume->setEnabled(false);
}

}  // namespace paritylab::ui
