#include "reports/number_format.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace trn {
namespace {

// `x` / 10^(3k) with the matching SI prefix, for FLOP counts and rates.
std::string WithPrefix(double x, const char* unit) {
  constexpr struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& p : kPrefixes) {
    if (std::fabs(x) >= p.scale) {
      return absl::StrCat(SignificantText(x / p.scale), " ", p.prefix, unit);
    }
  }
  return absl::StrCat(SignificantText(x), " ", unit);
}

std::string Micros(double us) {
  const double a = std::fabs(us);
  if (a >= 1e6) return absl::StrFormat("%.3f s", us / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.3f ms", us / 1e3);
  if (a >= 100) return absl::StrFormat("%.1f \xCE\xBCs", us);
  return absl::StrFormat("%.2f \xCE\xBCs", us);
}

std::string Bytes(double b) {
  const double a = std::fabs(b);
  if (a >= 1e12) return absl::StrFormat("%.2f TB", b / 1e12);
  if (a >= 1e9) return absl::StrFormat("%.2f GB", b / 1e9);
  if (a >= 1e6) return absl::StrFormat("%.2f MB", b / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.2f kB", b / 1e3);
  return absl::StrFormat("%.0f B", b);
}

}  // namespace

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return kNotAvailable;
  const double p = fraction * 100;
  // Rounding noise of a double computation (a CV of identical samples
  // comes out as 1e-16, not 0) is zero: far below any real share.
  if (std::fabs(fraction) < 1e-12) return "0.00%";
  // A share that is tiny but not zero keeps two significant digits rather
  // than reading "0.00%" (an engine busy 0.003% of the time is busy).
  if (p != 0 && std::fabs(p) < 0.005) return absl::StrFormat("%.2g%%", p);
  return absl::StrFormat("%.2f%%", p);
}

std::string FormatSignedPercent(double fraction) {
  if (!std::isfinite(fraction)) return kNotAvailable;
  // Changes keep two decimals: below 0.01% nothing a gate decides moves.
  return absl::StrFormat("%+.2f%%", fraction * 100);
}

std::string SignificantText(double x) {
  if (!std::isfinite(x)) return std::isnan(x) ? kNotAvailable : "inf";
  if (x == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  const int decimals = std::clamp(2 - magnitude, 0, 12);
  return absl::StrFormat("%.*f", decimals, x);
}

std::string FormatQuantity(double value, Unit unit) {
  if (std::isnan(value)) return kNotAvailable;
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  switch (unit) {
    case Unit::kMicroseconds:
      return Micros(value);
    case Unit::kFraction:
      return FormatPercent(value);
    case Unit::kBytes:
      return Bytes(value);
    case Unit::kGigabytesPerSecond:
      return absl::StrCat(SignificantText(value), " GB/s");
    case Unit::kPerSecond:
      return absl::StrCat(SignificantText(value), " /s");
    case Unit::kFlops:
      return WithPrefix(value, "FLOP");
    case Unit::kFlopsPerSecond:
      return WithPrefix(value, "FLOP/s");
    case Unit::kFlopsPerByte:
      return absl::StrCat(SignificantText(value), " FLOP/B");
    case Unit::kCount:
      if (value == std::floor(value) && std::fabs(value) < 1e15) {
        return absl::StrFormat("%.0f", value);
      }
      return SignificantText(value);
  }
  return SignificantText(value);
}

std::string FormatRatio(double ratio) {
  if (!std::isfinite(ratio)) return kNotAvailable;
  // Significant digits at any size: "0.01x" would hide a 0.0134x.
  return absl::StrCat(SignificantText(ratio), "x");
}

std::string FormatLevel(double confidence) {
  if (!std::isfinite(confidence)) return kNotAvailable;
  return absl::StrFormat("%g%%", confidence * 100);
}

std::string CountOf(int64_t n, const std::string& singular) {
  return absl::StrCat(n, " ", singular, n == 1 ? "" : "s");
}

}  // namespace trn
