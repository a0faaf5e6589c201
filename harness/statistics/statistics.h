// Descriptive statistics and confidence intervals over benchmark samples.
// Everything here is a pure function of its inputs, including the bootstrap
// (driven by CounterRng, never by std:: distributions), so a report computed
// on one compiler is bit-identical to the same report computed on another.
#ifndef TRNBENCH_HARNESS_STATISTICS_STATISTICS_H_
#define TRNBENCH_HARNESS_STATISTICS_STATISTICS_H_

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "harness/statistics/interval.h"
#include "harness/statistics/serial_dependence.h"

namespace trn::stats {

// Tukey-fence outlier counts. Outliers are counted, never dropped: a
// benchmark's tail is part of what it measures.
struct OutlierCounts {
  int64_t low_severe = 0;
  int64_t low_mild = 0;
  int64_t high_mild = 0;
  int64_t high_severe = 0;
  int64_t total() const {
    return low_severe + low_mild + high_mild + high_severe;
  }
};

struct Summary {
  int64_t n = 0;
  double mean = NAN;
  double median = NAN;
  double stddev = NAN;  // Sample standard deviation (n - 1); NaN for n < 2.
  double cv = NAN;      // stddev / mean; NaN when mean is 0 or n < 2.
  double min = NAN;
  double max = NAN;
  double mad = NAN;  // Raw median absolute deviation, not scaled by 1.4826.
  double iqr = NAN;  // p75 - p25.
  // Hyndman-Fan type 7 quantiles.
  double p01 = NAN;
  double p05 = NAN;
  double p25 = NAN;
  double p50 = NAN;
  double p75 = NAN;
  double p95 = NAN;
  double p99 = NAN;
  Interval mean_ci;    // Student t; NaN for n < 2.
  Interval median_ci;  // Order statistics; NaN when no pair reaches the level.
  // Exact coverage of the order statistics chosen for median_ci; at least
  // the requested confidence, NaN when median_ci is undefined. When the
  // series is autocorrelated, the normal-approximation coverage instead.
  double median_ci_coverage = NAN;
  // Serial correlation, drift and bimodality of the samples in the order
  // they were given. When autocorrelated, mean_ci uses the AR(1)-inflated
  // standard error with series.dof degrees of freedom, and median_ci the
  // order statistics n/2 -+ t sqrt(n * inflation) / 2 (the binomial
  // count's variance inflated the same way: conservative, as the
  // indicators' correlation is below the values').
  SeriesDiagnostics series;
  // Tukey fences on p25/p75: mild is beyond 1.5 IQR but not beyond 3 IQR,
  // severe is beyond 3 IQR ("beyond" is strict, so a fence value itself is
  // not an outlier and all-equal samples have none).
  OutlierCounts outliers;
};

// Hyndman-Fan type 7 (R's default, numpy's 'linear'). `sorted` ascending.
// Returns NaN if `sorted` is empty or p is outside [0, 1].
double QuantileSorted(std::span<const double> sorted, double p);

// `samples` must be finite, in the order they were taken; confidence in
// (0, 1). n == 0 gives a Summary with n = 0 and NaN everywhere. Only
// `series` (and the intervals, when it finds autocorrelation) depends on
// the order of `samples`: sums run over the sorted copy.
Summary Summarize(std::span<const double> samples, double confidence);

// Student t interval for the mean: mean +- t_{(1+c)/2, n-1} * s / sqrt(n).
Interval MeanInterval(std::span<const double> samples, double confidence);

// Distribution-free interval for the median: order statistics x_(j), x_(k)
// (1-based ranks, k = n + 1 - j) with the largest j such that
// P(j <= B < k) >= confidence for B ~ Binomial(n, 1/2). The exact coverage
// is stored in *coverage if non-null (NaN when no such j exists, e.g. n = 5
// at 95%).
Interval MedianInterval(std::span<const double> sorted, double confidence,
                        double* coverage);

// Percentile-bootstrap interval for median(numerator) / median(denominator),
// resampling the two samples independently (they are separate runs). The
// interval is the type-7 (1 - c)/2 and (1 + c)/2 quantiles of the
// `resamples` sorted resampled ratios. Resample r draws from
// CounterRng(CounterRng::KeyFor(seed, kBootstrapStream, r)), numerator
// indices first, then denominator indices, so any resample can be replayed
// alone. NaN interval if either sample is empty, resamples < 1, or some
// resampled ratio is 0/0.
Interval BootstrapRatioOfMedians(std::span<const double> numerator,
                                 std::span<const double> denominator,
                                 double confidence, int resamples,
                                 uint64_t seed);

inline constexpr int kDefaultBootstrapResamples = 2000;
inline constexpr uint64_t kDefaultBootstrapSeed = 20261129;
// Stream id that keeps the bootstrap's draws apart from any other consumer
// of the same seed.
inline constexpr uint64_t kBootstrapStream = 0x5b007u;

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_STATISTICS_H_
