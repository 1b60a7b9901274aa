// The app follows a study another process writes. A second thread writes
// the results database through its own connection (as `paritylab-cli run` in another process
// would) while the controller follows it: new runs and epochs appear, a run claimed by another
// live owner reads "running elsewhere", Start is disabled with a tooltip saying why, and enabled
// again once nothing runs elsewhere; a run whose process is gone reads "interrupted".
#include <sqlite3.h>

#include <QAction>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <thread>

#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_actions.h"
#include "ui/session/study_controller.h"
#include "ui/session/study_follower.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

const char* kSpec = R"({"version": 1, "name": "followed",
  "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
  "model": "mlp", "epochs": 2, "batch_size": 50,
  "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2, "threads": 1})";

const ShownRun* findRun(const RunData& data, const QString& backend, std::uint64_t seed) {
  for (const ShownRun& run : data.runs())
    if (run.backend == backend && run.seed == seed) return &run;
  return nullptr;
}

QString statusText(RunsTableModel& model, const RunData& data, const ShownRun* run) {
  const int row = data.rowOf(run->runId);
  return model.data(model.index(row, RunsTableModel::Status), Qt::DisplayRole).toString();
}

// Runs `body` on another thread with its own connection to `path`, and waits for it.
template <typename Body>
void writeElsewhere(const QString& path, Body body) {
  std::thread writer([&] {
    auto store = study::ResultsStore::open(path.toStdString());
    body(*store);
  });
  writer.join();
}

}  // namespace

class FollowStudyTest : public QObject {
  Q_OBJECT

 private slots:
  void followsRunsAndEpochsCommittedByAnotherWriter() {
    QTemporaryDir dir;
    const QString path = dir.filePath("followed.db");
    std::int64_t first = 0;
    {
      auto store = study::ResultsStore::open(path.toStdString(), true);
      store->saveStudySpec(study::studySpecToJson(study::parseStudySpec(kSpec)).dump());
      study::RunRecord run;
      run.backend = "cpu-fp32";
      run.seed = 0;
      first = store->ensureRun(run);
    }
    ShownStudy shown;
    RunData& data = *shown.runs();
    data.setBatchInterval(10);
    StudyActions actions;
    StudyController controller(&shown, &actions);
    RunsTableModel model(&data);
    QVERIFY(controller.openDatabase(path));
    controller.follower()->setPollInterval(20);
    QVERIFY(controller.follower()->isFollowing());
    QCOMPARE(data.runs().size(), std::size_t(1));
    QVERIFY(actions.start->isEnabled());  // a pending run, nobody training: Start finishes it

    // Another process (on another host, so alive as far as this one can tell) claims the run,
    // commits an epoch with its steps, and adds a second run.
    writeElsewhere(path, [&](study::ResultsStore& store) {
      QVERIFY(store.claimRun(first, "cluster-node-7:4242"));
      store.addSteps(first, {{2, 1, 0.9, 0.1}, {4, 1, 0.7, 0.1}});
      store.addEpoch(first, {1, 0.8, 0.75, 0.61, 0.5, 0});
      study::RunRecord run;
      run.backend = "tpu-bf16";
      run.seed = 0;
      store.ensureRun(run);
    });
    QTRY_COMPARE(data.runs().size(), std::size_t(2));
    const ShownRun* followed = findRun(data, "cpu-fp32", 0);
    QVERIFY(followed);
    QTRY_COMPARE(followed->epochs.size(), std::size_t(1));
    QCOMPARE(followed->epochs[0].testAccuracy, 0.61);
    QCOMPARE(followed->steps.size(), std::size_t(2));
    QVERIFY(followed->state == study::RunState::Running);
    QCOMPARE(followed->runningElsewhere, QStringLiteral("cluster-node-7:4242"));
    QTRY_COMPARE(statusText(model, data, findRun(data, "cpu-fp32", 0)),
                 QStringLiteral("running elsewhere"));
    QTRY_COMPARE(statusText(model, data, findRun(data, "tpu-bf16", 0)), QStringLiteral("pending"));
    QTRY_VERIFY(!actions.start->isEnabled());
    QVERIFY2(actions.start->toolTip().contains("Another process is writing followed.db: 1 run "
                                               "running elsewhere (cluster-node-7:4242)"),
             qPrintable(actions.start->toolTip()));
    QVERIFY(!actions.resume->isEnabled());
    QVERIFY(controller.headerHtml().contains("Following: 1 run running elsewhere"));

    // It finishes the run; the other one is left "running" by a local process that is gone.
    writeElsewhere(path, [&](study::ResultsStore& store) {
      store.addEpoch(first, {2, 0.5, 0.55, 0.72, 0.5, 0});
      study::RunRecord done;
      done.id = first;
      done.status = study::RunState::Completed;
      done.epochsDone = 2;
      done.finalTrainLoss = 0.5;
      done.finalTestLoss = 0.55;
      done.finalAccuracy = 0.72;
      store.updateRun(done);
      const auto runs = store.loadRuns();
      const std::string self = study::processOwnerId();
      const std::string host = self.substr(0, self.rfind(':') + 1);
      QVERIFY(store.claimRun(runs[1].id, host + "999999999"));  // no such pid
    });
    QTRY_VERIFY(findRun(data, "cpu-fp32", 0)->state == study::RunState::Completed);
    QCOMPARE(findRun(data, "cpu-fp32", 0)->finalAccuracy, 0.72);
    QCOMPARE(findRun(data, "cpu-fp32", 0)->epochs.size(), std::size_t(2));
    QTRY_COMPARE(statusText(model, data, findRun(data, "tpu-bf16", 0)),
                 QStringLiteral("interrupted"));
    QVERIFY(findRun(data, "tpu-bf16", 0)->state == study::RunState::Cancelled);  // out of means
    QTRY_VERIFY(actions.start->isEnabled());  // nothing runs elsewhere: Start redoes the rest
    QCOMPARE(controller.follower()->runningElsewhere(), 0);
  }

