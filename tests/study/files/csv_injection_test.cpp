// CSV formula injection is neutralised in every CSV the project writes (all go
// through CsvWriter), while numbers, negative ones included, stay numbers.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/input/csv.h"
#include "core/study/files/results_import.h"
#include "core/study/files/study_report.h"
#include "tests/study/test_paths.h"

namespace paritylab::study {
namespace {

using testing::freshTempPath;

// A backend or run name like =HYPERLINK(...) was once written unescaped into report CSVs.
TEST(Csv, FormulaInjectionIsNeutralisedButNumbersStayNumbers) {
  std::ostringstream out;
  input::CsvWriter w(out);
  w.writeRow({"=HYPERLINK(\"http://x\")", "=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx",
              "\rx", "-0.25", "-1e-05", "-inf", "plain", ""});
  EXPECT_EQ(out.str(),
            "\"'=HYPERLINK(\"\"http://x\"\")\",'=cmd|' /C calc'!A0,'+1+1,'-2+3,'@SUM(A1),'\tx,"
            "\"'\rx\",-0.25,-1e-05,-inf,plain,\r\n");
  // Through the report: an imported backend named like a formula.
  const std::string csv = freshTempPath("inject.csv");
  std::ofstream(csv) << "backend,seed,final_accuracy\n\"=HYPERLINK(\"\"http://e\"\")\",0,0.5\n"
                        "-cpu,1,0.25\n";
  CsvImportOptions wide;
  wide.epochColumn = "";
  auto runs = readGenericCsv(csv, wide);
  auto store = ResultsStore::open(freshTempPath("inject.db"), true);
  importRuns(*store, csv, runs);
  const std::string report = freshTempPath("inject-report.csv");
  const std::string summary = writeReport(*store, report);
  for (const std::string& file : {report, summary}) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().find(",=HYPERLINK"), std::string::npos) << text.str();
    EXPECT_EQ(text.str().find(",-cpu"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find(",'-cpu,"), std::string::npos) << text.str();
  }
}

}  // namespace
}  // namespace paritylab::study
