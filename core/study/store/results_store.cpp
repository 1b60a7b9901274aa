// The connection and the study row (spec, software version, created). The tables live in
// results_store_runs.cpp, results_store_curves.cpp, results_store_xray.cpp and
// results_store_divergence.cpp; opening and migrating in results_store_open.cpp.
#include "core/study/store/results_store.h"

#include <sqlite3.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <string>

#include "core/study/store/sqlite_statement.h"

#ifndef PARITYLAB_VERSION
#define PARITYLAB_VERSION "0"
#endif

namespace paritylab::study {

ResultsStore::ResultsStore(std::string path) : path_(std::move(path)) {}

ResultsStore::~ResultsStore() {
  sqlite3_close(db_);
}

void ResultsStore::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw StoreError(path_ + ": " + msg);
  }
}

bool ResultsStore::hasStudy() const {
  return !loadStudySpecJson().empty();
}

namespace {

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char created[32];
  std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return created;
}

}  // namespace

namespace {

// Writes the study row; `conflict` is "REPLACE" (save) or "IGNORE" (save unless one is there).
// True when a row was written.
bool writeStudyRow(sqlite3* db, const std::string& path, const char* conflict,
                   const std::string& specJson) {
  const std::string sql = std::string("INSERT OR ") + conflict +
                          " INTO study (id, spec, software_version, created) VALUES (1, ?, ?, ?)";
  Statement s(db, sql, path);
  s.bind(1, specJson).bind(2, std::string(PARITYLAB_VERSION)).bind(3, utcNow()).run();
  return sqlite3_changes(db) == 1;
}

}  // namespace

void ResultsStore::saveStudySpec(const std::string& specJson) {
  std::lock_guard lock(mutex_);
  writeStudyRow(db_, path_, "REPLACE", specJson);
}

bool ResultsStore::saveStudySpecIfNone(const std::string& specJson) {
  std::lock_guard lock(mutex_);
  return writeStudyRow(db_, path_, "IGNORE", specJson);
}

std::string ResultsStore::loadStudySpecJson() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT spec FROM study WHERE id = 1", path_);
  std::string text = s.step() ? s.text(0) : "";
  // A study stored before the chaos floor existed had none, whatever a new spec's default is:
  // said explicitly, so that reading it (or resuming it) never plans chaos runs it did not have.
  if (text.find("\"chaos_floor\"") == std::string::npos) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object()) {
      j["chaos_floor"] = false;
      text = j.dump();
    }
  }
  return text;
}

std::string ResultsStore::softwareVersion() const {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT software_version FROM study WHERE id = 1", path_);
  return s.step() ? s.text(0) : "";
}

StudySpec ResultsStore::loadStudySpec() const {
  std::string text = loadStudySpecJson();
  if (text.empty()) throw StoreError(path_ + ": the database holds no study");
  try {
    return parseStudySpec(text, path_ + " (stored study)");
  } catch (const SpecError& ex) {
    throw StoreError(ex.what());
  }
}

}  // namespace paritylab::study
