#include "core/stats/verdict.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/stats/descriptive.h"
#include "core/stats/sample_checks.h"

namespace paritylab::stats {
namespace {

std::string printf1(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string level(double alpha) {
  return printf1("%g%%", 100.0 * (1.0 - alpha));
}
std::string number(double v) {
  return printf1("%g", v);
}

std::string runs(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " run" : " runs");
}

std::string testLabel(const TTestResult& t) {
  return std::string(kindName(t.kind)) + (t.tail == Tail::TwoSided ? "" : " one-sided");
}

std::string pClause(const TTestResult& t) {
  return testLabel(t) + " " + pEquals(t.p_value) + ", alpha " + number(t.alpha);
}

// "95% CI 0.10 to 0.50 points", "95% upper bound 0.0123 nats".
std::string ciClause(const TTestResult& t, const MetricWords& w) {
  const std::string lvl = level(t.alpha);
  const std::string unit = w.unit.empty() ? "" : " " + w.unit;
  if (t.tail == Tail::Less) return lvl + " upper bound " + w.amount(t.ci_high) + unit;
  if (t.tail == Tail::Greater) return lvl + " lower bound " + w.amount(t.ci_low) + unit;
  return lvl + " CI " + w.amount(t.ci_low) + " to " + w.amount(t.ci_high) + unit;
}

// "±0.5 points", "±1 point", "±0.01 nats", "±0.5".
std::string marginText(double margin, const MetricWords& w) {
  const double m = w.scale * margin;
  if (w.unit.empty()) return "±" + number(m);
  return "±" + number(m) + " " + (m == 1.0 ? w.unitOne : w.unit);
}

std::string tostClause(const TostResult& e, const MetricWords& w) {
  const std::string margin = marginText(e.margin, w);
  if (e.equivalent) return "equivalent within " + margin + " (TOST " + pEquals(e.p_value) + ")";
  return "equivalence within " + margin + " is not shown (TOST " + pEquals(e.p_value) + ")";
}

// " With 5 runs each, this study would detect a difference of 1.10 points or more 80% of the
// time; smaller differences could go unnoticed."
std::string detectableSentence(const VerdictInput& in) {
  if (!in.detectable) return "";
  const DetectableDifference& d = *in.detectable;
  const std::string sizes = d.n_a == d.n_b ? runs(d.n_a) + " each"
                                           : runs(d.n_a) + " of " + in.name_a + " and " +
                                                 std::to_string(d.n_b) + " of " + in.name_b;
  std::string direction;
  if (d.tail != Tail::TwoSided) {
    direction =
        std::string(" with ") + in.name_a + (d.tail == Tail::Greater ? " higher" : " lower");
  }
  const MetricWords& w = in.words;
  return " With " + sizes + ", this study would detect a difference of " + w.amount(d.difference) +
         (w.unit.empty() ? "" : " " + w.unit) + " or more" + direction + " " +
         number(100.0 * d.power) + "% of the time; smaller differences could go unnoticed.";
}

// " To show equivalence within ±0.5 points, about 23 runs per backend are needed (80% power if
// the backends truly agree)."
std::string runsNeededSentence(const VerdictInput& in) {
  if (!in.runs_needed || !in.tost) return "";
  const SampleSizeResult& s = *in.runs_needed;
  const std::string target = number(100.0 * s.target_power) + "% power";
  const std::string margin = marginText(in.tost->margin, in.words);
  if (!s.reachable)
    return " No feasible number of runs gives " + target + " to show equivalence within " + margin +
           ".";
  return " To show equivalence within " + margin + ", about " + std::to_string(s.n_per_group) +
         " runs per backend are needed (" + target + " if the backends truly agree).";
}

}  // namespace

std::string pEquals(double p) {
  const std::string value = formatP(p);
  return value[0] == '<' ? "p " + value : (std::isnan(p) ? "p " : "p = ") + value;
}

std::string formatP(double p) {
  if (std::isnan(p)) return "undefined";
  if (p < 0.001) return "< 0.001";
  return printf1("%.2g", p);
}

std::string verdict(const VerdictInput& in) {
  const TTestResult& t = in.t_test;
  const std::string& a = in.name_a;
  const std::string& b = in.name_b;
  const MetricWords& w = in.words;
  if (t.n_a < 2 || t.n_b < 2) {
    return "Not enough data to compare " + a + " and " + b + ": " + a + " has " + runs(t.n_a) +
           " and " + b + " has " + runs(t.n_b) + " (at least 2 per backend are needed).";
  }
  if (!t.defined) {
    return "Cannot test " + a + " against " + b + ": every run of each gave the same " + w.name +
           " (" + a + " " + w.value(t.mean_a) + ", " + b + " " + w.value(t.mean_b) +
           "), so there is no run-to-run variation to judge the difference against.";
  }
  std::string s;
  const bool significant = t.p_value < t.alpha;
  if (significant) {
    const bool higher = t.mean_diff > 0.0;
    s = a + " is " + (higher ? "higher" : "lower") + " than " + b + " by " +
        w.amount(std::fabs(t.mean_diff)) + " " + w.differencePhrase + " (" +
        (w.lowerIsBetter ? "lower is better; " : "") + w.value(t.mean_a) + " vs " +
        w.value(t.mean_b) + "; " + ciClause(t, w) + " for " + a + " - " + b + "; " + pClause(t) +
        ")";
    if (in.tost)
      s += "; " + std::string(in.tost->equivalent ? "still " : "") + tostClause(*in.tost, w);
    return s + ".";
  }
  s = "No significant difference between " + a + " and " + b + " (" + pClause(t) + ")";
  const bool tested_equivalence = in.tost && in.tost->defined;
  if (tested_equivalence) s += (in.tost->equivalent ? "; " : ", and ") + tostClause(*in.tost, w);
  s += "." + detectableSentence(in);
  if (tested_equivalence && in.tost->equivalent) return s;
  if (in.tost) return s + runsNeededSentence(in);
  return s +
         " Not significant is not the same as equivalent: give an equivalence margin to test "
         "that.";
}

Comparison compareSamples(const std::string& name_a, std::span<const double> a,
                          const std::string& name_b, std::span<const double> b,
                          const CompareOptions& options) {
  const char* fn = "compareSamples";
  detail::requireSample(fn, name_a, a, 0);
  detail::requireSample(fn, name_b, b, 0);
  detail::requireAlpha(fn, options.alpha);
  detail::requireOpenUnit(fn, "target_power", options.target_power);
  if (!(options.target_power > options.alpha)) {
    throw std::invalid_argument(std::string(fn) +
                                ": target_power = " + number(options.target_power) +
                                " must be above alpha = " + number(options.alpha));
  }
  if (options.margin) detail::requirePositive(fn, "margin", *options.margin);

  Comparison c;
  c.name_a = name_a;
  c.name_b = name_b;
  c.n_a = a.size();
  c.n_b = b.size();
  c.enough_data = c.n_a >= 2 && c.n_b >= 2;
  VerdictInput in{name_a, name_b, {}, std::nullopt, std::nullopt, std::nullopt, options.words};
  if (!c.enough_data) {
    in.t_test.n_a = c.n_a;
    in.t_test.n_b = c.n_b;
    c.verdict = verdict(in);
    return c;
  }
  c.t_test = tTest(a, b, options.kind, options.tail, options.alpha);
  if (options.margin) c.tost = tost(a, b, *options.margin, options.alpha, options.kind);
  const TTestResult& t = *c.t_test;
  if (t.defined && t.se > 0.0) {
    c.detectable = minimumDetectableDifference(t, options.target_power);
    if (options.margin && options.alpha < 0.5)
      c.runs_needed = runsNeededForMargin(t, *options.margin, options.target_power);
  }
  in.t_test = t;
  in.tost = c.tost;
  in.runs_needed = c.runs_needed;
  in.detectable = c.detectable;
  c.verdict = verdict(in);
  return c;
}

}  // namespace paritylab::stats
