// Drawing primitives shared by the SVG plots: numbers with one decimal (so
// files are byte-identical across compilers), text, lines, rectangles and
// a "nice" axis. Every string is escaped for XML.
#ifndef TRNBENCH_REPORTS_SVG_CANVAS_H_
#define TRNBENCH_REPORTS_SVG_CANVAS_H_

#include <functional>
#include <string>
#include <string_view>

namespace trn {

inline constexpr char kSvgFont[] = "DejaVu Sans, Arial, Helvetica, sans-serif";
inline constexpr char kInk[] = "#1f2328";     // text
inline constexpr char kMuted[] = "#57606a";   // secondary text, axes
inline constexpr char kGrid[] = "#d8dee4";    // grid lines
inline constexpr char kStripe[] = "#f6f8fa";  // every other row

// A coordinate: one decimal.
std::string SvgNumber(double x);

// The opening <svg> element (xmlns, width, height, viewBox, font), its
// <title> and a white background. Close with "</svg>\n".
std::string SvgBegin(double width, double height, std::string_view title);

std::string SvgText(double x, double y, std::string_view text,
                    const char* anchor, int size, const char* fill = kInk,
                    const char* weight = "normal");
std::string SvgLine(double x1, double y1, double x2, double y2,
                    const char* stroke, double width);
std::string SvgRect(double x, double y, double width, double height,
                    const char* fill);

// 1, 2 or 5 times a power of ten, at least `raw` (> 0).
double NiceStep(double raw);

// Axis ticks over a range, in display units.
struct Axis {
  double lo = 0;
  double hi = 1;
  double step = 1;
  int decimals = 0;  // enough to tell the ticks apart
  double Position(double v, double x0, double x1) const {
    return x0 + (v - lo) / (hi - lo) * (x1 - x0);
  }
};

// About five ticks covering [lo, hi]; a window around a single value.
Axis ChooseAxis(double lo, double hi);

// A grid line over [top, bottom] at each tick of `axis` (drawn between x0
// and x1), labelled at `label_y` by `label(value)`, and the axis line at
// `bottom`.
std::string SvgAxis(const Axis& axis, double x0, double x1, double top,
                    double bottom, double label_y,
                    const std::function<std::string(double)>& label);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_SVG_CANVAS_H_
