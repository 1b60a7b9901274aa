// The runs model follows runner events, and redraws are batched (one update signal for many
// events, never one per event); progress per step and the stored step points (below).
#include <QHeaderView>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/store/results_store.h"
#include "ui/panels/runs/runs_panel.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"
#include "ui/session/study_bridge.h"
#include "ui/session/study_progress.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {
study::RunKey key(std::int64_t id, const char* backend, std::uint64_t seed) {
  return {id, backend, seed};
}
}  // namespace

class RunsModelTest : public QObject {
  Q_OBJECT

 private slots:
  void followsRunnerEvents() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setBatchInterval(30);
    RunsTableModel model(&data);
    QCOMPARE(model.rowCount(), 0);

    study::RunStateEvent started{key(1, "tpu-bf16", 7), study::RunState::Running};
    data.applyState(started);
    data.applyState({key(2, "cpu-fp32", 7), study::RunState::Pending});
    // Nothing is announced before the batch timer fires.
    QCOMPARE(model.rowCount(), 0);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QTRY_COMPARE(model.rowCount(), 2);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.index(0, RunsTableModel::Backend).data().toString(), QStringLiteral("tpu-bf16"));
    QCOMPARE(model.index(0, RunsTableModel::Seed).data().toString(), QStringLiteral("7"));

    data.applyStep({key(1, "tpu-bf16", 7), 1, 10, 0.75});
    data.applyEpoch({key(1, "tpu-bf16", 7), 1, 4, 0.7, 0.6, 0.81, 1.5});
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Epoch).data().toString(), QStringLiteral("1/4"));
    QCOMPARE(model.index(0, RunsTableModel::Progress).data(RunsTableModel::ProgressRole).toDouble(),
             0.25);
    // The cell says which loss it shows (a batch's while running).
    QCOMPARE(model.index(0, RunsTableModel::Loss).data().toString(),
             QStringLiteral("0.7500 batch"));

    study::RunStateEvent done{key(1, "tpu-bf16", 7), study::RunState::Completed};
    done.finalAccuracy = 0.8125;
    done.finalTestLoss = 0.61234;
    done.wallSeconds = 12.0;
    data.applyState(done);
    study::RunStateEvent diverged{key(2, "cpu-fp32", 7), study::RunState::Diverged, 3};
    data.applyState(diverged);
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Status).data().toString(), QStringLiteral("completed"));
    // Finished: the last epoch's mean training loss, not the last throttled step's.
    QCOMPARE(model.index(0, RunsTableModel::Loss).data().toString(),
             QStringLiteral("0.7000 epoch"));
    QCOMPARE(model.index(0, RunsTableModel::FinalMetric).data().toString(),
             QStringLiteral("81.25%"));
    QCOMPARE(model.index(0, RunsTableModel::Progress).data(RunsTableModel::ProgressRole).toDouble(),
             1.0);
    QVERIFY(model.index(1, RunsTableModel::Status).data().toString().contains("diverged"));
    // The epoch it diverged in: in the tooltip (the status stays short enough for 1024 pixels).
    QVERIFY(model.index(1, RunsTableModel::Status)
                .data(Qt::ToolTipRole)
                .toString()
                .contains("Diverged in epoch 3"));
    QCOMPARE(data.finalValues("tpu-bf16", study::ComparedMetric::Accuracy),
             std::vector<double>{0.8125});
    QVERIFY(
        data.finalValues("cpu-fp32", study::ComparedMetric::Accuracy).empty());  // diverged: none
    // The column shows the metric the study is compared on, header included.
    model.setMetric(study::ComparedMetric::ValidationLoss);
    QCOMPARE(
        model.headerData(RunsTableModel::FinalMetric, Qt::Horizontal, Qt::DisplayRole).toString(),
        QStringLiteral("Final validation loss"));
    QCOMPARE(model.index(0, RunsTableModel::FinalMetric).data().toString(),
             QStringLiteral("0.6123 nats"));
    QCOMPARE(model.index(0, RunsTableModel::FinalMetric).data(RunsTableModel::SortRole).toDouble(),
             0.61234);
  }

  void batchesUpdates() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.setBatchInterval(50);
    QSignalSpy updated(&data, &RunData::updated);
    for (int i = 0; i < 500; ++i) data.applyStep({key(1, "gpu-tf32", 1), 1, i, 1.0 / (i + 1)});
    QCOMPARE(updated.count(), 0);
    QTRY_COMPARE(updated.count(), 1);
    QTest::qWait(120);
    QCOMPARE(updated.count(), 1);  // 500 events, one redraw
    QCOMPARE(data.runs().front().steps.size(), std::size_t(500));
  }

  // Progress moves per step, the Epoch column shows the epoch in progress, and the
  // window's overall progress has an ETA.
  void progressMovesPerStep() {
    ShownStudy study;
    RunData& data = *study.runs();
    RunsTableModel model(&data);
    data.applyState({key(1, "tpu-bf16", 0), study::RunState::Running});
    data.applyState({key(2, "cpu-fp32", 0), study::RunState::Pending});
    // Step 5 of 20 per epoch, 2 epochs: 5 / 40 done, still in epoch 1.
    data.applyStep({key(1, "tpu-bf16", 0), 1, 5, 0.9, 1e-3, 20, 2});
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Progress).data(RunsTableModel::ProgressRole).toDouble(),
             5.0 / 40.0);
    QCOMPARE(model.index(0, RunsTableModel::Progress).data().toString(), QStringLiteral("13%"));
    QCOMPARE(model.index(0, RunsTableModel::Epoch).data().toString(), QStringLiteral("1/2"));
    data.applyEpoch({key(1, "tpu-bf16", 0), 1, 2, 0.8, 0.7, 0.6, 1.0});
    data.applyStep({key(1, "tpu-bf16", 0), 2, 30, 0.5, 1e-3, 20, 2});
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Epoch).data().toString(), QStringLiteral("2/2"));
    QCOMPARE(model.index(0, RunsTableModel::Progress).data(RunsTableModel::ProgressRole).toDouble(),
             30.0 / 40.0);
    QVERIFY(
        model.index(0, RunsTableModel::Loss).data(Qt::ToolTipRole).toString().contains("step 30"));
    // Overall: (0.75 + 0) / 2 runs; 0.375 done in 30 s since the start leaves 50 s.
    StudyProgress progress(&data);
    ProgressSnapshot before = progress.snapshot(0.0);
    QCOMPARE(before.secondsLeft, -1.0);
    QCOMPARE(progressText(before), QStringLiteral("0/2 runs"));
    data.applyState({key(1, "tpu-bf16", 0), study::RunState::Pending});
    data.applyState({key(1, "tpu-bf16", 0), study::RunState::Running});  // restarted: from 0
    progress.start();
    data.applyStep({key(1, "tpu-bf16", 0), 2, 30, 0.5, 1e-3, 20, 2});
    const ProgressSnapshot s = progress.snapshot(30.0);
    QCOMPARE(s.fraction, 0.375);
    QCOMPARE(s.secondsLeft, 50.0);
    QCOMPARE(progressText(s), QStringLiteral("0/2 runs, 0:50 left"));
    QCOMPARE(formatDuration(3723), QStringLiteral("1:02:03"));
  }

  // A reopened study has the stored step points (loss and learning rate).
  void reopenedStudyHasItsSteps() {
    QTemporaryDir dir;
    const QString db = dir.filePath("steps.db");
    {
      auto store = study::ResultsStore::open(db.toStdString(), true);
      study::RunRecord run;
      run.backend = "cpu-fp32";
      run.status = study::RunState::Completed;
      run.id = store->addRun(run);
      store->addEpoch(run.id, {1, 0.5, 0.5, 0.8, 1.0});
      store->addSteps(run.id, {{2, 1, 0.9, 0.01}, {4, 1, 0.7, 0.005}});
    }
    LoadedStudy loaded;
    QString error;
    QVERIFY2(loadDatabase(db, &loaded, &error), qPrintable(error));
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    const std::vector<StepPoint>& steps = loaded.runs[0].steps;
    QCOMPARE(steps.size(), std::size_t(2));
    QCOMPARE(steps[1].step, std::int64_t(4));
    QCOMPARE(steps[1].loss, 0.7);
    QCOMPARE(steps[1].lr, 0.005);
    QCOMPARE(steps[1].epoch, 1);
  }

  void resumedEpochReplacesTheOldOne() {
    ShownStudy study;
    RunData& data = *study.runs();
    data.applyEpoch({key(1, "a", 1), 1, 3, 1.0, 1.0, 0.5, 1});
    data.applyEpoch({key(1, "a", 1), 2, 3, 0.9, 0.9, 0.6, 1});
    data.applyEpoch({key(1, "a", 1), 2, 3, 0.8, 0.8, 0.7, 1});  // repeated after a resume
    QCOMPARE(data.runs().front().epochs.size(), std::size_t(2));
    QCOMPARE(data.runs().front().epochs.back().testAccuracy, 0.7);
  }

  // Clicking a column sorts the table by it, numbers as numbers (9% before 10% before 85%), and
  // selecting rows names their runs whatever the order.
  void columnsSortNumericallyAndSelectionNamesRuns() {
    ShownStudy study;
    RunData& data = *study.runs();
    RunsPanel panel(&study);
    std::int64_t id = 1;
    for (double acc : {0.85, 0.09, 0.10}) {
      study::RunStateEvent done{{id, "cpu-fp32", static_cast<std::uint64_t>(id)},
                                study::RunState::Completed};
      done.finalAccuracy = acc;
      data.applyState(done);
      ++id;
    }
    data.flush();
    QAbstractItemModel* shown = panel.table()->model();
    QCOMPARE(shown->index(0, RunsTableModel::FinalMetric).data().toString(),
             QStringLiteral("85.00%"));  // the study's order until a column is clicked
    emit panel.table()->horizontalHeader()->sectionClicked(RunsTableModel::FinalMetric);
    QStringList order;
    for (int row = 0; row < 3; ++row)
      order << shown->index(row, RunsTableModel::FinalMetric).data().toString();
    QCOMPARE(order, (QStringList{"9.00%", "10.00%", "85.00%"}));
    emit panel.table()->horizontalHeader()->sectionClicked(RunsTableModel::FinalMetric);
    QCOMPARE(shown->index(0, RunsTableModel::FinalMetric).data().toString(),
             QStringLiteral("85.00%"));  // clicked again: descending
    panel.sortBy(RunsTableModel::FinalMetric);
    QSignalSpy selected(&panel, &RunsPanel::runSelectionChanged);
    panel.table()->selectRow(0);
    QCOMPARE(panel.selectedRuns(), QSet<qint64>{2});
    QVERIFY(!selected.isEmpty());
    panel.setRunsHidden({2}, true);
    QCOMPARE(panel.hiddenRuns(), QSet<qint64>{2});
  }

  // A cancelled run resumed from its start shows the new attempt's time, not the old one's.
  void resumedRunShowsItsOwnAttemptsTime() {
    ShownStudy study;
    RunData& data = *study.runs();
    RunsTableModel model(&data);
    const study::RunKey k{1, "cpu-fp32", 0};
    study::RunStateEvent cancelled{k, study::RunState::Cancelled};
    cancelled.wallSeconds = 42.0;
    data.applyState(cancelled);
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Wall).data().toString(), QStringLiteral("42.0 s"));
    data.applyState({k, study::RunState::Running});
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Wall).data().toString(), QString());
    study::RunStateEvent done{k, study::RunState::Completed};
    done.wallSeconds = 3.5;
    data.applyState(done);
    data.flush();
    QCOMPARE(model.index(0, RunsTableModel::Wall).data().toString(), QStringLiteral("3.5 s"));
  }
};

QTEST_MAIN(RunsModelTest)
#include "runs_model_test.moc"
