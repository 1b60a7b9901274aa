#include "core/study/store/results_schema.h"

#include <functional>

#include "core/study/store/sqlite_statement.h"

namespace paritylab::study {
namespace {

void exec(sqlite3* db, const std::string& file, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw StoreError(file + ": " + msg);
  }
}

// Version 6's tables, for the divergence analysis: the test set's labels and class names once per
// study, each finished run's test predictions, and per-epoch weight snapshots (blobs:
// results_blobs.h). Created by migrateTo6 and, for a new database, after kCurrentSchema.
constexpr const char* kDivergenceTables = R"sql(
CREATE TABLE test_set (
  id INTEGER PRIMARY KEY CHECK (id = 1), examples INTEGER NOT NULL, classes INTEGER NOT NULL,
  class_names TEXT NOT NULL, labels BLOB NOT NULL);
CREATE TABLE predictions (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, examples INTEGER NOT NULL,
  predicted BLOB NOT NULL, true_class_probability BLOB NOT NULL);
CREATE TABLE weights (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  layer TEXT NOT NULL, position INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (run_id, epoch, layer));
)sql";

// Version 7's table: the text a language-model run writes at its end, from the study's prompt
// (the Samples view). Created by migrateTo7 and, for a new database, after kCurrentSchema.
constexpr const char* kSampleTables = R"sql(
CREATE TABLE samples (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, prompt BLOB NOT NULL,
  temperature REAL NOT NULL, text BLOB NOT NULL);
)sql";

// Version 8's tables: the early warnings of each sampled training step (the update ratios a
// float32 blob, one per layer of the run's signal_layers, names one per line). Created by
// migrateTo8 and, for a new database, after kCurrentSchema.
constexpr const char* kSignalTables = R"sql(
CREATE TABLE signals (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, grad_norm REAL, attention_logit_max REAL, output_logit_norm REAL,
  update_ratios BLOB NOT NULL, PRIMARY KEY (run_id, step));
CREATE TABLE signal_layers (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, names TEXT NOT NULL);
)sql";

// Version 9's table: each finished run's model served by every backend of the study, and by its
// own in batches of 1. Created by migrateTo9 and, for a new database, after kCurrentSchema.
constexpr const char* kServingTables = R"sql(
CREATE TABLE serving (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, served_by TEXT NOT NULL,
  batch_size INTEGER NOT NULL, predictions INTEGER NOT NULL, flips INTEGER NOT NULL,
  mean_abs_log_prob_change REAL, mean_kl REAL, accuracy REAL,
  PRIMARY KEY (run_id, served_by, batch_size));
)sql";

// Version 10's table: the study's lockstep comparisons, one per mode, the result as JSON (layers,
// and per compared step the losses and each layer's four differences). Created by migrateTo10
// and, for a new database, after kCurrentSchema.
constexpr const char* kLockstepTables = R"sql(
CREATE TABLE lockstep (
  mode TEXT PRIMARY KEY, backend TEXT NOT NULL, reference TEXT NOT NULL, seed INTEGER NOT NULL,
  tolerance REAL NOT NULL, result TEXT NOT NULL);
)sql";

// The current schema, for a new database, with kDivergenceTables, kSampleTables, kSignalTables,
// kServingTables and kLockstepTables. Keep it equal to version 1 plus
// every migration.
constexpr const char* kCurrentSchema = R"sql(
CREATE TABLE paritylab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE study (
  id INTEGER PRIMARY KEY CHECK (id = 1), spec TEXT NOT NULL, software_version TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, backend TEXT NOT NULL, policy TEXT NOT NULL,
  seed INTEGER NOT NULL, status TEXT NOT NULL, epochs_done INTEGER NOT NULL DEFAULT 0,
  final_train_loss REAL, final_test_loss REAL, final_accuracy REAL, wall_seconds REAL,
  diverged_epoch INTEGER, message TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT 'emulated',
  run_name TEXT NOT NULL DEFAULT '', seed_given INTEGER NOT NULL DEFAULT 1,
  claimed_by TEXT NOT NULL DEFAULT '');
