#include "ui/session/study_hint.h"

#include <QObject>
#include <algorithm>
#include <exception>

#include "core/study/spec/study_spec.h"

namespace paritylab::ui {

StudyHint studyStartHint(const QString& specJson) {
  StudyHint hint;
  try {
    const study::StudySpec spec = study::parseStudySpec(specJson.toStdString());
    const int backends = static_cast<int>(spec.backends.size());
    const int seeds = static_cast<int>(spec.seeds.size());
    hint.epochs = spec.train.epochs;
    for (const study::BackendEntry& b : spec.backends)
      hint.epochs = std::max(hint.epochs, b.overrides.epochs.value_or(0));
    const auto count = [](qint64 n, const char* one, const char* many) {
      return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? QObject::tr(one) : QObject::tr(many));
    };
    // Each run's length: its steps when the study counts steps, else its epochs.
    const QString length = spec.train.steps > 0 ? count(spec.train.steps, "step", "steps")
                                                : count(spec.train.epochs, "epoch", "epochs");
    hint.text =
        QObject::tr("Press Start: %1 (%2 × %3, %4 each)")
            .arg(count(backends * seeds, "run", "runs"), count(backends, "backend", "backends"),
                 count(seeds, "seed", "seeds"), length);
    if (spec.chaosFloor) {
      const int perturbed = static_cast<int>(spec.chaosFloor->perturbations.size());
      const int study = backends - perturbed;
      hint.text =
          QObject::tr("Press Start: %1 (%2 × %3, %4 each)\nand the chaos floor's %5 (%6 perturbed)")
              .arg(count(study * seeds, "run", "runs"), count(study, "backend", "backends"),
                   count(seeds, "seed", "seeds"), length)
              .arg(perturbed * seeds)
              .arg(QString::fromStdString(spec.chaosFloor->reference));
    }
  } catch (const std::exception&) {
    hint = {};
  }
  return hint;
}

}  // namespace paritylab::ui
