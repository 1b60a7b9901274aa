// The command line never reports success for results it did not keep: `--db` names a plain file
// on every command that writes one, a study whose every run failed exits non-zero, outputs that
// would overwrite each other are refused, a shard with no run is refused, a refused study or a
// failed import leaves no empty database behind, and a database holds one study (imported
// hardware results are neither resumed with emulations nor mixed into an emulated study).

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli::testing {
namespace {

namespace fs = std::filesystem;

const char* kStudy = R"({"version": 1, "name": "tiny",
  "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
  "model": "mlp", "epochs": 1, "batch_size": 50, "chaos_floor": false, "backends": ["cpu-fp32", "tpu-bf16"],
  "seeds": 2, "threads": 1})";

const std::string kReference =
    PARITYLAB_SOURCE_DIR "/resources/reference/torchprime-resnet18-metrics.csv";

// SQLite would open each of these as a private temporary or in-memory database and throw the
// results away on exit; the commands used to exit 0.
TEST(ResultsSafety, DbMustBeAPlainFilePathOnEveryCommandThatWritesOne) {
  const TempFolder dir("db-path");
  const std::string study = dir.write("tiny.json", kStudy);
  const std::string csv = dir.write(
      "measured.csv", "run,backend,seed,epoch,accuracy\nr1,tpu,1,1,0.5\nr1,tpu,1,2,0.6\n");
  for (const std::string& db : {std::string(), std::string(":memory:"),
                                std::string("file:x.db?mode=memory"), dir.file("")}) {
    SCOPED_TRACE("--db '" + db + "'");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", study, "--db", db},
          std::vector<std::string>{"import", csv, "--db", db},
          std::vector<std::string>{"merge", dir.file("part.db"), "--db", db}}) {
      const CliResult r = runCli(args);
      EXPECT_EQ(r.exitCode, 1) << args[0] << ": " << r.out;
      EXPECT_NE(r.err.find("--db: '" + db + "' is not a plain file path"), std::string::npos)
          << args[0] << ": " << r.err;
      EXPECT_EQ(r.out.find("Imported"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("completed"), std::string::npos) << r.out;
    }
  }
}

TEST(ResultsSafety, ReportRefusesTwoOutputsNamingOneFile) {
  const TempFolder dir("report-same");
  const std::string db = dir.file("r.db");
  ASSERT_EQ(runCli({"import", kReference, "--db", db}).exitCode, 0);
  const std::string out = dir.file("out.csv");
  const CliResult same = runCli({"report", db, "--csv", out, "--curves", out});
  EXPECT_EQ(same.exitCode, 1);
  EXPECT_NE(same.err.find("--curves '" + out + "' is the same file as --csv '" + out + "'"),
            std::string::npos)
      << same.err;
  EXPECT_FALSE(fs::exists(out));
  const CliResult overDb = runCli({"report", db, "--curves", db});
  EXPECT_EQ(overDb.exitCode, 1);
  EXPECT_NE(overDb.err.find("is the same file as the results database"), std::string::npos)
      << overDb.err;
  EXPECT_EQ(runCli({"stats", db, "--a", "xla", "--b", "cuda"}).exitCode, 0);  // intact
}

TEST(ResultsSafety, AShardWithNoRunIsRefusedAndCreatesNothing) {
  const TempFolder dir("empty-shard");
  const std::string study = dir.write("tiny.json", kStudy);
  const CliResult r = runCli({"run", study, "--shard", "100000/100000", "--db", dir.file("s.db")});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--shard 100000/100000: this shard has none of the study's 4 runs"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.file("s.db")));
}

TEST(ResultsSafety, ARefusedStudyOrAFailedImportLeavesNoDatabase) {
  const TempFolder dir("no-empty-db");
  const std::string twice = dir.write("twice.json", R"({"version": 1, "name": "t",
      "dataset": {"source": "synthetic", "train_size": 100, "test_size": 50},
      "backends": ["cpu-fp32"], "seeds": [3, 3]})");
  const CliResult run = runCli({"run", twice, "--db", dir.file("t.db")});
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_NE(run.err.find("seeds: 3 is listed twice"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir.file("t.db")));
  // Read, then refused while writing: more different seeds than a study may have.
  std::string wide = "backend,seed,final_accuracy\n";
  for (int seed = 0; seed <= 10'000; ++seed) wide += "tpu," + std::to_string(seed) + ",0.5\n";
  const CliResult import =
      runCli({"import", dir.write("seeds.csv", wide), "--db", dir.file("i.db"), "--epoch-col", ""});
  EXPECT_EQ(import.exitCode, 1);
  EXPECT_NE(import.err.find("10001 different seeds"), std::string::npos) << import.err;
  EXPECT_FALSE(fs::exists(dir.file("i.db")));
  // A database that held results before is kept when an import into it fails.
  const std::string db = dir.file("kept.db");
  ASSERT_EQ(runCli({"import", kReference, "--db", db}).exitCode, 0);
  const std::string other =
      dir.write("other.csv", "run,backend,seed,epoch,accuracy\nr1,gpu,1,1,0.5\nr1,gpu,1,2,0.6\n");
  EXPECT_EQ(runCli({"import", other, "--db", db}).exitCode, 1);
  EXPECT_TRUE(fs::exists(db));
}

