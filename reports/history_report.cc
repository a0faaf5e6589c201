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
#include "reports/text_escape.h"

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
  return absl::StrCat(
      s.workload, " ", s.metric, " (", s.device, "): ", KindName(a.kind), " ",
      Percent(a.change), " ", where, ", ", StatusName(a.status), " ",
      Direction(a), a.is_new ? ", new" : "",
      absl::StrFormat(" (q %.2g, noise %.2f%%)", a.q, 100 * a.noise));
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

}  // namespace

std::string DetectionToJsonText(std::span<const Series> series,
                                const Detection& d,
                                const DetectReportOptions& options) {
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
                      {"confirmed_regression", g.confirmed_regression}});
  }
  j["groups"] = std::move(groups);
  return j.dump(2) + "\n";
}

std::string RenderDetectionTable(std::span<const Series> series,
                                 const Detection& d) {
  std::string out = absl::StrCat(
      "history detect: ", d.series, " series, ", d.nights, " series-nights, ",
      d.tests, " tests (Benjamini-Hochberg); ", d.alerts.size(),
      d.alerts.size() == 1 ? " alert" : " alerts", " in ", d.groups.size(),
      d.groups.size() == 1 ? " commit range" : " commit ranges", "\n");
  for (const auto& g : d.groups) {
    absl::StrAppend(&out, "commits ", Range(d.alerts[g.alerts.front()]),
                    g.confirmed_regression ? "  REGRESSION" : "", "\n");
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
                                    const Detection& d) {
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
          a.is_new ? " (new)" : "", " | ", absl::StrFormat("%.2g", a.q),
          " |\n");
    }
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
                    r.source, "  ", r.workloads, " workloads\n");
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

std::string RenderTrendSvg(const Series& s, std::span<const Alert> alerts) {
  constexpr double kW = 720;
  constexpr double kH = 260;
  constexpr double kLeft = 70;
  constexpr double kRight = 20;
  constexpr double kTop = 30;
  constexpr double kBottom = 40;
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
  if (hi <= lo) {
    hi = lo + std::max(1e-9, std::fabs(lo) * 0.01);
    lo = lo - (hi - lo);
  }
  const double pad = 0.05 * (hi - lo);
  lo -= pad;
  hi += pad;
  auto x = [&](double i) {
    return kLeft + (n <= 1 ? 0.5 : i / static_cast<double>(n - 1)) *
                       (kW - kLeft - kRight);
  };
  auto y = [&](double v) {
    return kTop + (hi - v) / (hi - lo) * (kH - kTop - kBottom);
  };
  std::string out = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
      "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n",
      kW, kH, kW, kH);
  absl::StrAppend(
      &out, "<text x=\"", kLeft, "\" y=\"18\" font-size=\"13\">",
      XmlEscapeText(absl::StrCat(s.workload, " ", s.metric, " (", s.device,
                                 "): nightly median and interval, ", s.unit)),
      "</text>\n");
  absl::StrAppend(
      &out,
      absl::StrFormat("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"none\" "
                      "stroke=\"#999\"/>\n",
                      kLeft, kTop, kW - kLeft - kRight, kH - kTop - kBottom));
  for (int k = 0; k <= 4; ++k) {
    const double v = lo + (hi - lo) * k / 4.0;
    absl::StrAppend(&out, absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" "
                                          "text-anchor=\"end\">%.4g</text>\n",
                                          kLeft - 4, y(v) + 4, v));
  }
  // Drift windows first, so everything else draws over them.
  for (const Alert& a : alerts) {
    if (a.kind != AlertKind::kDrift) continue;
    absl::StrAppend(
        &out, absl::StrFormat(
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                  "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.15\"/>\n",
                  x(a.first), kTop, std::max(1.0, x(a.last) - x(a.first)),
                  kH - kTop - kBottom, a.regression ? "#d62728" : "#2ca02c"));
  }
  for (size_t i = 0; i < n; ++i) {
    const auto& p = s.points[i];
    const double xi = x(static_cast<double>(i));
    if (p.baseline_refresh) {
      absl::StrAppend(
          &out, absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                "y2=\"%.1f\" stroke=\"#1f77b4\" "
                                "stroke-dasharray=\"1,3\"/>\n",
                                xi, kTop, xi, kH - kBottom));
    }
    if (std::isfinite(p.ci_low) && std::isfinite(p.ci_high)) {
      absl::StrAppend(
          &out, absl::StrFormat("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                                "y2=\"%.1f\" stroke=\"#888\"/>\n",
                                xi, y(p.ci_low), xi, y(p.ci_high)));
    }
  }
  std::string path;
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&path, i == 0 ? "M" : " L",
                    absl::StrFormat("%.1f %.1f", x(static_cast<double>(i)),
                                    y(s.points[i].median)));
  }
  if (!path.empty()) {
    absl::StrAppend(&out, "<path d=\"", path,
                    "\" fill=\"none\" stroke=\"#333\"/>\n");
  }
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
                        "fill=\"#333\"/>\n",
                        x(static_cast<double>(i)), y(s.points[i].median)));
  }
  for (const Alert& a : alerts) {
    if (a.kind != AlertKind::kStep) continue;
    const double xa = x(a.first - 0.5);
    absl::StrAppend(
        &out,
        absl::StrFormat(
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
            xa, kTop, xa, kH - kBottom, a.regression ? "#d62728" : "#2ca02c",
            a.status == AlertStatus::kProvisional ? " stroke-dasharray=\"5,4\""
                                                  : ""),
        absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", xa + 3,
                        kTop + 12, Percent(a.change)));
  }
  if (n > 0) {
    absl::StrAppend(
        &out,
        absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", kLeft,
                        kH - 12, s.points.front().night),
        absl::StrFormat("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                        "%s</text>\n",
                        kW - kRight, kH - 12, s.points.back().night));
  }
  absl::StrAppend(&out, "</svg>\n");
  return out;
}

