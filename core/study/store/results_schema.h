#pragma once
// The results database's schema and its versions. A new database gets the current schema; an
// older one is migrated step by step when it is opened for writing (never when opened read-only).
// To change the schema: add a step to kMigrations in results_schema.cpp (version N -> N + 1), and
// the readers' fallbacks for databases still at an older version (see ResultsStore::loadRuns).

#include <sqlite3.h>

#include <string>
#include <vector>

namespace paritylab::study {

// Version 1: study, runs, epochs (ParityLab 0.x). Version 2 (each run stored once, imported runs
// keep their names, runs are claimed): runs.run_name, runs.seed_given, runs.claimed_by; one
// emulated run per (backend, seed) and one imported run per (backend, source run name) enforced
// by unique indexes. Version 3 (optimizer steps skipped by loss scaling): epochs.skipped_steps.
// Version 4 (sampled step-level training loss and learning rate): steps. Version 5 (the X-ray of
// products): xray. Version 6 (the divergence analysis): test_set, predictions, weights.
int currentSchemaVersion();

// The schema version of an open ParityLab database (1 when the meta table has no version key).
int schemaVersionOf(sqlite3* db, const std::string& file);

// Throws StoreError "FILE: damaged database: table 'runs' is missing" when a table of the schema
// is missing (a reader never recreates one).
void requireTables(sqlite3* db, const std::string& file);

// Throws StoreError "FILE: damaged database: ..." unless what the schema `version` promises holds:
// its tables (steps from version 4, xray from 5, test_set, predictions and weights from 6) and the
// runs' uniqueness indexes (from 2) exist, no run is stored twice, and no row of a run's table
// (epochs, steps, xray, predictions, weights) belongs to a run that does not exist.
void checkStoredReferences(sqlite3* db, const std::string& file, int version);

// Creates the current schema in an empty database.
void createSchema(sqlite3* db, const std::string& file);

// Brings a database at an older version to the current one in one transaction; returns what the
// migration changed that a user should know (e.g. duplicated runs removed), empty when nothing.
std::vector<std::string> migrateSchema(sqlite3* db, const std::string& file);

}  // namespace paritylab::study
