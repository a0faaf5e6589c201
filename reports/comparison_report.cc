#include "reports/comparison_report.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/runner/summary_json.h"
#include "reports/number_format.h"
#include "reports/report_tables.h"
#include "reports/terminal.h"

namespace trn {

std::string RenderComparisonReport(const ComparisonReport& r,
                                   const ConsoleStyle& style) {
  std::string out = "\n";
  out += WrapText(
      absl::StrFormat(
          "comparison with %s \xC2\xB7 threshold %s \xC2\xB7 "
          "false-alarm rate %.2f (Holm over %d comparisons) \xC2\xB7 %s "
          "intervals",
          r.baseline_source.empty() ? "baseline" : r.baseline_source,
          ThresholdText(r), r.alpha, r.comparisons, FormatLevel(r.confidence)),
      style.width);
  std::vector<const MetricComparison*> rows;
  for (const auto& c : r.rows) rows.push_back(&c);
  out += RenderTextTable(ComparisonTable(rows, r.confidence), style);
  int regressions = 0;
  bool paired = false;
  for (const auto& c : r.rows) paired = paired || c.paired;
  for (const MetricComparison* c : NotableComparisons(r)) {
    out += WrapText(absl::StrCat(c->workload, " ", c->metric, ": ",
                                 VerdictText(c->verdict, style.color),
                                 " \xE2\x80\x94 ", c->reason),
                    style.width, "  ");
    regressions += c->verdict == Verdict::kRegression;
  }
  if (paired) {
    out += WrapText(
        "paired analysis (same seeds on both sides: Wilcoxon signed-rank and "
        "Walsh-average interval on log ratios)",
        style.width, "  ");
  }
  for (const std::string& n : CollapsedNotes(r)) {
    out += WrapText(absl::StrCat("note: ", n), style.width, "  ");
  }
  // A row --allow-unchecked let through was not judged: "no regression"
  // alone would claim more than the gate checked.
  const int64_t unchecked = r.Unchecked();
  const std::string unchecked_text =
      unchecked > 0 ? absl::StrCat("; ", CountOf(unchecked, "metric"),
                                   " not checked (--allow-unchecked)")
                    : "";
  absl::StrAppend(
      &out, "  result: ",
      regressions > 0
          ? Colorize(CountOf(regressions, "regression"), Color::kRed,
                     style.color)
          : Colorize(unchecked > 0 ? "no regression among the checked metrics"
                                   : "no regression",
                     unchecked > 0 ? Color::kYellow : Color::kGreen,
                     style.color),
      unchecked_text, "\n");
  return out;
}

nlohmann::ordered_json ComparisonRowToJson(const MetricComparison& c) {
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
  return row;
}

namespace {

// Every field of ComparisonToJson before its rows.
nlohmann::ordered_json ComparisonHead(const ComparisonReport& r) {
  nlohmann::ordered_json j;
  j["baseline"] = r.baseline_source;
  j["threshold"] = r.threshold;
  j["alpha"] = r.alpha;
  j["confidence"] = r.confidence;
  j["comparisons"] = r.comparisons;
  j["correction"] = "holm";
  j["regression"] = r.AnyRegression();
  j["unchecked"] = r.Unchecked();
  return j;
}

}  // namespace

nlohmann::ordered_json ComparisonToJson(const ComparisonReport& r) {
  nlohmann::ordered_json j = ComparisonHead(r);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& c : r.rows) rows.push_back(ComparisonRowToJson(c));
  j["rows"] = std::move(rows);
  return j;
}

std::string ComparisonJsonText(const ComparisonReport& r) {
  nlohmann::ordered_json head = ComparisonHead(r);
  head["rows"] = nlohmann::ordered_json::array();
  std::string out = head.dump(2);
  // dump(2) ends the object with `"rows": []` and the closing brace; the
  // rows go in their place, each indented to its depth in the document.
  constexpr absl::string_view kEmptyRows = "\"rows\": []\n}";
  if (r.rows.empty() || !absl::EndsWith(out, kEmptyRows)) {
    return ComparisonToJson(r).dump(2) + "\n";
  }
  out.resize(out.size() - kEmptyRows.size());
  out += "\"rows\": [\n";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const std::string row = ComparisonRowToJson(r.rows[i]).dump(2);
    out += "    ";
    for (char ch : row) {
      out += ch;
      if (ch == '\n') out += "    ";
    }
    out += i + 1 < r.rows.size() ? ",\n" : "\n";
  }
  out += "  ]\n}\n";
  return out;
}

}  // namespace trn
