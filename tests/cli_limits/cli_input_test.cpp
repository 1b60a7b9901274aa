// paritylab-cli run as a separate process, as a user runs it: one number parser for every flag
// (`--seed -1`, `1.5`, `1e30`, `--lr nan` refused), `matmul` reads 1e-50 like `round` does, size
// limits (matmul output limit, a refused study leaves no database) and messages that name what is
// wrong (`--seeds 0`, an unknown command named, BOM, directories passed as files).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Result {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};

Result cli(const std::string& args, const std::string& stdinText = "") {
  std::string command = std::string(PARITYLAB_CLI) + " " + args + " 2>&1";
  if (!stdinText.empty()) command = "printf '" + stdinText + "' | " + command;
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe))
    r.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("paritylab-cli-" + std::to_string(getpid()))) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return (path_ / name).string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

void expectRefused(const Result& r, const std::string& message) {
  EXPECT_NE(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
}

TEST(CliInput, SeedFlagsRefuseWhatWouldWrapOrTruncate) {
  for (const char* bad : {"-1", "1.5", "1e30", "18446744073709551615"})
    expectRefused(
        cli(std::string("round --format bf16 --rounding stochastic --seed ") + bad, "1\\n"),
        std::string("paritylab-cli: error: --seed: expected an integer in [0, "
                    "9223372036854775807], got '") +
            bad + "'");
  const Result ok = cli("round --format bf16 --rounding stochastic --seed 1e3", "1\\n");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
}

TEST(CliInput, RunFlagsCheckedBeforeAnythingIsCreated) {
  TempDir dir;
  const std::string db = dir.path("r.db");
  expectRefused(cli("run --db " + db + " --seeds 0"),
                "paritylab-cli: error: --seeds: expected an integer in [1, 10000], got '0'");
  expectRefused(cli("run --db " + db + " --lr nan"),
                "--lr: expected a finite number in (0, 1000000], got 'nan'");
  expectRefused(cli("run --db " + db + " --seeds 1000000000"), "[1, 10000]");
  EXPECT_FALSE(fs::exists(db));
  // A study this machine cannot hold: refused with the figure, and no database is left behind.
  const std::string spec = dir.file("big.json", R"({"name": "big", "backends": ["tpu-bf16"],
      "dataset": {"source": "synthetic", "train_size": 200, "test_size": 100},
      "seeds": 1, "model": "resnet18", "width": 256, "batch_size": 65536})");
  expectRefused(cli("run " + spec + " --db " + db), "the study needs an estimated ");
  EXPECT_FALSE(fs::exists(db));
}

TEST(CliInput, UnknownCommandIsNamed) {
  const Result r = cli("frobnicate");
  expectRefused(r, "paritylab-cli: error: unknown command 'frobnicate' (commands: formats");
}

TEST(CliInput, MatmulReadsNumbersLikeRound) {
  TempDir dir;
  const std::string a = dir.file("a.csv", "1e-50,2\n");
  const std::string b = dir.file("b.csv", "3\n4\n");
  const Result r = cli("matmul " + a + " " + b);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  // 1e-50 is fp32 zero, as `round` reads it, and a note on stderr says so.
  EXPECT_TRUE(r.output.ends_with("\n8\n")) << r.output;
  EXPECT_NE(r.output.find("1 nonzero value(s) below its smallest subnormal read as 0"),
            std::string::npos)
      << r.output;
  const Result rounded = cli("round --format fp32", "1e-50\\n");
  EXPECT_NE(rounded.output.find("0x00000000,0x00000000,0"), std::string::npos) << rounded.output;
  // A UTF-8 BOM (a spreadsheet's CSV export) is skipped.
  EXPECT_EQ(cli("matmul " +
                dir.file("bom.csv",
                         "\xEF\xBB\xBF"
                         "2,2\n") +
                " " + b)
                .output,
            "14\n");
  expectRefused(cli("matmul " + dir.file("x.csv", "1,abc\n") + " " + b),
                "x.csv: row 1, column 2: 'abc' is not a number");
}

TEST(CliInput, MatmulOutputLimitAndDirectories) {
  TempDir dir;
  std::string column, row;
  for (int i = 0; i < 5000; ++i) column += "1\n", row += (i ? ",1" : "1");
  const std::string a = dir.file("col.csv", column);      // 5000 x 1
  const std::string b = dir.file("row.csv", row + "\n");  // 1 x 5000
  expectRefused(cli("matmul " + a + " " + b),
                "the product would be 5000x5000 = 25000000 values, more than matmul's limit of "
                "16777216");
  expectRefused(cli("matmul " + dir.str() + " " + b),
                dir.str() + ": is a directory, not a matrix CSV");
}

