// Lockstep comparisons in the results database (table lockstep, schema version 10): a record
// round-trips bit for bit (NaN where a layer has no such tensor, infinities, the first crossing),
// one per mode (saving a mode again replaces it; "resync" loads before "free"), a record that
// does not read back is named as damage, and a version-9 database gains the table when migrated.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/study/store/results_store.h"
#include "tests/study/same_bits.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::sameBits;

using testing::freshTempPath;

LockstepRecord record(const std::string& mode, double scale) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  LockstepRecord r{mode, "tpu-bf16", "cpu-fp32", 3, 0.01, {}};
  r.result.layers = {{"fc1", backends::LayerKind::Linear, true, false},
                     {"h0.attn.qk", backends::LayerKind::Attention, false, true}};
  r.result.steps.push_back(
      {1, 2.25, 2.2500001, {{{scale / 3.0, nan, 1e-300, 0.0}, {inf, 0.5, nan, nan}}}});
  r.result.steps.push_back({3, nan, 2.0, {{{0.1, nan, 0.2, 0.3}, {0.4, 0.5, nan, nan}}}});
  r.result.firstCrossing = nn::LockstepCrossing{1, 1, nn::LockstepQuantity::Activation, inf};
  r.result.stepsTrained = 3;
  r.result.stoppedBecause = "tpu-bf16 diverged at step 3";
  r.result.seconds = 1.5;
  return r;
}

void expectSame(const LockstepRecord& a, const LockstepRecord& b) {
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.reference, b.reference);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.tolerance, b.tolerance);
  ASSERT_EQ(a.result.layers.size(), b.result.layers.size());
  for (std::size_t l = 0; l < a.result.layers.size(); ++l) {
    EXPECT_EQ(a.result.layers[l].name, b.result.layers[l].name);
    EXPECT_EQ(a.result.layers[l].kind, b.result.layers[l].kind);
    EXPECT_EQ(a.result.layers[l].hasWeight, b.result.layers[l].hasWeight);
    EXPECT_EQ(a.result.layers[l].hasInputGradient, b.result.layers[l].hasInputGradient);
  }
  ASSERT_EQ(a.result.steps.size(), b.result.steps.size());
  for (std::size_t s = 0; s < a.result.steps.size(); ++s) {
    EXPECT_EQ(a.result.steps[s].step, b.result.steps[s].step);
    EXPECT_TRUE(sameBits(a.result.steps[s].lossA, b.result.steps[s].lossA));
    EXPECT_TRUE(sameBits(a.result.steps[s].lossReference, b.result.steps[s].lossReference));
    for (std::size_t l = 0; l < a.result.layers.size(); ++l)
      for (std::size_t k = 0; k < nn::kLockstepQuantities; ++k)
        EXPECT_TRUE(
            sameBits(a.result.steps[s].difference[l][k], b.result.steps[s].difference[l][k]))
            << "step " << s << " layer " << l << " quantity " << k;
  }
  ASSERT_EQ(a.result.firstCrossing.has_value(), b.result.firstCrossing.has_value());
  if (a.result.firstCrossing) {
    EXPECT_EQ(a.result.firstCrossing->step, b.result.firstCrossing->step);
    EXPECT_EQ(a.result.firstCrossing->layer, b.result.firstCrossing->layer);
    EXPECT_EQ(a.result.firstCrossing->quantity, b.result.firstCrossing->quantity);
    EXPECT_TRUE(sameBits(a.result.firstCrossing->value, b.result.firstCrossing->value));
  }
  EXPECT_EQ(a.result.stepsTrained, b.result.stepsTrained);
  EXPECT_EQ(a.result.stoppedBecause, b.result.stoppedBecause);
  EXPECT_EQ(a.result.seconds, b.result.seconds);
}

TEST(LockstepStore, ARecordRoundTripsBitForBitOnePerMode) {
  const std::string path = freshTempPath("lockstep.db");
  {
    auto store = ResultsStore::open(path, true);
    EXPECT_TRUE(store->loadLockstep().empty());
    store->saveLockstep(record("free", 1.0));
    store->saveLockstep(record("resync", 1.0));
    store->saveLockstep(record("resync", 2.0));  // replaces the first resync
  }
  const std::vector<LockstepRecord> loaded = ResultsStore::openReadOnly(path)->loadLockstep();
  ASSERT_EQ(loaded.size(), 2u);
  expectSame(loaded[0], record("resync", 2.0));
  expectSame(loaded[1], record("free", 1.0));
}

TEST(LockstepStore, ARecordThatDoesNotReadBackIsNamedAsDamage) {
  const std::string path = freshTempPath("lockstep-damaged.db");
  ResultsStore::open(path, true)->saveLockstep(record("free", 1.0));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE lockstep SET result = '{\"layers\": 5}'", nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  try {
    ResultsStore::openReadOnly(path)->loadLockstep();
    ADD_FAILURE() << "read back";
  } catch (const StoreError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path + ": damaged database: lockstep 'free'"), std::string::npos) << m;
  }
}

TEST(LockstepStore, AVersion9DatabaseGainsTheTableWhenMigrated) {
  const std::string path = freshTempPath("lockstep-v9.db");
  ResultsStore::open(path, true);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE lockstep; UPDATE paritylab_meta SET value = '9' "
                         "WHERE key = 'schema_version';",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  EXPECT_TRUE(ResultsStore::openReadOnly(path)->loadLockstep().empty());
  auto store = ResultsStore::open(path);  // migrated
  store->saveLockstep(record("resync", 1.0));
  EXPECT_EQ(store->loadLockstep().size(), 1u);
}

}  // namespace
}  // namespace paritylab::study
