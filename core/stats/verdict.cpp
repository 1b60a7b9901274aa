#include "core/stats/verdict.h"

#include <cmath>
#include <cstdio>
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

std::string points(double fraction) {
  return printf1("%.2f", 100.0 * fraction);
}
std::string percent(double fraction) {
  return printf1("%.2f%%", 100.0 * fraction);
}
std::string level(double alpha) {
  return printf1("%g%%", 100.0 * (1.0 - alpha));
}
std::string number(double v) {
  return printf1("%g", v);
}

// "p = 0.17", "p < 0.001", "p undefined".
std::string pEquals(double p) {
  const std::string value = formatP(p);
  return value[0] == '<' ? "p " + value : (std::isnan(p) ? "p " : "p = ") + value;
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

std::string ciClause(const TTestResult& t) {
  const std::string lvl = level(t.alpha);
  if (t.tail == Tail::Less) return lvl + " upper bound " + points(t.ci_high);
  if (t.tail == Tail::Greater) return lvl + " lower bound " + points(t.ci_low);
  return lvl + " CI " + points(t.ci_low) + " to " + points(t.ci_high);
}

std::string tostClause(const TostResult& e) {
  const double m = 100.0 * e.margin;
  const std::string margin = "±" + number(m) + (m == 1.0 ? " point" : " points");
  if (e.equivalent) return "equivalent within " + margin + " (TOST " + pEquals(e.p_value) + ")";
  return "equivalence within " + margin + " is not shown (TOST " + pEquals(e.p_value) + ")";
}

std::string runsNeededClause(const VerdictInput& in) {
  if (!in.runs_needed) return "";
  const SampleSizeResult& s = *in.runs_needed;
  const std::string target = number(100.0 * s.target_power) + "% power";
  if (in.tost) {
    if (!s.reachable) return "; no feasible number of runs gives " + target + " to show it";
    return ": underpowered; ~" + std::to_string(s.n_per_group) +
           " runs per backend would be needed (" + target + ", assuming no true difference)";
  }
  const std::string difference =
      "a difference of " + points(std::fabs(in.t_test.mean_diff)) + " points";
  if (!s.reachable)
    return "; no feasible number of runs gives " + target + " to detect " + difference;
  return "; underpowered: ~" + std::to_string(s.n_per_group) +
         " runs per backend would be needed to detect " + difference + " with " + target;
}

}  // namespace

std::string formatP(double p) {
  if (std::isnan(p)) return "undefined";
  if (p < 0.001) return "< 0.001";
  return printf1("%.2g", p);
}

std::string verdict(const VerdictInput& in) {
  const TTestResult& t = in.t_test;
  const std::string& a = in.name_a;
  const std::string& b = in.name_b;
  if (t.n_a < 2 || t.n_b < 2) {
    return "Not enough data to compare " + a + " and " + b + ": " + a + " has " + runs(t.n_a) +
           " and " + b + " has " + runs(t.n_b) + " (at least 2 per backend are needed).";
  }
  if (!t.defined) {
    return "Cannot test " + a + " against " + b + ": every run of each gave the same accuracy (" +
           a + " " + percent(t.mean_a) + ", " + b + " " + percent(t.mean_b) +
           "), so there is no run-to-run variation to judge the difference against.";
  }
  std::string s;
  const bool significant = t.p_value < t.alpha;
  if (significant) {
    const bool higher = t.mean_diff > 0.0;
    s = a + " is " + (higher ? "higher" : "lower") + " than " + b + " by " +
        points(std::fabs(t.mean_diff)) + " accuracy points (" + percent(t.mean_a) + " vs " +
        percent(t.mean_b) + "; " + ciClause(t) + " points for " + a + " - " + b + "; " +
        pClause(t) + ")";
    if (in.tost)
      s += "; " + std::string(in.tost->equivalent ? "still " : "") + tostClause(*in.tost);
    return s + ".";
  }
  s = "No significant difference between " + a + " and " + b + " (" + pClause(t) + ")";
  if (in.tost && in.tost->defined) {
    if (in.tost->equivalent) return s + "; " + tostClause(*in.tost) + ".";
    return s + ", and " + tostClause(*in.tost) + runsNeededClause(in) + ".";
  }
  return s + runsNeededClause(in) +
         ". Not significant is not the same as equivalent: give an equivalence margin to test "
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
  if (options.margin) detail::requirePositive(fn, "margin", *options.margin);

  Comparison c;
  c.name_a = name_a;
  c.name_b = name_b;
  c.n_a = a.size();
  c.n_b = b.size();
  c.enough_data = c.n_a >= 2 && c.n_b >= 2;
  VerdictInput in{name_a, name_b, {}, std::nullopt, std::nullopt};
  if (!c.enough_data) {
    in.t_test.n_a = c.n_a;
    in.t_test.n_b = c.n_b;
    c.verdict = verdict(in);
    return c;
  }
  c.t_test = tTest(a, b, options.kind, options.tail, options.alpha);
  if (options.margin) c.tost = tost(a, b, *options.margin, options.alpha, options.kind);
  const TTestResult& t = *c.t_test;
  const bool inconclusive = t.defined && !(t.p_value < t.alpha) && !(c.tost && c.tost->equivalent);
  if (inconclusive && t.pooled_sd > 0.0) {
    if (c.tost) {
      c.runs_needed = tostSampleSize(0.0, t.pooled_sd, *options.margin, options.target_power,
                                     options.alpha, 100'000);
    } else if (t.mean_diff != 0.0) {
      // Power to detect a difference of the observed size, in the direction the tail tests.
      const double size = std::fabs(t.mean_diff);
      const double delta = options.tail == Tail::Less      ? -size
                           : options.tail == Tail::Greater ? size
                                                           : t.mean_diff;
      c.runs_needed = tTestSampleSize(delta, t.pooled_sd, options.target_power, options.alpha,
                                      options.tail, 100'000);
    }
  }
  in.t_test = t;
  in.tost = c.tost;
  in.runs_needed = c.runs_needed;
  c.verdict = verdict(in);
  return c;
}

}  // namespace paritylab::stats
