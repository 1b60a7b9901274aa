// Covers issue #5: the Study dialog refuses invalid values with the reason, and round-trips a
// valid spec (the quick study) through core/study's parser.
#include "ui/study_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QtTest>

#include "core/study/study_spec.h"

using namespace paritylab::ui;

class StudyDialogTest : public QObject {
  Q_OBJECT

  static QString quickSpec() {
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/quick.json"));
    if (file.open(QIODevice::ReadOnly)) return QString::fromUtf8(file.readAll());
    // Until the example studies exist: a small study written by core's own serializer.
    paritylab::study::StudySpec spec;
    spec.name = "quick";
    spec.dataset.source = "synthetic";
    spec.train.epochs = 2;
    for (const char* name : {"cpu-fp32", "tpu-bf16"}) {
      paritylab::study::BackendEntry entry;
      entry.name = name;
      entry.policy = paritylab::backends::presetPolicy(name);
      entry.policyJson = name;
      spec.backends.push_back(entry);
    }
    spec.seeds = {0, 1, 2};
    return QString::fromStdString(paritylab::study::studySpecToJson(spec).dump(2));
  }

 private slots:
  void acceptsTheQuickStudy() {
    const QString spec = quickSpec();
    QVERIFY2(!spec.isEmpty(), "resources/studies/quick.json is missing");
    StudyDialog dialog(spec);
    QString reason;
    QVERIFY2(dialog.validate(&reason), qPrintable(reason));
    QVERIFY(dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    // What the dialog writes reloads to the same spec.
    StudyDialog again(dialog.specJson());
    QCOMPARE(again.specJson(), dialog.specJson());
  }

  void refusesBadSeeds() {
    StudyDialog dialog(quickSpec());
    dialog.seedsEdit()->setText(QStringLiteral("1, 2, banana"));
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains("Seeds") && reason.contains("banana"), qPrintable(reason));
    QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(dialog.errorText().contains("banana"));
    dialog.seedsEdit()->setText(QStringLiteral("0"));
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains("Seeds"), qPrintable(reason));
  }

  void refusesFreezingEveryEpoch() {
    StudyDialog dialog(quickSpec());
    dialog.epochsBox()->setValue(3);
    dialog.freezeBox()->setValue(3);
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains("Freeze"), qPrintable(reason));
    dialog.freezeBox()->setValue(1);
    QVERIFY2(dialog.validate(&reason), qPrintable(reason));
    // Accepting with a bad value keeps the dialog open and says why.
    dialog.seedsEdit()->setText(QStringLiteral("-3"));
    dialog.accept();
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY(!dialog.errorText().isEmpty());
  }

  void refusesNoBackend() {
    StudyDialog dialog(quickSpec());
    for (int i = 0; i < dialog.backendList()->count(); ++i)
      dialog.backendList()->item(i)->setCheckState(Qt::Unchecked);
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains("Backends"), qPrintable(reason));
  }

  void refusesABadPolicyEdit() {
    StudyDialog dialog(quickSpec());
    dialog.backendList()->setCurrentRow(0);
    const QString name = dialog.backendList()->item(0)->text();
    dialog.backendEditor()->setPlainText(
        QStringLiteral("{\"preset\": \"tpu-bf16\", \"linear\": {\"forward\": {\"operands\": "
                       "{\"format\": \"e9m99\"}}}}"));
    QPushButton* apply = nullptr;
    for (QPushButton* b : dialog.findChildren<QPushButton*>())
      if (b->text() == QStringLiteral("Apply edit")) apply = b;
    QVERIFY(apply);
    apply->click();
    QVERIFY2(dialog.errorText().contains(name), qPrintable(dialog.errorText()));
    dialog.backendEditor()->setPlainText(QStringLiteral("{ not json"));
    apply->click();
    QVERIFY(dialog.errorText().contains("does not parse"));
    // Issue 12.2: 100k levels of nesting are refused before anything recurses over them.
    dialog.backendEditor()->setPlainText(QString(100000, '[') + QString(100000, ']'));
    apply->click();
    QVERIFY2(dialog.errorText().contains("nested deeper than 64 levels"),
             qPrintable(dialog.errorText().left(300)));
  }

  void refusesAMissingDatasetFolder() {
    StudyDialog dialog(quickSpec());
    dialog.datasetBox()->setCurrentIndex(dialog.datasetBox()->findData("cifar10"));
    dialog.datasetDirEdit()->clear();
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains("folder"), qPrintable(reason));
  }
};

QTEST_MAIN(StudyDialogTest)
#include "study_dialog_test.moc"
