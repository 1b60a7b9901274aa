#pragma once
// The two backend choosers (A and B) of a comparison, shared by the Statistics and Divergence tabs.

#include <QComboBox>
#include <QStringList>

namespace paritylab::ui {

// Lists `names`, each with its colour swatch, in both choosers, unless they list exactly these
// already. Their signals stay blocked while the lists change; choosing the pair afterwards is the
// caller's (the lists were cleared). Returns whether the lists changed.
bool relistBackendPair(QComboBox& a, QComboBox& b, const QStringList& names);

}  // namespace paritylab::ui
