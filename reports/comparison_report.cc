#include "reports/comparison_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/summary_json.h"
#include "reports/terminal.h"
#include "reports/text_table.h"

namespace trn {
namespace {

std::string Num(double x) {
  if (!std::isfinite(x)) return "n/a";
  double a = std::fabs(x);
  if (a >= 1e5) return absl::StrFormat("%.0f", x);
  if (a >= 100) return absl::StrFormat("%.1f", x);
  return absl::StrFormat("%.3f", x);
}

std::string Pct(double x) {
  if (!std::isfinite(x)) return "n/a";
  return absl::StrFormat("%+.2f%%", x * 100);
}

std::string P(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 1e-4) return "<0.0001";
  return absl::StrFormat("%.4f", p);
}

std::string VerdictCell(Verdict v, bool color) {
  const std::string name(VerdictName(v));
  switch (v) {
    case Verdict::kRegression:
      return Colorize(name, Color::kRed, color);
    case Verdict::kImprovement:
      return Colorize(name, Color::kGreen, color);
    case Verdict::kInconclusive:
      return Colorize(name, Color::kYellow, color);
    case Verdict::kNew:
      return Colorize(name, Color::kCyan, color);
    case Verdict::kUnchanged:
      break;
  }
  return name;
}

}  // namespace

std::string RenderComparisonReport(const ComparisonReport& r, bool color) {
  std::string out;
  absl::StrAppendFormat(
      &out,
      "\ncomparison with %s · threshold %s · false-alarm rate %.2f "
      "(Holm over %d comparisons) · %.0f%% intervals\n",
      r.baseline_source.empty() ? "baseline" : r.baseline_source,
      ThresholdText(r), r.alpha, r.comparisons, r.confidence * 100);
  TextTable t({"workload", "metric", "baseline", "current", "change",
               "interval", "p rank", "p t(log)", "p adj", "verdict"});
  for (const auto& c : r.rows) {
    t.AddRow({c.workload, c.metric, Num(c.baseline_median),
              Num(c.current_median), Pct(c.change),
              absl::StrCat("[", Pct(c.change_interval.low), ", ",
                           Pct(c.change_interval.high), "]"),
              P(c.p_rank), P(c.p_t), P(c.p_adjusted),
              VerdictCell(c.verdict, color)});
  }
  out += t.Render("  ");
  int regressions = 0;
  for (const auto& c : r.rows) {
    if (c.verdict == Verdict::kUnchanged) continue;
    absl::StrAppend(&out, "  ", c.workload, " ", c.metric, ": ",
                    VerdictCell(c.verdict, color), " — ", c.reason, "\n");
    regressions += c.verdict == Verdict::kRegression;
  }
  bool paired = false;
  std::vector<std::string> notes;
  for (const auto& c : r.rows) {
    paired = paired || c.paired;
    for (const auto& n : c.notes) {
      std::string line = absl::StrCat(c.workload, ": ", n);
      if (n.rfind("paired", 0) == 0) continue;
      if (std::find(notes.begin(), notes.end(), line) == notes.end()) {
        notes.push_back(line);
      }
    }
  }
  if (paired) {
    absl::StrAppend(&out,
                    "  paired analysis (same seeds on both sides: Wilcoxon "
                    "signed-rank and Walsh-average interval on log ratios)\n");
  }
  for (const auto& n : notes) absl::StrAppend(&out, "  note: ", n, "\n");
  absl::StrAppend(&out, "  result: ",
                  regressions > 0
                      ? Colorize(absl::StrFormat("%d regression%s", regressions,
                                                 regressions == 1 ? "" : "s"),
                                 Color::kRed, color)
                      : Colorize("no regression", Color::kGreen, color),
                  "\n");
  return out;
}

nlohmann::ordered_json ComparisonToJson(const ComparisonReport& r) {
  nlohmann::ordered_json j;
  j["baseline"] = r.baseline_source;
  j["threshold"] = r.threshold;
  j["alpha"] = r.alpha;
  j["confidence"] = r.confidence;
  j["comparisons"] = r.comparisons;
  j["correction"] = "holm";
  j["regression"] = r.AnyRegression();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& c : r.rows) {
    nlohmann::ordered_json row;
    row["workload"] = c.workload;
    row["metric"] = c.metric;
    row["lower_is_better"] = c.lower_is_better;
    row["threshold"] = c.threshold;
    row["paired"] = c.paired;
    row["n_baseline"] = c.n_baseline;
    row["n_current"] = c.n_current;
    row["baseline_median"] = JsonNumber(c.baseline_median);
    row["current_median"] = JsonNumber(c.current_median);
    row["change"] = JsonNumber(c.change);
    row["change_ci_low"] = JsonNumber(c.change_interval.low);
    row["change_ci_high"] = JsonNumber(c.change_interval.high);
    row["rank_test"] = c.rank_test;
    row["p_rank"] = JsonNumber(c.p_rank);
    row["t_test"] = c.t_test;
    row["p_t"] = JsonNumber(c.p_t);
    row["test"] = c.test;
    row["p"] = JsonNumber(c.p_value);
    row["p_adjusted"] = JsonNumber(c.p_adjusted);
    row["verdict"] = std::string(VerdictName(c.verdict));
    row["reason"] = c.reason;
    row["repeats_to_resolve"] = c.repeats_to_resolve;
    row["notes"] = c.notes;
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  return j;
}

}  // namespace trn