  void aStudyOpenedWithoutWritersShowsNoFollowingLine() {
    QTemporaryDir dir;
    const QString path = dir.filePath("quiet.db");
    {
      auto store = study::ResultsStore::open(path.toStdString(), true);
      store->saveStudySpec(study::studySpecToJson(study::parseStudySpec(kSpec)).dump());
    }
    ShownStudy shown;
    StudyActions actions;
    StudyController controller(&shown, &actions);
    QVERIFY(controller.openDatabase(path));
    QVERIFY(!controller.follower()->pollNow(true));  // nothing changed
    QVERIFY(!controller.headerHtml().contains("Following"));
    // Loading a spec stops following the database.
    controller.loadSpecText(kSpec, "spec.json");
    QVERIFY(!controller.follower()->isFollowing());
  }

  // The followed file is replaced by another study, loses runs, or disappears: the window says
  // which, in words, and shows what the file now holds (never the old study's header over new
  // runs, never "runs added" when runs were removed).
  void followerNoticesAReplacedFileRemovedRunsAndAMissingFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath("followed.db");
    const auto makeStudy = [](const QString& file, const char* name, int runs) {
      QFile::remove(file);
      auto store = study::ResultsStore::open(file.toStdString(), true);
      std::string spec = kSpec;
      spec.replace(spec.find("followed"), 8, name);
      store->saveStudySpec(study::studySpecToJson(study::parseStudySpec(spec)).dump());
      for (int i = 0; i < runs; ++i) {
        study::RunRecord run;
        run.backend = i % 2 ? "tpu-bf16" : "cpu-fp32";
        run.seed = static_cast<std::uint64_t>(i / 2);
        run.status = study::RunState::Completed;
        run.finalAccuracy = 0.5;
        run.epochsDone = 2;
        store->addRun(run);
      }
    };
    makeStudy(path, "followed", 4);
    ShownStudy shown;
    RunData& data = *shown.runs();
    StudyActions actions;
    StudyController controller(&shown, &actions);
    QStringList messages, errors;
    connect(&controller, &StudyController::statusMessage, this,
            [&messages](const QString& text) { messages << text; });
    connect(&controller, &StudyController::errorOccurred, this,
            [&errors](const QString& what, const QString&) { errors << what; });
    QVERIFY(controller.openDatabase(path));
    QCOMPARE(data.runs().size(), std::size_t(4));

    // Another file put in its place (another study, 2 runs).
    const QString other = dir.filePath("other.db");
    makeStudy(other, "replacement", 2);
    QVERIFY(QFile::remove(path));
    QVERIFY(QFile::rename(other, path));
    controller.follower()->pollNow(true);
    QCOMPARE(data.runs().size(), std::size_t(2));
    QVERIFY2(controller.headerHtml().contains("replacement"), qPrintable(controller.headerHtml()));
    QVERIFY2(messages.last().contains("replaced"), qPrintable(messages.last()));

    // Runs removed by another process: said as removed, and the runs shown follow.
    {
      sqlite3* db = nullptr;
      QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
      QCOMPARE(sqlite3_exec(db, "DELETE FROM runs WHERE id = (SELECT MIN(id) FROM runs)", nullptr,
                            nullptr, nullptr),
               SQLITE_OK);
      sqlite3_close(db);
    }
    controller.follower()->pollNow(true);
    QCOMPARE(data.runs().size(), std::size_t(1));
    QVERIFY2(messages.last().contains("removed 1 run"), qPrintable(messages.last()));

    // The file gone: said once.
    QVERIFY(QFile::remove(path));
    controller.follower()->pollNow(true);
    controller.follower()->pollNow(true);
    QCOMPARE(errors.count(QStringLiteral("followed.db is gone")), 1);
    QCOMPARE(data.runs().size(), std::size_t(1));  // what it held, still shown
  }
};

QTEST_MAIN(FollowStudyTest)
#include "follow_study_test.moc"
