// At 1024x700 nothing in the window is clipped (combo boxes, buttons such as
// Reset zoom, the runs table's Final accuracy column, the Formats values, the Statistics labels,
// the Divergence tab's controls),
// and at 2560x1440 the bit-layout diagram scales to the width it has, its rounding label whole.
#include <QAbstractButton>
#include <QComboBox>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ui/panels/divergence/divergence_reports.h"
#include "ui/charts/bit_layout_diagram.h"
#include "ui/panels/divergence/divergence_panel.h"
#include "ui/panels/formats/formats_panel.h"
#include "ui/panels/runs/runs_panel.h"
#include "ui/panels/runs/runs_table_model.h"
#include "ui/panels/statistics/difference_plot.h"
#include "ui/session/run_data.h"
#include "ui/session/study_bridge.h"
#include "ui/shell/main_window.h"
#include "ui/session/shown_study.h"

static void initResources() {
  Q_INIT_RESOURCE(paritylab);  // the study examples, linked into the static ui library
}

using namespace paritylab;
using namespace paritylab::ui;

namespace {

// A few completed runs, so the table's columns hold real values.
void fillRuns(RunData* data) {
  for (std::int64_t id = 1; id <= 6; ++id) {
    study::RunKey k{id, id % 2 ? "tpu-bf16" : "cpu-fp32", static_cast<std::uint64_t>(id)};
    for (int e = 1; e <= 3; ++e) data->applyEpoch({k, e, 3, 0.5 / e, 0.6 / e, 0.8 + 0.01 * e, 1.0});
    study::RunStateEvent done;
    done.run = k;
    done.state = study::RunState::Completed;
    done.finalAccuracy = 0.8123;
    done.wallSeconds = 61.5;
    data->applyState(done);
  }
  data->flush();
}

// Whether `w` is shown whole: not narrower than it needs and not cut by an ancestor.
QString clippedReason(QWidget* w) {
  const int needed = qobject_cast<QLabel*>(w) && static_cast<QLabel*>(w)->wordWrap()
                         ? w->minimumSizeHint().width()
                         : w->sizeHint().width();
  if (w->width() < needed) return QStringLiteral("%1 < %2 wide").arg(w->width()).arg(needed);
  const QRegion visible = w->visibleRegion();
  if (visible.boundingRect().width() < w->width() || visible.boundingRect().height() < w->height())
    return QStringLiteral("only %1x%2 of %3x%4 visible")
        .arg(visible.boundingRect().width())
        .arg(visible.boundingRect().height())
        .arg(w->width())
        .arg(w->height());
  return {};
}

}  // namespace

class LayoutFitTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    initResources();
    QStandardPaths::setTestModeEnabled(true);  // recent files go to a test location
  }

  void nothingClippedAt1024x700_data() {
    QTest::addColumn<bool>("reference");
    QTest::newRow("quick study") << false;
    QTest::newRow("imported reference runs") << true;
  }

  void nothingClippedAt1024x700() {
    QFETCH(bool, reference);
    MainWindow window;
    QVERIFY(window.loadStudySpec(":/studies/quick.json"));
    QTemporaryDir dir;
    QString error;
    if (reference) {
      const QString db = dir.filePath("reference.db");
      QVERIFY2(
          importResults(QStringLiteral(PARITYLAB_REFERENCE_DIR) + "/torchprime-resnet18-metrics.csv",
                    db, &error),
          qPrintable(error));
      QVERIFY(window.openDatabase(db));
    } else {
      fillRuns(window.runData());
    }
    // The Divergence tab with a hand-made report as the analysis would give it:
    // three backends with every part, or imported runs with none.
    window.divergence()->setAnalysis([reference](const QString&, const study::DivergenceOptions&) {
      return reference ? testing::importedReport() : testing::threeBackendReport();
    });
    window.shownStudy()->setDatabase("layout.db");
    window.divergence()->settle();
    QVERIFY(window.divergence()->hasReport());
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.width(), 1024);
    QCOMPARE(window.height(), 700);
    QVERIFY2(window.centralWidget()->width() <= 1024,
             qPrintable(QStringLiteral("the window's content is %1 wide")
                            .arg(window.centralWidget()->width())));
    QTabWidget* tabs = window.tabs();
    for (int t = 0; t < tabs->count(); ++t) {
      tabs->setCurrentIndex(t);
      QCoreApplication::processEvents();
      QWidget* page = tabs->widget(t);
      for (QWidget* w : page->findChildren<QWidget*>()) {
        if (!w->isVisible()) continue;
        // Widgets inside a scroll area may scroll; everything else must fit.
        bool scrolled = false;
        for (QWidget* p = w->parentWidget(); p && p != page; p = p->parentWidget())
          scrolled |= qobject_cast<QAbstractScrollArea*>(p) != nullptr;
        if (scrolled) continue;
        if (!qobject_cast<QComboBox*>(w) && !qobject_cast<QAbstractButton*>(w) &&
            !qobject_cast<QLabel*>(w))
          continue;
        const QString reason = clippedReason(w);
        QVERIFY2(reason.isEmpty(),
                 qPrintable(QStringLiteral("tab %1: %2 '%3': %4")
                                .arg(tabs->tabText(t), w->metaObject()->className(),
                                     w->property("text").toString(), reason)));
      }
    }
    // The runs table shows its Final accuracy column whole, without scrolling.
    auto* table = window.runs()->findChild<QTableView*>();
    QVERIFY(table);
    const int right = table->columnViewportPosition(RunsTableModel::FinalMetric) +
                      table->columnWidth(RunsTableModel::FinalMetric);
    QVERIFY2(right <= table->viewport()->width(),
             qPrintable(QStringLiteral("Final accuracy ends at %1 of %2")
                            .arg(right)
                            .arg(table->viewport()->width())));
    // The Formats tab shows each row's stored value and figures whole: the diagram's compact
    // layout fits the width it has, without a horizontal scroll bar.
    tabs->setCurrentWidget(window.formats());
    QCoreApplication::processEvents();
    BitLayoutDiagram* diagram = window.formats()->diagram();
    auto* scroll = window.formats()->findChild<QScrollArea*>();
    QVERIFY(scroll);
    QVERIFY(diagram->compact());
    QVERIFY2(diagram->minimumSizeHint().width() <= scroll->viewport()->width(),
             qPrintable(QStringLiteral("diagram needs %1, has %2")
                            .arg(diagram->minimumSizeHint().width())
                            .arg(scroll->viewport()->width())));
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
  }

  // Between the narrowest and the wide layout (a 1600-pixel window's Formats tab), the
  // stacked layout keeps full-size bits rather than the narrowest ones.
  void diagramMediumWidthKeepsFullBits() {
    BitLayoutDiagram diagram;
    diagram.resize(900, 700);
    QVERIFY(diagram.compact());
    QCOMPARE(diagram.bitRect(0, 0).width(), 20);
    diagram.resize(diagram.minimumSizeHint());
    QCOMPARE(diagram.bitRect(0, 0).width(), 10);
  }

  // The difference plot's title wraps instead of running off both sides.
  void differenceTitleWraps() {
    DifferencePlot plot;
    plot.setRows({{"xla − cuda", "p = 0.21 · no significant difference", 0.42, -0.2, 1.03, -0.09,
                   0.92, false, true}},
                 1.0, 0.05, "Welch t-test: difference of means");
    plot.resize(460, plot.heightForWidth(460));
    const QImage image = plot.grab().toImage().convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < 30; ++y)
      for (int x : {0, 1, image.width() - 2, image.width() - 1})
        QVERIFY2(qGray(image.pixel(x, y)) > 200,
                 qPrintable(QStringLiteral("ink at the edge, %1,%2").arg(x).arg(y)));
    QVERIFY(plot.heightForWidth(460) > plot.heightForWidth(1400));  // two lines, not one
  }

  void diagramScalesAt2560x1440() {
    MainWindow window;
    window.resize(2560, 1440);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.formats());
    QCoreApplication::processEvents();
    BitLayoutDiagram* diagram = window.formats()->diagram();
    auto* scroll = window.formats()->findChild<QScrollArea*>();
    QVERIFY(diagram->scale() > 1.2);
    // It uses the width it has: drawn to within a few percent of the viewport's width.
    const double drawn = diagram->sizeHint().width() * diagram->scale();
    QVERIFY2(
        drawn >= scroll->viewport()->width() * 0.95 ||
            diagram->sizeHint().height() * diagram->scale() >= scroll->viewport()->height() * 0.95,
        qPrintable(
            QStringLiteral("drawn %1 wide in %2").arg(drawn).arg(scroll->viewport()->width())));
    // Bits are hit where they are drawn at that scale.
    int row = -1, bit = -1;
    QVERIFY(diagram->bitAt(diagram->bitRect(2, 5).center(), &row, &bit));
    QCOMPARE(row, 2);
    QCOMPARE(bit, 5);
  }

  // The rounding label and the figures are never cut, whatever the value's length, in
  // the wide layout (exports, wide windows) and the compact one (narrow windows).
  void roundingLabelWhole() {
    BitLayoutDiagram diagram;
    diagram.setValue(-1.2345678901234567e-300);
    diagram.setRounding(numerics::RoundingMode::Stochastic, numerics::OverflowMode::Saturate,
                        numerics::SubnormalMode::Flush);
    QVERIFY(diagram.roundingLabel().contains("stochastic"));
    const auto rightmostInk = [](const QImage& image) {
      int right = -1;
      for (int y = 0; y < image.height(); ++y)
        for (int x = right + 1; x < image.width(); ++x)
          if (qGray(image.pixel(x, y)) < 200) right = x;
      return right;
    };
    QImage wide(diagram.sizeHint(), QImage::Format_RGB32);
    wide.fill(Qt::white);
    {
      QPainter p(&wide);
      diagram.render(p);
    }
    QVERIFY2(
        rightmostInk(wide) < wide.width() - 4,
        qPrintable(QStringLiteral("ink at %1 of %2").arg(rightmostInk(wide)).arg(wide.width())));
    diagram.resize(diagram.minimumSizeHint());
    QVERIFY(diagram.compact());
    const QImage compact = diagram.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY2(
        rightmostInk(compact) < compact.width() - 4,
        qPrintable(
            QStringLiteral("ink at %1 of %2").arg(rightmostInk(compact)).arg(compact.width())));
    // Every row's text is in the compact layout too (the stored value beneath the bits).
    QVERIFY(diagram.minimumSizeHint().width() < diagram.sizeHint().width());
  }

  // Long backend names (the underflow study's fp16-no-scaling, gpu-amp-fp16) and a running study
  // (the Progress column shown) keep the window within a 1024-pixel screen, on every tab.
  void longBackendNamesKeepTheWindowWithin1024() {
    MainWindow window;
    RunData* data = window.runData();
    const char* names[] = {"fp16-no-scaling-long-name", "gpu-amp-fp16", "cpu-fp32"};
    for (std::int64_t id = 1; id <= 6; ++id) {
      study::RunKey k{id, names[id % 3], static_cast<std::uint64_t>(id)};
      data->applyEpoch({k, 1, 3, 0.5, 0.6, 0.8, 1.0});
    }
    data->flush();
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (int t = 0; t < window.tabs()->count(); ++t) {
      window.tabs()->setCurrentIndex(t);
      QCoreApplication::processEvents();
      QVERIFY2(window.minimumSizeHint().width() <= 1024,
               qPrintable(QStringLiteral("%1: needs %2 px")
                              .arg(window.tabs()->tabText(t))
                              .arg(window.minimumSizeHint().width())));
    }
  }
};

QTEST_MAIN(LayoutFitTest)
#include "layout_fit_test.moc"
