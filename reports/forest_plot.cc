#include "reports/forest_plot.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/number_format.h"
#include "reports/svg_canvas.h"

namespace trn {
namespace {

constexpr double kWidth = 760;
constexpr double kTop = 74;      // first row
constexpr double kRowH = 22;     // per comparison
constexpr double kRightW = 150;  // change and verdict, as text
constexpr char kBand[] = "#e4e8ec";

// Colours a reader tells apart, also with red-green colour blindness
// (blue and orange for the two directions, like most forest plots).
const char* VerdictColor(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "#c2410c";  // orange-red
    case Verdict::kImprovement:
      return "#1d4ed8";  // blue
    case Verdict::kInconclusive:
      return "#a16207";  // amber
    case Verdict::kNew:
      return "#7c3aed";  // violet
    case Verdict::kUnchanged:
      break;
  }
  return "#6e7781";  // grey
}

std::string TickLabel(double v, int decimals) {
  if (v == 0) return "0%";
  return absl::StrFormat("%+.*f%%", decimals, v);
}

}  // namespace

std::string RenderForestSvg(const ComparisonReport& report) {
  const std::vector<MetricComparison>& rows = report.rows;
  // The axis, in percent: every change, every interval end and every band
  // edge, and zero.
  double lo = 0;
  double hi = 0;
  size_t max_label = 0;
  for (const MetricComparison& c : rows) {
    for (double v : {c.change, c.change_interval.low, c.change_interval.high,
                     -c.threshold, c.threshold}) {
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, 100 * v);
      hi = std::max(hi, 100 * v);
    }
    max_label = std::max(max_label, c.workload.size() + c.metric.size() + 3);
  }
  const Axis axis = ChooseAxis(lo, hi);
  const double x0 =
      std::clamp(16 + 6.6 * static_cast<double>(max_label), 140.0, 340.0);
  const double x1 = kWidth - kRightW;
  auto X = [&](double fraction) {
    return axis.Position(100 * fraction, x0, x1);
  };
  const double bottom =
      kTop + kRowH * static_cast<double>(std::max<size_t>(rows.size(), 1));
  const double height = bottom + 44;

  const std::string title = "Change against the baseline";
  std::string out = SvgBegin(kWidth, height, title);
  out += SvgText(12, 22, title, "start", 15, kInk, "bold");
  out += SvgText(
      12, 41,
      absl::StrCat("dot: change of the median \xC2\xB7 line: its ",
                   FormatLevel(report.confidence),
                   " interval \xC2\xB7 grey band: \xC2\xB1noise threshold"),
      "start", 11, kMuted);
  // Legend: every verdict, so the colours mean the same in every report.
  double lx = 12;
  for (Verdict v :
       {Verdict::kRegression, Verdict::kImprovement, Verdict::kInconclusive,
        Verdict::kUnchanged, Verdict::kNew}) {
    absl::StrAppendFormat(&out,
                          "<circle cx=\"%s\" cy=\"56\" r=\"4\" fill=\"%s\"/>\n",
                          SvgNumber(lx + 4), VerdictColor(v));
    out += SvgText(lx + 12, 60, VerdictName(v), "start", 11, kInk);
    lx += 24 + 7 * static_cast<double>(VerdictName(v).size());
  }

  // Stripes, bands, grid and zero line under the marks.
  for (size_t i = 0; i < rows.size(); ++i) {
    const double y = kTop + kRowH * static_cast<double>(i);
    if (i % 2 == 1) out += SvgRect(4, y, kWidth - 8, kRowH, kStripe);
    // A band where something was compared (a new workload has no change).
    const double t = rows[i].threshold;
    if (std::isfinite(t) && t > 0 && std::isfinite(rows[i].change)) {
      out += SvgRect(X(-t), y + 3, X(t) - X(-t), kRowH - 6, kBand);
    }
  }
  out += SvgAxis(axis, x0, x1, kTop, bottom, bottom + 16,
                 [&](double v) { return TickLabel(v, axis.decimals); });
  out += SvgLine(X(0), kTop - 4, X(0), bottom, kMuted, 1.2);

  for (size_t i = 0; i < rows.size(); ++i) {
    const MetricComparison& c = rows[i];
    const double cy = kTop + kRowH * static_cast<double>(i) + kRowH / 2;
    const char* color = VerdictColor(c.verdict);
    // A workload without a baseline has one row for all its metrics ("*").
    out += SvgText(12, cy + 4,
                   c.metric == "*"
                       ? c.workload
                       : absl::StrCat(c.workload, " \xC2\xB7 ", c.metric),
                   "start", 11, kInk);
    const bool has_interval = std::isfinite(c.change_interval.low) &&
                              std::isfinite(c.change_interval.high);
    if (has_interval) {
      const double a = X(c.change_interval.low);
      const double b = X(c.change_interval.high);
      out += SvgLine(a, cy, b, cy, color, 2);
      out += SvgLine(a, cy - 4, a, cy + 4, color, 1.5);
      out += SvgLine(b, cy - 4, b, cy + 4, color, 1.5);
    }
    if (std::isfinite(c.change)) {
      absl::StrAppendFormat(
          &out, "<circle cx=\"%s\" cy=\"%s\" r=\"4.5\" fill=\"%s\"/>\n",
          SvgNumber(X(c.change)), SvgNumber(cy), color);
    } else {
      out += SvgText(x0 + 6, cy + 4, "no baseline to compare with", "start", 11,
                     color);
    }
    out += SvgText(
        x1 + 10, cy + 4,
        absl::StrCat(
            std::isfinite(c.change) ? FormatSignedPercent(c.change) : "",
            std::isfinite(c.change) ? " " : "",
            std::string(VerdictName(c.verdict))),
        "start", 11, color,
        c.verdict == Verdict::kRegression ? "bold" : "normal");
  }
  if (rows.empty()) {
    out += SvgText(x0 + 6, kTop + kRowH / 2 + 4, "no comparisons", "start", 11,
                   kMuted);
  }
  out += SvgText((x0 + x1) / 2, height - 8,
                 "change of the median (current / baseline \xE2\x88\x92 1)",
                 "middle", 12);
  out += "</svg>\n";
  return out;
}

}  // namespace trn
