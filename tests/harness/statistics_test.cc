#include "harness/statistics/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn::stats {
namespace {

// Every expected value below is worked out by hand, taken from a published
// table or from numpy/R documentation, or (for binomial tails) recomputed in
// the test from exact terms without Boost; each says which.

std::vector<double> Uniforms(uint64_t seed, int n, double low, double high) {
  CounterRng rng(CounterRng::KeyFor(seed, 1, 0));
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(low + (high - low) * rng.NextUniform());
  }
  return out;
}

// ---------------------------------------------------------------- Quantiles

TEST(QuantileSortedTest, MatchesNumpyLinear) {
  const std::vector<double> x = {1, 2, 3, 4};
  // numpy.percentile([1,2,3,4], 25) == 1.75 (h = 3 * 0.25 = 0.75).
  EXPECT_DOUBLE_EQ(QuantileSorted(x, 0.25), 1.75);
  // h = 3 * 0.5 = 1.5 -> halfway between 2 and 3.
  EXPECT_DOUBLE_EQ(QuantileSorted(x, 0.5), 2.5);
  // h = 3 * 0.1 = 0.3 -> 1 + 0.3 * (2 - 1).
  EXPECT_DOUBLE_EQ(QuantileSorted(x, 0.1), 1.3);
  // h = 3 * 0.9 = 2.7 -> 3 + 0.7 * (4 - 3).
  EXPECT_DOUBLE_EQ(QuantileSorted(x, 0.9), 3.7);
}

TEST(QuantileSortedTest, FortiethPercentileOfFiveValues) {
  // numpy.percentile([15,20,35,40,50], 40) == 29: h = 4 * 0.4 = 1.6,
  // 20 + 0.6 * (35 - 20) = 29.
  const std::vector<double> x = {15, 20, 35, 40, 50};
  EXPECT_DOUBLE_EQ(QuantileSorted(x, 0.4), 29.0);
  // h = 4 * 0.75 = 3 exactly -> the 4th value.
  EXPECT_EQ(QuantileSorted(x, 0.75), 40.0);
}

TEST(QuantileSortedTest, EndpointsAreMinAndMax) {
  const std::vector<double> x = {-3.5, 0.25, 7.0, 11.0};
  EXPECT_EQ(QuantileSorted(x, 0.0), -3.5);
  EXPECT_EQ(QuantileSorted(x, 1.0), 11.0);
}

TEST(QuantileSortedTest, SingleValueIsEveryQuantile) {
  const std::vector<double> x = {42.5};
  for (double p : {0.0, 0.01, 0.5, 0.99, 1.0}) {
    EXPECT_EQ(QuantileSorted(x, p), 42.5) << "p=" << p;
  }
}

TEST(QuantileSortedTest, StaysWithinNeighbours) {
  // Between adjacent doubles there is nothing to interpolate to, so every
  // quantile must be one of the two; between 0.1 and 0.3 it must stay inside.
  const std::vector<double> adjacent = {1.0, std::nextafter(1.0, 2.0)};
  const std::vector<double> wide = {0.1, 0.3};
  for (int i = 0; i <= 1000; ++i) {
    const double p = i / 1000.0;
    const double q = QuantileSorted(adjacent, p);
    EXPECT_TRUE(q == adjacent[0] || q == adjacent[1]) << "p=" << p;
    const double w = QuantileSorted(wide, p);
    EXPECT_GE(w, wide[0]) << "p=" << p;
    EXPECT_LE(w, wide[1]) << "p=" << p;
  }
}

TEST(QuantileSortedTest, InvalidInputsGiveNaN) {
  const std::vector<double> x = {1, 2};
  EXPECT_TRUE(std::isnan(QuantileSorted({}, 0.5)));
  EXPECT_TRUE(std::isnan(QuantileSorted(x, -0.01)));
  EXPECT_TRUE(std::isnan(QuantileSorted(x, 1.01)));
  EXPECT_TRUE(std::isnan(QuantileSorted(x, NAN)));
}

// ---------------------------------------------------------------- Summarize

