// A long torchprime hyperparameters cell (it crashed the import; cell sizes are bounded), import
// problems named instead of hidden (duplicate epoch, out-of-range accuracies, a NaN epoch, UTF-8
// BOM), and what an import keeps (percent columns, run names and seeds as given, identical runs,
// idempotent re-import).

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

const std::string kTorchprimeHeader =
    "run_name,datetime,hyperparameters,epoch,train_loss,test_loss,accuracy_top1\n";
const std::string kReference = PARITYLAB_REFERENCE_DIR "/torchprime-resnet18-metrics.csv";

std::string write(const std::string& name, const std::string& text) {
  const std::string path = freshTempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string importError(const std::string& path, const CsvImportOptions& o = {}) {
  try {
    readResultsCsv(path, o);
  } catch (const input::CsvError& e) {
    return e.what();
  }
  return "";
}

// std::regex_search overflowed the stack on a ~50 KB device string or a long run of
// spaces (segfault). The cell is now scanned linearly and the name bounded.
TEST(Import, LongHyperparametersCellIsAClearErrorNotACrash) {
  const std::string longDevice = "\"{'device': '" + std::string(50'000, 'x') + "'}\"";
  const std::string a =
      write("long-device.csv", kTorchprimeHeader + "r,d," + longDevice + ",1,1,1,0.5\n");
  EXPECT_EQ(importError(a), a +
                                ":2: column 3 (hyperparameters): device name longer than 200 "
                                "characters: '{'device': '" +
                                std::string(48, 'x') + "...' (50014 characters)");
  const std::string spaces = "\"{'device'" + std::string(60'000, ' ') + ": 'xla'}\"";
  const std::string b =
      write("long-spaces.csv", kTorchprimeHeader + "r,d," + spaces + ",1,1,1,0.5\n");
  auto runs = readResultsCsv(b, {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.backend, "xla");
  const std::string c = write(
      "huge-cell.csv", kTorchprimeHeader + "r,d,\"" + std::string(70'000, ' ') + "\",1,1,1,0.5\n");
  EXPECT_EQ(importError(c), c + ":2: field 3 is longer than 65536 bytes (not a results file?)");
}

TEST(Import, DeviceIsFoundWithEitherQuoteAndSpacing) {
  const std::string path =
      write("devices.csv", kTorchprimeHeader +
                               "a,1,\"{'lr': 0.1, 'device' :  'cuda'}\",1,1,1,0.5\n"
                               "b,1,\"{\"\"device\"\":\"\"xla\"\"}\",1,1,1,0.5\n"
                               "c,1,\"{'devices': 'no', 'x': 'device'}\",1,1,1,0.5\n");
  EXPECT_NE(importError(path).find(":4: column 3 (hyperparameters): no 'device' entry"),
            std::string::npos)
      << importError(path);
}

// A duplicate epoch once surfaced as a raw "UNIQUE constraint failed".
TEST(Import, DuplicateEpochNamesFileLineAndRun) {
  const std::string path =
      write("dup-epoch.csv", kTorchprimeHeader +
                                 "prod_1,d1,\"{'device': 'xla'}\",1,1,1,0.5\n"
                                 "prod_1,d1,\"{'device': 'xla'}\",2,1,1,0.6\n"
                                 "prod_1,d1,\"{'device': 'xla'}\",2,1,1,0.6\n");
  EXPECT_EQ(importError(path), path + ":4: run 'prod_1@d1' has epoch 2 twice (first at line 3)");
}

// Accuracies of +-1e308 were once accepted and nan/inf became NULL without a word.
// A NaN or an infinity in a metric is a run that diverged (import_divergence_test.cpp); in an
// epoch it is refused like a value out of range.
TEST(Import, OutOfRangeValuesAreRefusedWithRowAndColumn) {
  const std::string head = "run,backend,epoch,accuracy\n";
  EXPECT_EQ(importError(write("nan-epoch.csv", head + "r,cpu,nan,0.5\n")),
            freshTempPath("nan-epoch.csv") + ":2: column 3 (epoch): not a finite number: 'nan'");
  EXPECT_EQ(importError(write("big.csv", head + "r,cpu,1,0.5\nr,cpu,2,1e308\n")),
            freshTempPath("big.csv") + ":3: column 4 (accuracy): accuracy 1e+308 outside [0, 1]");
  EXPECT_EQ(importError(write("neg.csv", head + "r,cpu,1,-0.5\n")),
            freshTempPath("neg.csv") + ":2: column 4 (accuracy): accuracy -0.5 outside [0, 1]");
  EXPECT_EQ(importError(write("huge.csv", head + "r,cpu,1,1e999\n")),
            freshTempPath("huge.csv") + ":2: column 4 (accuracy): number out of range: '1e999'");
}

// A percent accuracy column once showed 73 as 7300.00%: it is recognised whole and said.
TEST(Import, APercentColumnIsRecognisedWholeAndSaid) {
  const std::string path =
      write("percent.csv", "run,backend,epoch,accuracy\na,cpu,1,61.5\na,cpu,2,73\nb,cpu,1,100\n");
  ImportNotes notes;
  auto runs = readResultsCsv(path, {}, &notes);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_DOUBLE_EQ(runs[0].epochs[0].testAccuracy, 0.615);
  EXPECT_DOUBLE_EQ(runs[0].run.finalAccuracy, 0.73);
  EXPECT_DOUBLE_EQ(runs[1].run.finalAccuracy, 1.0);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "column 'accuracy' read as percent (3 values, all within (1, 100]; "
            "--accuracy-unit fraction if they are fractions)");
  // Fractions and percents mixed: refused with the first value outside [0, 1].
  const std::string mixed =
      write("mixed.csv", "run,backend,epoch,accuracy\na,cpu,1,0.5\na,cpu,2,73\n");
  EXPECT_EQ(importError(mixed), mixed +
                                    ":3: column 4 (accuracy): accuracy 73 outside [0, 1] (a "
                                    "column read as percent needs every value within (1, 100]; "
                                    "this one mixes fractions and percents, or is in percent "
                                    "with a value of 1% or less: declare it: import "
                                    "--accuracy-unit percent)");
  const std::string over = write("over.csv", "backend,seed,final_accuracy\ncpu,0,73\ncpu,1,101\n");
  CsvImportOptions wide;
  wide.epochColumn = "";
  EXPECT_EQ(importError(over, wide),
            over + ":3: column 3 (final_accuracy): accuracy 101 outside [0, 1]");
}

// A percent column whose first epoch is at or below 1% cannot be inferred; declared, it is read;
// a column of fractions is read as such with a note saying it was inferred.
TEST(Import, TheAccuracyUnitCanBeDeclaredAndAnInferredOneIsSaid) {
  const std::string low =
      write("low.csv", "run,backend,epoch,accuracy\na,cpu,1,0.8\na,cpu,2,42\na,cpu,3,97.5\n");
  CsvImportOptions percent;
  percent.accuracyUnit = AccuracyUnit::Percent;
  ImportNotes notes;
  auto runs = readResultsCsv(low, percent, &notes);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_DOUBLE_EQ(runs[0].epochs[0].testAccuracy, 0.008);
  EXPECT_DOUBLE_EQ(runs[0].run.finalAccuracy, 0.975);
  EXPECT_TRUE(notes.empty());

  const std::string small = write("small.csv", "run,backend,epoch,accuracy\na,cpu,1,0.5\n");
  notes.clear();
  runs = readResultsCsv(small, {}, &notes);
  EXPECT_DOUBLE_EQ(runs[0].run.finalAccuracy, 0.5);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "column 'accuracy' read as fractions (1 value, within [0, 1]; if they "
            "are percents, import with --accuracy-unit percent)");
  runs = readResultsCsv(small, percent);
  EXPECT_DOUBLE_EQ(runs[0].run.finalAccuracy, 0.005);

  CsvImportOptions fraction;
  fraction.accuracyUnit = AccuracyUnit::Fraction;
  EXPECT_EQ(importError(low, fraction),
            low +
                ":3: column 4 (accuracy): accuracy 42 outside [0, 1] (the unit was declared "
                "fraction)");
  const std::string over = write("over100.csv", "run,backend,epoch,accuracy\na,cpu,1,100.5\n");
  EXPECT_EQ(importError(over, percent),
            over +
                ":2: column 4 (accuracy): accuracy 100.5 outside [0, 100] (the unit was "
                "declared percent)");
}

// A UTF-8 byte order mark (Excel writes one) once made the first column unknown.
TEST(Import, Utf8ByteOrderMarkIsSkipped) {
  const std::string path =
      write("bom.csv", "\xEF\xBB\xBFrun,backend,epoch,accuracy\r\na,cpu,1,0.5\r\n");
  auto runs = readResultsCsv(path, {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.runName, "a");
}

// Run names kept; seeds as the source gives them (none in torchprime files).
TEST(Import, RunNamesAndSeedsAreKeptAsGiven) {
  auto runs = readResultsCsv(kReference, {});
  ASSERT_EQ(runs.size(), 28u);
  EXPECT_EQ(runs[0].run.runName, "prod_42");
  EXPECT_FALSE(runs[0].run.seedGiven);
  const std::string path = write("seeds.csv",
                                 "run,backend,seed,epoch,accuracy\nprod_42,tpu,42,1,0.5\n"
                                 "prod_42,tpu,42,2,0.6\nprod_3,tpu,3,1,0.4\n");
  auto given = readResultsCsv(path, {});
  ASSERT_EQ(given.size(), 2u);
  EXPECT_EQ(given[0].run.seed, 42u);
  EXPECT_TRUE(given[0].run.seedGiven);
  EXPECT_EQ(given[1].run.seed, 3u);
  auto store = ResultsStore::open(freshTempPath("names.db"), true);
  importRuns(*store, path, given);
  auto stored = store->loadRuns();
  EXPECT_EQ(stored[0].runName, "prod_42");
  EXPECT_EQ(stored[0].seed, 42u);
  EXPECT_TRUE(stored[0].seedGiven);
  EXPECT_EQ(store->loadStudySpec().seeds, (std::vector<std::uint64_t>{3, 42}));
  const std::string badSeed =
      write("bad-seed.csv", "run,backend,seed,epoch,accuracy\nr,tpu,1e300,1,0.5\n");
  EXPECT_EQ(importError(badSeed), badSeed +
                                      ":2: column 3 (seed): not a seed (an integer in [0, 2^63 - "
                                      "1]): '1e300'");
}

// What the published torchprime CSV really holds. Its xla group has two pairs of runs
// recorded twice with identical 25-epoch curves (prod_42 at 17:22:02 and 18:13:01, prod_3 at
// 2025-07-22 21:29:51 and 2025-07-23 19:58:33); its cuda repeats of prod_42 and prod_3 differ.
TEST(Import, ReferenceXlaGroupHoldsTwoPairsOfIdenticalRuns) {
  auto runs = readResultsCsv(kReference, {});
  const auto notes = identicalRunNotes(runs);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "xla: 2 pairs of identical runs (prod_42 and prod_42; prod_3 and prod_3); n would be "
            "12 without them (14 runs)");
}

// Importing the same CSV twice once appended everything again.
TEST(Import, ReimportIsIdempotent) {
  auto store = ResultsStore::open(freshTempPath("twice.db"), true);
  auto runs = readResultsCsv(kReference, {});
  ImportSummary first = importRuns(*store, kReference, runs);
  EXPECT_EQ(first.added, 28);
  EXPECT_EQ(first.present, 0);
  auto again = readResultsCsv(kReference, {});
  ImportSummary second = importRuns(*store, kReference, again);
  EXPECT_EQ(second.added, 0);
  EXPECT_EQ(second.present, 28);
  EXPECT_EQ(store->loadRuns().size(), 28u);
  const std::string dup =
      write("dup-row.csv", "backend,seed,final_accuracy\ncpu,1,0.5\ncpu,1,0.5\n");
  CsvImportOptions wide;
  wide.epochColumn = "";
  EXPECT_EQ(importError(dup, wide), dup + ":3: backend 'cpu' seed 1 twice (first at line 2)");
}

std::string importIntoError(ResultsStore& store, const std::string& csv, bool addToStudy) {
  auto runs = readResultsCsv(csv, {});
  try {
    importRuns(store, csv, runs, addToStudy);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "(imported)";
}

// A database holds one study: measured results are not mixed into an emulated study's statistics
// without being asked for.
TEST(Import, IntoAnEmulatedStudyIsRefusedUnlessAddingToItIsAsked) {
  const std::string path = freshTempPath("emulated.db");
  auto store = ResultsStore::open(path, true);
  store->saveStudySpec(studySpecToJson(parseStudySpec(
                                           R"({"version": 1, "name": "mlp-study",
                                               "backends": ["cpu-fp32", "tpu-bf16"]})"))
                           .dump());
  RunRecord r;
  r.backend = "cpu-fp32";
  r.status = RunState::Completed;
  r.finalAccuracy = 0.8;
  store->addRun(r);
  const std::string e = importIntoError(*store, kReference, false);
  EXPECT_NE(e.find(path + ": holds the emulated study 'mlp-study' (1 emulated runs)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("--add-to-study"), std::string::npos) << e;
  EXPECT_EQ(store->loadRuns().size(), 1u);
  EXPECT_EQ(importIntoError(*store, kReference, true), "(imported)");
  EXPECT_EQ(store->loadRuns().size(), 29u);
}

TEST(Import, AnotherFilesResultsAreRefusedUnlessAddingToTheStudyIsAsked) {
  const std::string path = freshTempPath("imported.db");
  auto store = ResultsStore::open(path, true);
  EXPECT_EQ(importIntoError(*store, kReference, false), "(imported)");
  const std::string other =
      write("other.csv", "run,backend,seed,epoch,accuracy\nr1,gpu,1,1,0.5\nr1,gpu,1,2,0.6\n");
  const std::string e = importIntoError(*store, other, false);
  EXPECT_NE(e.find(path + ": holds results imported from "), std::string::npos) << e;
  EXPECT_NE(e.find("not from " + other), std::string::npos) << e;
  EXPECT_EQ(store->loadRuns().size(), 28u);
  EXPECT_EQ(importIntoError(*store, other, true), "(imported)");
  EXPECT_EQ(store->loadRuns().size(), 29u);
  // The added backend and seed join the stored study: the database stays consistent.
  const StudySpec spec = store->loadStudySpec();
  EXPECT_EQ(spec.backends.back().name, "gpu");
  store.reset();
  EXPECT_EQ(ResultsStore::openReadOnly(path)->loadRuns().size(), 29u);
}

// A backend or run name is shown in tables, charts and terminals: NUL, newlines and escapes (an
// ANSI sequence would reach the terminal) are refused with the row and column, and the message
// itself shows them as '?'.
TEST(Import, NamesWithControlCharactersAreRefusedAndNotEchoed) {
  CsvImportOptions wide;
  wide.epochColumn = "";
  const std::string escape = write("escape.csv", "backend,seed,final_accuracy\ntpu\x1b[2J,1,0.5\n");
  EXPECT_EQ(importError(escape, wide), escape +
                                           ":2: column 1 (backend): control character 0x1B at "
                                           "position 4 (a name must be printable): 'tpu?[2J'");
  const std::string newline =
      write("newline.csv", "backend,seed,final_accuracy\n\"tp\nu\",1,0.5\n");
  EXPECT_NE(importError(newline, wide).find("control character 0x0A at position 3"),
            std::string::npos)
      << importError(newline, wide);
  static constexpr char kNul[] = "backend,seed,final_accuracy\nt\0u,1,0.5\n";
  const std::string nul = write("nul.csv", std::string(kNul, sizeof kNul - 1));
  EXPECT_NE(importError(nul, wide).find("control character 0x00 at position 2"), std::string::npos)
      << importError(nul, wide);
}

// "run, backend, epoch, accuracy" as spreadsheets and people write it was not read (no column
// 'backend').
TEST(Import, HeadersAndFieldsWithSpacesAfterTheCommasAreRead) {
  const std::string path = write("spaced.csv",
                                 "run, backend, seed, epoch, accuracy\n"
                                 "r1, xla, 7, 1, 0.5\nr1, xla, 7, 2, 0.625\n");
  const auto runs = readResultsCsv(path, {});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run.backend, "xla");
  EXPECT_EQ(runs[0].run.runName, "r1");
  EXPECT_EQ(runs[0].run.seed, 7u);
  EXPECT_EQ(runs[0].run.finalAccuracy, 0.625);
}

// A TensorBoard or W&B export got "no column 'backend'" without a word on what is expected.
TEST(Import, AMissingColumnSaysWhatIsExpectedAndHowToNameIt) {
  const std::string path = write("tensorboard.csv", "Wall time,Step,Value\n1.5,1,0.5\n");
  const std::string e = importError(path);
  EXPECT_NE(e.find(path + ":1: no column 'backend' (columns: 'Wall time', 'Step', 'Value')"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("one row per run and epoch (columns run, backend, epoch, accuracy"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("--backend-col"), std::string::npos) << e;
}

// The note on identical runs named every one: 10,000 identical runs made one line of 69 KB.
TEST(Import, TheIdenticalRunsNoteStaysShortForThousandsOfRuns) {
  std::string csv = "run,backend,epoch,accuracy\n";
  for (int run = 0; run < 10'000; ++run)
    for (int epoch = 1; epoch <= 2; ++epoch)
      csv += "run" + std::to_string(run) + ",tpu," + std::to_string(epoch) + ",0.5\n";
  for (int run = 0; run < 60; ++run)  // and 30 groups of two in another backend
    for (int epoch = 1; epoch <= 2; ++epoch)
      csv += "run" + std::to_string(run) + ",gpu," + std::to_string(epoch) + ",0." +
             std::to_string(100 + run / 2) + "\n";
  const auto notes = identicalRunNotes(readResultsCsv(write("same.csv", csv), {}));
  ASSERT_EQ(notes.size(), 2u);
  for (const std::string& note : notes) EXPECT_LT(note.size(), 800u) << note;
  EXPECT_NE(notes[0].find("tpu: 49995000 pairs of identical runs"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find(" more); n would be 1 without them (10000 runs)"), std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("; and 20 more groups); n would be 30 without them (60 runs)"),
            std::string::npos)
      << notes[1];
}

}  // namespace
}  // namespace paritylab::study
