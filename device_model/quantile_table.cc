#include "device_model/quantile_table.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace trn {

QuantileTable QuantileTable::Constant(double value) {
  QuantileTable t;
  t.points_ = {{0.5, value}};
  return t;
}

absl::StatusOr<QuantileTable> QuantileTable::FromPoints(
    std::vector<std::pair<double, double>> points) {
  if (points.size() < 2) {
    return absl::InvalidArgumentError(
        "a quantile table needs at least the points for p = 0 and p = 1");
  }
  if (points.front().first != 0.0 || points.back().first != 1.0) {
    return absl::InvalidArgumentError(
        "a quantile table must start at p = 0 and end at p = 1");
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& [p, v] = points[i];
    if (!std::isfinite(p) || !std::isfinite(v)) {
      return absl::InvalidArgumentError(
          "quantile table entries must be finite");
    }
    if (v < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "quantile table value %g at p = %g is negative; costs are >= 0", v,
          p));
    }
    if (i > 0 && (p <= points[i - 1].first || v < points[i - 1].second)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "quantile table must be increasing in p and non-decreasing in "
          "value (entry %d: p = %g, value = %g)",
          i, p, v));
    }
  }
  QuantileTable t;
  t.points_ = std::move(points);
  t.FillBuckets();
  return t;
}

void QuantileTable::FillBuckets() {
  const size_t size = points_.size();
  for (size_t b = 0; b < kBuckets; ++b) {
    const double lo = static_cast<double>(b) / kBuckets;
    const double hi = static_cast<double>(b + 1) / kBuckets;
    size_t i = 1;
    bool split = false;
    for (size_t j = 1; j + 1 < size; ++j) {
      const double pj = points_[j].first;
      if (pj <= lo) {
        ++i;
      } else if (pj < hi) {
        split = true;  // u's below pj and at or above it share the bucket
      }
    }
    bucket_[b] = split || i > 255 ? 0 : static_cast<uint8_t>(i);
  }
}

void QuantileTable::Scale(double factor) {
  for (auto& pv : points_) pv.second *= factor;
}

}  // namespace trn
