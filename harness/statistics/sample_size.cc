#include "harness/statistics/sample_size.h"

#include <algorithm>
#include <cmath>

#include "boost/math/distributions/normal.hpp"
#include "harness/statistics/boost_policy.h"
#include "harness/statistics/comparison_stats.h"

namespace trn::stats {
namespace {

using Normal = boost::math::normal_distribution<double, NoThrowPolicy>;

// Two-sided p of the normal approximation at the most extreme statistic
// (the rank tests' own formula, with the continuity correction).
double NormalExtremeP(double max_statistic, double sigma) {
  if (!(sigma > 0.0)) return 1.0;
  const double z = (max_statistic / 2.0 - 0.5) / sigma;
  return std::min(1.0,
                  2.0 * boost::math::cdf(boost::math::complement(Normal(), z)));
}

}  // namespace

double SmallestRankP(int64_t n1, int64_t n2, bool paired) {
  if (n1 <= 0 || n2 <= 0) return 1.0;
  if (paired) {
    const int64_t n = std::min(n1, n2);
    const auto dn = static_cast<double>(n);
    if (n < kMaxExactSampleSize) return std::min(1.0, 2.0 * std::exp2(-dn));
    const double max_w = dn * (dn + 1.0) / 2.0;
    return NormalExtremeP(max_w,
                          std::sqrt(dn * (dn + 1.0) * (2.0 * dn + 1.0) / 24.0));
  }
  const auto a = static_cast<double>(n1);
  const auto b = static_cast<double>(n2);
  if (n1 < kMaxExactSampleSize && n2 < kMaxExactSampleSize) {
    // log C(a + b, a) by lgamma: exact enough for a bound.
    const double log_c =
        std::lgamma(a + b + 1.0) - std::lgamma(a + 1.0) - std::lgamma(b + 1.0);
    return std::min(1.0, 2.0 * std::exp(-log_c));
  }
  return NormalExtremeP(a * b, std::sqrt(a * b * (a + b + 1.0) / 12.0));
}

int64_t MinSamplesForGate(int64_t comparisons, double alpha, bool paired) {
  const auto m = static_cast<double>(std::max<int64_t>(1, comparisons));
  for (int64_t n = kMinGateSamples; n < 1'000'000; ++n) {
    if (m * SmallestRankP(n, n, paired) < alpha) return n;
  }
  return 1'000'000;
}

}  // namespace trn::stats
