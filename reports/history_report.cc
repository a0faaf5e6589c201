#include "reports/history_report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/runner/summary_json.h"
#include "nlohmann/json.hpp"
#include "reports/report_doc.h"
#include "reports/svg_canvas.h"
#include "reports/text_escape.h"
#include "support/p_value_text.h"

namespace trn {
namespace {

using history::Alert;
using history::AlertKind;
using history::AlertStatus;
using history::Detection;
using history::Series;
using nlohmann::ordered_json;

std::string KindName(AlertKind k) {
  return k == AlertKind::kStep ? "step" : "drift";
}
std::string StatusName(AlertStatus s) {
  return s == AlertStatus::kConfirmed ? "confirmed" : "provisional";
}
std::string Direction(const Alert& a) {
  return a.regression ? "regression" : "improvement";
}
std::string Percent(double x) { return absl::StrFormat("%+.2f%%", 100 * x); }

const std::string& NightOf(const Series& s, int i) {
  return s.points[static_cast<size_t>(i)].night;
}

std::string Range(const Alert& a) {
  return absl::StrCat(a.commit_from.empty() ? "(start)" : a.commit_from, "..",
                      a.commit_to);
}

std::string AlertLine(const Series& s, const Alert& a) {
  std::string where =
      a.kind == AlertKind::kStep
          ? absl::StrCat("from ", NightOf(s, a.first))
          : absl::StrCat(NightOf(s, a.first), " to ", NightOf(s, a.last), ", ",
                         Percent(a.slope_per_night), " a night");
  return absl::StrCat(s.workload, " ", s.metric, " (", s.device,
                      "): ", KindName(a.kind), " ", Percent(a.change), " ",
                      where, ", ", StatusName(a.status), " ", Direction(a),
                      a.is_new ? ", new" : "", " (", PValueClause("q", a.q),
                      absl::StrFormat(", noise %.2f%%)", 100 * a.noise));
}

std::string PlotName(const Series& s) {
  std::string name = absl::StrCat(s.workload, ".", s.metric, ".", s.device);
  for (char& c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return name + ".svg";
}

std::vector<Alert> AlertsOf(const Detection& d, size_t series) {
  std::vector<Alert> out;
  for (const Alert& a : d.alerts) {
    if (a.series == series) out.push_back(a);
  }
  return out;
}

// The likely causes of a group: those of its alerts, each once.
std::vector<std::string> GroupCauses(std::span<const Series> series,
                                     const Detection& d,
                                     const history::AlertGroup& g,
                                     std::span<const history::RunInfo> runs) {
  std::vector<std::string> out;
  for (size_t i : g.alerts) {
    const Alert& a = d.alerts[i];
    for (std::string& c : StepCauses(series[a.series], a, runs)) {
      if (std::find(out.begin(), out.end(), c) == out.end()) {
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> StepCauses(const Series& s, const Alert& a,
                                    std::span<const history::RunInfo> runs) {
  if (a.kind != AlertKind::kStep || a.first < 1 ||
      static_cast<size_t>(a.first) >= s.points.size()) {
    return {};
  }
  const std::string& before = NightOf(s, a.first - 1);
  const std::string& after = NightOf(s, a.first);
  // Runs come in night and time order: the last of each night wins, as the
  // night's commit does.
  const history::RunInfo* old_run = nullptr;
  const history::RunInfo* new_run = nullptr;
  for (const history::RunInfo& r : runs) {
    if (r.device != s.device) continue;
    if (r.night == before) old_run = &r;
    if (r.night == after) new_run = &r;
  }
  if (old_run == nullptr || new_run == nullptr) return {};
  std::vector<std::string> out;
  auto differs = [&](const std::string& what, const std::string& x,
                     const std::string& y) {
    if (x != y) out.push_back(absl::StrCat(what, " (", x, " -> ", y, ")"));
  };
  const std::string& old_spec = s.points[a.first - 1].spec_hash;
  const std::string& new_spec = s.points[a.first].spec_hash;
  if (!old_spec.empty() && !new_spec.empty()) {
    differs(absl::StrCat("spec of ", s.workload, " changed"), old_spec,
            new_spec);
  }
  differs("device profile changed", old_run->device_hash, new_run->device_hash);
  differs("model version changed", old_run->model_version,
          new_run->model_version);
  differs("trnbench version changed", old_run->trnbench_version,
          new_run->trnbench_version);
  if (old_run->source != new_run->source) {
    out.push_back(absl::StrCat(old_run->source, " -> ", new_run->source));
  }
  return out;
}

std::string DetectionToJsonText(std::span<const Series> series,
                                const Detection& d,
                                const DetectReportOptions& options,
                                std::span<const history::RunInfo> runs) {
  ordered_json j;
  j["schema"] = "trnbench.history.detect";
  j["schema_version"] = kDetectSchemaVersion;
  j["threshold"] = options.threshold;
  j["fdr"] = options.fdr;
  j["series"] = d.series;
  j["series_nights"] = d.nights;
  j["tests"] = d.tests;
  j["new_confirmed_regression"] = d.NewConfirmedRegression();
  ordered_json alerts = ordered_json::array();
  for (const Alert& a : d.alerts) {
    const Series& s = series[a.series];
    ordered_json x;
    x["workload"] = s.workload;
    x["metric"] = s.metric;
    x["device"] = s.device;
    x["kind"] = KindName(a.kind);
    x["status"] = StatusName(a.status);
    x["direction"] = Direction(a);
    x["new"] = a.is_new;
    x["first_night"] = NightOf(s, a.first);
    x["last_night"] = NightOf(s, a.last);
    x["change"] = JsonNumber(a.change);
    x["slope_per_night"] = a.kind == AlertKind::kDrift
                               ? JsonNumber(a.slope_per_night)
                               : ordered_json(nullptr);
    x["noise"] = JsonNumber(a.noise);
    x["p"] = JsonNumber(a.p);
    x["q"] = JsonNumber(a.q);
    x["commit_from"] = a.commit_from;
    x["commit_to"] = a.commit_to;
    alerts.push_back(std::move(x));
  }
  j["alerts"] = std::move(alerts);
  ordered_json groups = ordered_json::array();
  for (const auto& g : d.groups) {
    groups.push_back({{"commit_from", g.commit_from},
                      {"commit_to", g.commit_to},
                      {"alerts", g.alerts},
                      {"confirmed_regression", g.confirmed_regression},
                      {"likely_causes", GroupCauses(series, d, g, runs)}});
  }
  j["groups"] = std::move(groups);
  return j.dump(2) + "\n";
}

std::string RenderDetectionTable(std::span<const Series> series,
                                 const Detection& d,
                                 std::span<const history::RunInfo> runs) {
  std::string out = absl::StrCat(
      "history detect: ", d.series, " series, ", d.nights, " series-nights, ",
      d.tests, " tests (Benjamini-Hochberg); ", d.alerts.size(),
      d.alerts.size() == 1 ? " alert" : " alerts", " in ", d.groups.size(),
      d.groups.size() == 1 ? " commit range" : " commit ranges", "\n");
  for (const auto& g : d.groups) {
    absl::StrAppend(&out, "commits ", Range(d.alerts[g.alerts.front()]),
                    g.confirmed_regression ? "  REGRESSION" : "", "\n");
    for (const std::string& c : GroupCauses(series, d, g, runs)) {
      absl::StrAppend(&out, "  likely cause: ", c, "\n");
    }
    for (size_t i : g.alerts) {
      const Alert& a = d.alerts[i];
      absl::StrAppend(&out, "  ", AlertLine(series[a.series], a), "\n");
    }
  }
  if (d.NewConfirmedRegression()) {
    absl::StrAppend(&out, "a new confirmed regression: exit 1\n");
  }
  return out;
}

std::string RenderDetectionMarkdown(std::span<const Series> series,
                                    const Detection& d,
                                    std::span<const history::RunInfo> runs) {
  std::string out = absl::StrCat(
      "## Run history: change points and drifts\n\n", d.series, " series, ",
      d.nights, " series-nights, ", d.tests,
      " tests; false-discovery rate controlled across all of them.\n\n");
  if (d.alerts.empty()) {
    absl::StrAppend(&out, "No change point or drift.\n");
    return out;
  }
  absl::StrAppend(&out,
                  "| commits | workload | metric | device | kind | change | "
                  "nights | status | q |\n| --- | --- | --- | --- | --- | "
                  "---: | --- | --- | ---: |\n");
  for (const auto& g : d.groups) {
    for (size_t i : g.alerts) {
      const Alert& a = d.alerts[i];
      const Series& s = series[a.series];
      absl::StrAppend(
          &out, "| `", MarkdownEscape(Range(a)), "` | ",
          MarkdownEscape(s.workload), " | ", MarkdownEscape(s.metric), " | ",
          MarkdownEscape(s.device), " | ", KindName(a.kind), " | ",
          Percent(a.change), " | ", NightOf(s, a.first),
          a.kind == AlertKind::kDrift ? absl::StrCat(" to ", NightOf(s, a.last))
                                      : "",
          " | ", StatusName(a.status), " ", Direction(a),
          a.is_new ? " (new)" : "", " | ", FormatPValue(a.q), " |\n");
    }
  }
  std::string causes;
  for (const auto& g : d.groups) {
    for (const std::string& c : GroupCauses(series, d, g, runs)) {
      absl::StrAppend(&causes, "- `",
                      MarkdownEscape(Range(d.alerts[g.alerts.front()])),
                      "`: ", MarkdownEscape(c), "\n");
    }
  }
  if (!causes.empty()) {
    absl::StrAppend(&out,
                    "\n**Likely cause** (what differs between the runs "
                    "either side of the change):\n\n",
                    causes);
  }
  return out;
}

std::string RenderHistoryTable(std::span<const history::RunInfo> runs,
                               std::span<const Series> series, int nights) {
  std::string out = absl::StrCat(
      runs.size(), runs.size() == 1 ? " run" : " runs", " in the history\n");
  for (const auto& r : runs) {
    absl::StrAppend(&out, "  ", r.night, "  ", r.run_id, "  ",
                    r.commit.empty() ? "-" : r.commit.substr(0, 12), "  ",
                    r.branch.empty() ? "-" : r.branch, "  ", r.device, "  ",
                    r.source, "  ", r.workloads, " workloads  profile ",
                    r.device_hash.empty() ? "-" : r.device_hash, "  model ",
                    r.model_version.empty() ? "-" : r.model_version, "\n");
  }
  for (const Series& s : series) {
    absl::StrAppend(&out, s.workload, " ", s.metric, " (", s.device, ", ",
                    s.unit, ")\n");
    const size_t from =
        nights > 0 && s.points.size() > static_cast<size_t>(nights)
            ? s.points.size() - static_cast<size_t>(nights)
            : 0;
    for (size_t i = from; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      absl::StrAppend(
          &out, "  ", p.night, "  ", absl::StrFormat("%.6g", p.median),
          std::isnan(p.ci_low)
              ? std::string()
              : absl::StrFormat("  [%.6g, %.6g]", p.ci_low, p.ci_high),
          p.baseline_refresh ? "  baseline refreshed" : "", "\n");
    }
  }
  return out;
}

std::string HistoryToJsonText(std::span<const history::RunInfo> runs,
                              std::span<const Series> series) {
  ordered_json j;
  j["schema"] = "trnbench.history.show";
  j["schema_version"] = kShowSchemaVersion;
  ordered_json rs = ordered_json::array();
  for (const auto& r : runs) {
    rs.push_back({{"run_id", r.run_id},
                  {"night", r.night},
                  {"recorded_at", r.recorded_at},
                  {"commit", r.commit},
                  {"branch", r.branch},
                  {"ci_run", r.ci_run},
                  {"device", r.device},
                  {"device_hash", r.device_hash},
                  {"model_version", r.model_version},
                  {"trnbench_version", r.trnbench_version},
                  {"source", r.source},
                  {"workloads", r.workloads}});
  }
  j["runs"] = std::move(rs);
  ordered_json ss = ordered_json::array();
  for (const Series& s : series) {
    ordered_json points = ordered_json::array();
    for (const auto& p : s.points) {
      points.push_back({{"night", p.night},
                        {"commit", p.commit},
                        {"median", JsonNumber(p.median)},
                        {"ci_low", JsonNumber(p.ci_low)},
                        {"ci_high", JsonNumber(p.ci_high)},
                        {"baseline_refresh", p.baseline_refresh}});
    }
    ss.push_back({{"workload", s.workload},
                  {"metric", s.metric},
                  {"device", s.device},
                  {"unit", s.unit},
                  {"lower_is_better", s.lower_is_better},
                  {"points", std::move(points)}});
  }
  j["series"] = std::move(ss);
  return j.dump(2) + "\n";
}

std::string HistoryToCsv(std::span<const Series> series) {
  std::string out =
      "workload,metric,device,unit,lower_is_better,night,commit,median,"
      "ci_low,ci_high,baseline_refresh\r\n";
  for (const Series& s : series) {
    for (const auto& p : s.points) {
      absl::StrAppend(&out, CsvField(s.workload), ",", CsvField(s.metric), ",",
                      CsvField(s.device), ",", CsvField(s.unit), ",",
                      s.lower_is_better ? "TRUE" : "FALSE", ",",
                      CsvField(p.night), ",", CsvField(p.commit), ",",
                      ShortestDouble(p.median), ",", ShortestDouble(p.ci_low),
                      ",", ShortestDouble(p.ci_high), ",",
                      p.baseline_refresh ? "TRUE" : "FALSE", "\r\n");
    }
  }
  return out;
}

std::string RenderTrendSvg(const Series& s, std::span<const Alert> alerts) {
  constexpr double kW = 760;
  constexpr double kH = 270;
  constexpr double kLeft = 78;
  constexpr double kRight = 24;
  constexpr double kTop = 44;
  constexpr double kBottom = 44;
  const size_t n = s.points.size();
  double lo = INFINITY;
  double hi = -INFINITY;
  for (const auto& p : s.points) {
    for (double v : {p.median, p.ci_low, p.ci_high}) {
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (!std::isfinite(lo)) lo = hi = 0;
  // Ticks at 1, 2 or 5 times a power of ten (the distribution plots' rule),
  // so a level reads as 420 or 2.5, never 418.7 or 2.513.
  const Axis axis = ChooseAxis(lo, hi);
  const double bottom = kH - kBottom;
  auto x = [&](double i) {
    return kLeft + (n <= 1 ? 0.5 : i / static_cast<double>(n - 1)) *
                       (kW - kLeft - kRight);
  };
  auto y = [&](double v) {
    return kTop + (axis.hi - v) / (axis.hi - axis.lo) * (bottom - kTop);
  };
  const std::string title =
      absl::StrCat(s.workload, " \xC2\xB7 ", s.metric, " \xC2\xB7 ", s.device);
  std::string out = SvgBegin(kW, kH, title);
  out += SvgText(12, 20, title, "start", 15, kInk, "bold");
  out += SvgText(12, 36,
                 absl::StrCat("nightly median and its interval, in ", s.unit,
                              s.lower_is_better ? " (lower is better)"
                                                : " (higher is better)"),
                 "start", 11, kMuted);
  const int ticks =
      static_cast<int>(std::lround((axis.hi - axis.lo) / axis.step));
  for (int t = 0; t <= ticks; ++t) {
    double v = axis.lo + axis.step * t;
    if (std::fabs(v) < axis.step * 1e-9) v = 0;  // no "-0"
    out += SvgLine(kLeft, y(v), kW - kRight, y(v), kGrid, 1);
    out +=
        SvgText(kLeft - 6, y(v) + 4, absl::StrFormat("%.*f", axis.decimals, v),
                "end", 11, kMuted);
  }
  out += SvgLine(kLeft, bottom, kW - kRight, bottom, kMuted, 1);
  // Drift windows first, so everything else draws over them.
  for (const Alert& a : alerts) {
    if (a.kind != AlertKind::kDrift) continue;
    absl::StrAppend(
        &out,
        absl::StrFormat("<rect x=\"%s\" y=\"%s\" width=\"%s\" "
                        "height=\"%s\" fill=\"%s\" fill-opacity=\"0.15\"/>\n",
                        SvgNumber(x(a.first)), SvgNumber(kTop),
                        SvgNumber(std::max(1.0, x(a.last) - x(a.first))),
                        SvgNumber(bottom - kTop),
                        a.regression ? "#d62728" : "#2ca02c"));
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& p = s.points[i];
    const double xi = x(static_cast<double>(i));
    if (p.baseline_refresh) {
      absl::StrAppend(
          &out, absl::StrFormat("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                                "y2=\"%s\" stroke=\"#1f77b4\" "
                                "stroke-dasharray=\"1,3\"/>\n",
                                SvgNumber(xi), SvgNumber(kTop), SvgNumber(xi),
                                SvgNumber(bottom)));
    }
    if (std::isfinite(p.ci_low) && std::isfinite(p.ci_high)) {
      out += SvgLine(xi, y(p.ci_low), xi, y(p.ci_high), "#8c959f", 1);
    }
  }
  std::string path;
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&path, i == 0 ? "M" : " L",
                    SvgNumber(x(static_cast<double>(i))), " ",
                    SvgNumber(y(s.points[i].median)));
  }
  if (!path.empty()) {
    absl::StrAppend(&out, "<path d=\"", path,
                    "\" fill=\"none\" stroke=\"#4c78a8\" "
                    "stroke-width=\"1.5\"/>\n");
  }
  out += "<g fill=\"#1f4e79\">\n";
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&out, "<circle cx=\"", SvgNumber(x(static_cast<double>(i))),
                    "\" cy=\"", SvgNumber(y(s.points[i].median)),
                    "\" r=\"2.5\"/>\n");
  }
  out += "</g>\n";
  for (const Alert& a : alerts) {
    if (a.kind != AlertKind::kStep) continue;
    const double xa = x(a.first - 0.5);
    absl::StrAppend(
        &out,
        absl::StrFormat("<line x1=\"%s\" y1=\"%s\" x2=\"%s\" "
                        "y2=\"%s\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                        SvgNumber(xa), SvgNumber(kTop), SvgNumber(xa),
                        SvgNumber(bottom), a.regression ? "#d62728" : "#2ca02c",
                        a.status == AlertStatus::kProvisional
                            ? " stroke-dasharray=\"5,4\""
                            : ""));
    out += SvgText(xa + 4, kTop + 13, Percent(a.change), "start", 11,
                   a.regression ? "#b31b1b" : "#1a7f37", "bold");
  }
  if (n > 0) {
    out += SvgText(kLeft, kH - 18, s.points.front().night, "start", 11, kMuted);
    out +=
        SvgText(kW - kRight, kH - 18, s.points.back().night, "end", 11, kMuted);
    out += SvgText((kLeft + kW - kRight) / 2, kH - 18,
                   absl::StrCat(n, n == 1 ? " night" : " nights"), "middle", 11,
                   kMuted);
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

std::vector<std::pair<std::string, std::string>> RenderTrendReport(
    std::span<const Series> series, const Detection& d,
    std::span<const history::RunInfo> runs) {
  // One document, rendered as markdown and as HTML with the report's
  // stylesheet (reports/report_doc.h), like report.md and report.html.
  ReportDoc doc;
  doc.title = "trnbench run history";
  doc.blocks.push_back(Paragraph(PlainText(absl::StrCat(
      d.series, " series, ", d.nights, " series-nights, ", d.tests,
      " tests; false-discovery rate controlled across all of them. Nightly "
      "medians with their intervals; change points are vertical lines "
      "(solid: confirmed, dashed: provisional; red: regression, green: "
      "improvement), drifts shaded, baseline refreshes dotted blue "
      "(docs/history.md)."))));
  doc.blocks.push_back(Heading(2, PlainText("Change points and drifts")));
  if (d.alerts.empty()) {
    doc.blocks.push_back(Paragraph(PlainText("No change point or drift.")));
  } else {
    DocTable t;
    t.header = {"commits", "workload", "metric", "device", "kind",
                "change",  "nights",   "status", "q"};
    t.right_align = {false, false, false, false, false,
                     true,  false, false, true};
    for (const auto& g : d.groups) {
      for (size_t i : g.alerts) {
        const Alert& a = d.alerts[i];
        const Series& s = series[a.series];
        t.rows.push_back(
            {CodeText(Range(a)), CodeText(s.workload), CodeText(s.metric),
             PlainText(s.device), PlainText(KindName(a.kind)),
             PlainText(Percent(a.change)),
             PlainText(
                 absl::StrCat(NightOf(s, a.first),
                              a.kind == AlertKind::kDrift
                                  ? absl::StrCat(" to ", NightOf(s, a.last))
                                  : "")),
             a.regression && a.status == AlertStatus::kConfirmed
                 ? StrongText(absl::StrCat(StatusName(a.status), " ",
                                           Direction(a),
                                           a.is_new ? " (new)" : ""))
                 : PlainText(absl::StrCat(StatusName(a.status), " ",
                                          Direction(a),
                                          a.is_new ? " (new)" : "")),
             PlainText(FormatPValue(a.q))});
      }
    }
    doc.blocks.push_back(Table(std::move(t)));
    std::vector<Text> causes;
    for (const auto& g : d.groups) {
      for (const std::string& c : GroupCauses(series, d, g, runs)) {
        causes.push_back(CodeText(Range(d.alerts[g.alerts.front()])) +
                         PlainText(": " + c));
      }
    }
    if (!causes.empty()) {
      doc.blocks.push_back(Paragraph(StrongText("Likely cause") +
                                     PlainText(" (what differs between the "
                                               "runs either side of the "
                                               "change):")));
      doc.blocks.push_back(List(std::move(causes)));
    }
  }
  // What needs a look first, on a page of dozens of plots: the series with
  // a regression, then those with only an improvement, then the rest, each
  // group in the history's order.
  auto rank = [&](size_t i) {
    const std::vector<Alert> alerts = AlertsOf(d, i);
    if (alerts.empty()) return 2;
    for (const Alert& a : alerts) {
      if (a.regression) return 0;
    }
    return 1;
  };
  std::vector<size_t> order(series.size());
  for (size_t i = 0; i < series.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rank(a) < rank(b); });
  doc.blocks.push_back(Heading(2, PlainText("Series")));
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i : order) {
    const Series& s = series[i];
    const std::string name = PlotName(s);
    std::string svg = RenderTrendSvg(s, AlertsOf(d, i));
    doc.blocks.push_back(
        Heading(3, CodeText(s.workload) + PlainText(" ") + CodeText(s.metric) +
                       PlainText(absl::StrCat(" (", s.device, ")"))));
    doc.blocks.push_back(Figure(
        {"plots/" + name,
         absl::StrCat(s.workload, " ", s.metric, " (", s.device, ")"), svg}));
    files.emplace_back("plots/" + name, std::move(svg));
  }
  files.emplace(files.begin(), "report.html", RenderHtml(doc));
  files.emplace(files.begin(), "report.md", RenderMarkdown(doc));
  return files;
}

}  // namespace trn
