#include "reports/svg_canvas.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/text_escape.h"

namespace trn {

std::string SvgNumber(double x) { return absl::StrFormat("%.1f", x); }

std::string SvgBegin(double width, double height, std::string_view title) {
  const std::string w = SvgNumber(width);
  const std::string h = SvgNumber(height);
  return absl::StrCat("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", w,
                      "\" height=\"", h, "\" viewBox=\"0 0 ", w, " ", h,
                      "\" font-family=\"", kSvgFont,
                      "\" role=\"img\" aria-label=\"", XmlEscape(title),
                      "\">\n<title>", XmlEscapeText(title), "</title>\n",
                      SvgRect(0, 0, width, height, "#ffffff"));
}

std::string SvgText(double x, double y, std::string_view text,
                    const char* anchor, int size, const char* fill,
                    const char* weight) {
  return absl::StrFormat(
      "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" font-size=\"%d\" "
      "fill=\"%s\" font-weight=\"%s\">%s</text>\n",
      SvgNumber(x), SvgNumber(y), anchor, size, fill, weight, XmlEscape(text));
}

std::string SvgLine(double x1, double y1, double x2, double y2,
                    const char* stroke, double width) {
  return absl::StrFormat(
      "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" "
      "stroke-width=\"%s\"/>\n",
      SvgNumber(x1), SvgNumber(y1), SvgNumber(x2), SvgNumber(y2), stroke,
      SvgNumber(width));
}

std::string SvgRect(double x, double y, double width, double height,
                    const char* fill) {
  return absl::StrFormat(
      "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n",
      SvgNumber(x), SvgNumber(y), SvgNumber(width), SvgNumber(height), fill);
}

double NiceStep(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / p;
  if (f <= 1) return p;
  if (f <= 2) return 2 * p;
  if (f <= 5) return 5 * p;
  return 10 * p;
}

Axis ChooseAxis(double lo, double hi) {
  if (!(hi > lo)) {
    // All values equal: a window around the value, so it sits mid-plot;
    // all zero (an idle engine) starts at zero, as counts and times do.
    if (lo == 0) {
      hi = 1;
    } else {
      const double pad = std::fabs(lo) * 0.05;
      lo -= pad;
      hi += pad;
    }
  }
  Axis a;
  a.step = NiceStep((hi - lo) / 5);
  a.lo = std::floor(lo / a.step) * a.step;
  a.hi = std::ceil(hi / a.step) * a.step;
  a.decimals = a.step >= 1 ? 0
                           : std::min(9, static_cast<int>(std::ceil(
                                             -std::log10(a.step) - 1e-9)));
  return a;
}

std::string SvgAxis(const Axis& axis, double x0, double x1, double top,
                    double bottom, double label_y,
                    const std::function<std::string(double)>& label) {
  std::string out;
  const int ticks =
      static_cast<int>(std::lround((axis.hi - axis.lo) / axis.step));
  for (int t = 0; t <= ticks; ++t) {
    double v = axis.lo + axis.step * t;
    if (std::fabs(v) < axis.step * 1e-9) v = 0;  // no "-0"
    const double x = axis.Position(v, x0, x1);
    out += SvgLine(x, top, x, bottom, kGrid, 1);
    out += SvgText(x, label_y, label(v), "middle", 11, kMuted);
  }
  return out + SvgLine(x0, bottom, x1, bottom, kMuted, 1);
}

}  // namespace trn
