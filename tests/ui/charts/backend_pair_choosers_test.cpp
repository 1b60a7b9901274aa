// The pair a comparison shows before anyone chooses: the reference (cpu-fp32) against the last
// other backend, never a chaos-floor entry, and in a sweep two backends of one cell (two cells
// would differ in more than the backend).
#include "ui/charts/backend_pair_choosers.h"

#include <QtTest>

using paritylab::ui::defaultBackendPair;

class BackendPairChoosersTest : public QObject {
  Q_OBJECT

 private slots:
  void theReferenceAgainstTheLastOtherBackend() {
    const auto [a, b] = defaultBackendPair({"gpu-tf32", "cpu-fp32", "tpu-bf16", "nudged-cpu-fp32"},
                                           {"nudged-cpu-fp32"});
    QCOMPARE(a, QStringLiteral("tpu-bf16"));
    QCOMPARE(b, QStringLiteral("cpu-fp32"));
    QCOMPARE(defaultBackendPair({"gpu-tf32", "tpu-bf16"}).second, QStringLiteral("gpu-tf32"));
  }

  void inASweepTwoBackendsOfOneCell() {
    const QStringList cells = {"cpu-fp32 policy.replicas=1", "cpu-fp32 policy.replicas=8",
                               "tpu-bf16 policy.replicas=1", "tpu-bf16 policy.replicas=8",
                               "nudged-cpu-fp32 policy.replicas=1"};
    const auto [a, b] = defaultBackendPair(cells, {"nudged-cpu-fp32 policy.replicas=1"});
    QCOMPARE(b, QStringLiteral("cpu-fp32 policy.replicas=1"));
    QCOMPARE(a, QStringLiteral("tpu-bf16 policy.replicas=1"));
    // The reference is cpu-fp32's first cell even when another backend is listed first.
    const auto [a2, b2] = defaultBackendPair(
        {"gpu-tf32 lr=0.1", "gpu-tf32 lr=0.01", "cpu-fp32 lr=0.1", "cpu-fp32 lr=0.01"});
    QCOMPARE(b2, QStringLiteral("cpu-fp32 lr=0.1"));
    QCOMPARE(a2, QStringLiteral("gpu-tf32 lr=0.1"));
  }
};

QTEST_MAIN(BackendPairChoosersTest)
#include "backend_pair_choosers_test.moc"
