// `paritylab-cli round --format F [...]`: rounds stdin (one number a line) and writes CSV
// `input_bits,output_bits,output`. Streams in fixed-size batches: memory does not grow with input.
// Same path as `bits`: each line -> nearest fp32 (input_bits) -> the format's Rounder.

#include <CLI/CLI.hpp>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "app/cli/cli_number_parsing.h"
#include "app/cli/command_registry.h"
#include "app/cli/number_options.h"
#include "core/input/input_limits.h"
#include "core/input/number_input.h"
#include "core/numerics/fp32_input.h"
#include "core/numerics/rounding.h"

namespace paritylab::cli {
namespace round_command {

struct RoundOptions {
  std::string format;
  std::string rounding = "nearest-even";
  std::string overflow = "inf";
  std::string subnormals = "keep";
  std::uint64_t seed = 0;
};

// Buffered stdout writer.
class BitsCsvWriter {
 public:
  ~BitsCsvWriter() { flush(); }
  void row(float input, float output) {
    if (buffer_.size() - used_ < 64) flush();
    char* p = buffer_.data() + used_;
    p = hex(p, std::bit_cast<std::uint32_t>(input));
    *p++ = ',';
    p = hex(p, std::bit_cast<std::uint32_t>(output));
    *p++ = ',';
    p = std::to_chars(p, buffer_.data() + buffer_.size(), output).ptr;
    *p++ = '\n';
    used_ = static_cast<std::size_t>(p - buffer_.data());
  }
  void text(std::string_view s) {
    flush();
    std::fwrite(s.data(), 1, s.size(), stdout);
  }
  void flush() {
    std::fwrite(buffer_.data(), 1, used_, stdout);
    used_ = 0;
  }

 private:
  static char* hex(char* p, std::uint32_t bits) {
    static constexpr char kDigits[] = "0123456789abcdef";
    *p++ = '0';
    *p++ = 'x';
    for (int shift = 28; shift >= 0; shift -= 4) *p++ = kDigits[(bits >> shift) & 0xfU];
    return p;
  }
  std::array<char, 1 << 16> buffer_{};
  std::size_t used_ = 0;
};

void runRound(const RoundOptions& o) {
  const numerics::Rounder rounder(
      numerics::RoundingSpec{requireFormat(o.format), requireRoundingMode(o.rounding),
                             requireOverflowMode(o.overflow), requireSubnormalMode(o.subnormals)});

  constexpr std::size_t kBatch = 4096;
  std::array<float, kBatch> inputs{};
  std::array<float, kBatch> outputs{};
  std::size_t batched = 0;
  std::uint64_t lineIndex = 0;     // 0-based index of the current number: the stochastic counter
  std::uint64_t firstInexact = 0;  // 1-based line of the first decimal that is not an fp32
  BitsCsvWriter writer;
  writer.text("input_bits,output_bits,output\n");
  auto flushBatch = [&] {
    rounder.applyCopy(std::span(inputs.data(), batched), std::span(outputs.data(), batched), o.seed,
                      lineIndex - batched);
    for (std::size_t i = 0; i < batched; ++i) writer.row(inputs[i], outputs[i]);
    batched = 0;
  };

  // Lines as editors write them: "\n", "\r\n" or "\r" alone; a UTF-8 byte-order mark before the
  // first; blank lines at the end (one in the middle is refused: it is no number).
  std::uint64_t lineNumber = 0;  // 1-based, for messages
  std::uint64_t blankSince = 0;  // the first of the blank lines seen last (0: none)
  const auto handle = [&](std::string_view text) {
    ++lineNumber;
    if (lineNumber == 1 && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    if (text.find_first_not_of(" \t") == std::string_view::npos) {
      if (!blankSince) blankSince = lineNumber;
      return;
    }
    if (blankSince) {
      flushBatch();
      writer.flush();
      throw CommandError("line " + std::to_string(blankSince) +
                         ": empty (one number a line; blank lines only at the end)");
    }
    const auto value = numerics::parseFp32(text);
    if (!value) {
      flushBatch();
      writer.flush();
      throw CommandError("line " + std::to_string(lineNumber) + ": '" +
                         input::excerpt(std::string(text)) +
                         "' is not a number (decimal like 1.5e-3, nan, -inf, or fp32 bits like "
                         "0x3f800000)");
    }
    inputs[batched++] = *value;
    if (!firstInexact && !numerics::parseFp32Input(text)->exact) firstInexact = lineNumber;
    ++lineIndex;
    if (batched == kBatch) flushBatch();
  };

  char* line = nullptr;
  std::size_t capacity = 0;
  ssize_t length = 0;
  struct FreeLine {
    char*& line;
    ~FreeLine() { std::free(line); }
  } freeLine{line};
  while ((length = getline(&line, &capacity, stdin)) >= 0) {
    std::string_view text(line, static_cast<std::size_t>(length));
    if (text.ends_with('\n')) text.remove_suffix(1);
    if (text.empty()) handle(text);  // a blank line
    // "\r\n" ends one line; a "\r" inside separates lines (old Mac line endings).
    while (!text.empty()) {
      const std::size_t cr = text.find('\r');
      handle(text.substr(0, cr));
      if (cr == std::string_view::npos) break;
      text.remove_prefix(cr + 1);
    }
  }
  flushBatch();
  writer.flush();
  if (firstInexact)
    std::fprintf(stderr,
                 "note: not every input is exactly an fp32 (the first is line %llu): each was read "
                 "as the nearest fp32, as a device would see it (input_bits), then rounded\n",
                 static_cast<unsigned long long>(firstInexact));
}

const CommandRegistration reg{
    "round", 30, [](CLI::App& root) {
      auto* cmd = root.add_subcommand(
          "round", "Round numbers from stdin (one a line) to a format; CSV to stdout");
      auto o = std::make_shared<RoundOptions>();
      cmd->add_option("--format,-f", o->format, "fp32, tf32, bf16, fp16, fp8-e4m3, fp8-e5m2, eXmY")
          ->required();
      cmd->add_option("--rounding", o->rounding,
                      "nearest-even (default) | nearest-away | toward-zero | stochastic");
      cmd->add_option("--overflow", o->overflow, "inf (default) | saturate");
      cmd->add_option("--subnormals", o->subnormals,
                      "keep (default) | flush (after rounding; see formats --help)");
      addIntegerOption(cmd, "--seed", o->seed, {0, input::kMaxSeedValue},
                       "Seed for stochastic rounding (line index = counter)");
      cmd->callback([o] { runRound(*o); });
    }};

}  // namespace round_command
}  // namespace paritylab::cli
