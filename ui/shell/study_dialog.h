#pragma once
// The Study dialog: dataset, split and sizes, model, epochs, batch, optimizer, schedule, freeze
// schedule, backends (presets with their descriptions, each adjustable, plus custom policies as
// JSON), per-backend hyperparameter overrides, a sweep (values per hyperparameter, crossed with
// the backends), seeds and threads; the study's size and estimated time as it is written. Invalid
// values are refused in the dialog with the reason (core/study's parser has the last word); specs
// load from and save to JSON files.

#include <QDialog>
#include <string>
#include <utility>
#include <vector>

#include "core/study/spec/study_sweep.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;

namespace paritylab::ui {

class StudyTimeEstimator;

class StudyDialog : public QDialog {
  Q_OBJECT

 public:
  explicit StudyDialog(const QString& specJson, QWidget* parent = nullptr);

  // The spec as the form describes it (valid when validate() is true).
  QString specJson() const;
  // Checks every field and the whole spec with core/study's parser; false with the reason.
  bool validate(QString* reason = nullptr) const;
  bool loadSpec(const QString& json, QString* reason = nullptr);

  // For tests and scripted use.
  QLineEdit* seedsEdit() const { return seeds_; }
  QSpinBox* epochsBox() const { return epochs_; }
  QSpinBox* freezeBox() const { return freeze_; }
  QComboBox* optimizerBox() const { return optimizer_; }
  QDoubleSpinBox* momentumBox() const { return momentum_; }
  QComboBox* scheduleBox() const { return schedule_; }
  QSpinBox* stepEpochsBox() const { return stepEpochs_; }
  QDoubleSpinBox* gammaBox() const { return gamma_; }
  QDoubleSpinBox* lrBox() const { return lr_; }
  QListWidget* backendList() const { return backends_; }
  QPlainTextEdit* backendEditor() const { return backendJson_; }
  QLineEdit* datasetDirEdit() const { return datasetDir_; }
  QComboBox* datasetBox() const { return dataset_; }
  QDialogButtonBox* buttons() const { return buttons_; }
  // The sweep's values of hyperparameter `name` (one of core's kHyperparameterNames).
  QLineEdit* sweepEdit(const QString& name) const;
  // The study's size and, once timed, its time: "24 runs (4 cells x 2 backends x 3 seeds); ...".
  QLabel* sizeLabel() const { return size_; }
  // The spec's swept policy fields, as the Sweep tab shows them (hidden when there are none).
  QLabel* policySweepLabel() const { return policySweepLabel_; }
  StudyTimeEstimator* timeEstimator() const { return estimator_; }
  QTabWidget* bottomTabs() const { return bottomTabs_; }
  QString errorText() const;

 public slots:
  void accept() override;

 private:
  void buildForm();
  void revalidate();
  void setError(const QString& text);
  void updateEnabledFields();
  void onBackendSelected();
  void storeBackendEdit();
  void addCustomBackend();
  void loadFromFile();
  void saveToFile();

  QComboBox* dataset_;
  QLineEdit* datasetDir_;
  QSpinBox* trainSize_;
  QSpinBox* testSize_;
  QComboBox* model_;
  std::string shownModel_;  // the model the fields were last set for
  QSpinBox* width_;
  QSpinBox* nLayer_;  // gpt's shape, on one row
  QSpinBox* nHead_;
  QSpinBox* nEmbd_;
  QSpinBox* blockSize_;
  QSpinBox* epochs_;
  QSpinBox* steps_;
  QSpinBox* batch_;
  QSpinBox* evalBatch_;
  QComboBox* optimizer_;
  QDoubleSpinBox* lr_;
  QDoubleSpinBox* weightDecay_;
  QDoubleSpinBox* momentum_;
  QComboBox* schedule_;
  QDoubleSpinBox* warmup_;
  QSpinBox* stepEpochs_;
  QDoubleSpinBox* gamma_;
  QSpinBox* freeze_;
  QListWidget* backends_;
  QPlainTextEdit* backendDescription_;
  QPlainTextEdit* backendJson_;
  QLineEdit* seeds_;
  QSpinBox* threads_;
  QCheckBox* chaosFloor_;
  QLineEdit* name_;
  QTabWidget* bottomTabs_;                             // backends | sweep
  std::vector<std::pair<QString, QLineEdit*>> sweep_;  // one per hyperparameter, core's order
  // The spec's factors that are fields of the backends' policies: kept as the spec gives them
  // (the form edits hyperparameters only) and shown in policySweep_.
  std::vector<paritylab::study::SweepFactor> policySweep_;
  QLabel* policySweepLabel_;
  QLabel* size_;
  StudyTimeEstimator* estimator_;
  QLabel* error_;
  QDialogButtonBox* buttons_;
  QString extraJson_;  // spec fields the form does not show, kept as they were
};

}  // namespace paritylab::ui
