// Change points in one series of nightly levels: a robust noise scale, an
// exact penalised segmentation with an L1 cost, and the test of each shift.
// Pure functions of their inputs, so `history detect` is deterministic.
#ifndef TRNBENCH_HARNESS_HISTORY_CHANGE_POINTS_H_
#define TRNBENCH_HARNESS_HISTORY_CHANGE_POINTS_H_

#include <span>
#include <vector>

namespace trn::history {

// The night-to-night noise of a series, robust to steps, spikes and drift:
// 1.4826 * MAD of the first differences / sqrt(2). A difference of two
// independent nights has twice a night's variance; a step or a spike spoils
// only one or two differences, and a drift only shifts their median, which
// the MAD removes. Never below `floor` (a series of identical nights).
double NoiseScaleFromDifferences(std::span<const double> y, double floor);

struct SegmentationOptions {
  int min_segment = 2;  // nights; a single night is never a segment
  // Penalty per change point, in units of the noise scale's L1 cost:
  // beta = penalty_per_log_n * log(n). Calibrated on A/A series
  // (docs/history.md); higher means fewer, larger segments.
  double penalty_per_log_n = 3.0;
};

// The change points (index of the first night of every segment but the
// first) of the segmentation minimising
//   sum over segments of sum |y_i - median(segment)| / b  +  beta * (#cps),
// with b = scale / sqrt(2) (the Laplace scale of that noise). This is the
// exact minimiser that PELT computes; the series are short (nights), so the
// quadratic optimal-partitioning recursion runs without PELT's pruning. The
// median cost keeps a single-night spike from moving a segment's level.
std::vector<int> SegmentL1(std::span<const double> y, double scale,
                           const SegmentationOptions& options);

// The raw L1 cost of every segment of a series, computed once in
// O(n^2 log n) with two heaps per start; every prefix of the series reuses it
// (the evaluation replays a series night by night).
class L1CostTable {
 public:
  explicit L1CostTable(std::span<const double> y);
  // Sum of |y_i - median| over [s, e), 0 <= s < e <= n.
  double Cost(int s, int e) const {
    return cost_[static_cast<size_t>(s) * n_ + static_cast<size_t>(e - 1)];
  }
  int size() const { return static_cast<int>(n_); }

 private:
  size_t n_;
  std::vector<double> cost_;
};

// The segmentation of the prefix [0, n) using a precomputed table.
std::vector<int> SegmentL1Prefix(const L1CostTable& table, int n, double scale,
                                 const SegmentationOptions& options);

// The test of one change point between the segments [a, c) and [c, e):
// shift = median of the later segment - median of the earlier one, and a
// two-sided p-value of shift / se, se the standard error of a difference of
// two medians of nights with noise `scale` (variance pi/2 * scale^2 / n
// each), from Student's t with the effective degrees of freedom of a scale
// estimated from `scale_nights` nights.
struct ShiftTest {
  double shift = 0;  // in the units of y (log levels: a log ratio)
  double z = 0;
  double p = 1;
};
ShiftTest TestShift(std::span<const double> y, int a, int c, int e,
                    double scale, int scale_nights);

double Median(std::vector<double> values);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_CHANGE_POINTS_H_
