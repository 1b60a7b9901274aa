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
  "model": "mlp", "epochs": 1, "batch_size": 50, "backends": ["cpu-fp32", "tpu-bf16"],
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

}  // namespace
}  // namespace paritylab::cli::testing
