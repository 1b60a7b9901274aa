#pragma once
// The Statistics tab says when a backend holds identical runs (same curve and final
// accuracy to the last digit): "xla: 2 pairs of identical runs (...); n would be 12 without them".

#include <QStringList>

namespace paritylab::ui {

class RunData;

// One sentence per backend in `backends` whose completed runs include identical ones.
QStringList identicalRunsNotes(const RunData& data, const QStringList& backends);

}  // namespace paritylab::ui
