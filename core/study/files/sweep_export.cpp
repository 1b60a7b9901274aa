#include "core/study/files/sweep_export.h"

#include <cmath>

#include "core/input/json_input.h"
#include "core/study/files/report_csv.h"

namespace paritylab::study {
namespace {

using nlohmann::json;

std::string typeName(stats::SumsOfSquares type) {
  return type == stats::SumsOfSquares::TypeII ? "II" : "III";
}

// The simple effect of the compared backend at `cell`, when the cell was analysed.
const stats::SimpleEffect* effectAt(const SweepAnalysis& s, std::size_t cell) {
  for (const stats::SimpleEffect& e : s.simpleEffects)
    if (s.analysedCells[e.levelA] == cell) return &e;
  return nullptr;
}

}  // namespace

json sweepAnalysisJson(const SweepAnalysis& s) {
  using input::jsonNumber;
  json factors = json::object();
  for (const SweepFactor& f : s.factors) factors[f.field] = f.values;
  json cells = json::array();
  const std::vector<std::vector<SweptValue>> grid = sweepCells(s.factors);
  for (const SweepCell& c : s.cells) {
    json values = json::object();
    for (const SweptValue& v : grid[c.cell]) values[v.field] = v.value;
    cells.push_back({{"backend", s.backends[c.backend]},
                     {"cell", s.cellNames[c.cell]},
                     {"values", values},
                     {"runs", c.runs},
                     {"finished", c.finished},
                     {"mean", jsonNumber(c.mean)},
                     {"sd", jsonNumber(c.sd)},
                     {"ci_low", jsonNumber(c.ciLow)},
                     {"ci_high", jsonNumber(c.ciHigh)}});
  }
  json j = {{"metric", std::string(comparedMetricName(s.metric))},
            {"lower_is_better", metricWords(s.metric).lowerIsBetter},
            {"alpha", s.alpha},
            {"backends", s.backends},
            {"factors", factors},
            {"cells", cells},
            {"cells_left_out", s.cellsLeftOut},
            {"a", s.backends[s.a]},
            {"b", s.backends[s.b]},
            {"verdict", s.verdict}};
  if (s.anova) {
    json rows = json::array();
    for (const stats::AnovaRow& r : s.anova->rows)
      rows.push_back({{"effect", r.effect},
                      {"sum_sq", jsonNumber(r.sumOfSquares)},
                      {"df", r.df},
                      {"mean_sq", jsonNumber(r.meanSquare)},
                      {"F", jsonNumber(r.f)},
                      {"p", jsonNumber(r.p_value)}});
    j["anova"] = {{"sums_of_squares", "type " + typeName(s.anova->type)},
                  {"balanced", s.anova->balanced},
                  {"n", s.anova->n},
                  {"rows", rows},
                  {"interaction_p", jsonNumber(s.anova->interaction().p_value)}};
  } else {
    j["anova"] = nullptr;
    j["anova_missing"] = s.anovaMissing;
  }
  json effects = json::array();
  for (const stats::SimpleEffect& e : s.simpleEffects)
    effects.push_back({{"cell", s.cellNames[s.analysedCells[e.levelA]]},
                       {"mean_a", e.test.mean_a},
                       {"mean_b", e.test.mean_b},
                       {"mean_diff", e.test.mean_diff},
                       {"ci_low", jsonNumber(e.test.ci_low)},
                       {"ci_high", jsonNumber(e.test.ci_high)},
                       {"p_value", jsonNumber(e.test.p_value)},
                       {"p_holm", jsonNumber(e.p_holm)},
                       {"rejected", e.rejected}});
  j["simple_effects"] = effects;
  if (!s.lrRanges.empty()) {
    json ranges = json::array();
    for (const LearningRateRange& r : s.lrRanges)
      ranges.push_back({{"backend", r.backend},
                        {"best_lr", jsonNumber(r.bestLr)},
                        {"best", jsonNumber(r.bestValue)},
                        {"low", jsonNumber(r.low)},
                        {"high", jsonNumber(r.high)},
                        {"usable", r.usable},
                        {"tried", r.tried},
                        {"decades", jsonNumber(r.decades)}});
    j["lr_distance"] = s.lrDistance;
    j["lr_ranges"] = ranges;
  }
  return j;
}

std::vector<std::string> sweepCsvPaths(const std::string& runsCsvPath) {
  return {pathBesideRunsCsv(runsCsvPath, "-sweep-anova"),
          pathBesideRunsCsv(runsCsvPath, "-sweep-cells"),
          pathBesideRunsCsv(runsCsvPath, "-sweep-lr")};
}

std::vector<std::string> writeSweepCsv(const SweepAnalysis& s, const std::string& runsCsvPath) {
  const std::vector<std::string> paths = sweepCsvPaths(runsCsvPath);
  const std::string metric(comparedMetricName(s.metric));
  std::vector<std::vector<std::string>> anova = {
      {"metric", "sums_of_squares", "effect", "sum_sq", "df", "mean_sq", "F", "p"}};
  if (s.anova)
    for (const stats::AnovaRow& r : s.anova->rows)
      anova.push_back({metric, typeName(s.anova->type), r.effect, csvCell(r.sumOfSquares),
                       csvCell(r.df), csvCell(r.meanSquare), csvCell(r.f), csvCell(r.p_value)});
  std::vector<std::string> header = {"metric", "backend", "cell"};
  for (const SweepFactor& f : s.factors) header.push_back(f.field);
  for (const char* c : {"runs", "finished", "mean", "sd", "ci_low", "ci_high", "compared_with",
                        "diff_from_reference", "diff_ci_low", "diff_ci_high", "p_value", "p_holm"})
    header.push_back(c);
  std::vector<std::vector<std::string>> cells = {header};
  const std::vector<std::vector<SweptValue>> grid = sweepCells(s.factors);
  for (const SweepCell& c : s.cells) {
    std::vector<std::string> row = {metric, s.backends[c.backend], s.cellNames[c.cell]};
    for (const SweptValue& v : grid[c.cell])
      row.push_back(v.value.is_number() ? csvCell(v.number()) : sweptValueText(v.value));
    for (double v : {double(c.runs), double(c.finished), c.mean, c.sd, c.ciLow, c.ciHigh})
      row.push_back(csvCell(v));
    const stats::SimpleEffect* e = c.backend == s.a ? effectAt(s, c.cell) : nullptr;
    row.push_back(e ? s.backends[s.b] : "");
    for (double v : {e ? e->test.mean_diff : NAN, e ? e->test.ci_low : NAN,
                     e ? e->test.ci_high : NAN, e ? e->test.p_value : NAN, e ? e->p_holm : NAN})
      row.push_back(csvCell(v));
    cells.push_back(std::move(row));
  }
  writeCsvRows(paths[0], anova);
  writeCsvRows(paths[1], cells);
  std::vector<std::string> written = {paths[0], paths[1]};
  if (!s.lrRanges.empty()) {
    std::vector<std::vector<std::string>> lr = {{"metric", "backend", "distance", "best_lr", "best",
                                                 "low", "high", "usable", "tried", "decades"}};
    for (const LearningRateRange& r : s.lrRanges)
      lr.push_back({metric, r.backend, csvCell(s.lrDistance), csvCell(r.bestLr),
                    csvCell(r.bestValue), csvCell(r.low), csvCell(r.high), std::to_string(r.usable),
                    std::to_string(r.tried), csvCell(r.decades)});
    writeCsvRows(paths[2], lr);
    written.push_back(paths[2]);
  }
  return written;
}

}  // namespace paritylab::study
