#pragma once
// What the study being written would cost, said while it is written (the Study dialog): its size
// at once (runs per cell, backend and seed), its time after a pause in the typing, from a few
// training steps of each backend and batch size timed off the GUI thread on the study's own data
// (core/study/run/study_time.h). A newer spec cancels the timing of an older one; the data a
// study reads is loaded once and kept while the dataset stays the same.

#include <QObject>
#include <QString>
#include <QTimer>
#include <atomic>
#include <memory>

#include "ui/session/background_read.h"

namespace paritylab::ui {

class StudyTimeEstimator : public QObject {
  Q_OBJECT

 public:
  explicit StudyTimeEstimator(QObject* parent = nullptr);
  ~StudyTimeEstimator() override;

  // The spec (JSON) the form now describes, already checked by core's parser: sized() at once,
  // estimated() (or failed()) after `delay` of no newer spec.
  void setSpec(const QString& specJson);
  // The form holds no valid study: nothing to estimate (a timing under way is cancelled).
  void clear();
  void setDelay(int milliseconds) { timer_.setInterval(milliseconds); }
  // Waits until the pending estimate was delivered (tests).
  void settle();

 signals:
  void sized(const QString& words);      // "24 runs (4 cells x 2 backends x 3 seeds)"
  void estimated(const QString& words);  // the same with "; about 12 min of training ..."
  void failed(const QString& reason);    // the data could not be read or a run cannot train

 private:
  struct Result {
    QString words;  // the estimate ("" when cancelled)
    QString error;  // why the spec could not be timed (its data, a run that cannot train)
    int generation = 0;
  };
  struct DataCache;
  void startTiming();

  QTimer timer_;
  QString spec_;
  std::shared_ptr<std::atomic<int>> generation_;
  std::shared_ptr<DataCache> data_;  // read and written on the timing thread only
  BackgroundRead<Result> timing_;
};

}  // namespace paritylab::ui
