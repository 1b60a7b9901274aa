#include "ui/charts/backend_colours.h"

#include <QPainter>
#include <QPixmap>
#include <QPointer>
#include <array>
#include <cstdint>

#include "ui/session/shown_study.h"

namespace paritylab::ui {
namespace {

// Tableau 10 (Tableau's 2016 default), in its own order, then the darkest of each hue group of
// d3's category20b for the presets past ten (the fp8 and block-scaled recipes): dark enough to
// read as lines on white and far from every Tableau 10 entry.
constexpr QRgb kPresetPalette[BackendColours::kPresetPaletteSize] = {
    0x1f77b4,  // 0 blue
    0xff7f0e,  // 1 orange
    0x2ca02c,  // 2 green
    0xd62728,  // 3 red
    0x9467bd,  // 4 purple
    0x8c564b,  // 5 brown
    0xe377c2,  // 6 pink
    0x7f7f7f,  // 7 grey
    0xbcbd22,  // 8 olive
    0x17becf,  // 9 cyan
    0x393b79,  // 10 indigo
    0x637939,  // 11 moss
    0x8c6d31,  // 12 ochre
    0x843c39,  // 13 brick
    0x7b4173,  // 14 plum
};

// Okabe & Ito (2008), "Color Universal Design", in its own order; yellow #f0e442 darkened.
constexpr QRgb kOkabeIto[BackendColours::kHashPaletteSize] = {
    0x000000,  // 0 black
    0xe69f00,  // 1 orange
    0x56b4e9,  // 2 sky blue
    0x009e73,  // 3 bluish green
    0xc4b000,  // 4 yellow, darkened from #f0e442
    0x0072b2,  // 5 blue
    0xd55e00,  // 6 vermillion
    0xcc79a7,  // 7 reddish purple
};

struct PresetEntry {
  const char* name;
  int index;
};
// Every preset of core/backends/presets.cpp; the study's usual trio (cpu-fp32, gpu-tf32,
// tpu-bf16) takes blue, orange and green, the most distinct entries.
constexpr PresetEntry kPresets[] = {
    {"cpu-fp32", 0},  {"gpu-tf32", 1}, {"tpu-bf16", 2},   {"gpu-amp-bf16", 3}, {"gpu-amp-fp16", 4},
    {"pure-bf16", 5}, {"fp8-e4m3", 6}, {"tpu-bf16x3", 9}, {"tpu-bf16x6", 8},   {"fp8-e4m3fnuz", 7},
    {"mxfp8", 10},    {"mxfp6", 11},   {"mxfp4", 12},     {"nvfp4", 13},
};

std::uint32_t fnv1a(const QByteArray& bytes) {
  std::uint32_t h = 2166136261u;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

int hashIndex(const QString& backend) {
  return static_cast<int>(fnv1a(backend.toUtf8()) % BackendColours::kHashPaletteSize);
}

QPointer<const ShownStudy> followed;  // null again once the study is destroyed

}  // namespace

const ShownStudy* BackendColours::follow(const ShownStudy* study) {
  const ShownStudy* before = followed;
  followed = study;
  return before;
}

bool BackendColours::isPreset(const QString& backend) {
  for (const PresetEntry& p : kPresets)
    if (backend == QLatin1String(p.name)) return true;
  return false;
}

int BackendColours::paletteIndex(const QString& backend) {
  for (const PresetEntry& p : kPresets)
    if (backend == QLatin1String(p.name)) return p.index;
  const QStringList inStudy = followed ? followed->specBackends() : QStringList();
  if (!inStudy.contains(backend)) return hashIndex(backend);
  // The spec's non-preset backends in order, each its hash entry or the next one not taken.
  std::array<bool, kHashPaletteSize> taken{};
  int free = kHashPaletteSize;
  for (const QString& name : inStudy) {
    if (isPreset(name)) continue;
    int index = hashIndex(name);
    if (free == 0) {  // every entry taken: they repeat
      taken.fill(false);
      free = kHashPaletteSize;
    }
    while (taken[std::size_t(index)]) index = (index + 1) % kHashPaletteSize;
    taken[std::size_t(index)] = true;
    --free;
    if (name == backend) return index;
  }
  return hashIndex(backend);
}

QColor BackendColours::of(const QString& backend) {
  const int index = paletteIndex(backend);
  return QColor::fromRgb(isPreset(backend) ? kPresetPalette[index] : kOkabeIto[index]);
}

QIcon BackendColours::swatch(const QString& backend, int size) {
  QPixmap pixmap(size, size);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setPen(of(backend).darker(140));
  p.setBrush(of(backend));
  p.drawRect(0, 0, size - 1, size - 1);
  return QIcon(pixmap);
}

}  // namespace paritylab::ui
