// paritylab-cli playground regression: the linear-regression example under every backend
// against fp64 gradient descent and the fp64 least-squares solution.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/command_registry.h"
#include "app/cli/playground_arguments.h"
#include "core/input/csv.h"
#include "core/playground/matrix_text.h"
#include "core/playground/playground_export.h"
#include "core/playground/regression.h"

namespace paritylab::cli {
namespace playground_regression_command {

using playground::Matrix;

struct Options {
  std::vector<std::string> backends;
  std::string x = "1,2; 3,4; 5,6", y = "7,9,11", w, csv;
  double lr = 0.01, b = 0.0;
  int epochs = 100;
  bool json = false;
};

// Every backend reads its inputs as fp32: a value beyond fp32's range (1e39) would be inf to all
// of them and every result NaN, so it is refused with its place, as a NaN typed in is.
void requireFiniteFp32(const Matrix& m, const std::string& flag) {
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c)
      if (!std::isfinite(m.at(r, c)))
        throw CommandError(flag + ": row " + std::to_string(r + 1) + ", column " +
                           std::to_string(c + 1) + ": " +
                           input::csvNumber(m.decimals[std::size_t(r) * m.cols + c]) +
                           " is not a finite fp32 (the largest is 3.4028235e+38); every backend "
                           "would read it as " +
                           (std::isnan(m.at(r, c)) ? "nan" : "inf"));
}

// A row or a column of numbers (e.g. "7,9,11" or "7;9;11").
std::vector<double> vectorArgument(const std::string& text, const std::string& flag) {
  const Matrix m = playground::parseMatrix(text, flag);
  requireFiniteFp32(m, flag);
  if (m.rows != 1 && m.cols != 1)
    throw CommandError(flag + ": expected one row or one column of numbers, got " +
                       std::to_string(m.rows) + "x" + std::to_string(m.cols));
  return m.decimals;
}

// A diverged run's NaN reads "nan" (printf writes "-nan" for a NaN with its sign bit set).
std::string fixed(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%12.7f", std::isnan(v) ? std::fabs(v) : v);
  return buf;
}

std::string sci(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%11.3e", std::isnan(v) ? std::fabs(v) : v);
  return buf;
}

std::string coefficients(const std::vector<double>& c) {
  std::string s;
  for (double v : c) s += " " + fixed(v);
  return s;
}

void printTable(const playground::RegressionExperiment& e) {
  const auto& p = e.problem;
  std::string w0, header;
  for (int j = 0; j < p.features; ++j) {
    w0 += (j ? ", " : "") + input::csvNumber(p.initialWeights[std::size_t(j)]);
    char buf[16];
    std::snprintf(buf, sizeof buf, " %12s", ("w" + std::to_string(j + 1)).c_str());
    header += buf;
  }
  std::printf(
      "Regression example (emulated backends): X %dx%d, lr %g, %d full-batch epochs of SGD on "
      "MSE, from w = (%s), b = %g\n",
      p.rows, p.features, p.lr, p.epochs, w0.c_str(), p.initialBias);
  const auto& ls = e.leastSquares;
  if (ls.rankDeficient())
    std::printf(
        "Note: [X 1] has rank %d of %d columns (rank-deficient): lstsq returns the minimum-norm "
        "solution, and gradient descent need not reach it.\n",
        ls.rank, ls.columns);
  std::printf("\n%-14s%s %12s %11s %11s %11s  %s\n", "", header.c_str(), "b", "final loss",
              "|c-gd64|", "|c-lstsq|", "notes");
  std::printf(
      "%-14s%s %11s %11s %11s\n", "fp64 GD", coefficients(e.gradientDescent.final()).c_str(),
      sci(e.gradientDescent.loss.back()).c_str(), sci(0).c_str(),
      sci(playground::euclideanDistance(e.gradientDescent.final(), ls.coefficients)).c_str());
  std::printf("%-14s%s %11s %11s %11s  residual %.3g\n", "fp64 lstsq",
              coefficients(ls.coefficients).c_str(), "", "", sci(0).c_str(), ls.residual);
  for (const auto& r : e.runs) {
    std::string notes;
    if (r.replicas > 1) notes += std::to_string(r.replicas) + " replicas";
    if (r.skippedSteps > 0)
      notes += (notes.empty() ? "" : ", ") + std::to_string(r.skippedSteps) +
               " steps skipped (loss scale overflow)";
    if (!r.finite)
      notes += (notes.empty() ? "" : ", ") + std::string("loss became NaN/inf at epoch ") +
               std::to_string(r.trajectory.loss.size() - 1);
    std::printf("%-14s%s %11s %11s %11s  %s\n", r.backend.c_str(),
                coefficients(r.trajectory.final()).c_str(), sci(r.trajectory.loss.back()).c_str(),
                sci(r.distanceToGradientDescent).c_str(), sci(r.distanceToLeastSquares).c_str(),
                notes.c_str());
  }
  std::printf("\nCoefficients are (w1..w%d, b); distances are Euclidean over all of them.\n",
              p.features);
}

void run(const Options& o) {
  playground::RegressionProblem p;
  const Matrix x = playground::parseMatrix(o.x, "--x");
  requireFiniteFp32(x, "--x");
  p.rows = x.rows;
  p.features = x.cols;
  p.x = x.decimals;
  p.y = vectorArgument(o.y, "--y");
  p.lr = o.lr;
  p.epochs = o.epochs;
  p.initialWeights =
      o.w.empty() ? std::vector<double>(std::size_t(p.features), 0.0) : vectorArgument(o.w, "--w");
  p.initialBias = o.b;
  playground::RegressionExperiment e;
  try {
    e = playground::runRegressionExperiment(p, playgroundBackends(o.backends));
  } catch (const std::invalid_argument& err) {
    throw CommandError(err.what());
  }
  if (!o.csv.empty()) writeTextFile(o.csv, playground::regressionCsv(e));
  if (o.json)
    std::cout << playground::regressionJson(e).dump(2) << "\n";
  else if (o.csv != "-")
    printTable(e);
}

void setup(CLI::App& root) {
  auto opts = std::make_shared<Options>();
  auto* cmd = playgroundGroup(root).add_subcommand(
      "regression",
      "Dense(1) with bias, MSE, full-batch SGD under each backend vs fp64 gradient descent and the "
      "fp64 least-squares solution");
  cmd->add_option("--backend,-b", opts->backends,
                  "Preset or policy .json (repeat; default: every preset)");
  cmd->add_option("--x", opts->x, "X as rows separated by ';' or newlines")->capture_default_str();
  cmd->add_option("--y", opts->y, "y, one value per row of X")->capture_default_str();
  cmd->add_option("--lr", opts->lr, "Learning rate")->capture_default_str();
  cmd->add_option("--epochs", opts->epochs, "Full-batch epochs")->capture_default_str();
  cmd->add_option("--w", opts->w, "Initial weights, one per column of X (default zeros)");
  cmd->add_option("--b", opts->b, "Initial bias")->capture_default_str();
  cmd->add_flag("--json", opts->json, "Everything as JSON, trajectories included");
  cmd->add_option("--csv", opts->csv,
                  "Write the loss and coefficient trajectories as CSV ('-': "
                  "stdout, instead of the table)");
  cmd->callback([opts] {
    try {
      run(*opts);
    } catch (const std::invalid_argument& e) {
      throw CommandError(e.what());
    }
  });
}

const CommandRegistration reg{"playground regression", 46, setup};

}  // namespace playground_regression_command
}  // namespace paritylab::cli
