#include "reports/change_summary.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/number_format.h"
#include "reports/report_tables.h"
#include "reports/text_escape.h"

namespace trn {
namespace {

// The gate's provenance notes (harness/gate/comparison.cc) among its
// statistical ones (autocorrelation, drift, pairing): what changed between
// the sides rather than how the samples behave.
bool IsCauseNote(const std::string& note) {
  return absl::StrContains(note, "spec changed") ||
         absl::StrContains(note, "model version ") ||
         absl::StrContains(note, "device profile differs") ||
         absl::StrContains(note, "profile parameters that differ") ||
         absl::StrContains(note, "model -> measured") ||
         absl::StrContains(note, "measured -> model");
}

}  // namespace

std::vector<std::string> LikelyCauses(const ComparisonReport& report) {
  std::vector<std::string> out;
  for (const std::string& note : CollapsedNotes(report)) {
    if (IsCauseNote(note)) out.push_back(note);
  }
  return out;
}

std::string RenderChangeSummary(const ComparisonReport& r,
                                std::string_view title) {
  int regressions = 0, improvements = 0, inconclusive = 0, added = 0;
  for (const auto& c : r.rows) {
    regressions += c.verdict == Verdict::kRegression;
    improvements += c.verdict == Verdict::kImprovement;
    inconclusive += c.verdict == Verdict::kInconclusive;
    added += c.verdict == Verdict::kNew;
  }
  std::string out = absl::StrCat(
      "### ", std::string(title), ": ",
      regressions > 0 ? CountOf(regressions, "regression") : "no regression",
      "\n\n");
  absl::StrAppend(
      &out,
      absl::StrFormat(
          "%d regressions, %d improvements, %d inconclusive, %d new in %d "
          "comparisons with %s \xC2\xB7 threshold %s \xC2\xB7 Holm, "
          "\xCE\xB1 %.2f \xC2\xB7 %s intervals\n\n",
          regressions, improvements, inconclusive, added,
          static_cast<int>(r.rows.size()),
          MarkdownEscape(r.baseline_source.empty() ? "the baseline"
                                                   : r.baseline_source),
          ThresholdText(r), r.alpha, FormatLevel(r.confidence)));
  // Regressions first, then the other verdicts, in report order.
  std::vector<const MetricComparison*> listed;
  for (Verdict v : {Verdict::kRegression, Verdict::kImprovement,
                    Verdict::kInconclusive, Verdict::kNew}) {
    for (const auto& c : r.rows) {
      if (c.verdict == v) listed.push_back(&c);
    }
  }
  if (!listed.empty()) {
    out +=
        "| workload | metric | verdict | change | interval | adjusted p | "
        "why |\n| --- | --- | --- | ---: | --- | ---: | --- |\n";
    for (size_t i = 0; i < listed.size() && i < kSummaryMaxRows; ++i) {
      const MetricComparison& c = *listed[i];
      const bool new_row = c.verdict == Verdict::kNew;
      absl::StrAppend(
          &out, "| ", MarkdownEscape(c.workload), " | ",
          MarkdownEscape(c.metric), " | ",
          c.verdict == Verdict::kRegression
              ? "**regression**"
              : std::string(VerdictName(c.verdict)),
          " | ", new_row ? "" : FormatSignedPercent(c.change), " | ",
          new_row ? "" : FormatInterval(c.change_interval, FormatSignedPercent),
          " | ", new_row ? "" : FormatPValue(c.p_adjusted), " | ",
          MarkdownEscape(c.reason), " |\n");
    }
    if (listed.size() > kSummaryMaxRows) {
      absl::StrAppend(&out, "\n", listed.size() - kSummaryMaxRows,
                      " more not listed.\n");
    }
  }
  const size_t unchanged = r.rows.size() - listed.size();
  absl::StrAppend(&out, "\n",
                  CountOf(static_cast<int64_t>(unchanged), "comparison"),
                  " unchanged, not listed; the full report: --report-dir.\n");
  const std::vector<std::string> causes = LikelyCauses(r);
  if (!causes.empty()) {
    out +=
        "\n**Likely cause** (what differs between the baseline and this "
        "run):\n\n";
    for (const std::string& c : causes) {
      absl::StrAppend(&out, "- ", MarkdownEscape(c), "\n");
    }
  } else if (regressions > 0) {
    out +=
        "\nNo spec, model or device profile change between the baseline "
        "and this run: the change is in what the workloads ran.\n";
  }
  return out;
}

}  // namespace trn
