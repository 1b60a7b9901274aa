// Before a study starts, the empty Curves chart has the study's range and
// says what will appear ("Press Start: 15 runs (3 backends × 5 seeds, 3 epochs each)").
#include "ui/session/study_hint.h"

#include <QFile>
#include <QStandardPaths>
#include <QValueAxis>
#include <QtTest>

#include "ui/charts/chart_hint.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/shell/main_window.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);  // the study examples, linked into the static ui library
}

using namespace paritylab::ui;

class StudyHintTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QStandardPaths::setTestModeEnabled(true);
  }

  void hintFromSpec() {
    QFile quick(":/studies/quick.json");
    QVERIFY(quick.open(QIODevice::ReadOnly));
    const StudyHint hint = studyStartHint(QString::fromUtf8(quick.readAll()));
    QCOMPARE(hint.text,
             QStringLiteral("Press Start: 15 runs (3 backends × 5 seeds, 3 epochs each)\n"
                            "and the chaos floor's 10 (cpu-fp32 perturbed)"));
    QCOMPARE(hint.epochs, 3);
    const StudyHint one = studyStartHint(
        R"({"version": 1, "name": "one", "dataset": {"source": "fashion-mnist"}, "model": "mlp",
            "epochs": 1, "backends": ["cpu-fp32"], "seeds": 1})");
    QCOMPARE(one.text, QStringLiteral("Press Start: 1 run (1 backend × 1 seed, 1 epoch each)"));
    QVERIFY(studyStartHint("{ not json").text.isEmpty());  // no hint rather than a wrong one
  }

  void mainWindowShowsIt() {
    MainWindow window;
    QVERIFY(window.loadStudySpec(":/studies/quick.json"));
    QVERIFY(window.curves()->hint()->isShown());
    QCOMPARE(window.curves()->hint()->text(),
             QStringLiteral("Press Start: 15 runs (3 backends × 5 seeds, 3 epochs each)\n"
                            "and the chaos floor's 10 (cpu-fp32 perturbed)"));
    auto* x = qobject_cast<QValueAxis*>(window.curves()->chart()->axes(Qt::Horizontal).front());
    QVERIFY(x);
    QCOMPARE(x->min(), 0.0);
    QVERIFY(x->max() >= 3.0 && x->max() < 3.2);
  }
};

QTEST_MAIN(StudyHintTest)
#include "study_hint_test.moc"
