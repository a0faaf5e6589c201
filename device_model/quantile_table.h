// A distribution given by a table of quantiles, sampled by inverse CDF with
// linear interpolation between the tabulated points. Published performance
// data are percentiles, so this is the natural form for every noisy cost.
#ifndef TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_
#define TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_

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

  // Inverse CDF at u in [0, 1).
  double Sample(double u) const;
  double Median() const { return Sample(0.5); }
  bool IsConstant() const { return points_.size() == 1; }
  const std::vector<std::pair<double, double>>& points() const {
    return points_;
  }
  // Multiplies every value by `factor` (used by what-if overrides).
  void Scale(double factor);

 private:
  // A default table is a point mass at 0, never an empty one.
  std::vector<std::pair<double, double>> points_ = {{0.5, 0.0}};
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_QUANTILE_TABLE_H_
