#pragma once
// One colour per backend name, the same in every view (runs table, curves, histogram, statistics,
// exports) and in every session, whatever order the runs start in.
//
// The emulated presets (core/backends/presets.cpp) each own a fixed entry: Tableau 10 for the
// first ten, then five dark entries of d3's category20b for the fp8 and block-scaled recipes, so
// no two presets look alike. Any other name (an imported "xla" or "cuda", a custom policy) takes
// the Okabe–Ito colour picked by a 32-bit FNV-1a hash of its UTF-8 bytes: stable across sessions
// and machines. Tableau 10 and Okabe–Ito are colour-blind-friendly; Okabe–Ito's yellow is
// darkened to be visible as a line on white.
//
// Two such names could hash to one entry. Within the study the window shows (follow()), they do
// not while entries are left: its non-preset backends, in the spec's order, each take their hash
// entry or, when a backend before them in the spec took it, the next free one. The spec's order
// is the study's, so a study's colours stay the same in every session; the same name may take
// another entry in another study. Past eight such names the entries repeat; the legend names each
// backend.

#include <QColor>
#include <QIcon>
#include <QString>

namespace paritylab::ui {

class ShownStudy;

class BackendColours {
 public:
  static constexpr int kPresetPaletteSize = 15;  // Tableau 10 and five of d3's category20b
  static constexpr int kHashPaletteSize = 8;     // Okabe–Ito

  // The colour of a backend by name.
  static QColor of(const QString& backend);
  // True when `backend` is an emulated preset with its own fixed palette entry.
  static bool isPreset(const QString& backend);
  // The entry used for `backend`: in the preset palette for a preset, else in Okabe–Ito.
  static int paletteIndex(const QString& backend);
  // The study whose spec's backends take distinct entries among themselves (the window's one shown
  // study; headless charts their own); null: each name its hash entry. Returns the study followed
  // until then (null once it is destroyed), for a caller that follows one only for a while.
  static const ShownStudy* follow(const ShownStudy* study);
  // A small filled square of the backend's colour, for table cells and combo boxes.
  static QIcon swatch(const QString& backend, int size = 12);
};

}  // namespace paritylab::ui
