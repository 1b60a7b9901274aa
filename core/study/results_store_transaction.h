#pragma once
// ResultsStore::transaction, shared by the store's source files. Internal to core/study.

#include <sqlite3.h>

#include "core/study/results_store.h"

namespace paritylab::study {

template <typename Body>
auto ResultsStore::transaction(Body&& body) {
  exec("BEGIN IMMEDIATE");
  try {
    auto result = body();
    exec("COMMIT");
    return result;
  } catch (...) {
    // The exception in flight is the cause (e.g. "database or disk is full"). SQLite may have
    // rolled back already (it does on SQLITE_FULL): only roll back a transaction still open.
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

}  // namespace paritylab::study
