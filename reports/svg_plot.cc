#include "reports/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/statistics/statistics.h"
#include "reports/svg_canvas.h"

namespace trn {
namespace {

constexpr double kWidth = 760;
constexpr double kTop = 58;

struct Style {
  const char* fill;
  const char* stroke;
  const char* dots;
};
constexpr Style kCurrentStyle = {"#4c78a8", "#1f4e79", "#1f77b4"};
constexpr Style kBaselineStyle = {"#a0a0a0", "#5f5f5f", "#7a7a7a"};

struct Box {
  size_t n = 0;
  double q1 = 0;
  double median = 0;
  double q3 = 0;
  double whisker_low = 0;
  double whisker_high = 0;
  double min = 0;
  double max = 0;
};

Box ComputeBox(std::span<const double> samples) {
  std::vector<double> sorted;
  sorted.reserve(samples.size());
  for (double x : samples) {
    if (std::isfinite(x)) sorted.push_back(x);
  }
  std::sort(sorted.begin(), sorted.end());
  Box b;
  b.n = sorted.size();
  if (sorted.empty()) return b;
  b.q1 = stats::QuantileSorted(sorted, 0.25);
  b.median = stats::QuantileSorted(sorted, 0.5);
  b.q3 = stats::QuantileSorted(sorted, 0.75);
  b.min = sorted.front();
  b.max = sorted.back();
  // Tukey's whiskers: the most extreme samples within 1.5 IQR of the box,
  // the same fences as the outlier counts of the results.
  const double iqr = b.q3 - b.q1;
  const double lo_fence = b.q1 - 1.5 * iqr;
  const double hi_fence = b.q3 + 1.5 * iqr;
  b.whisker_low = *std::lower_bound(sorted.begin(), sorted.end(), lo_fence);
  b.whisker_high =
      *(std::upper_bound(sorted.begin(), sorted.end(), hi_fence) - 1);
  return b;
}

// Display scale: values are drawn in their own unit, labelled in a readable
// one (2389 us reads as 2.389 ms).
struct Scale {
  double divisor = 1;
  std::string label;
};

Scale ChooseScale(Unit unit, double max_abs) {
  switch (unit) {
    case Unit::kMicroseconds:
      if (max_abs >= 1e6) return {1e6, "s"};
      if (max_abs >= 1e3) return {1e3, "ms"};
      return {1, "\xCE\xBCs"};
    case Unit::kBytes:  // decimal, like every byte size trnbench prints
      if (max_abs >= 1e9) return {1e9, "GB"};
      if (max_abs >= 1e6) return {1e6, "MB"};
      if (max_abs >= 1e3) return {1e3, "kB"};
      return {1, "B"};
    case Unit::kFraction:
      return {0.01, "%"};
    case Unit::kPerSecond:
      return {1, "/s"};
    default:
      return {1, std::string(UnitSymbol(unit))};
  }
}

// A deterministic spread of the dots across the box's height (golden-ratio
// sequence): no random generator, so the picture is byte-identical.
double Jitter(size_t i) {
  const double g = static_cast<double>(i) * 0.6180339887498949;
  return g - std::floor(g) - 0.5;
}

struct Range {
  double lo = INFINITY;
  double hi = -INFINITY;
  void Add(std::span<const double> s) {
    for (double x : s) {
      if (!std::isfinite(x)) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
  bool empty() const { return !(lo <= hi); }
  double width() const { return empty() ? 0 : hi - lo; }
};

}  // namespace

std::string RenderDistributionSvg(const DistributionPlot& plot) {
  // One axis for all rows (baseline included) unless that would squeeze
  // every distribution into a sliver: variants of one family can differ
  // six-fold, and a box 2% of the width shows nothing. Then each row gets
  // its own axis, and the subtitle says so. A distribution is one side of a
  // row: a row whose baseline and current sides lie apart (a regression)
  // spans both, but each side alone is still a sliver on the shared axis.
  Range all;
  std::vector<Range> row_range(plot.rows.size());
  double widest = 0;
  size_t max_n = 0;
  size_t max_label = 0;
  for (size_t i = 0; i < plot.rows.size(); ++i) {
    const PlotRow& r = plot.rows[i];
    row_range[i].Add(r.current);
    row_range[i].Add(r.baseline);
    all.Add(r.current);
    all.Add(r.baseline);
    for (std::span<const double> side : {r.current, r.baseline}) {
      Range one;
      one.Add(side);
      widest = std::max(widest, one.width());
    }
    max_n = std::max({max_n, r.current.size(), r.baseline.size()});
    max_label = std::max(max_label, r.label.size());
  }
  if (all.empty()) {
    all.lo = 0;
    all.hi = 1;
  }
  const bool free_axes = plot.rows.size() > 1 && all.width() > 5 * widest;
  const Scale scale =
      ChooseScale(plot.unit, std::max(std::fabs(all.lo), std::fabs(all.hi)));
  const Axis shared =
      ChooseAxis(all.lo / scale.divisor, all.hi / scale.divisor);
  const size_t stride =
      max_n > kMaxPlotDots ? (max_n + kMaxPlotDots - 1) / kMaxPlotDots : 1;

  const bool two = plot.with_baseline;
  const double label_w = std::clamp(
      16 + 8 * static_cast<double>(max_label) + (two ? 62 : 8), 110.0, 360.0);
  const double x0 = label_w;
  const double x1 = kWidth - 28;
  const double band_h = two ? 60 : 38;
  const double row_h = band_h + (free_axes ? 24 : 0);
  const double plot_bottom =
      kTop + row_h * static_cast<double>(plot.rows.size());
  const double axis_y = plot_bottom + (free_axes ? 0 : 6);
  const double height = axis_y + (free_axes ? 30 : 50);

  std::string out = SvgBegin(kWidth, height, plot.title);
  out += SvgText(12, 22, plot.title, "start", 15, kInk, "bold");
  std::string subtitle =
      "box: p25\xE2\x80\x93p75 \xC2\xB7 bar: median \xC2\xB7 whiskers: "
      "1.5 IQR \xC2\xB7 dots: ";
  absl::StrAppend(
      &subtitle,
      stride == 1 ? std::string("every sample")
                  : absl::StrCat("1 in ", stride, " samples"),
      max_n > 0 ? absl::StrCat(" (n \xE2\x89\xA4 ", max_n, ")") : "",
      free_axes ? " \xC2\xB7 each row on its own axis" : "");
  out += SvgText(12, 41, subtitle, "start", 11, kMuted);
  if (two) {
    // The baseline's source, shortened from the left: its end (folder or
    // file name) is the part that tells sources apart.
    std::string source = plot.baseline_label;
    if (source.size() > 26) {
      size_t cut = source.size() - 25;
      while (cut < source.size() &&
             (static_cast<unsigned char>(source[cut]) & 0xC0) == 0x80) {
        ++cut;
      }
      source = "\xE2\x80\xA6" + source.substr(cut);
    }
    // On the title's line, right-aligned: the subtitle needs its width.
    double lx = x1 - 280;
    for (const auto& [style, name] :
         {std::pair{kBaselineStyle, source},
          std::pair{kCurrentStyle, std::string("current")}}) {
      absl::StrAppendFormat(&out,
                            "<rect x=\"%s\" y=\"12\" width=\"12\" "
                            "height=\"10\" fill=\"%s\" fill-opacity=\"0.35\" "
                            "stroke=\"%s\"/>\n",
                            SvgNumber(lx), style.fill, style.stroke);
      out += SvgText(lx + 16, 21, name, "start", 11);
      lx += 210;
    }
  }

  // Ticks and grid lines of `axis` over [top, bottom], labels at label_y.
  auto draw_axis = [&](const Axis& axis, double top, double bottom,
                       double label_y, const std::string& suffix) {
    out += SvgAxis(axis, x0, x1, top, bottom, label_y, [&](double v) {
      return absl::StrCat(absl::StrFormat("%.*f", axis.decimals, v), suffix);
    });
  };

  auto draw_series = [&](const Axis& axis, const Scale& row_scale,
                         std::span<const double> samples, double cy,
                         double box_h, const Style& style) {
    auto X = [&](double v) {
      return axis.Position(v / row_scale.divisor, x0, x1);
    };
    const Box b = ComputeBox(samples);
    if (b.n == 0) {
      out += SvgText(x0 + 8, cy + 4, "not measured", "start", 11, kMuted);
      return;
    }
    const double top = cy - box_h / 2;
    auto line = [&](double xa, double ya, double xb, double yb, double w) {
      out += SvgLine(xa, ya, xb, yb, style.stroke, w);
    };
    line(X(b.whisker_low), cy, X(b.q1), cy, 1.2);
    line(X(b.q3), cy, X(b.whisker_high), cy, 1.2);
    for (double w : {b.whisker_low, b.whisker_high}) {
      line(X(w), cy - box_h / 4, X(w), cy + box_h / 4, 1.2);
    }
    // At least a pixel wide, so a distribution with no spread still shows.
    const double bx = X(b.q1);
    const double bw = std::max(1.0, X(b.q3) - bx);
    absl::StrAppendFormat(
        &out,
        "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" "
        "fill-opacity=\"0.3\" stroke=\"%s\" stroke-width=\"1.2\"/>\n",
        SvgNumber(bx), SvgNumber(top), SvgNumber(bw), SvgNumber(box_h),
        style.fill, style.stroke);
    absl::StrAppendFormat(&out, "<g fill=\"%s\" fill-opacity=\"0.55\">\n",
                          style.dots);
    for (size_t i = 0; i < samples.size(); i += stride) {
      if (!std::isfinite(samples[i])) continue;
      absl::StrAppendFormat(&out, "<circle cx=\"%s\" cy=\"%s\" r=\"2.2\"/>\n",
                            SvgNumber(X(samples[i])),
                            SvgNumber(cy + Jitter(i) * (box_h - 4)));
    }
    out += "</g>\n";
    line(X(b.median), top - 2, X(b.median), top + box_h + 2, 2.5);
  };

  for (size_t i = 0; i < plot.rows.size(); i += 2) {
    const double y = kTop + row_h * static_cast<double>(i + 1);
    if (i + 1 < plot.rows.size()) {
      absl::StrAppendFormat(&out,
                            "<rect x=\"4\" y=\"%s\" width=\"%s\" height=\"%s\" "
                            "fill=\"#f6f8fa\"/>\n",
                            SvgNumber(y), SvgNumber(kWidth - 8),
                            SvgNumber(row_h));
    }
  }
  if (!free_axes) draw_axis(shared, kTop, axis_y, axis_y + 16, "");
  for (size_t i = 0; i < plot.rows.size(); ++i) {
    const PlotRow& r = plot.rows[i];
    const double row_top = kTop + row_h * static_cast<double>(i);
    Axis axis = shared;
    Scale row_scale = scale;
    if (free_axes) {
      // Each row in its own readable unit (390 us, not 0.390 ms), named on
      // every tick since rows differ.
      const Range& rr = row_range[i];
      if (!rr.empty()) {
        row_scale = ChooseScale(plot.unit,
                                std::max(std::fabs(rr.lo), std::fabs(rr.hi)));
      }
      axis = rr.empty() ? ChooseAxis(0, 1)
                        : ChooseAxis(rr.lo / row_scale.divisor,
                                     rr.hi / row_scale.divisor);
      draw_axis(axis, row_top + 2, row_top + band_h, row_top + band_h + 14,
                row_scale.label == "%" ? "%" : " " + row_scale.label);
    }
    out += SvgText(12, row_top + band_h / 2 + 4, r.label, "start", 12, kInk,
                   "bold");
    if (two) {
      out += SvgText(x0 - 8, row_top + 19, "baseline", "end", 10, kMuted);
      out += SvgText(x0 - 8, row_top + 45, "current", "end", 10, kMuted);
      if (r.baseline.empty()) {
        out +=
            SvgText(x0 + 8, row_top + 19, "no baseline", "start", 11, kMuted);
      } else {
        draw_series(axis, row_scale, r.baseline, row_top + 15, 18,
                    kBaselineStyle);
      }
      draw_series(axis, row_scale, r.current, row_top + 41, 18, kCurrentStyle);
    } else {
      draw_series(axis, row_scale, r.current, row_top + band_h / 2, 20,
                  kCurrentStyle);
    }
  }
  out += SvgText(
      (x0 + x1) / 2, height - 10,
      free_axes ? plot.metric : absl::StrCat(plot.metric, ", in ", scale.label),
      "middle", 12);
  out += "</svg>\n";
  return out;
}

}  // namespace trn
