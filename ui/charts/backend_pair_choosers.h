#pragma once
// The two backend choosers (A and B) of a comparison, shared by the Statistics and Divergence tabs.

#include <QComboBox>
#include <QStringList>
#include <utility>

namespace paritylab::ui {

// Lists `names`, each with its colour swatch, in both choosers, unless they list exactly these
// already; the choosers are as wide as "cpu-fp32", their open lists as the longest name. Their
// signals stay blocked while the lists change; choosing the pair afterwards is the caller's (the
// lists were cleared). Returns whether the lists changed.
bool relistBackendPair(QComboBox& a, QComboBox& b, const QStringList& names);

// The pair shown when nothing else chose one: A = the last backend that is not the reference nor
// one of `notExamined` (the chaos floor's perturbed reference runs), of the reference's sweep cell
// when there is one, B = the reference (study::referenceBackend: "cpu-fp32" when present, else
// cpu-fp32's first cell in a sweep, else the first). With a single backend both are that backend,
// which the tabs show as nothing to compare.
std::pair<QString, QString> defaultBackendPair(const QStringList& backends,
                                               const QStringList& notExamined = {});

}  // namespace paritylab::ui
