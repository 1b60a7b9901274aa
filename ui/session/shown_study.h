#pragma once
// The one study the window shows, the document every panel observes (as Tiled's Document): its
// runs (RunData), the results database they live in, the spec and what kind of study it is. The
// StudyController changes it; panels take it in their constructor and follow its signals, so the
// window never forwards a database path to a panel by hand. It also holds the metric the study's
// backends are compared on, so the Statistics and Distributions tabs always speak of the same one.

#include <QObject>
#include <QString>
#include <QStringList>

#include "core/study/analysis/compared_metric.h"

namespace paritylab::ui {

class RunData;

class ShownStudy : public QObject {
  Q_OBJECT

 public:
  enum class Mode {
    Empty,        // nothing loaded
    Spec,         // a valid spec, not started: Start asks for a database and runs it
    InvalidSpec,  // a spec with problems: Start disabled until it is fixed (Edit study…)
    Study,        // a study in a database (opened or started): Start/Resume finish it there
    Imported,     // results from real hardware: nothing to run
  };

  explicit ShownStudy(QObject* parent = nullptr);

  RunData* runs() const { return runs_; }  // the runs shown, with their curves
  // The results database the runs are in (read-only for the panels); "" before the first Start of
  // a new spec.
  QString database() const { return database_; }
  QString specJson() const { return specJson_; }  // "" for imported results
  QString specName() const { return specName_; }
  // The spec's chaos-floor backends (docs/chaos-floor.md): shown like any backend, never the
  // default backend a tab examines.
  QStringList chaosFloorBackends() const { return chaosFloor_; }
  // Every backend of the spec, chaos floor included, in the spec's order (none for imported
  // results).
  QStringList specBackends() const { return specBackends_; }
  // The spec trains a language model (its curves include perplexity).
  bool languageModel() const { return languageModel_; }
  // The spec X-rays its products every this many steps (0: no X-ray).
  int xrayEverySteps() const { return xrayEverySteps_; }
  Mode mode() const { return mode_; }
  // The metric compared: the spec's default (accuracy, or a language model's validation loss)
  // whenever another spec is shown, until the user picks another.
  study::ComparedMetric metric() const { return metric_; }

  void setDatabase(const QString& path);
  void setSpec(const QString& json, const QString& name);
  void setMode(Mode mode);
  void setMetric(study::ComparedMetric metric);
  // The study running in this window stored a lockstep comparison (before its runs): the views
  // that show one read the database again.
  void announceLockstepStored() { emit lockstepStored(); }

 signals:
  void databaseChanged(const QString& path);
  void specChanged();
  void modeChanged(paritylab::ui::ShownStudy::Mode mode);
  void metricChanged();
  void lockstepStored();

 private:
  RunData* runs_;
  QString database_, specJson_, specName_;
  QStringList chaosFloor_, specBackends_;
  bool languageModel_ = false;
  int xrayEverySteps_ = 0;
  Mode mode_ = Mode::Empty;
  study::ComparedMetric metric_ = study::ComparedMetric::Accuracy;
};

}  // namespace paritylab::ui
