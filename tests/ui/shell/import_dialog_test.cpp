// The Import dialog shows what an import would add before anything is written, read as
// `paritylab-cli import` reads it with the same choices: the format told by the header, the runs'
// backends from the rule, the metrics named (a perplexity read as the test loss it gives); a choice
// that reads nothing says why and disables Import; what is stored is the preview shown.
#include "ui/shell/import_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/study/files/import_format.h"
#include "core/study/store/results_store.h"
#include "ui/session/study_controller.h"
#include "ui/shell/main_window.h"

using paritylab::ui::ImportDialog;

namespace {

const QString kLightning =
    QStringLiteral(PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/trackers/lightning");
const QString kLightningPerplexity =
    QStringLiteral(PARITYLAB_SOURCE_DIR "/tests/study/files/fixtures/trackers/perplexity");

QStringList column(const QTableWidget* table, int c) {
  QStringList values;
  for (int r = 0; r < table->rowCount(); ++r) values << table->item(r, c)->text();
  return values;
}

}  // namespace

class ImportDialogTest : public QObject {
  Q_OBJECT

 private slots:
  // Lightning logs: the format told by the files, each run's backend from its hparams.yaml, the
  // final accuracies as the CLI's dry run shows them.
  void previewsTheRunsBeforeAnythingIsWritten() {
    ImportDialog dialog(kLightning);
    dialog.settle();
    QVERIFY2(dialog.importButton()->isEnabled(), qPrintable(dialog.summaryLabel()->text()));
    QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("Lightning")),
             qPrintable(dialog.summaryLabel()->text()));
    QCOMPARE(column(dialog.runsTable(), 0),
             (QStringList{"cuda", "cuda", "xla", "xla"}));                       // backend
    QCOMPARE(column(dialog.runsTable(), 2), (QStringList{"3", "3", "3", "3"}));  // epochs
    QCOMPARE(dialog.runsTable()->item(2, 3)->text(), QStringLiteral("60.10%"));
    QCOMPARE(dialog.previewed().runs.size(), std::size_t(4));
  }

  // The rule decides the backends: the run folder's first path part named as the backend.
  void theRuleSaysWhichRunIsWhichBackend() {
    ImportDialog dialog(kLightning);
    dialog.ruleEdit()->setText(QStringLiteral("path:{backend}/lightning_logs/version_{seed}"));
    dialog.settle();
    QVERIFY2(dialog.importButton()->isEnabled(), qPrintable(dialog.summaryLabel()->text()));
    QCOMPARE(column(dialog.runsTable(), 0), (QStringList{"gpu", "gpu", "tpu", "tpu"}));
    QCOMPARE(column(dialog.runsTable(), 1), (QStringList{"0", "1", "0", "1"}));
  }

  // A metric no run logs, a format the files are not, a path that does not exist: said, and
  // nothing can be imported.
  void aChoiceThatReadsNothingSaysWhyAndDisablesImport() {
    ImportDialog dialog(kLightning);
    dialog.accuracyEdit()->setText(QStringLiteral("val_top5"));
    dialog.settle();
    QVERIFY(!dialog.importButton()->isEnabled());
    QVERIFY2(dialog.summaryLabel()->text().startsWith(QStringLiteral("Nothing can be imported")),
             qPrintable(dialog.summaryLabel()->text()));
    QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("val_top5")),
             qPrintable(dialog.summaryLabel()->text()));
    QCOMPARE(dialog.runsTable()->rowCount(), 0);
    dialog.accuracyEdit()->clear();
    dialog.formatBox()->setCurrentIndex(
        dialog.formatBox()->findData(int(paritylab::study::ImportFormat::MlflowRuns)));
    dialog.settle();
    QVERIFY(!dialog.importButton()->isEnabled());
    dialog.formatBox()->setCurrentIndex(0);  // told by the header again
    dialog.pathEdit()->setText(kLightning + QStringLiteral("/no-such-folder"));
    dialog.settle();
    QVERIFY(!dialog.importButton()->isEnabled());
    QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("no-such-folder")),
             qPrintable(dialog.summaryLabel()->text()));
  }

  // A change of choice disables Import until the preview of the new choices is shown: what is
  // stored is always what was shown.
  void importIsDisabledWhileThePreviewIsOfOtherChoices() {
    ImportDialog dialog(kLightning);
    dialog.settle();
    QVERIFY(dialog.importButton()->isEnabled());
    dialog.ruleEdit()->setText(QStringLiteral("path:{backend}/lightning_logs/version_{seed}"));
    QVERIFY(!dialog.importButton()->isEnabled());
    dialog.settle();
    QVERIFY(dialog.importButton()->isEnabled());
  }

  // Per-example predictions found by the pattern come along: the table says which run has a file,
  // the store holds them with the test set; a pattern without labels reads nothing.
  void predictionsComeAlongWithTheirRuns() {
    QTemporaryDir dir;
    const auto write = [&](const QString& name, const QByteArray& text) {
      QDir().mkpath(QFileInfo(dir.filePath(name)).path());
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    };
    write(QStringLiteral("labels.csv"), "index,label\n0,0\n1,1\n2,1\n");
    write(QStringLiteral("gpu/seed0.csv"), "index,predicted\n0,0\n1,1\n2,0\n");
    write(QStringLiteral("tpu/seed1.csv"), "index,predicted\n2,1\n1,1\n0,0\n");
    ImportDialog dialog(kLightning);
    dialog.ruleEdit()->setText(QStringLiteral("path:{backend}/lightning_logs/version_{seed}"));
    dialog.predictionsEdit()->setText(dir.filePath(QStringLiteral("{backend}/seed{seed}.csv")));
    dialog.settle();
    QVERIFY(!dialog.importButton()->isEnabled());
    QVERIFY2(dialog.summaryLabel()->text().contains(QStringLiteral("go together")),
             qPrintable(dialog.summaryLabel()->text()));
    dialog.labelsEdit()->setText(dir.filePath(QStringLiteral("labels.csv")));
    dialog.settle();
    QVERIFY2(dialog.importButton()->isEnabled(), qPrintable(dialog.summaryLabel()->text()));
    QCOMPARE(column(dialog.runsTable(), 5),
             (QStringList{"3 examples", "no file", "no file", "3 examples"}));
    paritylab::ui::MainWindow window;
    const QString db = dir.filePath(QStringLiteral("measured.db"));
    QVERIFY(window.controller()->storeImport(dialog.previewed(), db));
    const auto store = paritylab::study::ResultsStore::openReadOnly(db.toStdString());
    QCOMPARE(store->loadPredictions().size(), std::size_t(2));
    QCOMPARE(store->loadTestSet()->labels, (std::vector<std::int32_t>{0, 1, 1}));
  }

  // A language model's logs of perplexity only: the preview shows the test loss that would be
  // stored, ln(perplexity), and says which tag it is the log of; a perplexity named beside a test
  // loss is refused naming both, and nothing can be imported.
  void perplexityIsPreviewedAsTheTestLossItGives() {
    ImportDialog dialog(kLightningPerplexity);
    dialog.ruleEdit()->setText(QStringLiteral("path:{backend}/lightning_logs/version_{seed}"));
    dialog.settle();
    QVERIFY2(dialog.importButton()->isEnabled(), qPrintable(dialog.summaryLabel()->text()));
    QCOMPARE(dialog.runsTable()->horizontalHeaderItem(3)->text(),
             QStringLiteral("final test loss (ln of val_ppl)"));
    QCOMPARE(dialog.runsTable()->item(0, 6)->text(),
             QStringLiteral("gpu/lightning_logs/version_0"));
    QCOMPARE(dialog.runsTable()->item(0, 3)->text(), QString::number(std::log(24.77), 'g', 5));
    QVERIFY(std::fabs(dialog.previewed().runs[0].run.finalTestLoss - std::log(24.77)) < 1e-12);

    dialog.perplexityEdit()->setText(QStringLiteral("val_ppl"));
    dialog.testLossEdit()->setText(QStringLiteral("val_loss"));
    dialog.settle();
    QVERIFY(!dialog.importButton()->isEnabled());
    QVERIFY2(dialog.summaryLabel()->text().contains(
                 QStringLiteral("--test-loss-tag 'val_loss' and --perplexity-tag 'val_ppl'")),
             qPrintable(dialog.summaryLabel()->text()));
    dialog.testLossEdit()->clear();
    dialog.settle();
    QVERIFY2(dialog.importButton()->isEnabled(), qPrintable(dialog.summaryLabel()->text()));
  }

  // The previewed runs stored by the window's controller: a new database with exactly them.
  void thePreviewIsWhatIsStored() {
    QTemporaryDir dir;
    ImportDialog dialog(kLightning);
    dialog.settle();
    paritylab::ui::MainWindow window;
    const QString db = dir.filePath(QStringLiteral("lightning.db"));
    QVERIFY(window.controller()->storeImport(dialog.previewed(), db));
    const auto store = paritylab::study::ResultsStore::openReadOnly(db.toStdString());
    const auto runs = store->loadRuns();
    QCOMPARE(runs.size(), std::size_t(4));
    for (const auto& r : runs) QCOMPARE(r.source, std::string("imported"));
  }
};

QTEST_MAIN(ImportDialogTest)
#include "import_dialog_test.moc"
