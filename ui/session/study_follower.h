#pragma once
// Follows a results database that another process writes (`paritylab --open results.db` while
// `paritylab-cli run`, a shard or an MPI job trains into it): every poll interval (2 s) it looks
// at the database file and its write-ahead log, and when either changed it reads the database
// read-only (SQLite WAL readers see only committed transactions, and never block the writer) and
// brings RunData up to date: new runs are appended, changed runs replaced. RunData batches the
// redraws on its timer, so a busy writer never floods the views.
//
// "Another process is writing" means: some run is `running` in the database under an owner that is
// not this process and not known to be gone (ResultsStore::runningOwners, study::ownerIsGone; an
// owner on another host counts as alive), the same rule by which `run --resume` leaves a run to
// the process that claimed it.

#include <QDateTime>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include "ui/session/background_read.h"
#include "ui/session/study_bridge.h"

namespace paritylab::ui {

class RunData;

class StudyFollower : public QObject {
  Q_OBJECT

 public:
  explicit StudyFollower(RunData* data, QObject* parent = nullptr);

  // Starts polling `dbPath` (the runs in RunData must be the ones read from it); stop() ends it.
  void follow(const QString& dbPath);
  void stop();
  bool isFollowing() const { return timer_.isActive(); }
  QString path() const { return path_; }
  void setPollInterval(int ms) { timer_.setInterval(ms); }  // default 2,000 ms

  // Reads the database now when its files changed since the last read (or `force`) and waits for
  // the read; true when RunData changed. A read that fails (the file is being replaced) is
  // retried at the next poll.
  bool pollNow(bool force = false);

  // As of the last read: the runs running in another live process, and those processes.
  int runningElsewhere() const { return runningElsewhere_; }
  QStringList writers() const { return writers_; }

 signals:
  void writersChanged();  // runningElsewhere() or writers() changed
  void runsChanged(int added, int changed);
  // The file now holds something the shown runs did not come from: it was replaced by another
  // file, or runs were removed from it. `why` says which, in words; the shown runs are left as
  // they were (the owner reopens the database).
  void databaseReplaced(const QString& why);
  void databaseMissing();  // the file is gone (deleted or moved); said once until it is back

 private:
  struct Read {
    QString path, signature;  // what was read, and its files' signature before the read
    LoadedStudy loaded;
    bool ok = false;
  };
  // Looks at the files (cheap, on the GUI thread) and starts a read when they changed.
  void poll(bool force);
  void apply(const Read& read);   // on the GUI thread
  QString fileSignature() const;  // size and time of the database and its -wal file
  static quint64 fileIdentity(const QString& path);  // device and inode; 0 when missing
  void updateWriters();

  RunData* data_;
  QTimer timer_;
  QString path_, signature_;
  int pollsSinceRead_ = 0;
  quint64 identity_ = 0;  // of the file the shown runs were read from
  bool missing_ = false;
  int runningElsewhere_ = 0;
  QStringList writers_;
  bool lastReadChanged_ = false;  // the last read applied changed RunData
  BackgroundRead<Read> reader_;
};

}  // namespace paritylab::ui
