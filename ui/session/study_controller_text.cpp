// Part of StudyController: the texts it shows (the header above the runs, the database line, the
// progress in the window title).
#include <QDir>
#include <QFileInfo>

#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/spec_description.h"
#include "ui/session/study_controller.h"
#include "ui/session/study_follower.h"

namespace paritylab::ui {

QString countedProblems(qsizetype n) {
  return n == 1 ? QObject::tr("1 problem") : QObject::tr("%1 problems").arg(n);
}

QString countedRuns(qsizetype n) {
  return n == 1 ? QObject::tr("1 run") : QObject::tr("%1 runs").arg(n);
}

QString StudyController::databaseText() const {
  const QString database = databasePath();
  if (!database.isEmpty())
    return tr("Results: %1").arg(QDir::toNativeSeparators(QFileInfo(database).absoluteFilePath()));
  if (shown_->mode() == Mode::Spec && !startDatabase_.isEmpty())
    return tr("Results: %1 (Start writes there)")
        .arg(QDir::toNativeSeparators(QFileInfo(startDatabase_).absoluteFilePath()));
  if (shown_->mode() == Mode::Spec) return tr("Results: not saved yet (Start asks where)");
  return tr("Results: none");
}

QString StudyController::headerHtml() const {
  const QString where = databaseText().toHtmlEscaped();
  switch (shown_->mode()) {
    case Mode::Empty:
      return tr("<b>No study</b> — open a study spec, a results database or a CSV");
    case Mode::Spec:
    case Mode::Study: {
      QString name;
      QString html = describeSpec(shown_->specJson(), &name) + QStringLiteral("<br>") + where;
      if (shown_->mode() == Mode::Study && follower_->runningElsewhere() > 0) {
        html += QStringLiteral("<br><span style='color:#0969da'>") +
                tr("Following: %1 running elsewhere (%2); new runs and epochs appear as they "
                   "are committed")
                    .arg(countedRuns(follower_->runningElsewhere()),
                         follower_->writers().join(QStringLiteral(", ")))
                    .toHtmlEscaped() +
                QStringLiteral("</span>");
      }
      return html;
    }
    case Mode::InvalidSpec: {
      QString html =
          tr("<b>%1</b> — <span style='color:#b00020'>%2; fix the file or use Edit "
             "study…</span>")
              .arg(shown_->specName().toHtmlEscaped(), countedProblems(problems_.size()));
      html += QStringLiteral("<ul style='margin:0; color:#b00020'>");
      for (const QString& p : problems_)
        html += QStringLiteral("<li>%1</li>").arg(p.toHtmlEscaped());
      return html + QStringLiteral("</ul>");
    }
    case Mode::Imported:
      return tr("<b>%1</b> — imported results from real hardware (%2 runs; nothing to run)")
                 .arg(importedFrom_.toHtmlEscaped())
                 .arg(data_->runs().size()) +
             QStringLiteral("<br>") + where;
  }
  return {};
}

QString StudyController::progressTitle() const {
  return isRunning() ? progressText(progress_.snapshot()) : QString();
}

}  // namespace paritylab::ui
