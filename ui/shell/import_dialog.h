#pragma once
// File > Import runs…: results measured on real hardware, chosen and previewed before anything is
// written. The path (a results CSV, a tracker's CSV export, a folder of TensorBoard logs or of
// Lightning/W&B/MLflow exports), the format (told by the header unless chosen), the rule that
// says each run's backend and seed (--backend-from), the metrics that hold accuracy, the losses and
// the perplexity (read as the test loss ln(perplexity) when no test loss is), and the accuracy's
// unit: the same choices as `paritylab-cli import`. Every change reads the input
// again off the GUI thread and shows what the import would add: each run's backend, seed, epochs
// and final metric, what was skipped and why, and the notes; Import is enabled only when the
// preview shown is of the choices shown. Optionally each run's per-example predictions, from a
// file pattern and the test set's labels (--predictions, --labels).

#include <QDialog>
#include <QString>
#include <QTimer>
#include <memory>

#include "ui/session/background_read.h"
#include "ui/session/study_bridge.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace paritylab::ui {

class ImportDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ImportDialog(const QString& path = {}, QWidget* parent = nullptr);
  ~ImportDialog() override;

  // The results read for the choices shown (valid once Import is enabled).
  const ResultsImport& previewed() const { return previewed_; }
  ImportChoices choices() const;
  // Waits until the preview of the current choices is shown (tests).
  void settle();

  QLineEdit* pathEdit() const { return path_; }
  QComboBox* formatBox() const { return format_; }
  QLineEdit* ruleEdit() const { return rule_; }
  QLineEdit* accuracyEdit() const { return accuracy_; }
  QLineEdit* testLossEdit() const { return testLoss_; }
  QLineEdit* trainLossEdit() const { return trainLoss_; }
  QLineEdit* perplexityEdit() const { return perplexity_; }
  QComboBox* unitBox() const { return unit_; }
  QLineEdit* predictionsEdit() const { return predictions_; }
  QLineEdit* labelsEdit() const { return labels_; }
  QTableWidget* runsTable() const { return runs_; }
  QLabel* summaryLabel() const { return summary_; }
  QPushButton* importButton() const;

 private:
  struct Read {
    ResultsImport import;
    QString error;
    int generation = 0;
  };
  void choicesChanged();
  void startRead();
  void show(const Read& read);

  QLineEdit* path_;
  QComboBox* format_;
  QLineEdit* rule_;
  QLineEdit *accuracy_, *testLoss_, *trainLoss_, *perplexity_;
  QComboBox* unit_;
  QLineEdit *predictions_, *labels_;
  QLabel* summary_;
  QTableWidget* runs_;
  QLabel* notes_;
  QDialogButtonBox* buttons_;
  QTimer timer_;
  int generation_ = 0;
  ResultsImport previewed_;
  std::unique_ptr<BackgroundRead<Read>> reader_;
};

}  // namespace paritylab::ui
