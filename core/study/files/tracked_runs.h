#pragma once
// The runs of a tracker's export as its reader found them, before they become ImportedRuns
// (tracker_import.h): each run's identity, what a rule may read of it (the columns and
// hyperparameters asked for), and its logged values per metric and index (the epoch or step the
// format logs them at). Every value keeps where it was read, so that a refused or diverging value
// is named as "FILE:LINE: column N (NAME)".

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/input/csv.h"
#include "core/study/files/import_checks.h"
#include "core/study/files/results_import.h"

namespace paritylab::study {

// What a reader keeps of a file: the metrics that may be read (a name given, or the defaults)
// and the columns and hyperparameters a rule or the seed names. Nothing else is stored, so memory
// stays bounded by the rows of the metrics asked for, not by the width of a file.
struct TrackerWanted {
  std::set<std::string> metrics;
  std::set<std::string> columns;
  std::set<std::string> hparams;
};

struct TrackedValue {
  double value = 0.0;                                         // as logged: NaN or an infinity too
  std::string place;                                          // "FILE:LINE: column N (NAME)"
  double seconds = std::numeric_limits<double>::quiet_NaN();  // when logged, if the file says
};

struct TrackedAttribute {
  std::string value;
  std::string place;
};

struct TrackedRun {
  std::string identity;  // unique in the import; stored as the run's identity (re-import)
  std::string name;      // the run's name in the tracker
  std::string path;      // what a path: rule matches ('/'-separated)
  std::string folder;    // the folder or file it was read from, for "the run's parent" messages
  std::string skip;      // not "": left out, and why (a crashed or unfinished run)
  std::map<std::string, TrackedAttribute> columns, hparams;
  // metric -> index (epoch or step as logged) -> value; a value logged again at an index
  // replaces the earlier one (counted in `repeated`).
  std::map<std::string, std::map<std::int64_t, TrackedValue>> metrics;
  int repeated = 0;
  int withoutIndex = 0;      // rows that logged a metric without an index: not read
  bool finalOnly = false;    // one row per run: its values are final values (index 0)
  double wallSeconds = 0.0;  // when the file gives the run's duration

  // Logs a value; one logged again at an index replaces the earlier (counted).
  void log(const std::string& metric, std::int64_t index, TrackedValue value) {
    if (!metrics[metric].insert_or_assign(index, std::move(value)).second) ++repeated;
  }
  // Keeps an attribute's first value; a later row that says otherwise is refused (a run has one
  // backend), naming both places. Empty values are not kept.
  static void keep(std::map<std::string, TrackedAttribute>& into, const std::string& name,
                   const std::string& value, const std::string& place) {
    if (value.empty()) return;
    auto [it, added] = into.try_emplace(name, TrackedAttribute{value, place});
    if (!added && it->second.value != value) {
      throw input::CsvError(place + ": " + import_checks::shownValue(value) + " differs from " +
                            import_checks::shownValue(it->second.value) + " at " +
                            it->second.place + " (one run has one " + name + ")");
    }
  }
};

struct TrackedRuns {
  std::string indexName;  // "epoch", "_step", "step", "Step": what the index is
  std::vector<TrackedRun> runs;
  std::set<std::string> loggedNames;  // metric columns or keys seen (for messages; bounded)
  ImportNotes notes;

  // What `file` logs its values by ("epoch", or the format's step): one kind for every file of
  // an import, refused naming the file otherwise.
  void logsBy(const std::string& index, const std::string& file) {
    if (!indexName.empty() && indexName != index)
      throw input::CsvError(file + ":1: logs by " + index + ", the files before it by " +
                            indexName + " (import the files of one kind together)");
    indexName = index;
  }

  void sawMetric(const std::string& name) {
    if (loggedNames.size() < 1000) loggedNames.insert(name);
  }
};

}  // namespace paritylab::study
