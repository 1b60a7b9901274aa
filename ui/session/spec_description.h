#pragma once
// One line describing a study spec for the header above the runs table:
// "<b>quick</b> — mlp on fashion-mnist · cpu-fp32, gpu-tf32, tpu-bf16 · 5 seeds · 3 epochs"
// (singular for 1 seed / 1 epoch). Rich text, escaped.

#include <QString>

namespace paritylab::ui {

// `name` receives the study's name ("study" when it has none).
QString describeSpec(const QString& specJson, QString* name);

}  // namespace paritylab::ui
