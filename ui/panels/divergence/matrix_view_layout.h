#pragma once
// The spacing the Divergence tab's painted matrices share (churn, train x serve, class
// differences, the lockstep heatmap), in pixels: so that they line up when shown together.

namespace paritylab::ui {

inline constexpr int kMatrixMargin = 8;  // around the matrix and its labels
inline constexpr int kMatrixGap = 6;     // between the matrix, its labels and its legend

}  // namespace paritylab::ui
