// What the order of a sample series says beyond its distribution: serial
// correlation, drift within the run, and bimodality; and the AR(1) t
// methods that keep an interval honest when samples are correlated.
//
// The model's samples are independent by construction; a real NeuronCore's
// are not (clocks, thermal state, caches, a neighbour's DMA). Every
// function here is a pure function of the samples in the order they were
// taken, so a measured file gives the same diagnosis on every machine.
#ifndef TRNBENCH_HARNESS_STATISTICS_SERIAL_DEPENDENCE_H_
#define TRNBENCH_HARNESS_STATISTICS_SERIAL_DEPENDENCE_H_

#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/statistics/interval.h"

namespace trn::stats {

// One-sided level of the lag-1 test and two-sided level of the drift test.
// 1%, not 5%: a gate holds 10-20 series and the model's are independent, so
// a 5% flag would decorate half of all gate runs with false notes.
inline constexpr double kSerialTestAlpha = 0.01;
// Level of the change-point test for a series already found autocorrelated.
// A step inside a run raises r1 as a correlation does, so such a series is
// either AR(1) or a shifted one, and the AR(1) interval does not cover a
// step: the random position of the step moves each side's mean by more than
// the inflated variance allows. At 1% Pettitt missed enough +3% steps at
// n = 50 (p 0.01-0.05, all flagged autocorrelated) that the verdicts given
// covered 0.838 (docs/statistics.md, small-sample table); among series
// already judged autocorrelated a step at p < 0.05 is called a suspected
// level shift and its comparison withheld ("not stationary"), which costs
// verdicts on autocorrelated series, never a false alarm.
inline constexpr double kSuspectedShiftAlpha = 0.05;
// Fewer samples than this are not diagnosed (nothing is flagged).
inline constexpr int64_t kMinDiagnosedSamples = 8;
// A series whose range is at most this fraction of its largest magnitude
// is a constant written with rounding noise (the model's busy times and
// DMA figures differ by a few units in the last place from run to run,
// relative spread ~1e-15, because their sums are accumulated in an order
// that depends on start times): its order says nothing, and r1 computed on
// last-place differences flagged 122 of 1771 such series at n = 200 with
// "rho" 0.2-0.5 (issue 26). It is not diagnosed. No tool reports more than
// about 9 significant digits of a measured time.
inline constexpr double kSeriesResolution = 1e-9;
// Bimodality needs a density estimate, which needs more samples (at 20 a
// kernel density of one normal sample shows spurious dips), and values that
// vary: a count that takes three values is not "bimodal".
inline constexpr int64_t kMinBimodalitySamples = 50;
// Below this many samples per side an autocorrelated series' own rho-hat is
// too noisy (and r1 too biased: at n = 10 and rho 0.9, E r1 is 0.40) for
// its inflation to keep the interval at its level (docs/statistics.md,
// "Small samples"). When the lag-1 test pooled over the run flags it, the
// series of the run share one rho, estimated from all of them
// (PooledLag1Test's `rho`); a series flagged by its own test alone is
// taken at an upper confidence bound of its rho.
inline constexpr int64_t kSmallSampleAr1 = 50;
// One-sided level of that bound (and of the pooled rho's): rho-hat + z *
// sqrt((1 - rho-hat^2) / n), Bartlett's large-sample standard error of r1
// under AR(1). A named fit, not a published value: on the small-sample
// experiment (docs/statistics.md, runs 0-999) 0.95 over-covered (0.976-
// 0.996 at n = 10-20), 0.70 let A/A false alarms reach 4.7% at rho 0.9,
// n = 10; 0.75 gives 0.957-0.969 with at most 3.8%, and 0.960-0.971 with
// at most 3.0% on runs 1000-1999, which no choice was made on.
inline constexpr double kSmallSampleRhoLevel = 0.75;
inline constexpr int64_t kMinBimodalityDistinct = 10;

struct SeriesDiagnostics {
  int64_t n = 0;
  // Everything below is computed on log values when every sample is > 0
  // (times, rates), else on the values themselves.
  bool log_scale = false;

