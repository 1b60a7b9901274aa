// The line above the runs table says the study as core reads it (its defaults included): a
// sweep's factors and cells, a sequential study's largest number of seeds, the chaos floor; a
// spec core refuses is described from what its JSON says, without invented defaults.
#include "ui/session/spec_description.h"

#include <QtTest>

using namespace paritylab::ui;

class SpecDescriptionTest : public QObject {
  Q_OBJECT

 private slots:
  void saysTheStudyAsCoreReadsIt() {
    QString name;
    const QString plain = describeSpec(
        R"({"version": 1, "name": "quick", "dataset": {"source": "synthetic"}, "model": "mlp",
            "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 5, "epochs": 3})",
        &name);
    QCOMPARE(name, QStringLiteral("quick"));
    QCOMPARE(plain, QStringLiteral("<b>quick</b> — mlp on synthetic · cpu-fp32, tpu-bf16 + the "
                                   "chaos floor of cpu-fp32 · 5 seeds · 3 epochs"));
  }

  void saysASweepAndASequentialDesign() {
    QString name;
    const QString sweep = describeSpec(
        R"({"version": 1, "name": "grid", "dataset": {"source": "synthetic"}, "model": "mlp",
            "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2, "epochs": 1, "chaos_floor": false,
            "sweep": {"lr": [0.1, 0.01], "batch_size": [64, 128, 256]}})",
        &name);
    QCOMPARE(sweep, QStringLiteral("<b>grid</b> — mlp on synthetic · cpu-fp32, tpu-bf16 · a sweep "
                                   "of batch_size, lr (6 cells) · 2 seeds · 1 epoch"));
    const QString sequential = describeSpec(
        R"({"version": 1, "name": "seq", "dataset": {"source": "synthetic"}, "model": "mlp",
            "backends": ["cpu-fp32", "tpu-bf16"], "epochs": 2, "chaos_floor": false,
            "sequential": {"margin": 0.01, "max_seeds": 20, "look_every": 5}})",
        &name);
    QCOMPARE(sequential, QStringLiteral("<b>seq</b> — mlp on synthetic · cpu-fp32, tpu-bf16 · at "
                                        "most 20 seeds, sequential · 2 epochs"));
  }

  void aRefusedSpecIsDescribedFromItsJsonAlone() {
    QString name;
    const QString bad =
        describeSpec(R"({"name": "bad", "model": "mlp", "backends": ["no-such-backend"]})", &name);
    QCOMPARE(bad, QStringLiteral("<b>bad</b> — mlp · no-such-backend"));
  }
};

QTEST_MAIN(SpecDescriptionTest)
#include "spec_description_test.moc"