std::vector<std::pair<std::string, std::string>> RenderTrendReport(
    std::span<const Series> series, const Detection& d) {
  std::vector<std::pair<std::string, std::string>> files;
  std::string md = absl::StrCat(
      "# trnbench run history\n\nNightly medians with their intervals; "
      "change points are vertical lines (solid: confirmed, dashed: "
      "provisional; red: regression, green: improvement), drifts shaded, "
      "baseline refreshes dotted blue (docs/history.md).\n\n",
      RenderDetectionMarkdown(series, d), "\n");
  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\">\n<title>trnbench run history</title>\n<style>\n",
      std::string(HtmlStyle()),
      "</style>\n</head>\n<body>\n<h1>trnbench run history</h1>\n");
  absl::StrAppend(&html, "<pre>",
                  XmlEscapeText(RenderDetectionTable(series, d)), "</pre>\n");
  // The series with an alert first (in their order), then the rest: what
  // needs a look is at the top of a page of dozens of plots.
  std::vector<size_t> order;
  for (size_t i = 0; i < series.size(); ++i) {
    if (!AlertsOf(d, i).empty()) order.push_back(i);
  }
  for (size_t i = 0; i < series.size(); ++i) {
    if (AlertsOf(d, i).empty()) order.push_back(i);
  }
  for (size_t i : order) {
    const Series& s = series[i];
    const std::string name = PlotName(s);
    const std::vector<Alert> alerts = AlertsOf(d, i);
    const std::string svg = RenderTrendSvg(s, alerts);
    files.emplace_back("plots/" + name, svg);
    absl::StrAppend(&md, "### ", MarkdownEscape(s.workload), " ",
                    MarkdownEscape(s.metric), " (", MarkdownEscape(s.device),
                    ")\n\n![", MarkdownEscape(s.metric), "](plots/", name,
                    ")\n\n");
    absl::StrAppend(&html, "<h2>", XmlEscapeText(s.workload), " ",
                    XmlEscapeText(s.metric), " (", XmlEscapeText(s.device),
                    ")</h2>\n", svg);
  }
  absl::StrAppend(&html, "</body></html>\n");
  files.emplace(files.begin(), "report.html", std::move(html));
  files.emplace(files.begin(), "report.md", std::move(md));
  return files;
}

}  // namespace trn
