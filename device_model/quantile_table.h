// A distribution given by a table of quantiles, sampled by inverse CDF with
// linear interpolation between the tabulated points. Published performance
// data are percentiles, so this is the natural form for every noisy cost.
#ifndef TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_
#define TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace trn {

class QuantileTable {
 public:
  QuantileTable() = default;
  // A point mass: every draw returns `value`.
  static QuantileTable Constant(double value);
  // `points` are (probability, value) pairs; probabilities must cover 0 and
  // 1 and both columns must be non-decreasing.
  static absl::StatusOr<QuantileTable> FromPoints(
      std::vector<std::pair<double, double>> points);

  // Inverse CDF at u in [0, 1). Inline: a run draws a DMA latency per
  // transfer, and the call cost more than the interpolation (issue 42).
  double Sample(double u) const {
    const size_t size = points_.size();
    const std::pair<double, double>* p = points_.data();
    if (size == 1) return p[0].second;
    // u's interval from its bucket of [0, 1) where one interval holds the
    // whole bucket (bucket_); a bucket that an interior point splits, or a
    // table built without buckets, holds 0, and then the scan below finds
    // it (u * kBuckets is exact, a power of two, and truncates to the
    // bucket that holds u). The scan was 32 of a transfer's host
    // instructions, a fifth of its DMA completion (issue 42, sim42j).
    size_t i = 0;
    if (u >= 0.0 && u < 1.0) {
      i = bucket_[static_cast<size_t>(u * static_cast<double>(kBuckets))];
    }
    if (i == 0) {
      // Tables are short (a handful of percentiles): a linear scan beats a
      // binary search here. u is random, so a scan that stops at u's
      // interval mispredicts where it stops; the probabilities increase,
      // so the interior points at or below u are a prefix, and counting
      // them finds the same interval without a branch on u.
      i = 1;
      for (size_t j = 1; j + 1 < size; ++j) i += p[j].first <= u ? 1 : 0;
    }
    const auto& [p0, v0] = p[i - 1];
    const auto& [p1, v1] = p[i];
    const double t = (u - p0) / (p1 - p0);
    return v0 + (v1 - v0) * t;
  }
  double Median() const { return Sample(0.5); }
  bool IsConstant() const { return points_.size() == 1; }
  const std::vector<std::pair<double, double>>& points() const {
    return points_;
  }
  // Multiplies every value by `factor` (used by what-if overrides).
  void Scale(double factor);

 private:
  // Sets bucket_ from points_' probabilities (FromPoints).
  void FillBuckets();

  // A default table is a point mass at 0, never an empty one.
  std::vector<std::pair<double, double>> points_ = {{0.5, 0.0}};
  // Per bucket b, [b, b + 1) / kBuckets of u: 1 plus the interior points
  // at or below it (Sample's i for every u in it), or 0 when an interior
  // point falls inside it (or the count does not fit): Sample then scans.
  // All 0 is always correct, only slower.
  static constexpr size_t kBuckets = 256;
  std::array<uint8_t, kBuckets> bucket_{};
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_