  // Lag-1 autocorrelation r1 = sum (y_t - m)(y_t+1 - m) / sum (y_t - m)^2,
  // its one-sided p-value against "independent" (normal approximation to
  // r1's null distribution, mean -1/n, variance (n-2)^2 / (n^2 (n-1))),
  // and the AR(1) coefficient rho: r1 with Quenouille's half-series
  // jackknife bias correction, clamped to [-0.99, 0.99].
  double lag1 = NAN;
  double rho = NAN;
  double p_autocorrelation = NAN;
  bool autocorrelated = false;  // p_autocorrelation < kSerialTestAlpha
  // Var(mean) / (s^2 / n) for an AR(1) series with coefficient rho, and
  // n divided by it; 1 and n unless autocorrelated.
  double variance_inflation = 1.0;
  double effective_n = NAN;
  // Degrees of freedom of the mean's standard error: n - 1, or when
  // autocorrelated n (1 - rho^2) / (3 + rho^2), which adds the spread of
  // the estimated inflation to that of the sample variance (delta method).
  double dof = NAN;
  // Below kSmallSampleAr1: the rho the inflation was taken at, the run's
  // pooled estimate (`rho_pooled` true) or the series' own upper bound;
  // NaN otherwise.
  double rho_used = NAN;
  bool rho_pooled = false;

  // Drift: the median of the last quarter of the run relative to the
  // median of the first quarter, minus 1 (on the original scale), and the
  // two-sided Mann-Kendall trend p-value with its variance inflated for
  // the autocorrelation of the detrended series (Yue and Wang 2004).
  double drift = NAN;
  double p_drift = NAN;
  bool drifting = false;  // p_drift < kSerialTestAlpha

  // Level shift: a step inside the run. Pettitt's (1979) rank statistic
  // K = max_t |sum_{i <= t} (2 rank_i - n - 1)|, two-sided p ~ 2 exp(-6 K^2
  // / ((n^3 + n^2) VIF)) with VIF the AR(1) inflation of the series after
  // removing the step (as for the drift); the step's size is the median
  // after the change point over the median before it, minus 1 (original
  // scale), `shift_at` the index of the first sample after it.
  double level_shift = NAN;
  int64_t shift_at = 0;
  double p_level_shift = NAN;
  bool shifted = false;  // p_level_shift < kSerialTestAlpha

