#pragma once
// Reading off the GUI thread, the ui's one way to read a results database (or any input) without
// freezing the window. start(read) runs `read` on the reader's own worker thread, one read at a
// time; a start() while one runs is kept as the next read (only the newest), so a burst of
// events costs one more read, never one per event. When a read ends, `deliver` gets its value,
// or the text of the error it threw (errorText), on the GUI thread; then the next read starts.
// settle() waits until nothing runs and every result was delivered (exports and tests, which need
// the answer now); waitResponsive() waits the same way while the window keeps repainting.

#include <QEventLoop>
#include <QFutureWatcher>
#include <QPromise>
#include <QString>
#include <QThreadPool>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "ui/session/core_errors.h"

namespace paritylab::ui {

template <typename T>
class BackgroundRead {
 public:
  using Read = std::function<T()>;
  // `value` is null when the read failed; `error` then says why.
  using Deliver = std::function<void(const T* value, const QString& error)>;

  explicit BackgroundRead(Deliver deliver) : deliver_(std::move(deliver)) {
    pool_.setMaxThreadCount(1);
    QObject::connect(&watcher_, &QFutureWatcher<Outcome>::finished, &watcher_, [this] { take(); });
  }
  ~BackgroundRead() { pool_.waitForDone(); }
  BackgroundRead(const BackgroundRead&) = delete;
  BackgroundRead& operator=(const BackgroundRead&) = delete;

  void start(Read read) {
    if (watcher_.isRunning()) {
      next_ = std::move(read);  // once more when the read in flight ends
      return;
    }
    auto promise = std::make_shared<QPromise<Outcome>>();
    promise->start();  // running before the watcher sees it: busy() and settle() rely on it
    watcher_.setFuture(promise->future());
    ++started_;
    pool_.start([promise, read = std::move(read)] {
      Outcome outcome;
      try {
        outcome.value = read();
      } catch (const std::exception& e) {
        outcome.error = errorText(e);
      }
      promise->addResult(std::move(outcome));
      promise->finish();
    });
  }

  void settle() {
    for (;;) {
      watcher_.waitForFinished();  // at once when nothing runs
      take();                      // a finished result not delivered yet (its signal may be queued)
      if (!watcher_.isRunning() && delivered_ == started_ && !next_) return;
    }
  }

  // As settle(), but the GUI thread keeps repainting meanwhile (user input waits): for a read the
  // caller needs before it goes on, such as an import's CSV.
  void waitResponsive() {
    while (busy()) {
      if (watcher_.isRunning()) {
        QEventLoop loop;
        QObject::connect(&watcher_, &QFutureWatcher<Outcome>::finished, &loop, &QEventLoop::quit);
        if (watcher_.isRunning()) loop.exec(QEventLoop::ExcludeUserInputEvents);
      }
      take();
    }
  }

  bool busy() const { return watcher_.isRunning() || next_.has_value() || delivered_ != started_; }
  int started() const { return started_; }

 private:
  struct Outcome {
    std::optional<T> value;
    QString error;
  };

  void take() {
    if (delivered_ == started_ || watcher_.isRunning() || watcher_.future().resultCount() == 0)
      return;
    delivered_ = started_;
    const Outcome outcome = watcher_.result();
    // Delivered even when a newer read waits (a study that keeps finishing runs must still show
    // results); `deliver` drops what no longer fits (another database), then the newer one runs.
    deliver_(outcome.value ? &*outcome.value : nullptr, outcome.error);
    if (next_ && !watcher_.isRunning()) {
      Read read = std::move(*next_);
      next_.reset();
      start(std::move(read));
    }
  }

  Deliver deliver_;
  QThreadPool pool_;
  QFutureWatcher<Outcome> watcher_;
  std::optional<Read> next_;
  int started_ = 0, delivered_ = 0;
};

}  // namespace paritylab::ui
