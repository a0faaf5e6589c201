#include "harness/history/drift.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "harness/history/change_points.h"

namespace trn::history {
namespace {

// P(S >= s) under no trend for n nights without ties. S = N - 2 * I with I
// the number of inversions of a random permutation, whose distribution is
// built night by night: P_n(k) = (1/n) * sum_{j<n} P_{n-1}(k - j).
double UpperTailExact(int n, long s) {
  const long pairs = static_cast<long>(n) * (n - 1) / 2;
  std::vector<double> p(1, 1.0);
  for (int m = 2; m <= n; ++m) {
    const size_t size = p.size() + static_cast<size_t>(m - 1);
    std::vector<double> next(size, 0.0);
    // A running window sum over the previous distribution.
    double window = 0;
    for (size_t k = 0; k < size; ++k) {
      if (k < p.size()) window += p[k];
      if (k >= static_cast<size_t>(m) &&
          k - static_cast<size_t>(m) < p.size()) {
        window -= p[k - static_cast<size_t>(m)];
      }
      next[k] = window / m;
    }
    p = std::move(next);
  }
  // S >= s  <=>  I <= (pairs - s) / 2.
  const double limit = std::floor((static_cast<double>(pairs - s)) / 2.0);
  double tail = 0;
  for (size_t k = 0; k < p.size() && static_cast<double>(k) <= limit; ++k) {
    tail += p[k];
  }
  return std::min(1.0, tail);
}

}  // namespace

double TheilSenSlope(std::span<const double> y) {
  if (y.size() < 2) return NAN;
  std::vector<double> slopes;
  slopes.reserve(y.size() * (y.size() - 1) / 2);
  for (size_t i = 0; i < y.size(); ++i) {
    for (size_t j = i + 1; j < y.size(); ++j) {
      slopes.push_back((y[j] - y[i]) / static_cast<double>(j - i));
    }
  }
  return Median(std::move(slopes));
}

TrendTest MannKendall(std::span<const double> y) {
  TrendTest t;
  const int n = static_cast<int>(y.size());
  if (n < 3) return t;
  bool ties = false;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      const double d = y[static_cast<size_t>(j)] - y[static_cast<size_t>(i)];
      t.s += (d > 0) - (d < 0);
      ties = ties || d == 0;
    }
  }
  if (!ties && n <= kExactMannKendallMax) {
    t.exact = true;
    t.p =
        t.s == 0 ? 1.0 : std::min(1.0, 2.0 * UpperTailExact(n, std::labs(t.s)));
    return t;
  }
  std::map<double, int> groups;
  for (double v : y) ++groups[v];
  double var = static_cast<double>(n) * (n - 1) * (2 * n + 5);
  for (const auto& [v, g] : groups) {
    var -= static_cast<double>(g) * (g - 1) * (2 * g + 5);
  }
  var /= 18.0;
  if (!(var > 0) || t.s == 0) return t;
  const double z = (static_cast<double>(std::labs(t.s)) - 1.0) / std::sqrt(var);
  t.p = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return t;
}

}  // namespace trn::history
