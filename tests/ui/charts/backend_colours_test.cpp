// A backend keeps one colour everywhere and in every session. Presets own fixed
// palette entries; any other name a stable hash; the runs table, curves, histogram and statistics
// all use BackendColours, whatever order the runs start in.
#include "ui/charts/backend_colours.h"

#include <QAreaSeries>
#include <QLineSeries>
#include <QTableWidget>
#include <QtTest>

#include "core/backends/precision_policy.h"
#include "ui/panels/curves/curves_panel.h"
#include "ui/panels/distributions/distributions_panel.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/panels/statistics/statistics_panel.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

using namespace paritylab;
using namespace paritylab::ui;

namespace {

void addRun(RunData& data, std::int64_t id, const char* backend, double finalAcc, int epochs) {
  study::RunKey k{id, backend, static_cast<std::uint64_t>(id)};
  for (int e = 1; e <= epochs; ++e)
    data.applyEpoch({k, e, epochs, 1.0 / e, 1.2 / e, finalAcc * e / epochs, 1.0});
  study::RunStateEvent done;
  done.run = k;
  done.state = study::RunState::Completed;
  done.finalAccuracy = finalAcc;
  data.applyState(done);
  data.flush();
}

QColor meanColour(const CurvesPanel& curves, const QString& backend) {
  for (QAbstractSeries* s : curves.chart()->series())
    if (s->name().startsWith(backend + " (N=")) return static_cast<QLineSeries*>(s)->pen().color();
  return {};
}

// The colour at the centre of a decoration icon.
QColor iconColour(const QIcon& icon) {
  const QImage image = icon.pixmap(12, 12).toImage();
  return image.pixelColor(6, 6);
}

}  // namespace

class BackendColoursTest : public QObject {
  Q_OBJECT

 private slots:
 private slots:
  // Presets own fixed palette entries; other names a stable hash (FNV-1a).
  void presetColoursAreFixed() {
    QCOMPARE(BackendColours::of("cpu-fp32"), QColor(0x1f, 0x77, 0xb4));
    QCOMPARE(BackendColours::of("gpu-tf32"), QColor(0xff, 0x7f, 0x0e));
    QCOMPARE(BackendColours::of("tpu-bf16"), QColor(0x2c, 0xa0, 0x2c));
    // Every preset of the project has its own entry.
    QSet<int> used;
    for (const std::string& name : paritylab::backends::presetNames()) {
      QVERIFY2(BackendColours::isPreset(QString::fromStdString(name)), name.c_str());
      used.insert(BackendColours::paletteIndex(QString::fromStdString(name)));
    }
    QCOMPARE(used.size(), int(paritylab::backends::presetNames().size()));
    // Other names: Okabe-Ito entry FNV-1a 32-bit mod 8; "xla" -> 0 (black), "cuda" -> 6
    // (vermillion), computed independently in Python:
    // h = 2166136261; for c in s.encode(): h = ((h ^ c) * 16777619) % 2**32.
    QVERIFY(!BackendColours::isPreset("xla"));
    QCOMPARE(BackendColours::of("xla"), QColor(0, 0, 0));
    QCOMPARE(BackendColours::of("cuda"), QColor(0xd5, 0x5e, 0x00));
    QVERIFY(BackendColours::of("xla") != BackendColours::of("cuda"));
  }

  // In the shown study, backends whose names hash to one Okabe-Ito entry do not share it: the
  // spec's non-preset backends in order take their entry or the next free one. gpt-recipes.json's
  // nvfp4-no-hadamard and nvfp4-head-bf16 both hash to 2 (sky blue; FNV-1a computed in Python as
  // above), fp8-current to 1 and fp8-blockwise to 5.
  void shownStudysBackendsThatHashAlikeTakeDistinctColours() {
    QFile file(QStringLiteral(PARITYLAB_SOURCE_DIR "/resources/studies/gpt-recipes.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(BackendColours::of("nvfp4-head-bf16"), BackendColours::of("nvfp4-no-hadamard"));
    {
      ShownStudy study;
      study.setSpec(QString::fromUtf8(file.readAll()), QStringLiteral("gpt-recipes"));
      BackendColours::follow(&study);
      QCOMPARE(BackendColours::paletteIndex("fp8-current"), 1);
      QCOMPARE(BackendColours::paletteIndex("fp8-blockwise"), 5);
      QCOMPARE(BackendColours::paletteIndex("nvfp4-no-hadamard"), 2);  // first in the spec
      QCOMPARE(BackendColours::paletteIndex("nvfp4-head-bf16"), 3);    // 2 taken: the next
      QCOMPARE(BackendColours::of("nvfp4-head-bf16"), QColor(0x00, 0x9e, 0x73));
      QCOMPARE(BackendColours::of("nvfp4"), QColor(0x84, 0x3c, 0x39));  // presets: as ever
      QCOMPARE(BackendColours::paletteIndex("cuda"), 6);  // not in the study: its hash entry
    }
    // The study is gone: every name its hash entry again.
    QCOMPARE(BackendColours::paletteIndex("nvfp4-head-bf16"), 2);
  }

  // A backend has the same colour whichever order runs start in, in every view.
  void coloursStableAcrossStartOrders() {
    ShownStudy firstStudy, secondStudy;
    RunData& first = *firstStudy.runs();
    RunData& second = *secondStudy.runs();
    addRun(first, 1, "tpu-bf16", 0.80, 3);
    addRun(first, 2, "cpu-fp32", 0.82, 3);
    addRun(second, 1, "cpu-fp32", 0.82, 3);
    addRun(second, 2, "tpu-bf16", 0.80, 3);
    CurvesPanel curvesA(&firstStudy), curvesB(&secondStudy);
    for (const char* b : {"tpu-bf16", "cpu-fp32"}) {
      QCOMPARE(meanColour(curvesA, b), BackendColours::of(b));
      QCOMPARE(meanColour(curvesB, b), BackendColours::of(b));
    }
    // Histogram bars carry the same colours.
    DistributionsPanel dist(&secondStudy);
    for (QAbstractSeries* s : dist.chart()->series())
      if (auto* area = qobject_cast<QAreaSeries*>(s); area && !area->name().isEmpty()) {
        const QString backend = area->name().section(' ', 0, 0);
        QCOMPARE(area->brush().color().rgb(), BackendColours::of(backend).rgb());
      }
    // The runs table shows the colour beside the backend's name.
    RunsTableModel modelA(&first), modelB(&second);
    QCOMPARE(iconColour(
                 modelA.index(0, RunsTableModel::Backend).data(Qt::DecorationRole).value<QIcon>()),
             BackendColours::of("tpu-bf16"));
    QCOMPARE(iconColour(
                 modelB.index(0, RunsTableModel::Backend).data(Qt::DecorationRole).value<QIcon>()),
             BackendColours::of("cpu-fp32"));
    // And the statistics table beside A and B.
    StatisticsPanel stats(&secondStudy);
    stats.setSelection("tpu-bf16", "cpu-fp32");
    QCOMPARE(iconColour(stats.table()->item(0, 0)->icon()), BackendColours::of("tpu-bf16"));
    QCOMPARE(iconColour(stats.table()->item(0, 1)->icon()), BackendColours::of("cpu-fp32"));
  }
};

QTEST_MAIN(BackendColoursTest)
#include "backend_colours_test.moc"
