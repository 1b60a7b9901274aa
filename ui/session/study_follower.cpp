#include "ui/session/study_follower.h"

#include <sys/stat.h>

#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <set>

#include "ui/session/run_data.h"

namespace paritylab::ui {
namespace {

// A full read at least every this many polls even when the files look unchanged (a write within
// the file system's time resolution that kept the sizes).
constexpr int kPollsBetweenForcedReads = 15;

bool sameNumber(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// What the views show of a run changed (the database is the truth for a followed run).
bool differs(const ShownRun& shown, const ShownRun& read) {
  return shown.state != read.state || shown.epoch != read.epoch ||
         shown.epochs.size() != read.epochs.size() || shown.steps.size() != read.steps.size() ||
         !sameNumber(shown.finalAccuracy, read.finalAccuracy) ||
         !sameNumber(shown.finalTestLoss, read.finalTestLoss) || shown.message != read.message ||
         shown.runningElsewhere != read.runningElsewhere || shown.ownerGone != read.ownerGone ||
         shown.totalEpochs != read.totalEpochs;
}

}  // namespace

StudyFollower::StudyFollower(RunData* data, QObject* parent)
    : QObject(parent),
      data_(data),
      reader_([this](const Read* read, const QString&) { apply(*read); }) {
  timer_.setInterval(2000);
  connect(&timer_, &QTimer::timeout, this, [this] { poll(false); });
}

void StudyFollower::follow(const QString& dbPath) {
  if (path_ != dbPath) signature_.clear();
  path_ = dbPath;
  pollsSinceRead_ = 0;
  identity_ = fileIdentity(dbPath);
  missing_ = false;
  updateWriters();
  timer_.start();
}

void StudyFollower::stop() {
  timer_.stop();
  if (runningElsewhere_ != 0 || !writers_.isEmpty()) {
    runningElsewhere_ = 0;
    writers_.clear();
    emit writersChanged();
  }
}

QString StudyFollower::fileSignature() const {
  QString signature;
  for (const QString& file : {path_, path_ + QStringLiteral("-wal")}) {
    const QFileInfo info(file);
    signature += QStringLiteral("%1:%2:%3;")
                     .arg(info.exists())
                     .arg(info.size())
                     .arg(info.lastModified().toMSecsSinceEpoch());
  }
  return signature;
}

quint64 StudyFollower::fileIdentity(const QString& path) {
  struct stat info {};
  if (::stat(QFile::encodeName(path).constData(), &info) != 0) return 0;
  return (static_cast<quint64>(info.st_dev) << 40) ^ static_cast<quint64>(info.st_ino);
}

bool StudyFollower::pollNow(bool force) {
  reader_.settle();  // a read the timer started, perhaps before the files changed
  lastReadChanged_ = false;
  poll(force);
  reader_.settle();
  return lastReadChanged_;
}

void StudyFollower::poll(bool force) {
  if (path_.isEmpty() || reader_.busy()) return;  // a read in flight: the next poll looks again
  const quint64 identity = fileIdentity(path_);
  if (identity == 0) {
    if (!missing_) {
      missing_ = true;
      emit databaseMissing();
    }
    return;
  }
  missing_ = false;
  if (identity != identity_) {
    identity_ = identity;
    emit databaseReplaced(tr("%1 was replaced by another file").arg(QFileInfo(path_).fileName()));
    return;
  }
  const QString signature = fileSignature();
  if (!force && signature == signature_ && ++pollsSinceRead_ < kPollsBetweenForcedReads) return;
  pollsSinceRead_ = 0;
  reader_.start([path = path_, signature] {
    Read read{path, signature, {}, false};
    QString error;
    read.ok = loadDatabase(path, &read.loaded, &error);
    return read;
  });
}

void StudyFollower::apply(const Read& read) {
  lastReadChanged_ = false;
  // Failed (the file is being replaced: retried at the next poll), or read from a database this
  // follower no longer follows.
  if (!read.ok || read.path != path_) return;
  signature_ = read.signature;
  const LoadedStudy& loaded = read.loaded;
  std::set<std::int64_t> stored;
  for (const ShownRun& run : loaded.runs) stored.insert(run.runId);
  int removed = 0;
  for (const ShownRun& shown : data_->runs())
    removed += shown.runId > 0 && !stored.count(shown.runId) ? 1 : 0;
  if (removed > 0) {
    int added = 0;
    for (const ShownRun& run : loaded.runs) added += data_->rowOf(run.runId) < 0 ? 1 : 0;
    emit databaseReplaced(tr("another process removed %1 from %2 and added %3")
                              .arg(removed == 1 ? tr("1 run") : tr("%1 runs").arg(removed),
                                   QFileInfo(path_).fileName())
                              .arg(added));
    return;
  }
  int added = 0, changed = 0;
  for (const ShownRun& run : loaded.runs) {
    const int row = data_->rowOf(run.runId);
    if (row >= 0 && !differs(data_->runs()[std::size_t(row)], run)) continue;
    (row < 0 ? added : changed) += 1;
    data_->upsertRun(run);  // batched: the views redraw on RunData's timer
  }
  updateWriters();
  if (added + changed > 0) emit runsChanged(added, changed);
  lastReadChanged_ = added + changed > 0;
}

void StudyFollower::updateWriters() {
  int elsewhere = 0;
  QStringList writers;
  for (const ShownRun& run : data_->runs()) {
    if (run.state != study::RunState::Running || run.runningElsewhere.isEmpty()) continue;
    ++elsewhere;
    if (!writers.contains(run.runningElsewhere)) writers << run.runningElsewhere;
  }
  if (elsewhere == runningElsewhere_ && writers == writers_) return;
  runningElsewhere_ = elsewhere;
  writers_ = writers;
  emit writersChanged();
}

}  // namespace paritylab::ui
