// The runs table's tooltip shows the optimizer steps a run skipped by loss
// scaling, per epoch, with the run's message.
#include <QtTest>

#include "ui/panels/runs/runs_table_model.h"
#include "ui/session/run_data.h"

using namespace paritylab;
using namespace paritylab::ui;

class RunsTooltipTest : public QObject {
  Q_OBJECT

 private slots:
  void showsSkippedStepsPerEpoch() {
    RunData data;
    RunsTableModel model(&data);
    const study::RunKey fp16{1, "gpu-amp-fp16", 0}, fp32{2, "cpu-fp32", 0};
    data.applyEpoch({fp16, 1, 3, 0.9, 0.8, 0.5, 1.0, 2});
    data.applyEpoch({fp16, 2, 3, 0.7, 0.6, 0.6, 1.0, 0});
    data.applyEpoch({fp16, 3, 3, 0.6, 0.5, 0.7, 1.0, 1});
    data.applyEpoch({fp32, 1, 3, 0.9, 0.8, 0.5, 1.0, 0});
    data.flush();
    const QString tip = model.index(0, RunsTableModel::Status).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains("skipped by loss scaling"), qPrintable(tip));
    QVERIFY2(tip.contains(": 3 (epoch 1: 2, epoch 3: 1)"), qPrintable(tip));
    // No skipped step and no message: no tooltip.
    QVERIFY(!model.index(1, RunsTableModel::Status).data(Qt::ToolTipRole).isValid());
    study::RunStateEvent diverged{fp16, study::RunState::Diverged, 3, "loss became NaN/inf"};
    data.applyState(diverged);
    data.flush();
    const QString both = model.index(0, RunsTableModel::Backend).data(Qt::ToolTipRole).toString();
    QVERIFY2(both.startsWith("loss became NaN/inf\n"), qPrintable(both));
    QVERIFY2(both.contains("epoch 1: 2"), qPrintable(both));
  }
};

QTEST_MAIN(RunsTooltipTest)
#include "runs_tooltip_test.moc"