  // Bimodality (n >= kMinBimodalitySamples, at least kMinBimodalityDistinct
  // distinct values): a Gaussian kernel density (Silverman's bandwidth) of
  // the values with a dip between two modes that each hold at least 10% of the
  // samples, deeper than kBimodalDipRatio of the lower peak. `low_mode` and
  // `high_mode` are the two peaks (original scale), `high_share` the
  // fraction of samples above the dip.
  bool bimodal = false;
  double low_mode = NAN;
  double high_mode = NAN;
  double high_share = NAN;
};

inline constexpr double kBimodalDipRatio = 0.7;
inline constexpr double kBimodalMinShare = 0.10;

// kAuto analyses log values when every sample is > 0; kLinear never takes
// logs (for series that are already log ratios).
enum class SeriesScale : uint8_t { kAuto, kLinear };

// `in_order`: the samples in the order they were taken.
SeriesDiagnostics DiagnoseSeries(std::span<const double> in_order,
                                 SeriesScale scale = SeriesScale::kAuto);

// Treats a diagnosed series as autocorrelated because the lag-1 test
// pooled over its run says so (its own test may not have), or, below
// kSmallSampleAr1, because so few samples cannot show it independent (the
// gate does this for every such comparison, issue 43): from
// kSmallSampleAr1 samples on, the AR(1) inflation, effective n and degrees
// of freedom from its own corrected rho when that is > 0 (unchanged
// otherwise); below, at `run_rho` (PooledLag1::rho) by SetAr1InflationAt.
void MarkAutocorrelated(SeriesDiagnostics& d, double run_rho);

// A drift or a level shift, either of which makes "the run's distribution"
// undefined: a comparison of such a run says so instead of a verdict.
inline bool NonStationary(const SeriesDiagnostics& d) {
  return d.drifting || d.shifted;
}

// The lag-1 test pooled over the series of one run (every side of every
// comparison): each diagnosed series' standardised statistic z_i = (r1_i +
// 1/n_i) / sd_i, summed and divided by sqrt(k), one-sided p from the
// normal. Under independence each z_i is about standard normal, so the sum
// is too, and a correlation shared by the series of a suite is detected at
// sample sizes where one series' test has little power (n = 10, rho 0.9:
// the single test misses 39%). `series` counts the series that took part.
// `rho`: the AR(1) coefficient they share, estimated from those below
// kSmallSampleAr1 samples: the rho in [0, 0.99] at which the sum of their
// expected r1 (ExpectedLag1) equals the sum of their r1, so r1's large
// small-sample bias is removed with the series' own lengths; NaN when none
// is that short.
struct PooledLag1 {
  int64_t series = 0;
  double z = NAN;
  double p_value = NAN;
  bool autocorrelated = false;  // p_value < kSerialTestAlpha
  double rho = NAN;
};
PooledLag1 PooledLag1Test(std::span<const SeriesDiagnostics* const> series);

// The inflation an autocorrelated series of n >= kSmallSampleAr1 gets:
// Ar1VarianceInflation at its rho-hat, with dof n (1 - rho^2) / (3 +
// rho^2). Below kSmallSampleAr1 (a series flagged by its own test, not by
// its run's): SetAr1InflationAt the kSmallSampleRhoLevel upper bound of
// rho (at least 0, at most 0.99), rho-hat + z sqrt((1 - rho-hat^2) / n).
void SetAr1Inflation(SeriesDiagnostics& d);

// The small-sample inflation at a given rho (below kSmallSampleAr1): with
// Sigma the AR(1) correlation matrix and X = M Sigma M (M centres), E s^2
// = gamma0 tr(X) / (n - 1) and Var(mean) = gamma0 1'Sigma 1 / n^2, so the
// variance of the mean is s^2 / n times VIF (n - 1) / tr(X), tr(X) = n -
// VIF; the dof are Satterthwaite's for s^2 as a Gaussian quadratic form,
// tr(X)^2 / tr(X^2). Sets variance_inflation, effective_n, dof, rho_used
// and rho_pooled.
void SetAr1InflationAt(SeriesDiagnostics& d, double rho, bool pooled);

// E r1 of a stationary Gaussian AR(1) series of length n with coefficient
// rho, to second order in the ratio of quadratic forms r1 = y'MLMy /
// y'My (L the symmetric lag-1 matrix): E N / E D - Cov(N, D) / (E D)^2 +
// E N Var(D) / (E D)^3, each moment exact for Gaussian y (E y'Ay = tr(A
// Sigma), Cov(y'Ay, y'By) = 2 tr(A Sigma B Sigma)). At n = 10 and rho 0.9
// it gives 0.367 where 200 000 simulated series average 0.396 and the
// first-order Marriott-Pope rho - (1 + 3 rho) / n gives 0.53. O(n^2).
double ExpectedLag1(double rho, int64_t n);

// Var(mean) / (gamma0 / n) for a stationary AR(1) series of length n:
// (1 + rho) / (1 - rho) - 2 rho (1 - rho^n) / (n (1 - rho)^2); 1 for
// rho <= 0 (negative correlation only makes the classic interval wider
// than needed).
double Ar1VarianceInflation(double rho, int64_t n);

// One short sentence per finding, for reports and notes, e.g.
// "autocorrelated: ρ̂ 0.88, effective n 6 of 100"; empty when nothing is
// flagged.
std::vector<std::string> DiagnosticNotes(const SeriesDiagnostics& d);

// A difference of means (b - a) or a mean (of b, when `a` is empty) with
// each side's standard error inflated by its AR(1) variance inflation and
// Welch-Satterthwaite degrees of freedom from the sides' dof: the interval
// and p-value are a Student t pair, so the interval excludes 0 exactly when
// p <= 1 - confidence.
struct MeanTest {
  double estimate = NAN;
  Interval interval;
  double statistic = NAN;  // t
  double df = NAN;
  double p_value = NAN;  // two-sided
};
MeanTest DependentMeanTest(std::span<const double> a,
                           const SeriesDiagnostics& da,
                           std::span<const double> b,
                           const SeriesDiagnostics& db, double confidence);

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_SERIAL_DEPENDENCE_H_
