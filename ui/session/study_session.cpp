#include "ui/session/study_session.h"

#include <QMetaObject>
#include <QPointer>
#include <exception>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/study/run/run_events.h"
#include "core/study/run/study_runner.h"
#include "core/study/spec/study_spec.h"
#include "core/study/store/results_store.h"
#include "ui/session/core_errors.h"
#include "ui/session/run_data.h"

namespace paritylab::ui {

struct StudySession::Impl {
  std::unique_ptr<study::ResultsStore> store;  // must outlive the runner's work
  std::unique_ptr<study::StudyRunner> runner;
  std::thread driver;  // calls the blocking runner; the runs themselves go to core's thread pool
};

StudySession::StudySession(RunData* data, QObject* parent)
    : QObject(parent), data_(data), impl_(std::make_unique<Impl>()) {}

StudySession::~StudySession() {
  if (impl_->runner) impl_->runner->cancel();
  if (impl_->driver.joinable()) impl_->driver.join();
}

bool StudySession::start(const QString& specJson, const QString& dbPath, bool resume,
                         QString* error) {
  if (running_) {
    if (error) *error = tr("a study is already running");
    return false;
  }
  if (impl_->driver.joinable()) impl_->driver.join();
  study::StudySpec spec;
  try {
    spec = study::parseStudySpec(specJson.toStdString());
    // The dataset opens and the study fits in memory, before the database is created.
    study::validateDataset(spec);
  } catch (const std::exception& e) {
    if (error) *error = ui::errorText(e);
    return false;
  }

  // Worker threads call these; each hops to the GUI thread with a queued call. `this` is the
  // context object, so calls still queued when the session is gone are dropped.
  study::RunnerCallbacks callbacks;
  callbacks.onStep = [this](const study::StepEvent& e) {
    QMetaObject::invokeMethod(
        this, [this, e] { data_->applyStep(e); }, Qt::QueuedConnection);
  };
  callbacks.onEpoch = [this](const study::EpochEvent& e) {
    QMetaObject::invokeMethod(
        this, [this, e] { data_->applyEpoch(e); }, Qt::QueuedConnection);
  };
  callbacks.onSignals = [this](const study::SignalsEvent& e) {
    QMetaObject::invokeMethod(
        this, [this, e] { data_->applySignals(e); }, Qt::QueuedConnection);
  };
  callbacks.onLockstepStored = [this](const std::string& mode) {
    QMetaObject::invokeMethod(
        this, [this, mode] { emit lockstepStored(QString::fromStdString(mode)); },
        Qt::QueuedConnection);
  };
  callbacks.onRunState = [this](const study::RunStateEvent& e) {
    QMetaObject::invokeMethod(
        this, [this, e] { data_->applyState(e); }, Qt::QueuedConnection);
  };
  try {
    impl_->runner.reset();
    impl_->store = study::ResultsStore::open(dbPath.toStdString(), true);
    impl_->runner =
        std::make_unique<study::StudyRunner>(std::move(spec), *impl_->store, std::move(callbacks));
  } catch (const std::exception& e) {
    if (error) *error = ui::errorText(e);
    return false;
  }
  dbPath_ = dbPath;
  running_ = true;
  cancelled_ = false;
  emit runningChanged(true);
  study::StudyRunner* runner = impl_->runner.get();
  impl_->driver = std::thread([this, runner, resume] {
    QString failure;
    try {
      runner->run(resume);
    } catch (const std::exception& e) {
      failure = ui::errorText(e);
    }
    QMetaObject::invokeMethod(
        this, [this, failure] { onFinished(failure); }, Qt::QueuedConnection);
  });
  return true;
}

void StudySession::cancel() {
  if (impl_->runner && running_) {
    cancelled_ = true;
    impl_->runner->cancel();
  }
}

void StudySession::onFinished(const QString& error) {
  if (impl_->driver.joinable()) impl_->driver.join();
  data_->flush();
  running_ = false;
  emit runningChanged(false);
  if (error.isEmpty())
    emit finished(cancelled_);
  else
    emit failed(error);
}

}  // namespace paritylab::ui