TEST(CliInput, PolicyFilesDeepDuplicateAndDirectories) {
  TempDir dir;
  const std::string a = dir.file("a.csv", "1\n"), b = dir.file("b.csv", "1\n");
  const std::string deep = dir.file(
      "deep.json", "{\"linear\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  const Result r = cli("matmul --backend " + deep + " " + a + " " + b);
  expectRefused(r, "deep.json: linear[0][0][0]");
  expectRefused(r, "...: JSON nested deeper than 64 levels");
  const std::string dup =
      dir.file("dup.json", R"({"preset": "tpu-bf16", "replicas": 1, "replicas": 2})");
  expectRefused(cli("matmul --backend " + dup + " " + a + " " + b),
                "dup.json: duplicate key 'replicas'");
  fs::create_directories(dir.path("d.json"));
  expectRefused(cli("matmul --backend " + dir.path("d.json") + " " + a + " " + b),
                "d.json: is a directory, not a policy file");
  const std::string bom = dir.file("bom.json", "\xEF\xBB\xBF{\"preset\": \"tpu-bf16\"}");
  EXPECT_EQ(cli("matmul --backend " + bom + " " + a + " " + b).exitCode, 0);
  expectRefused(cli("run " + dir.path("d.json") + " --db " + dir.path("x.db")),
                "d.json: is a directory, not a study file");
}

// `playground reduction --trials 1e8` had no upper bound (days of work); its counts are read by
// the one number parser with their limits, like every other flag.
TEST(CliInput, PlaygroundReductionTrialsAreBounded) {
  for (const char* flag : {"--trials", "--large-trials"}) {
    const Result r = cli(std::string("playground reduction ") + flag + " 1e8 --lengths 16");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find(std::string(flag) + ": expected an integer in [1, 10000], got '1e8'"),
              std::string::npos)
        << r.output;
  }
  EXPECT_EQ(cli("playground reduction --trials 2 --lengths 16 --json").exitCode, 0);
}

// `playground regression` with 1e39 in X printed every backend's -nan and exited 0: a value beyond
// fp32's range is refused with its place, and a diverged run prints "nan", never "-nan".
TEST(CliInput, PlaygroundRegressionRefusesValuesBeyondFp32) {
  const Result r = cli("playground regression --x '1e39,2; 3,4; 5,6'");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("--x: row 1, column 1: 1e+39 is not a finite fp32"), std::string::npos)
      << r.output;
  const Result y = cli("playground regression --y '7,1e40,11'");
  EXPECT_EQ(y.exitCode, 1) << y.output;
  EXPECT_NE(y.output.find("--y: row 1, column 2: 1e+40"), std::string::npos) << y.output;
  const Result diverged = cli("playground regression --lr 10 --epochs 50 --backend fp8-e4m3");
  EXPECT_EQ(diverged.exitCode, 0) << diverged.output;
  EXPECT_EQ(diverged.output.find("-nan"), std::string::npos) << diverged.output;
}

// `matmul` read 1e39 as inf and printed "-nan" without a word: a value that is not a finite fp32
// is named on stderr (the product on stdout stays the CSV), and NaN prints as "nan".
TEST(CliInput, MatmulNotesValuesBeyondFp32) {
  TempDir dir;
  const std::string a = dir.file("a.csv", "1e39,2\n3,1e-50\n");
  const std::string b = dir.file("b.csv", "1,0\n0,1\n");
  const Result r = cli("matmul " + a + " " + b);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("a.csv: 1 value(s) beyond fp32's range read as inf, 1 nonzero value(s) "
                          "below its smallest subnormal read as 0 (first at row 1, column 1: "
                          "1e+39): not exactly an fp32"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("-nan"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("inf,nan"), std::string::npos) << r.output;
}

// `playground product` read the same files as matmul without the note.
TEST(CliInput, PlaygroundProductNotesValuesBeyondFp32) {
  TempDir dir;
  const std::string a = dir.file("a.csv", "1e39,2\n3,4\n");
  const std::string b = dir.file("b.csv", "1,0\n0,1\n");
  const Result r = cli("playground product " + a + " " + b);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("a.csv: 1 value(s) beyond fp32's range read as inf (first at row 1, "
                          "column 1: 1e+39): not exactly an fp32"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("b.csv:"), std::string::npos) << r.output;
}

}  // namespace
