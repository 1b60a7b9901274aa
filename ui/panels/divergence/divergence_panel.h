#pragma once
// The Divergence tab: beyond the mean accuracy, does the precision change the
// model? Backends A and the reference B; the plain-words headline with the McNemar and paired-test
// summary and the report's notes; below, the churn matrix, the per-class differences and the
// per-layer weight divergence (ChurnMatrixView, ClassDifferenceView, WeightDivergenceView).
// The report is computed by an Analysis (study::analyseDivergence on the shown study's results
// database) off the GUI thread (BackgroundRead), at most one at a time: when the shown database
// changes, when runs finish (RunData's batched runFinished) and when A or B changes; the previous
// report stays shown meanwhile.

#include <QTimer>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "core/study/analysis/divergence_analysis.h"
#include "ui/charts/chart_export.h"
#include "ui/session/background_read.h"

class QComboBox;
class QLabel;
class QScrollArea;
class QStackedWidget;
class QTabWidget;

namespace paritylab::ui {

class ChurnMatrixView;
class ClassDifferenceView;
class RunData;
class ShownStudy;
class SamplesView;
class LockstepView;
class ServeMatrixView;
class WeightDivergenceView;

class DivergencePanel : public QWidget, public ChartExports {
  Q_OBJECT

 public:
  // Computes the report of the results database at `dbPath`; called on a worker thread, so it
  // must not touch widgets. A thrown std::exception's message is shown instead of the report.
  using Analysis = std::function<study::DivergenceReport(const QString& dbPath,
                                                         const study::DivergenceOptions&)>;

  // Follows `study`: its database and its runs (null: no study, as in a bare test).
  explicit DivergencePanel(ShownStudy* study, QWidget* parent = nullptr);
  ~DivergencePanel() override;  // waits for a computation in flight

  void setAnalysis(Analysis analysis);          // analyseDatabase unless set
  QString database() const { return dbPath_; }  // the database analysed ("" = none)
  // The Statistics tab's A and B: adopted while the user has not picked a pair in this tab.
  void suggestPair(const QString& a, const QString& b);
  // Where the suggested pair and the alpha come from, asked whenever the database changes (the
  // window passes the Statistics tab's choices).
  struct Suggestion {
    QString a, b;
    double alpha = 0.05;
  };
  void setSuggestion(std::function<Suggestion()> suggestion) {
    suggestion_ = std::move(suggestion);
  }
  void setPair(const QString& a, const QString& b);  // as the user picking them
  bool pairPicked() const { return userPicked_; }    // by the user (setPair), else suggested
  // Back to the suggested (or default) pair, as before the user picked one.
  void unpickPair();
  // McNemar/Holm, per-class Holm and the CIs at this level (MainWindow passes the Statistics
  // tab's); recomputes when it changes.
  void setAlpha(double alpha);
  double alpha() const { return alpha_; }
  QString backendA() const;
  QString backendB() const;
  QStringList backends() const;  // the ones A and B are chosen from

  // Waits for the computation in flight (and a pending one) and shows its result (exports).
  void settle();
  bool busy() const { return analyseSoon_.isActive() || reader_.busy(); }
  int analysesStarted() const { return reader_.started(); }
  // The report shown (its own a and b), and the alpha it was computed at.
  const study::DivergenceReport& report() const { return report_; }
  bool hasReport() const { return hasReport_; }
  // Without a report: why (no predictions stored, one backend, no database), in words.
  QString messageText() const;
  QString analysisError() const { return error_; }  // the analysis failed: why, else ""
  QString summaryText() const;                      // the headline area as plain text
  QString errorText() const { return error_; }

  ChurnMatrixView* churnView() const { return churn_; }
  ClassDifferenceView* classView() const { return classes_; }
  WeightDivergenceView* weightView() const { return weights_; }
  SamplesView* samplesView() const { return samples_; }
  ServeMatrixView* serveView() const { return serving_; }
  LockstepView* lockstepView() const { return lockstep_; }
  QTabWidget* charts() const { return charts_; }
  // The charts with something to show (divergence-churn, -classes, -weights), and the one on
  // screen when it is one of them.
  std::vector<Exportable> exportables() const override;
  std::optional<Exportable> currentExportable() const override;

 public slots:
  void recompute();

 signals:
  void reportShown();  // a computed report (or its error) is on screen

 private:
  struct Analysed {
    QString path;  // the database it was computed for
    study::DivergenceReport report;
    QString error;  // the analysis failed: why
  };
  // The shown study's database changed, or its runs were replaced: the backends are refilled at
  // once, the analysis starts when control returns to the event loop (opening a database does
  // both, and announces every run as finished too: one analysis for all of it).
  void followStudy(const QString& dbPath);
  bool refillBackends();  // true when the backends changed
  void applyDefaultPair();
  void takeResult(const Analysed& analysed);
  void showReport(const study::DivergenceReport& report);
  void showMessage(const QString& text);
  // The per-group tab says what its groups are: classes, or a language model's token bands.
  void nameGroupingTab(bool tokenBands);

  ShownStudy* shown_;  // null: no study followed (a tab fed by hand)
  RunData* data_;
  Analysis analysis_;
  std::function<Suggestion()> suggestion_;
  QString dbPath_;
  double alpha_ = 0.05;
  QString suggestedA_, suggestedB_;
  bool userPicked_ = false;

  QComboBox* aBox_;
  QComboBox* bBox_;
  QLabel* status_;
  QLabel* summary_;
  QStackedWidget* stack_;
  QLabel* message_;
  QTabWidget* charts_;
  ChurnMatrixView* churn_;
  ClassDifferenceView* classes_;
  QScrollArea* classScroll_;  // the page holding classes_
  WeightDivergenceView* weights_;
  SamplesView* samples_;
  ServeMatrixView* serving_;
  LockstepView* lockstep_;
  QScrollArea* servingScroll_ = nullptr;  // the Train × serve tab

  BackgroundRead<Analysed> reader_;  // the analysis in flight, and the next one asked for
  QTimer analyseSoon_;               // single shot, 0 ms: one analysis for the events of one turn
  study::DivergenceReport report_;
  bool hasReport_ = false;
  QString error_;
};

// The report of the results database at dbPath, opened read-only (study::analyseDivergence): the
// panel's analysis unless a test gives another.
study::DivergenceReport analyseDatabase(const QString& dbPath,
                                        const study::DivergenceOptions& options);

}  // namespace paritylab::ui