CREATE TABLE epochs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, epoch INTEGER NOT NULL,
  train_loss REAL, test_loss REAL, test_accuracy REAL, seconds REAL,
  skipped_steps INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run_id, epoch));
CREATE TABLE steps (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, train_loss REAL, lr REAL, PRIMARY KEY (run_id, step));
CREATE TABLE xray (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, site TEXT NOT NULL, operand TEXT NOT NULL, format TEXT NOT NULL,
  count INTEGER NOT NULL, zeros INTEGER NOT NULL, non_finite INTEGER NOT NULL, amax REAL,
  min_nonzero REAL, flushed INTEGER NOT NULL, subnormal INTEGER NOT NULL,
  overflowed INTEGER NOT NULL, signal_energy REAL, error_energy REAL, max_rel_error REAL,
  exponent_histogram TEXT NOT NULL, PRIMARY KEY (run_id, site, operand, step));
CREATE UNIQUE INDEX runs_emulated_identity ON runs (backend, seed) WHERE source = 'emulated';
CREATE UNIQUE INDEX runs_imported_identity ON runs (backend, message) WHERE source = 'imported';
INSERT INTO paritylab_meta (key, value) VALUES ('format', 'paritylab-results-1');
)sql";

// Version 1 -> 2: imported runs' source names and whether their seed was given, the process that
// claimed a run, and each run stored once. Imported runs of version 1 kept their source run name
// in `message` ("prod_42@2025-07-22 17:22:02", or "row N" for a wide CSV) and were given seeds
// 0..n-1. Runs stored twice (two concurrent `run --resume`, a CSV imported twice) are copies
// (same spec and seed train bit-identically; an import is the same file's rows): one is kept,
// a finished one first.
std::vector<std::string> migrateTo2(sqlite3* db, const std::string& file) {
  exec(db, file, R"sql(
ALTER TABLE runs ADD COLUMN run_name TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN seed_given INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
UPDATE runs SET
  run_name = CASE WHEN instr(message, '@') > 0 THEN substr(message, 1, instr(message, '@') - 1)
             ELSE message END,
  seed_given = CASE WHEN message LIKE 'row %' THEN 1 ELSE 0 END
  WHERE source = 'imported';
)sql");
  exec(db, file, R"sql(
DELETE FROM runs WHERE source = 'emulated' AND id NOT IN (
  SELECT (SELECT r2.id FROM runs r2
          WHERE r2.source = 'emulated' AND r2.backend = r1.backend AND r2.seed = r1.seed
          ORDER BY CASE r2.status WHEN 'completed' THEN 0 WHEN 'diverged' THEN 1 ELSE 2 END, r2.id
          LIMIT 1)
  FROM runs r1 WHERE r1.source = 'emulated');
)sql");
  const int emulatedCopies = sqlite3_changes(db);
  exec(db, file, R"sql(
DELETE FROM runs WHERE source = 'imported' AND id NOT IN (
  SELECT min(id) FROM runs WHERE source = 'imported' GROUP BY backend, message);
CREATE UNIQUE INDEX runs_emulated_identity ON runs (backend, seed) WHERE source = 'emulated';
CREATE UNIQUE INDEX runs_imported_identity ON runs (backend, message) WHERE source = 'imported';
)sql");
  const int importedCopies = sqlite3_changes(db);
  std::vector<std::string> notes;
  if (emulatedCopies + importedCopies > 0) {
    notes.push_back(file + ": upgraded to schema version 2; removed " +
                    std::to_string(emulatedCopies + importedCopies) +
                    " duplicated runs (copies of a run stored twice)");
  }
  return notes;
}

// Version 2 -> 3: optimizer steps skipped by loss scaling per epoch; older runs
// recorded none (0).
std::vector<std::string> migrateTo3(sqlite3* db, const std::string& file) {
  exec(db, file, "ALTER TABLE epochs ADD COLUMN skipped_steps INTEGER NOT NULL DEFAULT 0");
  return {};
}

// Version 3 -> 4: sampled step-level training loss and learning rate.
std::vector<std::string> migrateTo4(sqlite3* db, const std::string& file) {
  exec(db, file, R"sql(
CREATE TABLE steps (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, train_loss REAL, lr REAL, PRIMARY KEY (run_id, step));
)sql");
  return {};
}

