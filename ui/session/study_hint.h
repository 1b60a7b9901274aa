#pragma once
// What an empty chart says before a study starts: "Press Start: 15 runs (3 backends × 5 seeds,
// 3 epochs each)", from the study spec JSON the main window holds.

#include <QString>

namespace paritylab::ui {

struct StudyHint {
  QString text;    // empty when the spec cannot be read (the chart then shows no hint)
  int epochs = 0;  // the longest run's epochs, for the empty chart's x range
};

StudyHint studyStartHint(const QString& specJson);

}  // namespace paritylab::ui
