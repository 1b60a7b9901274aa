#include "ui/session/study_progress.h"

#include <cmath>

#include "ui/session/run_data.h"

namespace paritylab::ui {
namespace {

ProgressSnapshot count(const RunData& data) {
  ProgressSnapshot s;
  s.total = static_cast<int>(data.runs().size());
  double sum = 0.0;
  for (const ShownRun& run : data.runs()) {
    s.finished += run.finished() ? 1 : 0;
    sum += run.finished() ? 1.0 : run.progress();
  }
  s.fraction = s.total > 0 ? sum / s.total : 0.0;
  return s;
}

}  // namespace

QString formatDuration(double seconds) {
  const long long total = std::llround(std::max(0.0, seconds));
  const long long h = total / 3600, m = (total / 60) % 60, sec = total % 60;
  if (h > 0) {
    return QStringLiteral("%1:%2:%3")
        .arg(h)
        .arg(m, 2, 10, QLatin1Char('0'))
        .arg(sec, 2, 10, QLatin1Char('0'));
  }
  return QStringLiteral("%1:%2").arg(m).arg(sec, 2, 10, QLatin1Char('0'));
}

QString progressText(const ProgressSnapshot& s) {
  QString runs = QObject::tr("%1/%2 runs").arg(s.finished).arg(s.total);
  if (s.secondsLeft < 0) return runs;
  return QObject::tr("%1, %2 left").arg(runs, formatDuration(s.secondsLeft));
}

void StudyProgress::start() {
  fractionAtStart_ = count(*data_).fraction;
  clock_.start();
  running_ = true;
}

ProgressSnapshot StudyProgress::snapshot(double elapsedSeconds) const {
  ProgressSnapshot s = count(*data_);
  if (elapsedSeconds < 0) elapsedSeconds = clock_.isValid() ? clock_.elapsed() / 1000.0 : 0.0;
  const double done = s.fraction - fractionAtStart_;
  // Extrapolate once there is something to extrapolate from (1% of the study, 2 seconds).
  if (running_ && done > 0.01 && elapsedSeconds >= 2.0)
    s.secondsLeft = elapsedSeconds * (1.0 - s.fraction) / done;
  else if (!running_ && s.total > 0 && s.finished == s.total)
    s.secondsLeft = 0.0;
  return s;
}

}  // namespace paritylab::ui
