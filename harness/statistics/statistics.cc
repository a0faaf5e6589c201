#include "harness/statistics/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "boost/math/distributions/binomial.hpp"
#include "boost/math/distributions/students_t.hpp"
#include "harness/statistics/boost_policy.h"
#include "harness/statistics/sample_buffer.h"
#include "support/counter_rng.h"

namespace trn::stats {
namespace {

bool ValidConfidence(double confidence) {
  return confidence > 0.0 && confidence < 1.0;
}

// numpy's lerp (numpy >= 1.22): interpolating from the nearer end makes
// quantiles match numpy.percentile(..., method='linear') bit for bit.
double Lerp(double a, double b, double t) {
  const double diff = b - a;
  return t < 0.5 ? a + diff * t : b - diff * (1.0 - t);
}

// Type-7 median of an unsorted buffer in O(n); must agree bit for bit with
// QuantileSorted(sorted, 0.5) so bootstrap and point estimates match.
double MedianInPlace(std::vector<double>& values) {
  const size_t n = values.size();
  const size_t upper = n / 2;
  std::nth_element(values.begin(), values.begin() + upper, values.end());
  const double hi = values[upper];
  if (n % 2 == 1) return hi;
  const double lo = *std::max_element(values.begin(), values.begin() + upper);
  return Lerp(lo, hi, 0.5);
}

struct Moments {
  double mean = NAN;
  double stddev = NAN;
};

// Sums deviations from the first sample rather than raw values: all-equal
// samples then give mean == the value and stddev == 0 exactly (a raw sum of
// three 0.1s divided by 3 is not 0.1), and large common offsets such as
// timestamps in nanoseconds lose less precision.
Moments ComputeMoments(std::span<const double> samples) {
  Moments m;
  if (samples.empty()) return m;
  const double shift = samples.front();
  const auto n = static_cast<double>(samples.size());
  double sum = 0.0;
  for (double x : samples) sum += x - shift;
  m.mean = shift + sum / n;
  if (samples.size() < 2) return m;
  double sum_sq = 0.0;
  for (double x : samples) {
    const double d = x - m.mean;
    sum_sq += d * d;
  }
  m.stddev = std::sqrt(sum_sq / (n - 1.0));
  return m;
}

Interval StudentInterval(const Moments& m, size_t n, double confidence) {
  if (n < 2 || !ValidConfidence(confidence)) return Interval{};
  const boost::math::students_t_distribution<double, NoThrowPolicy> t_dist(
      static_cast<double>(n - 1));
  const double t = boost::math::quantile(t_dist, (1.0 + confidence) / 2.0);
  const double half_width = t * m.stddev / std::sqrt(static_cast<double>(n));
  return Interval{.low = m.mean - half_width,
                  .high = m.mean + half_width,
                  .level = confidence};
}

// The summary's intervals for an autocorrelated series: the standard
// error and the binomial count's spread both inflated by the AR(1)
// variance inflation, with Student t quantiles at the series' dof.
void DependentIntervals(std::span<const double> sorted, const Moments& m,
                        const SeriesDiagnostics& series, double confidence,
                        Summary& s) {
  const auto n = static_cast<double>(sorted.size());
  const boost::math::students_t_distribution<double, NoThrowPolicy> t_dist(
      series.dof);
  const double q = boost::math::quantile(t_dist, (1.0 + confidence) / 2.0);
  const double se = m.stddev * std::sqrt(series.variance_inflation / n);
  s.mean_ci = Interval{
      .low = m.mean - q * se, .high = m.mean + q * se, .level = confidence};
  const double count_sd = std::sqrt(n * series.variance_inflation) / 2.0;
  const double j = std::floor(n / 2.0 - q * count_sd);
  if (!(j >= 1.0)) return;
  const auto lo = static_cast<size_t>(j);
  s.median_ci = Interval{.low = sorted[lo - 1],
                         .high = sorted[sorted.size() - lo],
                         .level = confidence};
  s.median_ci_coverage =
      1.0 - 2.0 * boost::math::cdf(t_dist, (j - 0.5 - n / 2.0) / count_sd);
}

}  // namespace

double QuantileSorted(std::span<const double> sorted, double p) {
  if (sorted.empty() || !(p >= 0.0 && p <= 1.0)) return NAN;
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const double lo_index = std::floor(h);
  const auto lo = static_cast<size_t>(lo_index);
  if (lo + 1 >= sorted.size()) return sorted.back();
  const double frac = h - lo_index;
  if (frac == 0.0) return sorted[lo];
  return Lerp(sorted[lo], sorted[lo + 1], frac);
}

Interval MeanInterval(std::span<const double> samples, double confidence) {
  return StudentInterval(ComputeMoments(samples), samples.size(), confidence);
}

Interval MedianInterval(std::span<const double> sorted, double confidence,
                        double* coverage) {
  if (coverage != nullptr) *coverage = NAN;
  const size_t n = sorted.size();
  if (n < 2 || !ValidConfidence(confidence)) return Interval{};
  const boost::math::binomial_distribution<double, NoThrowPolicy> binom(
      static_cast<double>(n), 0.5);
  // P(j <= B <= n - j) = 1 - 2 P(B <= j - 1) by the symmetry of
  // Binomial(n, 1/2); it falls as j grows, so binary search for the last j
  // that still reaches the level.
  auto coverage_at = [&](size_t j) {
    return 1.0 - 2.0 * boost::math::cdf(binom, static_cast<double>(j - 1));
  };
  size_t lo = 1;
  size_t hi = n / 2;  // j < k = n + 1 - j requires j <= n / 2.
  if (!(coverage_at(lo) >= confidence)) return Interval{};
  while (lo < hi) {
    const size_t mid = lo + (hi - lo + 1) / 2;
    if (coverage_at(mid) >= confidence) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  if (coverage != nullptr) *coverage = coverage_at(lo);
  // Ranks are 1-based: x_(j) is sorted[j - 1], x_(n + 1 - j) is sorted[n - j].
  return Interval{
      .low = sorted[lo - 1], .high = sorted[n - lo], .level = confidence};
}

Summary Summarize(std::span<const double> samples, double confidence) {
  Summary s;
  if (samples.empty()) return s;
  SampleBuffer<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::span<const double> xs(sorted);

  s.n = static_cast<int64_t>(xs.size());
  s.min = xs.front();
  s.max = xs.back();
  const Moments m = ComputeMoments(xs);
  s.mean = m.mean;
  s.stddev = m.stddev;
  s.cv = s.mean != 0.0 ? s.stddev / s.mean : NAN;

  s.p01 = QuantileSorted(xs, 0.01);
  s.p05 = QuantileSorted(xs, 0.05);
  s.p25 = QuantileSorted(xs, 0.25);
  s.p50 = QuantileSorted(xs, 0.5);
  s.p75 = QuantileSorted(xs, 0.75);
  s.p95 = QuantileSorted(xs, 0.95);
  s.p99 = QuantileSorted(xs, 0.99);
  s.median = s.p50;
  s.iqr = s.p75 - s.p25;

  SampleBuffer<double> deviations;
  deviations.reserve(xs.size());
  for (double x : xs) deviations.push_back(std::fabs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = QuantileSorted(deviations, 0.5);

  s.series = DiagnoseSeries(samples);
  if (s.series.autocorrelated && ValidConfidence(confidence)) {
    DependentIntervals(xs, m, s.series, confidence, s);
  } else {
    s.mean_ci = StudentInterval(m, xs.size(), confidence);
    s.median_ci = MedianInterval(xs, confidence, &s.median_ci_coverage);
  }

  const double low_mild_fence = s.p25 - 1.5 * s.iqr;
  const double low_severe_fence = s.p25 - 3.0 * s.iqr;
  const double high_mild_fence = s.p75 + 1.5 * s.iqr;
  const double high_severe_fence = s.p75 + 3.0 * s.iqr;
  for (double x : xs) {
    if (x < low_severe_fence) {
      ++s.outliers.low_severe;
    } else if (x < low_mild_fence) {
      ++s.outliers.low_mild;
    } else if (x > high_severe_fence) {
      ++s.outliers.high_severe;
    } else if (x > high_mild_fence) {
      ++s.outliers.high_mild;
    }
  }
  return s;
}

Interval BootstrapRatioOfMedians(std::span<const double> numerator,
                                 std::span<const double> denominator,
                                 double confidence, int resamples,
                                 uint64_t seed) {
  if (numerator.empty() || denominator.empty() || resamples < 1 ||
      !ValidConfidence(confidence)) {
    return Interval{};
  }
  std::vector<double> num_buf(numerator.size());
  std::vector<double> den_buf(denominator.size());
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    CounterRng rng(
        CounterRng::KeyFor(seed, kBootstrapStream, static_cast<uint64_t>(r)));
    for (double& v : num_buf) v = numerator[rng.NextBelow(numerator.size())];
    for (double& v : den_buf) {
      v = denominator[rng.NextBelow(denominator.size())];
    }
    const double ratio = MedianInPlace(num_buf) / MedianInPlace(den_buf);
    // NaN (0/0) would break std::sort's ordering; +-inf sorts fine.
    if (std::isnan(ratio)) return Interval{};
    ratios.push_back(ratio);
  }
  std::sort(ratios.begin(), ratios.end());
  return Interval{.low = QuantileSorted(ratios, (1.0 - confidence) / 2.0),
                  .high = QuantileSorted(ratios, (1.0 + confidence) / 2.0),
                  .level = confidence};
}

}  // namespace trn::stats
