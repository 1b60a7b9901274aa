#include "core/playground/playground_export.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/input/csv.h"

namespace paritylab::playground {
namespace {

using input::csvNumber;

nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json numbers(const std::vector<double>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : v) out.push_back(number(x));
  return out;
}

nlohmann::json trajectoryJson(const RegressionTrajectory& t) {
  nlohmann::json coefficients = nlohmann::json::array();
  for (const auto& c : t.coefficients) coefficients.push_back(numbers(c));
  return {{"loss", numbers(t.loss)}, {"coefficients", coefficients}};
}

std::string matrixToString(const Matrix& m) {
  std::string s = formatMatrix(m);
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

}  // namespace

std::string hexBits(float v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", bitsOf(v));
  return buf;
}

std::string regressionCsv(const RegressionExperiment& e) {
  std::ostringstream out;
  input::CsvWriter csv(out);
  std::vector<std::string> header = {"source", "epoch", "loss"};
  for (int j = 1; j <= e.problem.features; ++j) header.push_back("w" + std::to_string(j));
  header.emplace_back("b");
  csv.writeRow(header);
  auto rows = [&](const std::string& source, const RegressionTrajectory& t) {
    for (std::size_t epoch = 0; epoch < t.coefficients.size(); ++epoch) {
      std::vector<std::string> row = {source, std::to_string(epoch),
                                      input::csvNumber(t.loss[epoch])};
      for (double c : t.coefficients[epoch]) row.push_back(input::csvNumber(c));
      csv.writeRow(row);
    }
  };
  rows("fp64-gd", e.gradientDescent);
  for (const auto& run : e.runs) rows(run.backend, run.trajectory);
  std::vector<std::string> row = {"fp64-lstsq", "", ""};
  for (double c : e.leastSquares.coefficients) row.push_back(input::csvNumber(c));
  csv.writeRow(row);
  return out.str();
}

nlohmann::json regressionJson(const RegressionExperiment& e) {
  const RegressionProblem& p = e.problem;
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : e.runs) {
    runs.push_back({{"backend", r.backend},
                    {"finite", r.finite},
                    {"replicas", r.replicas},
                    {"skipped_steps", r.skippedSteps},
                    {"coefficients", numbers(r.trajectory.final())},
                    {"final_loss", number(r.trajectory.loss.back())},
                    {"distance_to_fp64_gd", number(r.distanceToGradientDescent)},
                    {"distance_to_lstsq", number(r.distanceToLeastSquares)},
                    {"trajectory", trajectoryJson(r.trajectory)}});
  }
  return {{"problem",
           {{"rows", p.rows},
            {"features", p.features},
            {"x", p.x},
            {"y", p.y},
            {"lr", p.lr},
            {"epochs", p.epochs},
            {"initial_weights", p.initialWeights},
            {"initial_bias", p.initialBias}}},
          {"coefficient_order", "w1..wd, b"},
          {"fp64_gd",
           {{"coefficients", numbers(e.gradientDescent.final())},
            {"final_loss", number(e.gradientDescent.loss.back())},
            {"trajectory", trajectoryJson(e.gradientDescent)}}},
          {"fp64_lstsq",
           {{"coefficients", numbers(e.leastSquares.coefficients)},
            {"rank", e.leastSquares.rank},
            {"columns", e.leastSquares.columns},
            {"rank_deficient", e.leastSquares.rankDeficient()},
            {"residual", number(e.leastSquares.residual)},
            {"note", e.leastSquares.rankDeficient()
                         ? "[X 1] is rank-deficient: lstsq returns the minimum-norm solution; "
                           "gradient descent need not reach it"
                         : "[X 1] has full column rank: the least-squares solution is unique"}}},
          {"runs", runs},
          {"emulated", true}};
}

std::string reductionCsv(const ReductionExperiment& e) {
  std::ostringstream out;
  input::CsvWriter csv(out);
  csv.writeRow({"curve", "operands", "backends", "order", "accumulation", "length", "trial",
                "total_error", "accumulation_error"});
  for (const auto& c : e.curves) {
    for (const auto& p : c.points) {
      for (std::size_t t = 0; t < p.totalError.size(); ++t) {
        csv.writeRow({c.label, c.operands, c.backends, c.order, c.accumulation,
                      std::to_string(p.length), std::to_string(t),
                      input::csvNumber(p.totalError[t]), input::csvNumber(p.accumulationError[t])});
      }
    }
  }
  return out.str();
}

nlohmann::json reductionJson(const ReductionExperiment& e) {
  nlohmann::json curves = nlohmann::json::array();
  for (const auto& c : e.curves) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : c.points) {
      const Band total = band(p.totalError), acc = band(p.accumulationError);
      points.push_back({{"length", p.length},
                        {"total_error", numbers(p.totalError)},
                        {"accumulation_error", numbers(p.accumulationError)},
                        {"total_median", number(total.median)},
                        {"accumulation_median", number(acc.median)}});
    }
    curves.push_back({{"label", c.label},
                      {"operands", c.operands},
                      {"backends", c.backends},
                      {"order", c.order},
                      {"accumulation", c.accumulation},
                      {"points", points}});
  }
  return {{"distribution", std::string(toString(e.config.distribution))},
          {"seed", e.config.seed},
          {"lengths", e.config.lengths},
          {"trials", e.config.trials},
          {"large_trials", e.config.largeTrials},
          {"large_from", e.config.largeFrom},
          {"error", "|computed - exact| / sum |a_i b_i|"},
          {"unit_roundoff_fp32", std::ldexp(1.0, -24)},
          {"curves", curves},
          {"emulated", true}};
}

std::string productCsv(const ProductComparison& c) {
  std::ostringstream out;
  input::CsvWriter csv(out);
  csv.writeRow({"row", "col", "backend", "value", "bits", "ulps_from_" + c.reference,
                "backends_differ", "exact"});
  for (int i = 0; i < c.rows(); ++i) {
    for (int j = 0; j < c.cols(); ++j) {
      const std::size_t e = std::size_t(i) * c.cols() + j;
      for (const auto& p : c.products) {
        csv.writeRow({std::to_string(i), std::to_string(j), p.backend,
                      input::csvNumber(p.product.values[e]), hexBits(p.product.values[e]),
                      std::to_string(p.ulpsFromReference[e]), c.differs[e] ? "yes" : "no",
                      input::csvNumber(c.exact[e])});
      }
    }
  }
  return out.str();
}

nlohmann::json productJson(const ProductComparison& c) {
  nlohmann::json products = nlohmann::json::array();
  for (const auto& p : c.products) {
    nlohmann::json values = nlohmann::json::array(), bits = nlohmann::json::array();
    for (float v : p.product.values) {
      values.push_back(number(v));
      bits.push_back(hexBits(v));
    }
    products.push_back({{"backend", p.backend},
                        {"values", values},
                        {"bits", bits},
                        {"ulps_from_reference", p.ulpsFromReference}});
  }
  return {{"a", matrixToString(c.a)},
          {"b", matrixToString(c.b)},
          {"rows", c.rows()},
          {"cols", c.cols()},
          {"layout", "row-major [rows, cols]"},
          {"reference", c.reference},
          {"exact", numbers(c.exact)},
          {"differs", c.differs},
          {"products", products},
          {"emulated", true}};
}

}  // namespace paritylab::playground
