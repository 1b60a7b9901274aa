// Numbers in imports: seeds in a CSV go through the one number parser (1e300 and
// 18446744073709551615 used to wrap to -1 and store "seeds: []"), and the stored spec lists the
// seeds the runs have (a seed of 10^12 used to make it list 10^12 seeds).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/input/csv.h"
#include "core/study/files/results_import.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string writeCsv(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() /
                     ("paritylab-import-numbers-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(p) << text;
  return p.string();
}

CsvImportOptions wide() {
  CsvImportOptions o;
  o.epochColumn = "";
  return o;
}

TEST(ImportNumbers, SeedsThatWouldWrapAreRefusedWithRowAndColumn) {
  for (const char* bad : {"1e300", "18446744073709551615", "-1", "1.5", "nan"}) {
    const std::string path =
        writeCsv("bad.csv", std::string("run,backend,accuracy,seed\na,x,0.5,") + bad + "\n");
    try {
      readResultsCsv(path, wide());
      ADD_FAILURE() << bad << " accepted";
    } catch (const input::CsvError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path + ":2: column 4 (seed): not a seed (an integer in [0, "
                              "2^63 - 1])"),
                std::string::npos)
          << m;
    }
    fs::remove(path);
  }
}

TEST(ImportNumbers, StoredSpecListsTheSeedsOfTheRuns) {
  const std::string csv =
      writeCsv("ok.csv", "run,backend,accuracy,seed\na,x,0.5,1000000000000\nb,x,0.6,3\n");
  auto runs = readResultsCsv(csv, wide());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run.seed, 1000000000000ULL);
  const std::string db = writeCsv("ok.db", "");
  fs::remove(db);
  {
    auto store = ResultsStore::open(db, true);
    importRuns(*store, csv, runs);
    EXPECT_EQ(store->loadStudySpec().seeds, (std::vector<std::uint64_t>{3, 1000000000000ULL}));
  }
  fs::remove(csv);
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db + suffix);
}

}  // namespace
}  // namespace paritylab::study