TEST(SummarizeTest, PercentilesOfZeroToHundred) {
  // For x = 0, 1, ..., 100, type 7 gives h = 100 p, so the p-quantile is
  // 100 p exactly.
  std::vector<double> x;
  for (int i = 100; i >= 0; --i) x.push_back(i);  // Deliberately descending.
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.n, 101);
  EXPECT_EQ(s.min, 0.0);
  EXPECT_EQ(s.max, 100.0);
  EXPECT_DOUBLE_EQ(s.p01, 1.0);
  EXPECT_DOUBLE_EQ(s.p05, 5.0);
  EXPECT_DOUBLE_EQ(s.p25, 25.0);
  EXPECT_DOUBLE_EQ(s.p50, 50.0);
  EXPECT_DOUBLE_EQ(s.p75, 75.0);
  EXPECT_DOUBLE_EQ(s.p95, 95.0);
  EXPECT_DOUBLE_EQ(s.p99, 99.0);
  EXPECT_DOUBLE_EQ(s.iqr, 50.0);
  EXPECT_EQ(s.median, s.p50);
}

TEST(SummarizeTest, UnsortedInputIsSortedFirst) {
  // Sorted: 15 20 35 40 50 (see FortiethPercentileOfFiveValues); type 7 on
  // n = 5 puts p25 at the 2nd value and p75 at the 4th.
  const std::vector<double> x = {40, 15, 50, 35, 20};
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.median, 35.0);
  EXPECT_EQ(s.p25, 20.0);
  EXPECT_EQ(s.p75, 40.0);
  EXPECT_EQ(s.iqr, 20.0);
  EXPECT_EQ(s.min, 15.0);
  EXPECT_EQ(s.max, 50.0);
  EXPECT_DOUBLE_EQ(s.mean, 32.0);  // 160 / 5.
}

TEST(SummarizeTest, ResultDoesNotDependOnOrder) {
  const std::vector<double> sorted = {0.1, 0.2, 0.7, 1.3, 2.9, 3.3, 10.0};
  const std::vector<double> shuffled = {2.9, 0.7, 10.0, 0.1, 3.3, 1.3, 0.2};
  const Summary a = Summarize(sorted, 0.9);
  const Summary b = Summarize(shuffled, 0.9);
  // Bitwise: sums run over the sorted copy, so rounding is identical.
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.stddev, b.stddev);
  EXPECT_EQ(a.mad, b.mad);
  EXPECT_EQ(a.mean_ci.low, b.mean_ci.low);
  EXPECT_EQ(a.mean_ci.high, b.mean_ci.high);
  EXPECT_EQ(a.p95, b.p95);
}

TEST(SummarizeTest, MeanStddevCvByHand) {
  // Sum 40, mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32, so the sample
  // variance is 32/7 and stddev = sqrt(32/7) = 2.1380899352993950.
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = Summarize(x, 0.95);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev, 2.1380899352993950, 1e-14);
  EXPECT_NEAR(s.cv, 2.1380899352993950 / 5.0, 1e-14);
  // Median (4 + 5) / 2; |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5, whose
  // median is 0.5.
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.mad, 0.5);
  // p25: h = 7 * 0.25 = 1.75 -> 4 + 0.75 * (4 - 4) = 4.
  // p75: h = 5.25 -> 5 + 0.25 * (7 - 5) = 5.5.
  EXPECT_DOUBLE_EQ(s.p25, 4.0);
  EXPECT_DOUBLE_EQ(s.p75, 5.5);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
}

TEST(SummarizeTest, MadIsRawAndUnscaled) {
  // Median 2; |x - 2| = 1 1 0 0 2 4 7 -> sorted 0 0 1 1 2 4 7, median 1.
  // (A normal-consistent MAD would be 1.4826.)
  const std::vector<double> x = {1, 1, 2, 2, 4, 6, 9};
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.median, 2.0);
  EXPECT_EQ(s.mad, 1.0);
}

TEST(SummarizeTest, CvUndefinedForZeroMean) {
  const std::vector<double> x = {-1.0, 1.0};
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.mean, 0.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.0));  // (1 + 1) / (2 - 1) = 2.
  EXPECT_TRUE(std::isnan(s.cv));
}

