#pragma once
// Owns one core StudyRunner working on the core thread pool and turns its plain callbacks (called
// on worker threads) into queued calls on the GUI thread, where they update RunData (which then
// batches redraws). Destroying the session cancels the study and waits for the workers.

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

namespace paritylab::ui {

class RunData;

class StudySession : public QObject {
  Q_OBJECT

 public:
  explicit StudySession(RunData* data, QObject* parent = nullptr);
  ~StudySession() override;

  // Starts (or, with resume, finishes) the study described by `specJson` into the results
  // database `dbPath`. Returns false with the reason (bad spec field, unwritable database) and
  // starts nothing.
  bool start(const QString& specJson, const QString& dbPath, bool resume, QString* error);
  void cancel();  // every run stops within one step
  bool isRunning() const { return running_; }
  QString databasePath() const { return dbPath_; }

 signals:
  void runningChanged(bool running);
  void finished(bool cancelled);       // the study ended: every run done, or cancel() stopped it
  void failed(const QString& reason);  // the runner stopped with an error
  void lockstepStored(const QString& mode);  // a lockstep comparison of the spec's was stored

 private:
  struct Impl;
  void onFinished(const QString& error);

  RunData* data_;
  std::unique_ptr<Impl> impl_;
  QString dbPath_;
  bool running_ = false;
  bool cancelled_ = false;  // cancel() was called during this session's study
};

}  // namespace paritylab::ui
