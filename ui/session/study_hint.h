#pragma once
// What an empty chart says before a study starts: "Press Start: 15 runs (3 backends × 5 seeds,
// 3 epochs each)", and on a second line "and the chaos floor's 10 (cpu-fp32 perturbed)" when
// the study has one, from the study spec JSON the main window holds.

#include <QString>

namespace paritylab::ui {

struct StudyHint {
  QString text;    // empty when the spec cannot be read (the chart then shows no hint)
  int epochs = 0;  // the longest run's epochs, for the empty chart's x range
};

StudyHint studyStartHint(const QString& specJson);

}  // namespace paritylab::ui