// Every run fails in training (a ResNet-18 on 8x8 images with batches of 1: batch norm sees one
// value per channel at its 1x1 last stage), after the study was accepted: nothing to compare.
TEST(ResultsSafety, AStudyWhoseEveryRunFailedExitsNonZero) {
  const TempFolder dir("all-failed");
  for (const char* cls : {"a", "b"}) {
    fs::create_directories(dir.file(std::string("images/") + cls));
    for (int i = 0; i < 4; ++i) {
      std::string pgm = "P5\n8 8\n255\n";
      for (int k = 0; k < 64; ++k) pgm += char(32 + (k * 7 + i * 13 + cls[0]) % 90);
      dir.write(std::string("images/") + cls + "/" + std::to_string(i) + ".pgm", pgm);
    }
  }
  const std::string study =
      dir.write("fail.json", R"({"version": 1, "name": "fails", "dataset": {"source": "folder:)" +
                                 dir.file("images") + R"(", "test_fraction": 0.5, "image_size": 8},
      "model": "resnet18", "width": 1, "epochs": 1, "batch_size": 1,
      "backends": ["cpu-fp32"], "seeds": 2, "threads": 1})");
  const CliResult r = runCli({"run", study, "--db", dir.file("f.db")});
  EXPECT_NE(r.out.find("0 completed, 0 diverged, 2 failed"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.err.find("every run failed (2; the reasons are above and in " + dir.file("f.db")),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(dir.file("f.db")));  // the failed runs and their reasons are kept
}

// A database holds one study: imported hardware results are not resumed with emulations, and
// measured results do not join an emulated study without --add-to-study.
TEST(ResultsSafety, ImportedAndEmulatedResultsAreNotMixedInOneDatabase) {
  const TempFolder dir("one-study");
  const std::string imported = dir.file("imported.db");
  ASSERT_EQ(runCli({"import", kReference, "--db", imported}).exitCode, 0);
  const CliResult resume = runCli({"run", "--db", imported, "--resume"});
  EXPECT_EQ(resume.exitCode, 1);
  EXPECT_NE(resume.err.find(imported + ": holds results imported from "), std::string::npos)
      << resume.err;
  const std::string emulated = dir.file("emulated.db");
  ASSERT_EQ(runCli({"run", dir.write("tiny.json", kStudy), "--db", emulated}).exitCode, 0);
  const CliResult into = runCli({"import", kReference, "--db", emulated});
  EXPECT_EQ(into.exitCode, 1);
  EXPECT_NE(into.err.find(emulated + ": holds the emulated study 'tiny' (4 emulated runs)"),
            std::string::npos)
      << into.err;
  const CliResult asked = runCli({"import", kReference, "--db", emulated, "--add-to-study"});
  EXPECT_EQ(asked.exitCode, 0) << asked.err;
  EXPECT_NE(asked.out.find("Imported 28 runs"), std::string::npos) << asked.out;
  // merge never recommends `run --resume` for imported results.
  const CliResult merged = runCli({"merge", imported, "--db", dir.file("all.db")});
  EXPECT_EQ(merged.exitCode, 0) << merged.err;
  EXPECT_NE(merged.out.find("Complete: all 28 runs"), std::string::npos) << merged.out;
  EXPECT_EQ(merged.out.find("--resume"), std::string::npos) << merged.out;
}

// An ANSI escape in a data file's backend name reached the terminal (and every table after the
// import); the name is refused and the message shows the byte as '?'.
TEST(ResultsSafety, ControlCharactersFromADataFileNeverReachTheTerminal) {
  const TempFolder dir("control-bytes");
  const std::string csv =
      dir.write("escape.csv", "backend,seed,final_accuracy\ntpu\x1b[2J,1,0.5\ngpu,1,0.6\n");
  const CliResult r = runCli({"import", csv, "--db", dir.file("e.db"), "--epoch-col", ""});
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.err.find("control character 0x1B at position 4"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.file("e.db")));
}

}  // namespace
}  // namespace paritylab::cli::testing
