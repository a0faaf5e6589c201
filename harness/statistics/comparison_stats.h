// Statistics for comparing a run against a baseline: rank and t tests, shift
// estimates with distribution-free intervals, multiple-comparison adjustment
// and a sample-size hint. Everything is a pure function of its inputs; the
// only randomness (pivot choice inside order-statistic selection) is drawn
// from CounterRng and cannot change a result, only how fast it is found.
//
// Conventions shared by every function here:
//  * A NaN anywhere in a sample gives an all-NaN result (HolmAdjust, whose
//    input is p-values, instead passes NaN through).
//  * p-values are two-sided. A test "rejects at alpha" when p <= alpha.
//  * Exact null distributions are used when there are no ties and every
//    sample has fewer than kMaxExactSampleSize observations, which is the rule
//    R's wilcox.test() uses, so p-values can be cross-checked against R.
#ifndef TRNBENCH_HARNESS_STATISTICS_COMPARISON_STATS_H_
#define TRNBENCH_HARNESS_STATISTICS_COMPARISON_STATS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "harness/statistics/statistics.h"

namespace trn::stats {

// Samples of this size or larger use the normal approximation (R's cut-off).
inline constexpr int64_t kMaxExactSampleSize = 50;

struct TestResult {
  double statistic = NAN;  // U (of the first sample), t, or W+.
  double z = NAN;          // Normal-approximation z when used, else NaN.
  double df = NAN;         // Welch degrees of freedom, else NaN.
  double p_value = NAN;    // Two-sided.
  bool exact = false;      // Exact null distribution used.
};

// Mann-Whitney U (Wilcoxon rank-sum), two-sided. `statistic` is
// U_a = #{(i, j): a_i > b_j} + #{(i, j): a_i == b_j} / 2, which is R's W for
// wilcox.test(a, b). Exact when there are no ties at all and both samples
// have fewer than kMaxExactSampleSize observations: p = min(1, 2 P(U <=
// min(U_a, n1 n2 - U_a))). Otherwise normal approximation with R's tie and
// continuity corrections: z = (U_a - n1 n2 / 2 - sign * 0.5) / sigma. When
// every observation is tied, sigma is 0, z is 0 and p is 1. NaN p if either
// sample is empty. O((n1 + n2) log(n1 + n2)) plus, when exact,
// O(n1^2 n2^2 / 4) for the null distribution (about 1.5M adds at 49 x 49).
TestResult MannWhitneyU(std::span<const double> a, std::span<const double> b);

// Welch's unequal-variance t test, two-sided: t = (mean_a - mean_b) / se
// with the Welch-Satterthwaite df. NaN unless both samples have n >= 2. If
// both variances are 0 there is no t distribution to consult: p is 1 with
// t = 0 when the means are equal, else p is 0 with t = +-inf (df NaN).
TestResult WelchT(std::span<const double> a, std::span<const double> b);

// Wilcoxon signed-rank test on paired differences, two-sided; `statistic`
// is W+ (R's V). Zeros are dropped before ranking (Wilcoxon's convention,
// not Pratt's). Exact when no two nonzero |d| tie and fewer than
// kMaxExactSampleSize remain; unlike R, zeros alone do not force the normal
// approximation, since conditional on how many there are the remaining
// signs are still fair coins under the null. Otherwise normal approximation
// with R's tie and continuity corrections. Empty input gives NaN; all-zero
// differences give W+ = 0 and p = 1.
TestResult WilcoxonSignedRank(std::span<const double> diffs);

struct ShiftEstimate {
  double estimate = NAN;
  Interval interval;
  // Coverage actually attained by the chosen order statistics (exact null
  // probability, or its normal approximation); at least interval.level, NaN
  // when the interval is undefined.
  double coverage = NAN;
  // The two-sided p-value of the rank test this interval inverts, at zero
  // shift, and its statistic S = #{pairwise differences (or Walsh
  // averages) > 0}. Where some of them equal 0 exactly (ties across the two
  // samples, zero paired differences) S ranges over #{> 0}..#{>= 0} and p
  // is the largest over that range: 0 is inside the interval exactly when
  // 1 - p < confidence, whatever the ties. Without such zeros, p equals
  // MannWhitneyU's (R's wilcox.test) or WilcoxonSignedRank's. NaN only for
  // an empty sample.
  double p_value = NAN;
  double statistic = NAN;
  bool exact = false;
};

// Hodges-Lehmann shift of b relative to a: the median of the n1 n2 pairwise
// differences D = b_j - a_i (positive when b is larger). The interval is
// [D_(k), D_(n1 n2 + 1 - k)] (1-based order statistics), the inversion of
// the U test (Bauer 1972; Moses' interval in Hollander & Wolfe,
// Nonparametric Statistical Methods, ch. 4): U(delta) = #{D > delta} has the
// Mann-Whitney null distribution at the true shift, so
//  * exact: k is the largest integer with P(U <= k - 1) <= (1 - confidence)/2,
//    and coverage = 1 - 2 P(U <= k - 1);
//  * normal: k = floor(n1 n2 / 2 - 0.5 - z sigma) + 1 with z the
//    (1 + confidence)/2 normal quantile and sigma the tie-corrected U sd.
// Either way a shift delta (not itself one of the D) lies inside exactly
// when MannWhitneyU(a, b - delta) has p > 1 - confidence. For such delta the
// only ties left in a and b - delta are ties within a sample, so those (not
// the cross-sample ties of MannWhitneyU(a, b)) decide exact vs normal and
// feed the tie correction. The interval is NaN when no k >= 1 reaches the
// level (e.g. 3 vs 3 at 95%) or confidence is outside (0, 1); the estimate
// is NaN only for an empty sample.
// The differences are never materialised (10^4 per side would be 10^8 of
// them): order statistics are selected from the implicit row-sorted matrix
// by randomised quickselect (Monahan 1984). Time is O(N log N) to sort,
// N = n1 + n2, plus O(n1 log n2) per pivot round over O(log(n1 n2))
// expected rounds, plus the exact null distribution as in MannWhitneyU;
// memory is O(N).
ShiftEstimate HodgesLehmannShift(std::span<const double> a,
                                 std::span<const double> b, double confidence);

// One-sample / paired shift: the median of the n(n+1)/2 Walsh averages
// (d_i + d_j) / 2, i <= j, with the interval [A_(k), A_(N + 1 - k)] from the
// signed-rank null distribution of W+(delta) = #{A > delta} (Tukey), chosen
// as for HodgesLehmannShift. Zero differences are kept: the interval is about
// every delta, and d_i == delta only on a finite set. Exact when no two d
// are equal and n < kMaxExactSampleSize; otherwise normal approximation with
// the tie correction from groups of equal d. Same complexity as above with
// n rows of at most n columns.
ShiftEstimate WalshAverageShift(std::span<const double> diffs,
                                double confidence);

// Holm-Bonferroni step-down adjusted p-values, in input order: with the m
// non-NaN p sorted ascending, adjusted p_(i) = min(1, max_{j <= i}
// (m - j + 1) p_(j)). Matches R's p.adjust(p, "holm"), including NaN/NA
// staying NaN and not counting towards m.
std::vector<double> HolmAdjust(std::span<const double> p_values);

// Repeats per side for a two-sample comparison at two-sided `alpha` with
// power `power` to detect a relative change `delta` when each side has
// coefficient of variation `cv`, by the normal approximation on log scale:
// n = 2 ((z_{1-alpha/2} + z_{power}) sigma / log(1 + delta))^2 with
// sigma = sqrt(log(1 + cv^2)). Returns ceil(n), at least 2, saturating at
// INT64_MAX. A negative delta (a slowdown expressed as 1 + delta < 1) is
// treated by its log magnitude. Returns -1 for invalid input: cv negative or
// not finite, delta == 0, delta <= -1 or not finite, alpha or power outside
// (0, 1).
int64_t RepeatsToResolve(double cv, double delta, double alpha, double power);

namespace internal {

// The order-statistic selection behind the two shift estimators, exposed
// so tests can force its pivot path on small inputs: the k-th smallest
// (0-based) pairwise difference b_j - a_i, or Walsh average, of sorted
// samples, without materialising them. At or below `materialize_at`
// remaining candidates the rest is copied out and finished with
// std::nth_element (the estimators use 4096). NaN if k is out of range.
double KthPairwiseDifference(std::span<const double> sorted_a,
                             std::span<const double> sorted_b, size_t k,
                             size_t materialize_at);
double KthWalshAverage(std::span<const double> sorted_d, size_t k,
                       size_t materialize_at);

}  // namespace internal

}  // namespace trn::stats

#endif  // TRNBENCH_HARNESS_STATISTICS_COMPARISON_STATS_H_
