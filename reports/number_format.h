// The presentation layer's number formats: every figure a person reads
// (console, markdown, HTML, plots, JUnit text, profile findings) goes
// through one of these, so a time, a percent, an interval, a p-value or a
// ratio reads the same everywhere. Files for programs (JSON, CSV) carry
// shortest round-trip numbers instead (text_escape.h: ShortestDouble).
//
// Byte sizes are decimal SI everywhere (1 kB = 1000 B, 1 GB = 1e9 B), the
// convention of the bandwidth figures they are read against (GB/s).
#ifndef TRNBENCH_REPORTS_NUMBER_FORMAT_H_
#define TRNBENCH_REPORTS_NUMBER_FORMAT_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "device_model/unit.h"
#include "harness/statistics/statistics.h"
#include "support/p_value_text.h"

namespace trn {

// "n/a": what every formatter prints for an undefined (NaN) figure.
inline constexpr char kNotAvailable[] = "n/a";

// `x` with at least three significant digits and no more decimals than
// that needs: 0.0123, 5.73, 41.0, 410, 5124.
std::string SignificantText(double x);

// A value in its unit, scaled to a readable prefix: 2.389 ms, 405.3 μs,
// 41.20%, 1.05 MB, 410 GB/s, 5124 /s, 17.2 GFLOP, 91.8 TFLOP/s, 0.125 FLOP/B.
std::string FormatQuantity(double value, Unit unit);

// A fraction as a percent with two decimals ("41.20%"); tiny non-zero
// values keep two significant digits ("0.0031%") instead of reading 0.00%.
std::string FormatPercent(double fraction);
// The same with a sign, for changes: "+5.71%", "-0.93%".
std::string FormatSignedPercent(double fraction);

// A ratio (speed-up) with three significant digits: 0.0123x, 1.00x, 12.3x.
std::string FormatRatio(double ratio);

// A p-value: FormatPValue of support/p_value_text.h (four decimals,
// "<0.0001" below that), shared with the layers below, whose sentences
// quote p-values too.

// "[low, high]" with each end formatted by `format`; n/a when either end is
// undefined.
template <typename Format>
std::string FormatInterval(double low, double high, Format format) {
  if (!std::isfinite(low) || !std::isfinite(high)) return kNotAvailable;
  return "[" + format(low) + ", " + format(high) + "]";
}
template <typename Format>
std::string FormatInterval(const stats::Interval& interval, Format format) {
  return FormatInterval(interval.low, interval.high, format);
}

// A confidence level as people write it: 0.95 -> "95%".
std::string FormatLevel(double confidence);

// "1 regression", "3 regressions".
std::string CountOf(int64_t n, const std::string& singular);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_NUMBER_FORMAT_H_