TEST(SummarizeTest, OutliersOnBothSides) {
  // 21 values, so type 7 puts p25 at index 5 (h = 20 * 0.25) and p75 at
  // index 15: p25 = 10, p75 = 20, IQR = 10. Fences: mild below -5 or above
  // 35, severe below -20 or above 50. Values exactly on a fence are not
  // beyond it.
  //   low severe: -30          low mild: -20 (on the outer fence), -6
  //   not outliers: -5 (on the inner fence), 35 (on the inner fence)
  //   high mild: 36, 50 (on the outer fence)   high severe: 51
  const std::vector<double> x = {36, 12, -30, 15, 9,  21, 10, 50, 16, 14, 51,
                                 19, -6, 13,  35, 17, 11, 20, -5, 18, -20};
  ASSERT_EQ(x.size(), 21u);
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.p25, 10.0);
  EXPECT_EQ(s.p75, 20.0);
  EXPECT_EQ(s.iqr, 10.0);
  EXPECT_EQ(s.outliers.low_severe, 1);
  EXPECT_EQ(s.outliers.low_mild, 2);
  EXPECT_EQ(s.outliers.high_mild, 2);
  EXPECT_EQ(s.outliers.high_severe, 1);
  EXPECT_EQ(s.outliers.total(), 6);
  // Counted, never dropped.
  EXPECT_EQ(s.n, 21);
  EXPECT_EQ(s.min, -30.0);
  EXPECT_EQ(s.max, 51.0);
}

TEST(SummarizeTest, NoOutliersInCleanSample) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(Summarize(x, 0.95).outliers.total(), 0);
}

TEST(SummarizeTest, SingleSample) {
  const std::vector<double> x = {3.25};
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.n, 1);
  EXPECT_EQ(s.mean, 3.25);
  EXPECT_EQ(s.median, 3.25);
  EXPECT_EQ(s.min, 3.25);
  EXPECT_EQ(s.max, 3.25);
  EXPECT_EQ(s.p01, 3.25);
  EXPECT_EQ(s.p99, 3.25);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_EQ(s.iqr, 0.0);
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.cv));
  EXPECT_TRUE(std::isnan(s.mean_ci.low));
  EXPECT_TRUE(std::isnan(s.mean_ci.high));
  EXPECT_TRUE(std::isnan(s.median_ci.low));
  EXPECT_TRUE(std::isnan(s.median_ci.high));
  EXPECT_TRUE(std::isnan(s.median_ci_coverage));
  EXPECT_EQ(s.outliers.total(), 0);
}

TEST(SummarizeTest, AllEqualSamples) {
  // 0.1 is not representable, and 0.1 + 0.1 + ... / n is not 0.1 for every
  // n, so this also checks that the mean of identical values is exact.
  const std::vector<double> x(37, 0.1);
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.mean, 0.1);
  EXPECT_EQ(s.median, 0.1);
  EXPECT_EQ(s.stddev, 0.0);
  EXPECT_EQ(s.cv, 0.0);
  EXPECT_EQ(s.mad, 0.0);
  EXPECT_EQ(s.iqr, 0.0);
  EXPECT_EQ(s.outliers.total(), 0);
  EXPECT_EQ(s.mean_ci.low, 0.1);
  EXPECT_EQ(s.mean_ci.high, 0.1);
  EXPECT_EQ(s.median_ci.low, 0.1);
  EXPECT_EQ(s.median_ci.high, 0.1);
}

TEST(SummarizeTest, EmptyGivesNaN) {
  const Summary s = Summarize({}, 0.95);
  EXPECT_EQ(s.n, 0);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.mean_ci.low));
}

TEST(SummarizeTest, IntervalsMatchStandaloneFunctions) {
  // 1..10 shuffled; the order-statistic interval must be (x_(2), x_(9)).
  const std::vector<double> x = {7, 3, 10, 1, 5, 9, 2, 8, 6, 4};
  const Summary s = Summarize(x, 0.95);
  EXPECT_EQ(s.median_ci.low, 2.0);
  EXPECT_EQ(s.median_ci.high, 9.0);
  EXPECT_EQ(s.median_ci.level, 0.95);
  EXPECT_NEAR(s.median_ci_coverage, 1.0 - 22.0 / 1024.0, 1e-12);
  const Interval m = MeanInterval(x, 0.95);
  EXPECT_NEAR(s.mean_ci.low, m.low, 1e-12);
  EXPECT_NEAR(s.mean_ci.high, m.high, 1e-12);
  EXPECT_EQ(s.mean_ci.level, 0.95);
}

// ------------------------------------------------------------ MeanInterval

