// Axis ticks are "nice" numbers (1, 2 or 5 x 10^k, with just the decimals the
// step needs) at every zoom, and log axes span whole decades with several labelled.
#include "ui/charts/nice_ticks.h"

#include <QLogValueAxis>
#include <QValueAxis>
#include <QtTest>
#include <cmath>

using namespace paritylab::ui;

namespace {

bool isNiceStep(double step) {
  const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (std::abs(mantissa - m) < 1e-9) return true;
  return false;
}

}  // namespace

class NiceTicksTest : public QObject {
  Q_OBJECT

 private slots:
  // 1, 2 or 5 x 10^k, the first tick a multiple of the step, just enough decimals.
  void niceTicksByHand() {
    NiceTicks t = niceTicks(3.09126, 7.4, 8);  // span 4.31 / 8 = 0.54 -> 1
    QCOMPARE(t.step, 1.0);
    QCOMPARE(t.first, 4.0);
    QCOMPARE(t.decimals, 0);
    t = niceTicks(82.13, 83.02, 8);  // 0.89 / 8 = 0.111 -> 0.2
    QCOMPARE(t.step, 0.2);
    QVERIFY(std::abs(t.first - 82.2) < 1e-9);
    QCOMPARE(t.decimals, 1);
    t = niceTicks(0, 0.004, 8);  // 0.0005
    QCOMPARE(t.step, 0.0005);
    QCOMPARE(t.decimals, 4);
    t = niceTicks(0, 3, 10, 1.0);  // whole epochs: never below 1
    QCOMPARE(t.step, 1.0);
    t = niceTicks(-0.3, 0.3, 6);  // 0.1; 0 is a tick, not -2.8e-17
    QCOMPARE(t.step, 0.1);
    QVERIFY(std::abs(t.first + 0.3) < 1e-12);
  }

  // An axis keeps nice ticks after every range change (zoom, pan).
  void axisTicksStayNiceWhenZoomed() {
    QValueAxis axis;
    keepTicksNice(&axis, 8);
    for (auto [lo, hi] : {std::pair{0.0, 100.0}, {3.09126, 7.40231}, {81.7, 81.9}, {-5.5, 1e4}}) {
      axis.setRange(lo, hi);
      QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
      QVERIFY2(isNiceStep(axis.tickInterval()), qPrintable(QString::number(axis.tickInterval())));
      const double k = axis.tickAnchor() / axis.tickInterval();
      QVERIFY(std::abs(k - std::round(k)) < 1e-6);
      QVERIFY(axis.tickAnchor() >= lo - 1e-9 && axis.tickAnchor() < lo + axis.tickInterval());
      const int decimals = std::max(0, -int(std::floor(std::log10(axis.tickInterval()) + 1e-9)));
      QCOMPARE(axis.labelFormat(), QStringLiteral("%.%1f").arg(decimals));
    }
  }

  // Log axes cover whole decades, at least two labelled powers of ten.
  void logAxesSpanDecades() {
    auto r = decadeRange(0.3, 0.9);
    QCOMPARE(r.first, 0.1);
    QCOMPARE(r.second, 1.0);
    r = decadeRange(0.02, 3.0);
    QVERIFY(std::abs(r.first - 0.01) < 1e-15);
    QCOMPARE(r.second, 10.0);
    r = decadeRange(1.0, 1.0);  // one value on a decade: still two labels
    QVERIFY(r.second / r.first >= 10.0 - 1e-9);
    r = decadeRange(1, 3, 2);  // two decades asked: widened on the side with less room
    QCOMPARE(r.first, 0.1);
    QCOMPARE(r.second, 10.0);
    QLogValueAxis axis;
    setDecadeRange(&axis, 0.35, 2.4);
    QCOMPARE(axis.min(), 0.1);
    QCOMPARE(axis.max(), 10.0);
    QCOMPARE(axis.minorTickCount(), 8);
  }

  // A log axis over accuracies of 80-92% fits them (not a mostly empty decade) and has a
  // labelled tick at its lower end; data spanning decades keeps the decade range.
  void fittedLogRangeFitsAndLabelsItsLowerEnd() {
    const LogAxisRange r = fittedLogRange(80, 92);
    QVERIFY(r.low <= 80 && r.high >= 92);
    QVERIFY2(r.high / r.low < 1.5, qPrintable(QStringLiteral("%1..%2").arg(r.low).arg(r.high)));
    // The lower end is a power of the base, where QLogValueAxis puts a labelled tick.
    const double k = std::log(r.low) / std::log(r.base);
    QVERIFY2(std::abs(k - std::round(k)) < 1e-6, qPrintable(QString::number(k)));
    const double ticks = std::log(r.high / r.low) / std::log(r.base);
    QVERIFY(ticks >= 3.9 && ticks <= 6.1);
    const LogAxisRange wide = fittedLogRange(0.02, 3.0);
    QCOMPARE(wide.base, 10.0);
    QVERIFY(std::abs(wide.low - 0.01) < 1e-15);
  }
};

QTEST_MAIN(NiceTicksTest)
#include "nice_ticks_test.moc"
