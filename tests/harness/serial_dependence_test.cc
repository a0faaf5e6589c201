#include "harness/statistics/serial_dependence.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "boost/math/distributions/normal.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/statistics/comparison_stats.h"
#include "harness/statistics/statistics.h"
#include "support/counter_rng.h"

namespace trn::stats {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

double Gauss(CounterRng& rng) {
  // Inverse CDF of a uniform in (0, 1): deterministic on every compiler.
  const double u = (static_cast<double>(rng.NextU64() >> 11) + 0.5) * 0x1p-53;
  return boost::math::quantile(boost::math::normal_distribution<double>(), u);
}

// exp(sd * e_t) with e_t a stationary AR(1) series of unit variance.
std::vector<double> Ar1LogNormal(uint64_t key, int n, double rho, double sd) {
  CounterRng rng(key);
  std::vector<double> x(static_cast<size_t>(n));
  double e = Gauss(rng);
  const double innovation = std::sqrt(1.0 - rho * rho);
  for (int t = 0; t < n; ++t) {
    if (t > 0) e = rho * e + innovation * Gauss(rng);
    x[static_cast<size_t>(t)] = 100.0 * std::exp(sd * e);
  }
  return x;
}

TEST(SerialDependenceTest, Lag1OfARampByHand) {
  // 1..8: deviations -3.5..3.5, sum of squares 42, lag-1 cross products
  // 8.75 + 3.75 + 0.75 - 0.25 + 0.75 + 3.75 + 8.75 = 26.25: r1 = 0.625.
  const std::vector<double> ramp = {1, 2, 3, 4, 5, 6, 7, 8};
  const SeriesDiagnostics d = DiagnoseSeries(ramp, SeriesScale::kLinear);
  EXPECT_FALSE(d.log_scale);
  EXPECT_DOUBLE_EQ(d.lag1, 0.625);
  // Null: z = (0.625 + 1/8) / (6 / (8 sqrt 7)) = 0.75 * 8 sqrt(7) / 6.
  const double z = 0.75 * 8.0 * std::sqrt(7.0) / 6.0;
  EXPECT_NEAR(d.p_autocorrelation, 0.5 * std::erfc(z / std::sqrt(2.0)), 1e-15);
  // A ramp is also the plainest drift: Mann-Kendall S = 28 of 28.
  EXPECT_TRUE(d.drifting);
  EXPECT_DOUBLE_EQ(d.drift, 7.5 - 1.5);  // last two vs first two, linear
}

TEST(SerialDependenceTest, VarianceInflationMatchesTheAutocovarianceSum) {
  for (double rho : {0.1, 0.5, 0.9, 0.99}) {
    for (int64_t n : {2, 10, 100, 1000}) {
      // Var(mean) n / gamma0 = 1 + 2 sum_{h<n} (1 - h/n) rho^h.
      double sum = 1.0;
      for (int64_t h = 1; h < n; ++h) {
        sum += 2.0 * (1.0 - static_cast<double>(h) / static_cast<double>(n)) *
               std::pow(rho, static_cast<double>(h));
      }
      EXPECT_NEAR(Ar1VarianceInflation(rho, n), sum, 1e-9 * sum)
          << rho << " " << n;
    }
  }
  EXPECT_EQ(Ar1VarianceInflation(0.0, 100), 1.0);
  EXPECT_EQ(Ar1VarianceInflation(-0.5, 100), 1.0);
  EXPECT_NEAR(Ar1VarianceInflation(0.9, 100), 17.2000478, 1e-6);
}

TEST(SerialDependenceTest, IndependentSeriesAreRarelyFlagged) {
  constexpr int kSeries = 2000;
  int autocorrelated = 0;
  int drifting = 0;
  int bimodal = 0;
  for (int k = 0; k < kSeries; ++k) {
    const auto x = Ar1LogNormal(CounterRng::KeyFor(1, 0, k), 100, 0.0, 0.02);
    const SeriesDiagnostics d = DiagnoseSeries(x);
    EXPECT_TRUE(d.log_scale);
    autocorrelated += d.autocorrelated;
    drifting += d.drifting;
    bimodal += d.bimodal;
    if (!d.autocorrelated) {
      EXPECT_EQ(d.variance_inflation, 1.0);
      EXPECT_EQ(d.effective_n, 100.0);
      EXPECT_EQ(d.dof, 99.0);
    }
  }
  std::printf(
      "independent series of 100, %d: autocorrelated %d, drifting "
      "%d, bimodal %d\n",
      kSeries, autocorrelated, drifting, bimodal);
  // Each test is at 1%; binomial(2000, 0.01) stays within 8..36 with
  // probability > 0.999.
  EXPECT_GE(autocorrelated, 8);
  EXPECT_LE(autocorrelated, 36);
  EXPECT_LE(drifting, 36);
  EXPECT_LE(bimodal, 10);
}

TEST(SerialDependenceTest, StrongAutocorrelationIsFlaggedWithItsEffectiveN) {
  std::vector<double> eff;
  std::vector<double> rho;
  for (int k = 0; k < 500; ++k) {
    const auto x = Ar1LogNormal(CounterRng::KeyFor(2, 0, k), 100, 0.9, 0.02);
    const SeriesDiagnostics d = DiagnoseSeries(x);
    ASSERT_TRUE(d.autocorrelated) << k;
    eff.push_back(d.effective_n);
    rho.push_back(d.rho);
  }
  std::sort(eff.begin(), eff.end());
  std::sort(rho.begin(), rho.end());
  // The truth: rho 0.9, effective n = 100 / 17.2 = 5.8. The jackknifed
  // rho is close to median-unbiased.
  EXPECT_NEAR(QuantileSorted(rho, 0.5), 0.9, 0.02);
  EXPECT_NEAR(QuantileSorted(eff, 0.5), 5.8, 1.0);
}

TEST(SerialDependenceTest, DriftIsMeasuredBetweenTheRunsQuarters) {
  // 5% linear drift over 100 samples with 0.5% independent noise.
  auto x = Ar1LogNormal(CounterRng::KeyFor(3, 0, 0), 100, 0.0, 0.005);
  for (size_t t = 0; t < x.size(); ++t) {
    x[t] *= std::exp(0.05 * static_cast<double>(t) / 99.0);
  }
  const SeriesDiagnostics d = DiagnoseSeries(x);
  EXPECT_TRUE(d.drifting);
  EXPECT_LT(d.p_drift, 1e-6);
  // Quarter medians sit near t = 12 and t = 87: exp(0.05 * 75 / 99) - 1.
  EXPECT_NEAR(d.drift, std::expm1(0.05 * 75.0 / 99.0), 0.005);
  // A trend also moves the level between the run's halves: the level-shift
  // note may follow the drift's.
  EXPECT_THAT(DiagnosticNotes(d), Contains(HasSubstr("drift: +3.")));
}

TEST(SerialDependenceTest, TwoClustersAreBimodalOneIsNot) {
  CounterRng rng(CounterRng::KeyFor(4, 0, 0));
  std::vector<double> x;
  std::vector<double> one;
  for (int i = 0; i < 200; ++i) {
    // 40% of the samples 6% slower, each cluster with 1% noise.
    const bool slow = i % 5 < 2;
    x.push_back(100.0 * std::exp(0.01 * Gauss(rng) + (slow ? 0.06 : 0.0)));
    one.push_back(100.0 * std::exp(0.01 * Gauss(rng)));
  }
  const SeriesDiagnostics d = DiagnoseSeries(x);
  EXPECT_TRUE(d.bimodal);
  EXPECT_NEAR(d.high_share, 0.4, 0.03);
  EXPECT_NEAR(d.high_mode / d.low_mode - 1.0, 0.06, 0.01);
  EXPECT_THAT(DiagnosticNotes(d), ElementsAre(HasSubstr("bimodal: 4")));
  EXPECT_FALSE(DiagnoseSeries(one).bimodal);
}

TEST(SerialDependenceTest, ShortOrConstantSeriesAreNotDiagnosed) {
  const std::vector<double> few = {1, 2, 3, 4, 5, 6, 7};
  SeriesDiagnostics d = DiagnoseSeries(few);
  EXPECT_TRUE(std::isnan(d.lag1));
  EXPECT_FALSE(d.autocorrelated || d.drifting || d.bimodal);
  EXPECT_EQ(d.effective_n, 7.0);
  const std::vector<double> flat(50, 3.0);
  d = DiagnoseSeries(flat);
  EXPECT_TRUE(std::isnan(d.lag1));
  EXPECT_FALSE(d.autocorrelated || d.drifting || d.bimodal);
  EXPECT_TRUE(DiagnosticNotes(d).empty());
}

TEST(SerialDependenceTest, NoteWording) {
  SeriesDiagnostics d;
  d.n = 100;
  d.autocorrelated = true;
  d.rho = 0.88;
  d.effective_n = 6.3;
  EXPECT_THAT(DiagnosticNotes(d),
              ElementsAre("autocorrelated: \xCF\x81\xCC\x82 0.88, effective n "
                          "6 of 100"));
}

TEST(DependentMeanTestTest, WithoutAutocorrelationItIsWelchT) {
  const auto a = Ar1LogNormal(CounterRng::KeyFor(5, 0, 0), 30, 0.0, 0.1);
  const auto b = Ar1LogNormal(CounterRng::KeyFor(5, 0, 1), 40, 0.0, 0.2);
  const SeriesDiagnostics none_a;  // n == 0: not this series, no inflation
  const SeriesDiagnostics none_b;
  const MeanTest m = DependentMeanTest(a, none_a, b, none_b, 0.95);
  const TestResult w = WelchT(b, a);
  EXPECT_DOUBLE_EQ(m.statistic, w.statistic);
  EXPECT_DOUBLE_EQ(m.df, w.df);
  EXPECT_NEAR(m.p_value, w.p_value, 1e-15);
}

TEST(DependentMeanTestTest, IntervalExcludesZeroExactlyWhenPIsSmall) {
  for (int k = 0; k < 300; ++k) {
    const double rho = 0.3 * (k % 4);
    auto a = Ar1LogNormal(CounterRng::KeyFor(6, 0, k), 60, rho, 0.02);
    auto b = Ar1LogNormal(CounterRng::KeyFor(6, 1, k), 60, rho, 0.02);
    std::vector<double> la;
    std::vector<double> lb;
    for (double v : a) la.push_back(std::log(v));
    for (double v : b) lb.push_back(std::log(v) + 0.004 * (k % 5));
    const MeanTest m =
        DependentMeanTest(la, DiagnoseSeries(a), lb, DiagnoseSeries(b), 0.9);
    const bool inside = m.interval.low <= 0.0 && 0.0 <= m.interval.high;
    EXPECT_EQ(inside, m.p_value > 0.1 - 1e-12) << k << " p " << m.p_value;
  }
}

TEST(SummarizeUnderDependenceTest, IntervalsWidenByTheInflation) {
  const auto x = Ar1LogNormal(CounterRng::KeyFor(7, 0, 0), 400, 0.8, 0.02);
  const Summary s = Summarize(x, 0.95);
  ASSERT_TRUE(s.series.autocorrelated);
  const Interval naive = MeanInterval(x, 0.95);
  const double ratio =
      (s.mean_ci.high - s.mean_ci.low) / (naive.high - naive.low);
  // sqrt(inflation) times a slightly larger t quantile.
  EXPECT_GT(ratio, std::sqrt(s.series.variance_inflation));
  EXPECT_LT(ratio, 1.1 * std::sqrt(s.series.variance_inflation));
  EXPECT_LT(s.median_ci.low, s.median);
  EXPECT_GT(s.median_ci.high, s.median);
  EXPECT_GT(s.median_ci_coverage, 0.95);
  // Shuffling order destroys the correlation and the inflation with it.
  std::vector<double> shuffled;
  for (size_t i = 0; i < x.size(); ++i) shuffled.push_back(x[(i * 151) % 400]);
  const Summary t = Summarize(shuffled, 0.95);
  EXPECT_FALSE(t.series.autocorrelated);
  EXPECT_DOUBLE_EQ(t.mean_ci.high, naive.high);
}

// The small-sample rule: a run's short series share one rho, estimated from
// all of them with r1's small-n bias removed (ExpectedLag1), and each is
// inflated at it with the exact small-n variance of the mean.
TEST(SerialDependenceTest, ShortSeriesOfARunShareItsRho) {
  // Under independence E r1 = -1/n exactly, whatever n.
  for (int64_t n : {8, 10, 20, 49}) {
    EXPECT_NEAR(ExpectedLag1(0.0, n), -1.0 / static_cast<double>(n), 1e-12);
  }
  // E r1 rises with rho and stays far below it at n = 10 (r1's bias).
  EXPECT_LT(ExpectedLag1(0.5, 10), ExpectedLag1(0.9, 10));
  EXPECT_LT(ExpectedLag1(0.9, 10), 0.5);

  // 14 series of 10 whose r1 are what rho 0.6 gives on average: the run's
  // rho is the upper bound above 0.6, and each series is inflated at it,
  // Var(mean) / (s^2 / n) = VIF (n - 1) / (n - VIF).
  std::vector<SeriesDiagnostics> runs(14);
  std::vector<const SeriesDiagnostics*> ptrs;
  for (SeriesDiagnostics& d : runs) {
    d.n = 10;
    d.lag1 = ExpectedLag1(0.6, 10);
    d.rho = 0.1;
    ptrs.push_back(&d);
  }
  const PooledLag1 pooled = PooledLag1Test(ptrs);
  EXPECT_GT(pooled.rho, 0.6);
  EXPECT_LT(pooled.rho, 0.9);
  SeriesDiagnostics d = runs[0];
  MarkAutocorrelated(d, pooled.rho);
  EXPECT_TRUE(d.autocorrelated);
  EXPECT_TRUE(d.rho_pooled);
  EXPECT_DOUBLE_EQ(d.rho_used, pooled.rho);
  const double vif = Ar1VarianceInflation(pooled.rho, 10);
  EXPECT_NEAR(d.variance_inflation, vif * 9.0 / (10.0 - vif), 1e-9);
}

}  // namespace
}  // namespace trn::stats
