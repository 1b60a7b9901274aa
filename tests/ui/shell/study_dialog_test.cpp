// The Study dialog refuses invalid values with the reason, and round-trips a valid spec (the
// quick study) through core/study's parser; its layout and fields.
#include "ui/shell/study_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/data/dataset_kinds.h"
#include "core/nn/training_choices.h"
#include "core/study/spec/study_spec.h"
#include "ui/session/study_time_estimator.h"

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
  // Selecting a backend (short or long description) does not reflow the form.
  // The whole form (backends and sweep as tabs, the study's size, the problems) fits a 700-pixel
  // screen with its title bar.
  void fitsA700PixelScreen() {
    StudyDialog dialog(quickSpec());
    dialog.sweepEdit(QStringLiteral("lr"))->setText(QStringLiteral("0.1, 0.01"));
    QVERIFY2(dialog.minimumSizeHint().height() <= 660,
             qPrintable(QString::number(dialog.minimumSizeHint().height())));
    QVERIFY(dialog.minimumSizeHint().width() <= 1000);
  }

  void selectingABackendKeepsTheLayout() {
    StudyDialog dialog(quickSpec());
    dialog.resize(980, 600);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const QRect epochs = dialog.epochsBox()->geometry();
    const QRect lr = dialog.lrBox()->geometry();
    QListWidget* list = dialog.backendList();
    for (int row = 0; row < list->count(); ++row) {
      list->setCurrentRow(row);
      QCoreApplication::processEvents();
      QCOMPARE(dialog.epochsBox()->geometry(), epochs);
      QCOMPARE(dialog.lrBox()->geometry(), lr);
    }
  }

  // Optimizer- and schedule-specific fields are enabled only when they apply;
  // "1 epoch" in the singular.
  void fieldsFollowTheOptimizerAndSchedule() {
    StudyDialog dialog(quickSpec());
    dialog.optimizerBox()->setCurrentIndex(dialog.optimizerBox()->findData("adamw"));
    QVERIFY(!dialog.momentumBox()->isEnabled());
    dialog.optimizerBox()->setCurrentIndex(dialog.optimizerBox()->findData("sgd"));
    QVERIFY(dialog.momentumBox()->isEnabled());
    dialog.scheduleBox()->setCurrentIndex(dialog.scheduleBox()->findData("constant"));
    QVERIFY(!dialog.stepEpochsBox()->isEnabled());
    QVERIFY(!dialog.gammaBox()->isEnabled());
    dialog.scheduleBox()->setCurrentIndex(dialog.scheduleBox()->findData("step"));
    QVERIFY(dialog.stepEpochsBox()->isEnabled());
    QVERIFY(dialog.gammaBox()->isEnabled());
    dialog.epochsBox()->setValue(1);
    QCOMPARE(dialog.epochsBox()->text(), QStringLiteral("1 epoch"));
    dialog.epochsBox()->setValue(3);
    QCOMPARE(dialog.epochsBox()->text(), QStringLiteral("3 epochs"));
  }

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

  void keepsTheLanguageModelsShapeAndSteps() {
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    StudyDialog dialog(QString::fromUtf8(file.readAll()));
    QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
    const paritylab::study::StudySpec spec =
        paritylab::study::parseStudySpec(dialog.specJson().toStdString());
    QCOMPARE(spec.train.model, std::string("gpt"));
    QVERIFY(spec.train.gpt == (paritylab::nn::GptShape{4, 4, 128, 64, true}));
    QCOMPARE(spec.train.steps, std::int64_t(400));
    QCOMPARE(spec.train.schedule.warmupSteps, std::int64_t(40));  // kept though not shown
    QCOMPARE(spec.dataset.source, std::string("text:/usr/share/games/fortunes/songs-poems"));
    // A run counted in steps has no epochs to set; a text is not subset.
    QVERIFY(!dialog.epochsBox()->isEnabled());
  }

  // An evaluation batch left at its model's default follows a switch of model: a thousand images,
  // but as many windows as the language model trains on; one the user set stays.
  void evaluationBatchFollowsTheModelUnlessSet() {
    StudyDialog dialog(quickSpec());
    QComboBox* model = nullptr;
    for (QComboBox* box : dialog.findChildren<QComboBox*>())
      if (box->findData(QStringLiteral("gpt")) >= 0) model = box;
    QVERIFY(model);
    // Read as written (a language model with an image dataset is not a valid study yet).
    const auto field = [](const StudyDialog& d, const char* name) {
      return nlohmann::json::parse(d.specJson().toStdString()).value(name, 0);
    };
    const auto evalBatch = [&] { return field(dialog, "eval_batch_size"); };
    const int batch = field(dialog, "batch_size");
    QCOMPARE(evalBatch(), 1000);
    model->setCurrentIndex(model->findData(QStringLiteral("gpt")));
    QCOMPARE(evalBatch(), batch);
    model->setCurrentIndex(model->findData(QStringLiteral("mlp")));
    QCOMPARE(evalBatch(), 1000);
    StudyDialog set(QString(quickSpec())
                        .replace(QStringLiteral("\"name\""),
                                 QStringLiteral("\"eval_batch_size\": 250, \"name\"")));
    for (QComboBox* box : set.findChildren<QComboBox*>())
      if (box->findData(QStringLiteral("gpt")) >= 0)
        box->setCurrentIndex(box->findData(QStringLiteral("gpt")));
    QCOMPARE(field(set, "eval_batch_size"), 250);
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
    // 100k levels of nesting are refused before anything recurses over them.
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

  // The choices are core's lists, in their order; the folder field is editable exactly for the
  // dataset kinds that need a folder.
  void offersCoreChoicesAndItsFolderRule() {
    StudyDialog dialog(quickSpec());
    QComboBox* datasets = dialog.datasetBox();
    QCOMPARE(datasets->count(), int(paritylab::data::kDatasetKinds.size()));
    for (int i = 0; i < datasets->count(); ++i) {
      const paritylab::data::DatasetKind& kind = paritylab::data::kDatasetKinds[std::size_t(i)];
      QCOMPARE(datasets->itemData(i).toString(), QString::fromUtf8(kind.name));
      QCOMPARE(datasets->itemText(i), QString::fromUtf8(kind.label));
      datasets->setCurrentIndex(i);
      QCOMPARE(dialog.datasetDirEdit()->isEnabled(),
               kind.folder == paritylab::data::DatasetFolder::Required);
    }
    const auto namesOf = [](const QComboBox* box) {
      QStringList names;
      for (int i = 0; i < box->count(); ++i) names << box->itemData(i).toString();
      return names.join(", ").toStdString();
    };
    QCOMPARE(namesOf(dialog.optimizerBox()),
             paritylab::nn::joinedNames(paritylab::nn::kOptimizerKinds));
    QCOMPARE(namesOf(dialog.scheduleBox()),
             paritylab::nn::joinedNames(paritylab::nn::kScheduleKinds));
  }

  // A sweep is built from values per hyperparameter: written to the spec as core reads it, read
  // back into the same fields, and its grid said at once ("4 cells x 3 backends").
  void buildsASweepAndSaysItsGrid() {
    StudyDialog dialog(quickSpec());
    dialog.sweepEdit(QStringLiteral("weight_decay"))->setText(QStringLiteral("5e-4, 1.25e-4"));
    dialog.sweepEdit(QStringLiteral("batch_size"))->setText(QStringLiteral("64 512"));
    QString reason;
    QVERIFY2(dialog.validate(&reason), qPrintable(reason));
    const paritylab::study::StudySpec spec =
        paritylab::study::parseStudySpec(dialog.specJson().toStdString());
    QCOMPARE(spec.sweep.size(), std::size_t(2));
    QCOMPARE(spec.sweep[0].field, std::string("batch_size"));
    QVERIFY(spec.sweep[0].values == (std::vector<nlohmann::json>{64, 512}));
    QCOMPARE(spec.sweep[1].field, std::string("weight_decay"));
    QVERIFY(spec.sweep[1].values == (std::vector<nlohmann::json>{5e-4, 1.25e-4}));
    const int backends =
        int(paritylab::study::parseStudySpec(quickSpec().toStdString()).backends.size()) -
        2;  // the chaos floor's two entries
    const QString size = dialog.sizeLabel()->text();
    QVERIFY2(size.startsWith(QStringLiteral("%1 runs (4 cells x %2 backends x ")
                                 .arg(4 * backends * int(spec.seeds.size()))
                                 .arg(backends)),
             qPrintable(size));
    QCOMPARE(dialog.bottomTabs()->tabText(1), QStringLiteral("Sweep (2 factors)"));
    StudyDialog again(dialog.specJson());
    QCOMPARE(again.sweepEdit(QStringLiteral("weight_decay"))->text(),
             QStringLiteral("0.0005, 0.000125"));
    QCOMPARE(again.specJson(), dialog.specJson());
    // Cleared: no sweep.
    dialog.sweepEdit(QStringLiteral("weight_decay"))->clear();
    dialog.sweepEdit(QStringLiteral("batch_size"))->clear();
    QVERIFY(paritylab::study::parseStudySpec(dialog.specJson().toStdString()).sweep.empty());
  }

  // A spec's sweep of a backend field ("policy.replicas") is not a form field: the Sweep tab shows
  // it and counts it, and the spec the dialog writes keeps it beside the form's own factors.
  void keepsASweptPolicyFieldItDoesNotEdit() {
    nlohmann::json j = nlohmann::json::parse(quickSpec().toStdString());
    j["sweep"] = {{"policy.replicas", {1, 8}}};
    StudyDialog dialog(QString::fromStdString(j.dump()));
    QVERIFY(!dialog.policySweepLabel()->isHidden());
    QVERIFY2(dialog.policySweepLabel()->text().contains(QStringLiteral("policy.replicas = 1, 8")),
             qPrintable(dialog.policySweepLabel()->text()));
    QCOMPARE(dialog.bottomTabs()->tabText(1), QStringLiteral("Sweep (1 factor)"));
    dialog.sweepEdit(QStringLiteral("lr"))->setText(QStringLiteral("0.1, 0.01"));
    QString reason;
    QVERIFY2(dialog.validate(&reason), qPrintable(reason));
    const paritylab::study::StudySpec spec =
        paritylab::study::parseStudySpec(dialog.specJson().toStdString());
    QCOMPARE(spec.sweep.size(), std::size_t(2));
    QCOMPARE(spec.sweep[0].field, std::string("lr"));
    QCOMPARE(spec.sweep[1].field, std::string("policy.replicas"));
    QVERIFY(spec.sweep[1].values == (std::vector<nlohmann::json>{1, 8}));
    QCOMPARE(dialog.bottomTabs()->tabText(1), QStringLiteral("Sweep (2 factors)"));
    // A spec without one hides the line again.
    StudyDialog plain(quickSpec());
    QVERIFY(plain.policySweepLabel()->isHidden());
  }

  // A value that is not a number, or one core refuses (a batch size of 0.5), is named.
  void refusesBadSweepValues() {
    StudyDialog dialog(quickSpec());
    dialog.sweepEdit(QStringLiteral("lr"))->setText(QStringLiteral("0.1, fast"));
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains(QStringLiteral("Sweep lr: \"fast\" is not a number")),
             qPrintable(reason));
    QVERIFY(!dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(dialog.sizeLabel()->text().isEmpty());  // no size for a study that is not valid
    dialog.sweepEdit(QStringLiteral("lr"))->clear();
    dialog.sweepEdit(QStringLiteral("batch_size"))->setText(QStringLiteral("64, 0.5"));
    QVERIFY(!dialog.validate(&reason));
    QVERIFY2(reason.contains(QStringLiteral("sweep.batch_size[1]")), qPrintable(reason));
  }

  // Before Start, the study's time: a few steps of each backend and batch size timed on its own
  // data, scaled to every run's steps.
  void estimatesTheStudysTimeBeforeStart() {
    StudyDialog dialog(QStringLiteral(R"({"version": 1, "name": "timed",
      "dataset": {"source": "synthetic", "train_size": 200, "test_size": 50}, "model": "mlp",
      "epochs": 1, "batch_size": 50, "backends": ["cpu-fp32", "tpu-bf16"], "seeds": 2,
      "chaos_floor": false})"));
    dialog.sweepEdit(QStringLiteral("lr"))->setText(QStringLiteral("0.01, 0.001"));
    dialog.timeEstimator()->settle();
    QCoreApplication::processEvents();
    const QString size = dialog.sizeLabel()->text();
    QVERIFY2(size.startsWith(QStringLiteral("8 runs (2 cells x 2 backends x 2 seeds); about ")),
             qPrintable(size));
    QVERIFY2(
        size.contains(QStringLiteral(" with 2 runs at once (training, evaluation and serving; ")) &&
            size.contains(QStringLiteral("2 steps timed per backend and batch size")),
        qPrintable(size));
  }

  // Several fields wrong at once: every problem is listed, one a line, not only the first.
  void listsEveryProblemAtOnce() {
    StudyDialog dialog(quickSpec());
    dialog.seedsEdit()->setText(QStringLiteral("-3"));
    for (int i = 0; i < dialog.backendList()->count(); ++i)
      dialog.backendList()->item(i)->setCheckState(Qt::Unchecked);
    dialog.epochsBox()->setValue(2);
    dialog.freezeBox()->setValue(2);
    QString reason;
    QVERIFY(!dialog.validate(&reason));
    const QStringList lines = reason.split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY2(reason.contains("Seeds") && reason.contains("Backends") && reason.contains("Freeze"),
             qPrintable(reason));
    QCOMPARE(dialog.errorText(), reason);
  }
};

QTEST_MAIN(StudyDialogTest)
#include "study_dialog_test.moc"
