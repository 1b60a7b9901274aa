// paritylab-cli matmul: multiplies two CSV matrices exactly as an emulated backend's product
// would (through the one GEMM entry) and prints the result as CSV.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/cli/backend_argument.h"
#include "app/cli/command_registry.h"
#include "core/input/input_limits.h"
#include "core/playground/matrix_text.h"
#include "core/playground/product_compare.h"
#include "core/input/csv.h"

namespace paritylab::cli {
namespace {

struct Options {
  std::string backend = "cpu-fp32", a, b, product = "forward", layer = "linear";
  bool bits = false;
};

// A decimal beyond fp32's range is read as inf (as a device would see it) and a nonzero one below
// its smallest subnormal as zero: said on stderr, with the first such value's place, so the CSV on
// stdout stays the product alone.
void noteValuesNotFp32(const playground::Matrix& m, const std::string& file) {
  int overflow = 0, underflow = 0;
  std::string first;
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      const double decimal = m.decimals[std::size_t(r) * m.cols + c];
      const float value = m.at(r, c);
      const bool over = std::isfinite(decimal) && std::isinf(value);
      const bool under = decimal != 0.0 && value == 0.0f;
      if (!over && !under) continue;
      (over ? overflow : underflow) += 1;
      if (first.empty())
        first = "row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) + ": " +
                input::csvNumber(decimal);
    }
  if (overflow + underflow == 0) return;
  std::string what;
  if (overflow > 0) what = std::to_string(overflow) + " value(s) beyond fp32's range read as inf";
  if (underflow > 0)
    what += (what.empty() ? "" : ", ") + std::to_string(underflow) +
            " nonzero value(s) below its smallest subnormal read as 0";
  std::cerr << "Note: " << file << ": " << what << " (first at " << first
            << "): not exactly an fp32, as a device would see them\n";
}

void run(const Options& o) {
  const auto policy = loadBackendArgument(o.backend);
  playground::Matrix A, B;
  try {
    A = playground::readMatrixFile(o.a);
    B = playground::readMatrixFile(o.b);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
  noteValuesNotFp32(A, o.a);
  noteValuesNotFp32(B, o.b);
  if (A.cols != B.rows)
    throw CommandError("inner dimensions differ: " + o.a + " is " + std::to_string(A.rows) + "x" +
                       std::to_string(A.cols) + " but " + o.b + " is " + std::to_string(B.rows) +
                       "x" + std::to_string(B.cols));
  // A 30000x1 by 1x30000 product would print gigabytes: refuse before allocating the result.
  const auto outputValues = std::int64_t(A.rows) * std::int64_t(B.cols);
  if (outputValues > input::kMaxMatmulOutputValues)
    throw CommandError("the product would be " + std::to_string(A.rows) + "x" +
                       std::to_string(B.cols) + " = " + std::to_string(outputValues) +
                       " values, more than matmul's limit of " +
                       std::to_string(input::kMaxMatmulOutputValues) + " (4096x4096)");
  const auto kind = o.layer == "conv" ? backends::LayerKind::Conv : backends::LayerKind::Linear;
  const auto product = o.product == "backward-data"     ? backends::Product::BackwardData
                       : o.product == "backward-weight" ? backends::Product::BackwardWeight
                                                        : backends::Product::Forward;
  const std::vector<float> C = playground::multiply(policy.gemmFor(kind, product), A, B).values;
  std::string out;
  char buf[64];
  for (int i = 0; i < A.rows; ++i) {
    for (int j = 0; j < B.cols; ++j) {
      const float v = C[std::size_t(i) * B.cols + j];
      if (o.bits) {
        std::uint32_t u;
        std::memcpy(&u, &v, 4);
        std::snprintf(buf, sizeof buf, "0x%08x", u);
        out += buf;
      } else {  // NaN as "nan", never "-nan"
        out.append(buf, std::to_chars(buf, buf + sizeof buf, std::isnan(v) ? std::fabs(v) : v).ptr);
      }
      out += j + 1 < B.cols ? ',' : '\n';
    }
  }
  std::cout << out;
}

void setup(CLI::App& root) {
  auto opts = std::make_shared<Options>();
  auto* cmd = root.add_subcommand(
      "matmul",
      "Multiply A [m,k] x B [k,n] (CSV of numbers) exactly as an emulated backend's product "
      "would, printing the result as CSV (shortest round-trip decimals)");
  cmd->add_option("--backend,-b", opts->backend, "Preset name or a policy .json file")
      ->capture_default_str();
  cmd->add_option("A", opts->a, "CSV file of A [m,k]")->required();
  cmd->add_option("B", opts->b, "CSV file of B [k,n]")->required();
  cmd->add_flag("--bits", opts->bits, "Print fp32 bit patterns (0x%08x) instead of decimals");
  cmd->add_option("--product", opts->product, "Which product's policy to use")
      ->check(CLI::IsMember({"forward", "backward-data", "backward-weight"}))
      ->capture_default_str();
  cmd->add_option("--layer", opts->layer, "Layer kind whose policy to use")
      ->check(CLI::IsMember({"linear", "conv"}))
      ->capture_default_str();
  cmd->callback([opts] { run(*opts); });
}

const CommandRegistration reg{"matmul", 40, setup};

}  // namespace
}  // namespace paritylab::cli
