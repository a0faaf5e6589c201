#include "support/p_value_text.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace trn {

namespace {
constexpr double kSmallest = 1e-4;
}  // namespace

std::string FormatPValue(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < kSmallest) return "<0.0001";
  return absl::StrFormat("%.4f", p);
}

std::string PValueClause(std::string_view name, double p) {
  std::string out(name);
  if (!std::isfinite(p)) return out + " n/a";
  if (p < kSmallest) return out + " < 0.0001";
  return out + " = " + FormatPValue(p);
}

}  // namespace trn