TEST(MeanIntervalTest, FiveSamplesAgainstPublishedT) {
  // Mean 50.5 / 5 = 10.1; deviations .1 -.3 .4 0 -.2, squares sum to 0.30,
  // s^2 = 0.075, standard error sqrt(0.075 / 5) = sqrt(0.015).
  // t_{0.975, 4} = 2.7764451 (published t table).
  const std::vector<double> x = {10.2, 9.8, 10.5, 10.1, 9.9};
  const double half = 2.7764451 * std::sqrt(0.015);  // 0.34004...
  const Interval ci = MeanInterval(x, 0.95);
  EXPECT_NEAR(ci.low, 10.1 - half, 1e-6);
  EXPECT_NEAR(ci.high, 10.1 + half, 1e-6);
  EXPECT_EQ(ci.level, 0.95);
  // t_{0.95, 4} = 2.1318468 (published t table) for a 90% interval.
  const double half90 = 2.1318468 * std::sqrt(0.015);
  const Interval ci90 = MeanInterval(x, 0.90);
  EXPECT_NEAR(ci90.low, 10.1 - half90, 1e-6);
  EXPECT_NEAR(ci90.high, 10.1 + half90, 1e-6);
}

TEST(MeanIntervalTest, TenSamplesAgainstPublishedT) {
  // 1..10: mean 5.5, sum of squared deviations 82.5, s^2 = 82.5 / 9,
  // standard error sqrt(82.5 / 90). t_{0.975, 9} = 2.2621572 (table).
  std::vector<double> x;
  for (int i = 1; i <= 10; ++i) x.push_back(i);
  const double half = 2.2621572 * std::sqrt(82.5 / 90.0);  // 2.16585...
  const Interval ci = MeanInterval(x, 0.95);
  EXPECT_NEAR(ci.low, 5.5 - half, 1e-6);
  EXPECT_NEAR(ci.high, 5.5 + half, 1e-6);
}

TEST(MeanIntervalTest, UndefinedCases) {
  const std::vector<double> one = {1.0};
  const std::vector<double> two = {1.0, 2.0};
  EXPECT_TRUE(std::isnan(MeanInterval(one, 0.95).low));
  EXPECT_TRUE(std::isnan(MeanInterval({}, 0.95).low));
  EXPECT_TRUE(std::isnan(MeanInterval(two, 0.0).low));
  EXPECT_TRUE(std::isnan(MeanInterval(two, 1.0).low));
  EXPECT_FALSE(std::isnan(MeanInterval(two, 0.95).low));
}

// ---------------------------------------------------------- MedianInterval

// P(B <= k) for B ~ Binomial(n, 1/2), summing C(n, i) / 2^n term by term in
// long double; deliberately not Boost, so it is an independent reference.
long double BinomialHalfCdf(int n, int k) {
  long double term = std::pow(0.5L, n);  // C(n, 0) / 2^n.
  long double sum = 0.0L;
  for (int i = 0; i <= k; ++i) {
    sum += term;
    term = term * static_cast<long double>(n - i) /
           static_cast<long double>(i + 1);
  }
  return sum;
}

// Largest rank j in [1, n/2] with P(j <= B <= n - j) >= confidence, or 0.
int ReferenceLowRank(int n, double confidence, long double* coverage) {
  int best = 0;
  for (int j = 1; j <= n / 2; ++j) {
    const long double cov =
        BinomialHalfCdf(n, n - j) - BinomialHalfCdf(n, j - 1);
    if (cov >= confidence) {
      best = j;
      *coverage = cov;
    }
  }
  return best;
}

std::vector<double> OneToN(int n) {
  std::vector<double> x;
  for (int i = 1; i <= n; ++i) x.push_back(i);
  return x;
}

TEST(MedianIntervalTest, TenSamplesClassicAnswer) {
  // Ranks (2, 9): coverage 1 - 2 (C(10,0) + C(10,1)) / 1024 = 1 - 22/1024
  // = 0.978515625. Ranks (3, 8) would give 1 - 2 * 56 / 1024 = 0.890625.
  const std::vector<double> x = OneToN(10);
  double coverage = 0;
  const Interval ci = MedianInterval(x, 0.95, &coverage);
  EXPECT_EQ(ci.low, 2.0);
  EXPECT_EQ(ci.high, 9.0);
  EXPECT_EQ(ci.level, 0.95);
  EXPECT_NEAR(coverage, 0.978515625, 1e-12);
  // At 0.89 the (3, 8) pair is enough.
  const Interval ci89 = MedianInterval(x, 0.89, &coverage);
  EXPECT_EQ(ci89.low, 3.0);
  EXPECT_EQ(ci89.high, 8.0);
  EXPECT_NEAR(coverage, 0.890625, 1e-12);
}