// Version 4 -> 5: X-ray samples per run, product site, operand and sampled step.
std::vector<std::string> migrateTo5(sqlite3* db, const std::string& file) {
  exec(db, file, R"sql(
CREATE TABLE xray (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  epoch INTEGER NOT NULL, site TEXT NOT NULL, operand TEXT NOT NULL, format TEXT NOT NULL,
  count INTEGER NOT NULL, zeros INTEGER NOT NULL, non_finite INTEGER NOT NULL, amax REAL,
  min_nonzero REAL, flushed INTEGER NOT NULL, subnormal INTEGER NOT NULL,
  overflowed INTEGER NOT NULL, signal_energy REAL, error_energy REAL, max_rel_error REAL,
  exponent_histogram TEXT NOT NULL, PRIMARY KEY (run_id, site, operand, step));
)sql");
  return {};
}

// Version 5 -> 6: kDivergenceTables, for the divergence analysis. Older runs have none: the
// analysis says so.
std::vector<std::string> migrateTo6(sqlite3* db, const std::string& file) {
  exec(db, file, kDivergenceTables);
  return {};
}

// Version 6 -> 7: kSampleTables. Older language-model runs wrote no sample: the view says so.
std::vector<std::string> migrateTo7(sqlite3* db, const std::string& file) {
  exec(db, file, kSampleTables);
  return {};
}

// Version 7 -> 8: kSignalTables. Older runs measured no early warnings: the views say so.
std::vector<std::string> migrateTo8(sqlite3* db, const std::string& file) {
  exec(db, file, kSignalTables);
  return {};
}

// Version 8 -> 9: kServingTables. Older runs were served by no other backend: the analysis says
// so.
std::vector<std::string> migrateTo9(sqlite3* db, const std::string& file) {
  exec(db, file, kServingTables);
  return {};
}

// Version 9 -> 10: kLockstepTables. Older studies kept no lockstep comparison.
std::vector<std::string> migrateTo10(sqlite3* db, const std::string& file) {
  exec(db, file, kLockstepTables);
  return {};
}

// kMigrations[i] takes a database from version i + 1 to i + 2.
const std::vector<std::function<std::vector<std::string>(sqlite3*, const std::string&)>>
    kMigrations = {migrateTo2, migrateTo3, migrateTo4, migrateTo5, migrateTo6,
                   migrateTo7, migrateTo8, migrateTo9, migrateTo10};

void setVersion(sqlite3* db, const std::string& file, int version) {
  Statement(db, "INSERT OR REPLACE INTO paritylab_meta (key, value) VALUES ('schema_version', ?)",
            file)
      .bind(1, std::to_string(version))
      .run();
}

}  // namespace

int currentSchemaVersion() {
  return int(kMigrations.size()) + 1;
}

int schemaVersionOf(sqlite3* db, const std::string& file) {
  Statement s(db, "SELECT value FROM paritylab_meta WHERE key = 'schema_version'", file);
  if (!s.step()) return 1;
  const std::string text = s.text(0);
  int version = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || version > 1000) {
      version = -1;
      break;
    }
    version = version * 10 + (c - '0');
  }
  if (version < 1) throw StoreError(file + ": damaged database: schema_version '" + text + "'");
  return version;
}

void requireTables(sqlite3* db, const std::string& file) {
  for (const char* table : {"paritylab_meta", "study", "runs", "epochs"}) {
    Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", file);
    s.bind(1, std::string(table));
    if (!s.step() || s.i64(0) == 0)
      throw StoreError(file + ": damaged database: table '" + table +
                       "' is missing (the file was not changed)");
  }
}

