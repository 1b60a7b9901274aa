// Deeply nested JSON refused before anything recurses, values in messages truncated, duplicate
// keys refused with the key and its path, and the JSON side of messages that name what is wrong
// (UTF-8 byte-order mark, directories passed as files); the numbers JSON cannot hold (NaN,
// infinities) written and read back.

#include "core/input/json_input.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/input/input_limits.h"
#include "core/input/text_file.h"
#include "tests/support/child_with_time_limit.h"

namespace paritylab::input {
namespace {

std::string errorOf(const auto& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string nested(std::size_t depth, char open = '[', char close = ']') {
  return std::string(depth, open) + std::string(depth, close);
}

TEST(JsonInput, NumbersJsonCannotHoldAreWrittenAndReadBack) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(jsonNumber(std::nan("")).is_null());
  EXPECT_EQ(jsonNumber(inf), "inf");
  EXPECT_EQ(jsonNumber(-inf), "-inf");
  EXPECT_EQ(jsonNumber(0.1), 0.1);
  for (double v : {0.1, -0.0, 1e-300, inf, -inf}) {
    const double back = numberFromJson(nlohmann::json::parse(jsonNumber(v).dump()), "v");
    EXPECT_EQ(std::memcmp(&back, &v, sizeof v), 0) << v;  // bit for bit, the sign of 0 too
  }
  EXPECT_TRUE(std::isnan(numberFromJson(nullptr, "v")));
  try {
    numberFromJson("infinity", "steps[3]");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("steps[3]: expected a number, null or \"inf\""),
              std::string::npos)
        << e.what();
  }
}

TEST(JsonInput, DeepNestingRefusedWithoutRecursion) {
  // The stack overflow's reproducers: 100k levels (a policy) and 500k levels (a study) used to
  // overflow the stack in value.dump(). Built here, not stored in the repository.
  for (std::size_t depth : {std::size_t(100'000), std::size_t(500'000)}) {
    const std::string e = errorOf([&] { parseJsonText(nested(depth), "deep.json"); });
    EXPECT_NE(e.find("deep.json: "), std::string::npos) << e.substr(0, 300);
    EXPECT_NE(e.find("JSON nested deeper than 64 levels"), std::string::npos) << e.substr(0, 300);
    EXPECT_LT(e.size(), 300u);  // the path is cut, not 64 levels of "[0]" and more
  }
  std::string objects;
  for (int i = 0; i < 100'000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100'000, '}');
  EXPECT_NE(errorOf([&] { parseJsonText(objects, "o.json"); }).find("nested deeper"),
            std::string::npos);
  // The limit itself is accepted: 64 levels.
  EXPECT_NO_THROW(parseJsonText(nested(std::size_t(kMaxJsonDepth)), "ok.json"));
  EXPECT_NE(errorOf([&] { parseJsonText(nested(std::size_t(kMaxJsonDepth) + 1), "x"); }),
            "(no error)");
}

TEST(JsonInput, DuplicateKeysNamedWithTheirPath) {
  EXPECT_EQ(errorOf([] { parseJsonText(R"({"name": "a", "name": "b"})", "s.json"); }),
            "s.json: duplicate key 'name'");
  EXPECT_EQ(errorOf([] {
              parseJsonText(R"({"backends": [1, {"policy": {"replicas": 1, "replicas": 8}}]})",
                            "s.json");
            }),
            "s.json: backends[1].policy: duplicate key 'replicas'");
  // The same key in different objects is fine.
  EXPECT_NO_THROW(
      parseJsonText(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "s.json"));
}

TEST(JsonInput, SyntaxErrorsGiveLineAndColumnAndBomIsSkipped) {
  const std::string e = errorOf([] { parseJsonText("{\n  \"a\": ,\n}", "s.json"); });
  EXPECT_EQ(e.rfind("s.json:2:8: invalid JSON: syntax error", 0), 0u) << e;
  const auto j = parseJsonText("\xEF\xBB\xBF{\"name\": \"bom\"}", "bom.json");
  EXPECT_EQ(j.at("name"), "bom");
}

TEST(JsonInput, ExcerptIsBoundedWhateverTheValue) {
  const nlohmann::json longString = std::string(1'000'000, 'x');
  EXPECT_LE(jsonExcerpt(longString).size(), 70u);
  nlohmann::json wide = nlohmann::json::array();
  for (int i = 0; i < 100'000; ++i) wide.push_back(i);
  const std::string w = jsonExcerpt(wide, 20);
  EXPECT_EQ(w.rfind("[0,1,2,3,4,5,6,7,8,9", 0), 0u) << w;
  EXPECT_LE(w.size(), 40u);
  // A document built in code (not parsed) deeper than the limit: the walk stops, no recursion.
  nlohmann::json deep = 1;
  for (int i = 0; i < 10'000; ++i) deep = nlohmann::json::array({std::move(deep)});
  EXPECT_LE(jsonExcerpt(deep).size(), 70u);
}

TEST(JsonInput, NumbersCheckedWithoutWrapping) {
  using nlohmann::json;
  const IntegerLimits seed{0, kMaxSeedValue};
  // These used to wrap to -1 or become 0.
  EXPECT_EQ(
      errorOf([&] { requireJsonInteger(json::parse("18446744073709551615"), "seeds[0]", seed); }),
      "seeds[0]: expected an integer in [0, 9223372036854775807], got "
      "18446744073709551615");
  EXPECT_NE(errorOf([&] {
              requireJsonInteger(json::parse("1e300"), "seeds[0]", seed);
            }).find("got 1e+300"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { requireJsonInteger(json::parse("-1"), "seeds[0]", seed); }),
            "(no error)");
  EXPECT_NE(errorOf([&] { requireJsonInteger(json::parse("\"3\""), "seeds[0]", seed); }),
            "(no error)");
  EXPECT_EQ(requireJsonInteger(json::parse("9223372036854775807"), "s", seed), INT64_MAX);
  EXPECT_EQ(requireJsonInteger(json::parse("4.0"), "s", seed), 4);
  EXPECT_EQ(requireJsonReal(json::parse("0.25"), "lr", {0, 1, true}), 0.25);
  EXPECT_NE(errorOf([&] { requireJsonReal(json::parse("null"), "lr", {0, 1}); }), "(no error)");
}

TEST(TextFile, DirectoriesMissingAndOversizedFilesNamed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("paritylab-input-" + std::to_string(getpid()));
  fs::create_directories(dir);
  EXPECT_EQ(errorOf([&] { readTextFile(dir.string(), "study file", 100); }),
            dir.string() + ": is a directory, not a study file");
  EXPECT_EQ(errorOf([&] { readTextFile((dir / "none.json").string(), "study file", 100); }),
            (dir / "none.json").string() + ": no such file (expected a study file)");
  const fs::path big = dir / "big.json";
  std::ofstream(big) << std::string(101, ' ');
  EXPECT_EQ(errorOf([&] { readTextFile(big.string(), "policy file", 100); }),
            big.string() + ": 101 bytes, more than the 100 a policy file may have");
  EXPECT_EQ(readTextFile(big.string(), "policy file", 101).size(), 101u);
  fs::remove_all(dir);
}

// Reading a pipe nobody writes to waited forever; /dev/zero never ends. Run in a child process
// so that a hang fails the test after 10 s instead of stopping the suite.
TEST(TextFile, PipesAndDevicesAreRefusedNotReadForever) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("paritylab-input-fifo-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string fifo = (dir / "study.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    const auto outcome = paritylab::testing::runInChild([&path] {
      return errorOf([&] { readTextFile(path, "study file", 1 << 20); }) ==
             path + ": not a regular file (a pipe, device or socket), not a study file";
    });
    EXPECT_NE(outcome, paritylab::testing::ChildOutcome::TimedOut)
        << path << ": still reading after 10 s";
    EXPECT_EQ(outcome, paritylab::testing::ChildOutcome::Passed) << path;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace paritylab::input