TEST(MedianIntervalTest, FiveSamplesCannotReach95) {
  // The widest pair (1, 5) covers 1 - 2 / 32 = 0.9375 < 0.95.
  const std::vector<double> x = OneToN(5);
  double coverage = 0;
  const Interval ci = MedianInterval(x, 0.95, &coverage);
  EXPECT_TRUE(std::isnan(ci.low));
  EXPECT_TRUE(std::isnan(ci.high));
  EXPECT_TRUE(std::isnan(coverage));
  // ...but it does reach 0.9375 and anything below.
  const Interval ci93 = MedianInterval(x, 0.93, &coverage);
  EXPECT_EQ(ci93.low, 1.0);
  EXPECT_EQ(ci93.high, 5.0);
  EXPECT_NEAR(coverage, 0.9375, 1e-12);
  // Six samples: 1 - 2 / 64 = 0.96875 >= 0.95.
  const std::vector<double> six = OneToN(6);
  const Interval ci6 = MedianInterval(six, 0.95, &coverage);
  EXPECT_EQ(ci6.low, 1.0);
  EXPECT_EQ(ci6.high, 6.0);
  EXPECT_NEAR(coverage, 0.96875, 1e-12);
}

TEST(MedianIntervalTest, HundredSamples) {
  long double ref_coverage = 0;
  ASSERT_EQ(ReferenceLowRank(100, 0.95, &ref_coverage), 40);
  const std::vector<double> x = OneToN(100);
  double coverage = 0;
  const Interval ci = MedianInterval(x, 0.95, &coverage);
  EXPECT_EQ(ci.low, 40.0);
  EXPECT_EQ(ci.high, 61.0);
  EXPECT_NEAR(coverage, static_cast<double>(ref_coverage), 1e-12);
  EXPECT_GE(coverage, 0.95);
}

TEST(MedianIntervalTest, AgreesWithExactBinomialForManySizes) {
  for (double confidence : {0.5, 0.9, 0.95, 0.99}) {
    for (int n = 1; n <= 300; ++n) {
      long double ref_coverage = 0;
      const int j = ReferenceLowRank(n, confidence, &ref_coverage);
      const std::vector<double> x = OneToN(n);
      double coverage = 0;
      const Interval ci = MedianInterval(x, confidence, &coverage);
      if (j == 0) {
        EXPECT_TRUE(std::isnan(ci.low)) << "n=" << n << " c=" << confidence;
        EXPECT_TRUE(std::isnan(coverage));
        continue;
      }
      EXPECT_EQ(ci.low, j) << "n=" << n << " c=" << confidence;
      EXPECT_EQ(ci.high, n + 1 - j) << "n=" << n << " c=" << confidence;
      EXPECT_NEAR(coverage, static_cast<double>(ref_coverage), 1e-12)
          << "n=" << n << " c=" << confidence;
    }
  }
}

TEST(MedianIntervalTest, NullCoverageIsAllowed) {
  const std::vector<double> x = OneToN(10);
  EXPECT_EQ(MedianInterval(x, 0.95, nullptr).low, 2.0);
}

// ------------------------------------------------- BootstrapRatioOfMedians

TEST(BootstrapTest, SameSeedIsBitIdentical) {
  const std::vector<double> a = Uniforms(1, 40, 10.0, 14.0);
  const std::vector<double> b = Uniforms(2, 55, 5.0, 8.0);
  const Interval x = BootstrapRatioOfMedians(a, b, 0.95, 500, 77);
  const Interval y = BootstrapRatioOfMedians(a, b, 0.95, 500, 77);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  EXPECT_EQ(x.level, 0.95);
  EXPECT_LT(x.low, x.high);
}

TEST(BootstrapTest, DifferentSeedDiffers) {
  const std::vector<double> a = Uniforms(1, 40, 10.0, 14.0);
  const std::vector<double> b = Uniforms(2, 55, 5.0, 8.0);
  const Interval x = BootstrapRatioOfMedians(a, b, 0.95, 2000, 1);
  const Interval y = BootstrapRatioOfMedians(a, b, 0.95, 2000, 2);
  EXPECT_TRUE(x.low != y.low || x.high != y.high);
}