void checkStoredReferences(sqlite3* db, const std::string& file, int version) {
  const auto damaged = [&](const std::string& what) {
    throw StoreError(file + ": damaged database: " + what + " (the file was not changed)");
  };
  const auto exists = [&](const char* type, const std::string& name) {
    Statement s(db, "SELECT count(*) FROM sqlite_master WHERE type = ? AND name = ?", file);
    s.bind(1, std::string(type)).bind(2, name);
    return s.step() && s.i64(0) > 0;
  };
  std::vector<std::string> runTables = {"epochs"};
  if (version >= 4) runTables.push_back("steps");
  if (version >= 5) runTables.push_back("xray");
  if (version >= 6) {
    runTables.push_back("predictions");
    runTables.push_back("weights");
    if (!exists("table", "test_set")) damaged("table 'test_set' is missing");
  }
  if (version >= 7) runTables.push_back("samples");
  if (version >= 8) {
    runTables.push_back("signals");
    runTables.push_back("signal_layers");
  }
  if (version >= 9) runTables.push_back("serving");
  for (const std::string& table : runTables)
    if (!exists("table", table)) damaged("table '" + table + "' is missing");
  if (version >= 10 && !exists("table", "lockstep")) damaged("table 'lockstep' is missing");
  if (version >= 2) {
    for (const char* index : {"runs_emulated_identity", "runs_imported_identity"})
      if (!exists("index", index))
        damaged(std::string("index '") + index + "' is missing (a run could be stored twice)");
  }
  // Version 1 had no uniqueness indexes: its copies are removed when it is migrated.
  if (version >= 2) {
    Statement s(db,
                "SELECT backend, seed, min(id), max(id) FROM runs WHERE source = 'emulated' "
                "GROUP BY backend, seed HAVING count(*) > 1 LIMIT 1",
                file);
    if (s.step())
      damaged("the run " + s.text(0) + " seed " + std::to_string(s.i64(1)) +
              " is stored twice (runs " + std::to_string(s.i64(2)) + " and " +
              std::to_string(s.i64(3)) + ")");
  }
  if (version >= 2) {
    Statement s(db,
                "SELECT backend, message, min(id), max(id) FROM runs WHERE source = 'imported' "
                "GROUP BY backend, message HAVING count(*) > 1 LIMIT 1",
                file);
    if (s.step())
      damaged("the imported run " + s.text(0) + " '" + s.text(1) + "' is stored twice (runs " +
              std::to_string(s.i64(2)) + " and " + std::to_string(s.i64(3)) + ")");
  }
  for (const std::string& table : runTables) {
    Statement s(
        db, "SELECT run_id FROM " + table + " WHERE run_id NOT IN (SELECT id FROM runs) LIMIT 1",
        file);
    if (s.step())
      damaged(table + " rows of run " + std::to_string(s.i64(0)) + ", which does not exist");
  }
}

void createSchema(sqlite3* db, const std::string& file) {
  exec(db, file, "BEGIN IMMEDIATE");
  try {
    exec(db, file, kCurrentSchema);
    exec(db, file, kDivergenceTables);
    exec(db, file, kSampleTables);
    exec(db, file, kSignalTables);
    exec(db, file, kServingTables);
    exec(db, file, kLockstepTables);
    setVersion(db, file, currentSchemaVersion());
    exec(db, file, "COMMIT");
  } catch (...) {
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<std::string> migrateSchema(sqlite3* db, const std::string& file) {
  std::vector<std::string> notes;
  exec(db, file, "BEGIN IMMEDIATE");
  try {
    const int from = schemaVersionOf(db, file);  // read inside the transaction: one migrator
    if (from > currentSchemaVersion()) {
      throw StoreError(file + ": written by a newer ParityLab (schema version " +
                       std::to_string(from) + ", this one knows " +
                       std::to_string(currentSchemaVersion()) + "); open it with that version");
    }
    for (int v = from; v < currentSchemaVersion(); ++v) {
      auto stepNotes = kMigrations[std::size_t(v - 1)](db, file);
      notes.insert(notes.end(), stepNotes.begin(), stepNotes.end());
    }
    if (from < currentSchemaVersion()) setVersion(db, file, currentSchemaVersion());
    exec(db, file, "COMMIT");
  } catch (...) {
    // The original error is the cause; a rollback SQLite already did itself is no second error.
    if (!sqlite3_get_autocommit(db)) sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return notes;
}

}  // namespace paritylab::study
