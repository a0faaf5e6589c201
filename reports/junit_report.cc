#include "reports/junit_report.h"

#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/text_escape.h"
#include "support/p_value_text.h"

namespace trn {
namespace {

std::string Fig(double x) {
  const std::string s = ShortestDouble(x);
  return s.empty() ? "n/a" : s;
}

std::string Details(const MetricComparison& c) {
  std::string out =
      absl::StrCat("workload: ", c.workload, "\nmetric: ", c.metric,
                   "\nverdict: ", std::string(VerdictName(c.verdict)),
                   "\nreason: ", c.reason, "\n");
  // A new workload has its own figures and nothing to compare them with.
  if (c.verdict == Verdict::kNew) {
    absl::StrAppend(&out, "baseline: none\n");
    if (c.n_current > 0) {
      absl::StrAppend(&out, "current median: ", Fig(c.current_median),
                      " (n = ", c.n_current, ")\n");
    }
    for (const auto& n : c.notes) absl::StrAppend(&out, "note: ", n, "\n");
    return out;
  }
  absl::StrAppend(
      &out, "baseline median: ", Fig(c.baseline_median), " (n = ", c.n_baseline,
      ")\ncurrent median: ", Fig(c.current_median), " (n = ", c.n_current,
      ")\nchange: ", Fig(c.change), " [", Fig(c.change_interval.low), ", ",
      Fig(c.change_interval.high),
      "] (relative, current / baseline - 1)\nthreshold: ", Fig(c.threshold),
      "\n");
  // A test that did not run (an autocorrelated series has no rank test)
  // has no name and no line.
  if (!c.rank_test.empty()) {
    absl::StrAppend(&out, c.rank_test, " p: ", FormatPValue(c.p_rank), "\n");
  }
  if (!c.t_test.empty()) {
    absl::StrAppend(&out, c.t_test, " p: ", FormatPValue(c.p_t), "\n");
  }
  // p-values as every table and sentence writes them (support/); the exact
  // ones are in results.json.
  absl::StrAppend(&out, "adjusted p (Holm): ", FormatPValue(c.p_adjusted),
                  "\n");
  if (c.repeats_to_resolve > 0) {
    absl::StrAppend(&out, "repeats to resolve: ", c.repeats_to_resolve, "\n");
  }
  for (const auto& n : c.notes) absl::StrAppend(&out, "note: ", n, "\n");
  return out;
}

}  // namespace

std::string JunitXml(const ComparisonReport& report) {
  // Suites in the order their workloads first appear, each with its rows
  // in order; grouped in one pass, since a merged suite can hold 100k
  // workloads (a scan per workload took minutes).
  struct Suite {
    const std::string* name;
    std::vector<const MetricComparison*> rows;
  };
  std::vector<Suite> suites;
  std::unordered_map<std::string_view, size_t> suite_of;
  for (const auto& c : report.rows) {
    auto [it, added] = suite_of.try_emplace(c.workload, suites.size());
    if (added) suites.push_back({&c.workload, {}});
    suites[it->second].rows.push_back(&c);
  }
  auto is_failure = [](const MetricComparison& c) {
    return c.verdict == Verdict::kRegression;
  };
  auto is_skipped = [](const MetricComparison& c) {
    return c.verdict == Verdict::kInconclusive || c.verdict == Verdict::kNew;
  };
  int64_t failures = 0;
  for (const auto& c : report.rows) failures += is_failure(c);
  // Jenkins' junit-10.xsd (xunit-plugin) allows `skipped` on <testsuite>
  // but not on <testsuites>: the skipped count is given per suite only.
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppendFormat(&out,
                        "<testsuites name=\"trnbench\" tests=\"%d\" "
                        "failures=\"%d\" errors=\"0\">\n",
                        report.rows.size(), failures);
  for (const Suite& suite : suites) {
    const std::string& w = *suite.name;
    const auto tests = static_cast<int64_t>(suite.rows.size());
    int64_t f = 0;
    int64_t s = 0;
    for (const MetricComparison* c : suite.rows) {
      f += is_failure(*c);
      s += is_skipped(*c);
    }
    absl::StrAppendFormat(
        &out,
        "  <testsuite name=\"trnbench.%s\" tests=\"%d\" failures=\"%d\" "
        "errors=\"0\" skipped=\"%d\">\n",
        XmlEscape(w), tests, f, s);
    out += "    <properties>\n";
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
             {"baseline", report.baseline_source},
             {"threshold", Fig(report.threshold)},
             {"alpha", Fig(report.alpha)},
             {"confidence", Fig(report.confidence)},
             {"correction", "holm"},
             {"format_version", "2"},
             {"comparisons", absl::StrCat(report.comparisons)}}) {
      absl::StrAppend(&out, "      <property name=\"", XmlEscape(k),
                      "\" value=\"", XmlEscape(v), "\"/>\n");
    }
    out += "    </properties>\n";
    for (const MetricComparison* row : suite.rows) {
      const MetricComparison& c = *row;
      // workload.metric: unique across suites, so a viewer that lists test
      // cases without their suite still says which workload regressed.
      // time: the current side's total of a time metric, in seconds (the
      // device time the measured runs took), else 0.
      const bool timed = c.metric.size() > 3 &&
                         c.metric.compare(c.metric.size() - 3, 3, "_us") == 0 &&
                         std::isfinite(c.current_median);
      absl::StrAppendFormat(
          &out,
          "    <testcase name=\"%s.%s\" classname=\"trnbench.%s\" "
          "time=\"%.6f\">\n",
          XmlEscape(c.workload), XmlEscape(c.metric), XmlEscape(c.workload),
          timed ? c.current_median * static_cast<double>(c.n_current) * 1e-6
                : 0.0);
      if (is_failure(c)) {
        absl::StrAppend(&out, "      <failure message=\"", XmlEscape(c.reason),
                        "\" type=\"regression\">", XmlEscapeText(Details(c)),
                        "</failure>\n");
      } else if (is_skipped(c)) {
        absl::StrAppend(
            &out, "      <skipped message=\"",
            XmlEscape(absl::StrCat(std::string(VerdictName(c.verdict)), ": ",
                                   c.reason)),
            "\"/>\n");
      }
      absl::StrAppend(&out, "      <system-out>", XmlEscapeText(Details(c)),
                      "</system-out>\n    </testcase>\n");
    }
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace trn
