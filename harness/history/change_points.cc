#include "harness/history/change_points.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

#include "boost/math/distributions/students_t.hpp"
#include "harness/statistics/boost_policy.h"

namespace trn::history {

double Median(std::vector<double> values) {
  if (values.empty()) return NAN;
  const size_t upper = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + upper, values.end());
  const double hi = values[upper];
  if (values.size() % 2 == 1) return hi;
  const double lo = *std::max_element(values.begin(), values.begin() + upper);
  return lo + (hi - lo) * 0.5;
}

double NoiseScaleFromDifferences(std::span<const double> y, double floor) {
  if (y.size() < 3) return floor;
  std::vector<double> d;
  d.reserve(y.size() - 1);
  for (size_t i = 1; i < y.size(); ++i) d.push_back(y[i] - y[i - 1]);
  const double center = Median(d);
  for (double& x : d) x = std::fabs(x - center);
  const double scale = 1.4826 * Median(d) / std::sqrt(2.0);
  return std::max(scale, floor);
}

L1CostTable::L1CostTable(std::span<const double> y)
    : n_(y.size()), cost_(n_ * n_, 0.0) {
  for (size_t s = 0; s < n_; ++s) {
    // lower: max-heap of the smaller half (holds the median when odd);
    // upper: min-heap of the larger half.
    std::priority_queue<double> lower;
    std::priority_queue<double, std::vector<double>, std::greater<double>>
        upper;
    double sum_lower = 0;
    double sum_upper = 0;
    for (size_t e = s; e < n_; ++e) {
      const double x = y[e];
      if (lower.empty() || x <= lower.top()) {
        lower.push(x);
        sum_lower += x;
      } else {
        upper.push(x);
        sum_upper += x;
      }
      if (lower.size() > upper.size() + 1) {
        sum_lower -= lower.top();
        sum_upper += lower.top();
        upper.push(lower.top());
        lower.pop();
      } else if (upper.size() > lower.size()) {
        sum_upper -= upper.top();
        sum_lower += upper.top();
        lower.push(upper.top());
        upper.pop();
      }
      // sum |x - m| for m a median: the upper half's excess over m minus
      // the lower half's; with an odd count the median itself adds m.
      double c = sum_upper - sum_lower;
      if (lower.size() > upper.size()) c += lower.top();
      cost_[s * n_ + e] = std::max(c, 0.0);
    }
  }
}

std::vector<int> SegmentL1Prefix(const L1CostTable& table, int n, double scale,
                                 const SegmentationOptions& options) {
  const int m = std::max(1, options.min_segment);
  if (n < 2 * m || !(scale > 0)) return {};
  const double b = scale / std::sqrt(2.0);
  const double beta =
      options.penalty_per_log_n * std::log(static_cast<double>(n));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[t]: minimal penalised cost of [0, t); last[t]: start of its final
  // segment. Ties go to the earliest start, so the result is unique.
  std::vector<double> best(static_cast<size_t>(n) + 1, kInf);
  std::vector<int> last(static_cast<size_t>(n) + 1, 0);
  best[0] = -beta;
  for (int t = m; t <= n; ++t) {
    for (int s = 0; s + m <= t; ++s) {
      if (s != 0 && s < m) continue;
      if (best[static_cast<size_t>(s)] == kInf) continue;
      const double v =
          best[static_cast<size_t>(s)] + table.Cost(s, t) / b + beta;
      if (v < best[static_cast<size_t>(t)]) {
        best[static_cast<size_t>(t)] = v;
        last[static_cast<size_t>(t)] = s;
      }
    }
  }
  std::vector<int> cps;
  for (int t = n; t > 0;) {
    const int s = last[static_cast<size_t>(t)];
    if (s > 0) cps.push_back(s);
    t = s;
  }
  std::reverse(cps.begin(), cps.end());
  return cps;
}

std::vector<int> SegmentL1(std::span<const double> y, double scale,
                           const SegmentationOptions& options) {
  const L1CostTable table(y);
  return SegmentL1Prefix(table, static_cast<int>(y.size()), scale, options);
}

ShiftTest TestShift(std::span<const double> y, int a, int c, int e,
                    double scale, int scale_nights) {
  ShiftTest t;
  const std::vector<double> before(y.begin() + a, y.begin() + c);
  const std::vector<double> after(y.begin() + c, y.begin() + e);
  if (before.empty() || after.empty()) return t;
  t.shift = Median(after) - Median(before);
  const double se =
      scale * std::sqrt(M_PI / 2.0 *
                        (1.0 / static_cast<double>(before.size()) +
                         1.0 / static_cast<double>(after.size())));
  if (!(se > 0)) return t;
  t.z = t.shift / se;
  // The scale is itself estimated, by a MAD of scale_nights - 1
  // differences, whose efficiency is about 37% of a standard deviation's:
  // Student's t with that many effective degrees of freedom keeps short
  // series from trusting a lucky small scale.
  const double df = std::max(2.0, std::floor(0.37 * (scale_nights - 2)));
  const boost::math::students_t_distribution<double, stats::NoThrowPolicy> dist(
      df);
  t.p = 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t.z)));
  t.p = std::min(1.0, t.p);
  return t;
}

}  // namespace trn::history
