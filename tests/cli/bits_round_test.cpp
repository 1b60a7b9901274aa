// `bits` and `round` take one path, run here through the built command line:
// the text parsed straight to fp32 (bits says when the decimal is not exactly an fp32, round notes
// it on stderr), then the same Rounder, the same stochastic draw (round's first line, index 0,
// under the same seed), and NaN keeps its sign. With a block format, `bits` shows one block: the
// shared scale, each element's bits and what it decodes to.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace paritylab::cli {
namespace {

using testing::lineStartingWith;
using testing::runCli;

// The lines of the section of `bits` output that describes `format`.
std::string sectionOf(const std::string& bitsOutput, const std::string& format) {
  const auto start = bitsOutput.find("\n" + format + " (");
  if (start == std::string::npos) return {};
  const auto end = bitsOutput.find("\n\n", start + 1);
  return bitsOutput.substr(start + 1, end == std::string::npos ? std::string::npos : end - start);
}

// The value after "stored" in a section.
double storedOf(const std::string& section) {
  const std::string line = lineStartingWith(section, "stored");
  return std::strtod(line.substr(line.find("stored") + 6).c_str(), nullptr);
}

// round's outputs for the input lines: the third CSV column, read back as the fp32 it prints.
std::vector<double> roundedBy(const std::vector<std::string>& args,
                              const std::vector<std::string>& inputs) {
  std::string text;
  for (const auto& input : inputs) text += input + "\n";
  const auto r = runCli(args, text);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<double> out;
  std::string row;
  std::getline(lines, row);  // header
  while (std::getline(lines, row))
    out.push_back(std::strtof(row.substr(row.rfind(',') + 1).c_str(), nullptr));
  return out;
}
double roundedBy(const std::vector<std::string>& args, const std::string& input) {
  const auto out = roundedBy(args, std::vector<std::string>{input});
  return out.empty() ? 0.0 : out.front();
}

bool sameValue(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b) && std::signbit(a) == std::signbit(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

TEST(BitsAndRound, AgreeOnEveryFormatModeAndInput) {
  const std::vector<std::string> formats = {"bf16", "fp16", "tf32", "fp8-e4m3", "fp8-e5m2"};
  const std::vector<std::string> values = {
      "1.00390625000001", "1.1", "-nan", "500", "0.1", "1e-50", "65519.99", "-0", "0x3f800001"};
  auto bitsFor = [&](const std::string& value, const std::string& mode) {
    std::vector<std::string> args = {"bits", value, "--rounding", mode, "--seed", "3"};
    for (const auto& f : formats) args.insert(args.end(), {"-f", f});
    const auto bits = runCli(args);
    EXPECT_EQ(bits.exitCode, 0) << bits.err;
    return bits.out;
  };
  auto expectSame = [](double fromBits, double fromRound, const std::string& what) {
    EXPECT_TRUE(sameValue(fromBits, fromRound))
        << what << ": bits " << fromBits << ", round " << fromRound;
  };
  // Deterministic modes: one `round` per format and mode reads every value.
  for (const std::string mode : {"nearest-even", "nearest-away", "toward-zero"}) {
    std::vector<std::string> bitsOutputs;
    for (const auto& value : values) bitsOutputs.push_back(bitsFor(value, mode));
    for (const auto& f : formats) {
      const auto rounded = roundedBy({"round", "-f", f, "--rounding", mode}, values);
      ASSERT_EQ(rounded.size(), values.size());
      for (std::size_t i = 0; i < values.size(); ++i)
        expectSame(storedOf(sectionOf(bitsOutputs[i], f)), rounded[i],
                   values[i] + " " + f + " " + mode);
    }
  }
  // Stochastic: bits draws what round draws for its first line under the same seed.
  for (const std::string value : {"1.1", "0.1", "65519.99"}) {
    const std::string bits = bitsFor(value, "stochastic");
    for (const auto& f : formats)
      expectSame(storedOf(sectionOf(bits, f)),
                 roundedBy({"round", "-f", f, "--rounding", "stochastic", "--seed", "3"}, value),
                 value + " " + f + " stochastic");
  }
}

// Three inputs on which `bits` and `round` used to disagree, now one answer each.
TEST(BitsAndRound, TheReportedCases) {
  // A decimal just above bf16's tie at 1 + 2^-8: its nearest fp32 is the tie itself, which
  // nearest-even rounds down to 1 (rounding the double directly gave 1.0078125).
  const auto bits = runCli({"bits", "1.00390625000001", "-f", "bf16"});
  EXPECT_NE(bits.out.find("1.00390625000001 is not exactly an fp32"), std::string::npos)
      << bits.out;
  EXPECT_NE(bits.out.find("1.00390625 (as a device would see it)"), std::string::npos) << bits.out;
  EXPECT_EQ(storedOf(sectionOf(bits.out, "bf16")), 1.0);
  EXPECT_EQ(roundedBy({"round", "-f", "bf16"}, "1.00390625000001"), 1.0);
  // Stochastic, seed 3: one rule.
  const auto stochastic =
      runCli({"bits", "1.1", "-f", "bf16", "--rounding", "stochastic", "--seed", "3"});
  EXPECT_EQ(storedOf(sectionOf(stochastic.out, "bf16")),
            roundedBy({"round", "-f", "bf16", "--rounding", "stochastic", "--seed", "3"}, "1.1"));
  // -nan keeps its sign.
  const auto nan = runCli({"bits", "-nan", "-f", "bf16"});
  EXPECT_EQ(lineStartingWith(sectionOf(nan.out, "bf16"), "bits"),
            "  bits      1 11111111 1000000   (sign exponent mantissa)");
  // fp32 bits are exactly an fp32.
  EXPECT_NE(runCli({"bits", "0x3f800000", "-f", "bf16"}).out.find("1 (exactly an fp32)"),
            std::string::npos);
  // Through bits: toward-zero overflow in E4M3 is 448, not NaN.
  const auto e4m3 = runCli({"bits", "500", "-f", "fp8-e4m3", "--rounding", "toward-zero"});
  EXPECT_EQ(storedOf(sectionOf(e4m3.out, "fp8-e4m3")), 448.0) << e4m3.out;
}

TEST(Round, NotesInputsThatAreNotExactlyAnFp32) {
  const auto exact = runCli({"round", "-f", "bf16"}, "1.5\n0x3f800001\n-inf\n");
  EXPECT_EQ(exact.exitCode, 0);
  EXPECT_EQ(exact.err, "");
  const auto inexact = runCli({"round", "-f", "bf16"}, "1.5\n1e-50\n0.1\n");
  EXPECT_EQ(inexact.exitCode, 0);
  EXPECT_NE(inexact.err.find("not every input is exactly an fp32 (the first is line 2)"),
            std::string::npos)
      << inexact.err;
  EXPECT_NE(inexact.out.find("0x00000000,0x00000000,0\n"), std::string::npos) << inexact.out;
}

// What editors write: a UTF-8 byte-order mark, blank lines at the end, "\r\n" or "\r" alone
// between lines; all read as the same numbers. A blank line between numbers is refused, named.
TEST(Round, ReadsAByteOrderMarkTrailingBlankLinesAndEveryLineEnding) {
  const auto plain = runCli({"round", "-f", "bf16"}, "1.5\n0.25\n-2\n");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  for (const std::string& input :
       {std::string("\xEF\xBB\xBF"
                    "1.5\n0.25\n-2\n"),
        std::string("1.5\n0.25\n-2\n\n  \n"), std::string("1.5\r\n0.25\r\n-2\r\n"),
        std::string("1.5\r0.25\r-2\r"), std::string("1.5\r0.25\r-2")}) {
    const auto r = runCli({"round", "-f", "bf16"}, input);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out, plain.out);
  }
  const auto gap = runCli({"round", "-f", "bf16"}, "1.5\n\n2\n");
  EXPECT_EQ(gap.exitCode, 1);
  EXPECT_NE(gap.err.find("line 2: empty (one number a line; blank lines only at the end)"),
            std::string::npos)
      << gap.err;
}

// OCP MX: amax 3 gives the shared scale 2^(floor(log2 3) - 2) = 2^-1 (E2M1's largest power of two
// is 2^2), E8M0 code 126. The elements are value / scale rounded to E2M1 (1 sign, 2 exponent, 1
// mantissa bits, bias 1): 1.5 -> 3 = 0 10 1, 0.1 -> 0.2 -> 0, -3 -> -6 = 1 11 1.
TEST(BitsBlock, ShowsTheSharedScaleEachElementsBitsAndTheDecodedValues) {
  const auto r = runCli({"bits", "--format", "mxfp4", "1.5,0.1,-3"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("scale     2^-1 = 0.5 (E8M0 code 126 = 0b01111110)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    0  1.5               0 10 1          3             1.5   "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    1  0.100000001       0 00 0          0             0     "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    2  -3                1 11 1          -6            -3    "),
            std::string::npos)
      << r.out;

  // NVFP4: amax 6 over the tensor gives s_t = 6 / (448 * 6) and the block's E4M3 scale 448.
  const auto nv = runCli({"bits", "--format", "nvfp4", "1,2,3,6"});
  ASSERT_EQ(nv.exitCode, 0) << nv.err;
  EXPECT_NE(nv.out.find("block scale 448 (E4M3 0 1111 110)"), std::string::npos) << nv.out;

  // MXINT8: k / 64 in two's complement; amax 1 gives the scale 2^0: -1 is k = -64.
  const auto i8 = runCli({"bits", "--format", "mxint8", "1,-1,0.5"});
  ASSERT_EQ(i8.exitCode, 0) << i8.err;
  EXPECT_NE(i8.out.find("    1  -1                11000000        -1"), std::string::npos)
      << i8.out;
}

TEST(BitsBlock, RefusesWhatIsNotOneBlockNamingIt) {
  std::string many = "1";
  for (int i = 1; i < 33; ++i) many += ",1";
  const auto tooMany = runCli({"bits", "--format", "mxfp4", many});
  EXPECT_NE(tooMany.exitCode, 0);
  EXPECT_NE(tooMany.err.find("VALUES: 33 values: one block holds 1 to 32 (32 elements share a scale) in an mxfp4 block"),
            std::string::npos)
      << tooMany.err;
  const auto bad = runCli({"bits", "--format", "nvfp4", "1,x,3"});
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("'x' (value 2) is not a number"), std::string::npos) << bad.err;
  const auto mixed = runCli({"bits", "--format", "mxfp8", "--format", "bf16", "1"});
  EXPECT_NE(mixed.exitCode, 0);
  EXPECT_NE(mixed.err.find("give it alone"), std::string::npos) << mixed.err;
}

}  // namespace
}  // namespace paritylab::cli