TEST(BootstrapTest, ConstantSamplesGiveExactRatio) {
  // Every resample of a constant sample has the same median, so every
  // resampled ratio is exactly 2.
  const std::vector<double> num(9, 3.0);
  const std::vector<double> den(14, 1.5);
  const Interval ci = BootstrapRatioOfMedians(
      num, den, 0.95, kDefaultBootstrapResamples, kDefaultBootstrapSeed);
  EXPECT_EQ(ci.low, 2.0);
  EXPECT_EQ(ci.high, 2.0);
}

TEST(BootstrapTest, ScaledNoisySamplesContainTheScale) {
  // Numerator is exactly twice the denominator, but the two are resampled
  // independently, so the interval has width and must straddle 2.
  const std::vector<double> den = Uniforms(3, 31, 1.0, 2.0);
  std::vector<double> num;
  for (double d : den) num.push_back(2.0 * d);
  const Interval ci = BootstrapRatioOfMedians(
      num, den, 0.95, kDefaultBootstrapResamples, kDefaultBootstrapSeed);
  EXPECT_LT(ci.low, 2.0);
  EXPECT_GT(ci.high, 2.0);
}

TEST(BootstrapTest, PercentilesComeFromTheRightTails) {
  // Numerator {6}; denominator {1, 2}, whose size-2 resamples have median
  // 1 (p = 1/4), 1.5 (p = 1/2) or 2 (p = 1/4): ratios 6, 4, 3. Among 2000
  // resamples about 500 are 3 and 500 are 6 (sd ~19), so the 5% / 95%
  // quantiles are 3 and 6, and the 30% / 70% quantiles are both 4.
  const std::vector<double> num = {6.0};
  const std::vector<double> den = {1.0, 2.0};
  const Interval wide = BootstrapRatioOfMedians(num, den, 0.90, 2000, 5);
  EXPECT_EQ(wide.low, 3.0);
  EXPECT_EQ(wide.high, 6.0);
  const Interval narrow = BootstrapRatioOfMedians(num, den, 0.40, 2000, 5);
  EXPECT_EQ(narrow.low, 4.0);
  EXPECT_EQ(narrow.high, 4.0);
}

TEST(BootstrapTest, LargeSamplesNearTrueRatio) {
  // Numerator ~ U[2, 4) (median 3), denominator ~ U[1, 2) (median 1.5):
  // true ratio 2. The sample median of U[a, b) has asymptotic sd
  // (b - a) / (2 sqrt(n)): 0.02236 and 0.01118 for n = 2000, so by the delta
  // method the ratio's sd is 2 * sqrt((0.02236/3)^2 + (0.01118/1.5)^2)
  // = 0.0211 and a 95% interval is about 2 * 1.96 * 0.0211 = 0.083 wide.
  const std::vector<double> num = Uniforms(11, 2000, 2.0, 4.0);
  const std::vector<double> den = Uniforms(12, 2000, 1.0, 2.0);
  const Interval ci = BootstrapRatioOfMedians(
      num, den, 0.95, kDefaultBootstrapResamples, kDefaultBootstrapSeed);
  EXPECT_LT(ci.low, 2.0);
  EXPECT_GT(ci.high, 2.0);
  EXPECT_GT(ci.high - ci.low, 0.05);
  EXPECT_LT(ci.high - ci.low, 0.12);
  EXPECT_NEAR((ci.low + ci.high) / 2.0, 2.0, 0.06);
}

TEST(BootstrapTest, DegenerateInputsGiveNaN) {
  const std::vector<double> a = {1.0, 2.0};
  const std::vector<double> zeros = {0.0, 0.0};
  EXPECT_TRUE(std::isnan(BootstrapRatioOfMedians({}, a, 0.95, 100, 1).low));
  EXPECT_TRUE(std::isnan(BootstrapRatioOfMedians(a, {}, 0.95, 100, 1).low));
  EXPECT_TRUE(std::isnan(BootstrapRatioOfMedians(a, a, 0.95, 0, 1).low));
  EXPECT_TRUE(
      std::isnan(BootstrapRatioOfMedians(zeros, zeros, 0.95, 10, 1).low));
  EXPECT_FALSE(std::isnan(BootstrapRatioOfMedians(a, a, 0.95, 10, 1).low));
}

}  // namespace
}  // namespace trn::stats
