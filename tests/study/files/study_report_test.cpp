// The report CSV: the summary's reference comparisons carry the minimum detectable
// difference (fraction units) and runs_needed_for_margin (empty without a margin), and the verdict
// says what the design could detect instead of an observed-power sample size.
#include "core/study/files/study_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/input/csv.h"
#include "core/study/files/results_import.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

namespace fs = std::filesystem;

std::string tempPath(const std::string& name) {
  return testing::freshTempPath(name);
}

std::vector<std::map<std::string, std::string>> readCsv(const std::string& path) {
  std::ifstream in(path);
  input::CsvReader reader(in, path);
  input::CsvRow header, row;
  EXPECT_TRUE(reader.next(header));
  std::vector<std::map<std::string, std::string>> rows;
  while (reader.next(row)) {
    std::map<std::string, std::string> named;
    for (std::size_t i = 0; i < header.fields.size() && i < row.fields.size(); ++i)
      named[header.fields[i]] = row.fields[i];
    rows.push_back(named);
  }
  return rows;
}

// tpu-bf16 {0.81, 0.86, 0.84, 0.82} vs cpu-fp32 {0.80, 0.85, 0.83}: Welch df 4.083970274134616,
// sd_w 0.023929459827147087; statsmodels
//   brentq(lambda e: TTestIndPower().power(e, 4, 0.05, ratio=3/4, df=welch_df) - 0.8, ...)
//   = 2.851940569536403 -> MDD 0.06824539728813234 (6.82 points).
TEST(StudyReport, SummaryHasMinimumDetectableDifferenceColumns) {
  const std::string runs_csv = tempPath("runs.csv");
  std::ofstream(runs_csv) << "backend,seed,final_accuracy\n"
                             "tpu-bf16,0,0.81\ntpu-bf16,1,0.86\ntpu-bf16,2,0.84\ntpu-bf16,3,0.82\n"
                             "cpu-fp32,0,0.80\ncpu-fp32,1,0.85\ncpu-fp32,2,0.83\n";
  CsvImportOptions options;
  options.epochColumn = "";
  options.accuracyColumn = "final_accuracy";
  auto runs = readGenericCsv(runs_csv, options);
  auto store = ResultsStore::open(tempPath("report.db"), true);
  importRuns(*store, runs_csv, runs);
  const std::string summary = writeReport(*store, tempPath("report.csv"));

  const auto rows = readCsv(summary);
  bool found = false;
  for (const auto& row : rows) {
    ASSERT_TRUE(row.count("min_detectable_diff")) << "no min_detectable_diff column";
    ASSERT_TRUE(row.count("runs_needed_for_margin")) << "no runs_needed_for_margin column";
    if (row.at("section") != "welch") continue;
    found = true;
    EXPECT_EQ(row.at("backend"), "tpu-bf16");
    EXPECT_EQ(row.at("reference"), "cpu-fp32");
    EXPECT_NEAR(std::stod(row.at("min_detectable_diff")), 0.06824539728813234, 1e-9);
    EXPECT_EQ(row.at("runs_needed_for_margin"), "");
    EXPECT_NE(row.at("verdict").find("With 4 runs of tpu-bf16 and 3 of cpu-fp32, this study would "
                                     "detect a difference of 6.82 points or more 80% of the time"),
              std::string::npos)
        << row.at("verdict");
    EXPECT_EQ(row.at("verdict").find("underpowered"), std::string::npos) << row.at("verdict");
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace paritylab::study
