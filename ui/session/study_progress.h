#pragma once
// Overall progress of a study for the status bar and the window title:
// "7/15 runs, 0:42 left". The fraction counts every run's steps (ShownRun::progress), so it moves
// per step; the time left extrapolates the progress made since the study (re)started.

#include <QElapsedTimer>
#include <QString>

namespace paritylab::ui {

class RunData;

struct ProgressSnapshot {
  int finished = 0;           // runs completed, diverged, failed or cancelled
  int total = 0;              // runs listed
  double fraction = 0.0;      // mean of the runs' progress, in [0, 1]
  double secondsLeft = -1.0;  // < 0 when not known yet
};

// "0:42", "12:05", "1:02:03" (h:mm:ss from an hour).
QString formatDuration(double seconds);
// "7/15 runs, 0:42 left" (or "7/15 runs" while the time left is unknown).
QString progressText(const ProgressSnapshot& snapshot);

class StudyProgress {
 public:
  explicit StudyProgress(const RunData* data) : data_(data) {}
  void start();  // the study (re)started now; the progress so far is not counted in the rate
  void stop() { running_ = false; }
  bool running() const { return running_; }
  // elapsedSeconds < 0: the time since start().
  ProgressSnapshot snapshot(double elapsedSeconds = -1.0) const;

 private:
  const RunData* data_;
  QElapsedTimer clock_;
  double fractionAtStart_ = 0.0;
  bool running_ = false;
};

}  // namespace paritylab::ui
