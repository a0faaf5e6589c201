#include "harness/statistics/comparison_stats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numbers>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn::stats {
namespace {

// Every expected value is worked by hand (the working is in the comment),
// taken from R's documented examples or a published table, or recomputed in
// the test by brute-force enumeration of the null distribution (all rank
// assignments or all sign patterns), which shares no code with the
// recursions in comparison_stats.cc.

// z_{0.975} from any normal table (to 15 digits: qnorm(0.975) in R).
constexpr double kZ975 = 1.959963984540054;

std::vector<double> Uniforms(uint64_t seed, int n, double low, double high) {
  CounterRng rng(CounterRng::KeyFor(seed, 7, 0));
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(low + (high - low) * rng.NextUniform());
  }
  return out;
}

// Uniform integers in [0, range): deliberately tie-heavy samples.
std::vector<double> SmallIntegers(uint64_t seed, int n, uint64_t range) {
  CounterRng rng(CounterRng::KeyFor(seed, 8, 0));
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(static_cast<double>(rng.NextBelow(range)));
  }
  return out;
}

// Brute-force Mann-Whitney null: the number of ways to give n1 of the ranks
// 1..n1+n2 to the first sample with U = (rank sum - n1(n1+1)/2) <= u, for
// each u; returns counts indexed by U and the total C(n1 + n2, n1).
std::vector<int64_t> EnumerateUCounts(int n1, int n2) {
  const int n = n1 + n2;
  std::vector<int64_t> counts(static_cast<size_t>(n1 * n2 + 1), 0);
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (std::popcount(mask) != n1) continue;
    int rank_sum = 0;
    for (int r = 0; r < n; ++r) {
      if ((mask >> r) & 1u) rank_sum += r + 1;
    }
    ++counts[static_cast<size_t>(rank_sum - n1 * (n1 + 1) / 2)];
  }
  return counts;
}

// Brute-force signed-rank null: counts of sign patterns over ranks 1..n by
// the sum of the positive ranks.
std::vector<int64_t> EnumerateWCounts(int n) {
  std::vector<int64_t> counts(static_cast<size_t>(n * (n + 1) / 2 + 1), 0);
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    int w = 0;
    for (int r = 0; r < n; ++r) {
      if ((mask >> r) & 1u) w += r + 1;
    }
    ++counts[static_cast<size_t>(w)];
  }
  return counts;
}

int64_t Sum(const std::vector<int64_t>& v, size_t through) {
  int64_t s = 0;
  for (size_t i = 0; i <= through && i < v.size(); ++i) s += v[i];
  return s;
}

// Two-sided exact p = min(1, 2 P(S <= min(s, max - s))) by counting.
double BruteForceTwoSidedP(const std::vector<int64_t>& counts, int s) {
  const int top = static_cast<int>(counts.size()) - 1;
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  const int64_t tail = Sum(counts, static_cast<size_t>(std::min(s, top - s)));
  return std::min(1.0,
                  2.0 * static_cast<double>(tail) / static_cast<double>(total));
}

// U of the first sample by counting pairs directly (no ranks involved).
double PairCountU(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0.0;
  for (double x : a) {
    for (double y : b) u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
  }
  return u;
}

// Brute-force order rank of a rank-test interval at confidence 1 - 2/denom
// (denom = 40 for 95%): the largest k with P(S <= k - 1) <= 1/denom,
// decided in integers. Returns {k, tail count}; k = -1 when P(S <= k - 1)
// equals 1/denom exactly for some k, where the floating-point comparison
// in the library may legitimately go either way.
std::pair<int, int64_t> BruteForceOrderRank(const std::vector<int64_t>& counts,
                                            int64_t denom) {
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  int k = 0;
  int64_t tail = 0;
  int64_t cum = 0;
  for (size_t s = 0; s < counts.size(); ++s) {
    cum += counts[s];
    if (cum * denom == total) return {-1, 0};
    if (cum * denom > total) break;
    k = static_cast<int>(s) + 1;
    tail = cum;
  }
  return {k, tail};
}

struct Level {
  double confidence;
  int64_t denom;  // (1 - confidence) / 2 == 1 / denom
};
constexpr Level kLevels[] = {{0.95, 40}, {0.9, 20}, {0.8, 10}};

// ------------------------------------------------------------ Mann-Whitney

TEST(MannWhitneyUTest, SeparatedSamplesHandWorked) {
  // Every a is below every b: U_a = 0. Of the C(6, 3) = 20 equally likely
  // rank sets only {1,2,3} gives U = 0, so P(U <= 0) = 1/20 and the
  // two-sided p is 2/20 = 0.1.
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> b = {4, 5, 6};
  const TestResult r = MannWhitneyU(a, b);
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(std::isnan(r.z));
  EXPECT_TRUE(std::isnan(r.df));
  EXPECT_NEAR(r.p_value, 0.1, 1e-15);
  // Reversed, U_b = 9 = n1 n2: the other tail, same p.
  const TestResult swapped = MannWhitneyU(b, a);
  EXPECT_EQ(swapped.statistic, 9.0);
  EXPECT_NEAR(swapped.p_value, 0.1, 1e-15);
}

TEST(MannWhitneyUTest, SingleObservationHasUniformU) {
  // With n1 = 1, U_a is the rank of a among the 7 values minus 1, uniform
  // on 0..6: P(U <= 0) = 1/7, two-sided p = 2/7.
  const std::vector<double> a = {0.5};
  const std::vector<double> b = {1, 2, 3, 4, 5, 6};
  const TestResult r = MannWhitneyU(a, b);
  EXPECT_EQ(r.statistic, 0.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 2.0 / 7.0, 1e-15);
  // a in the middle (U = 3, the centre of 0..6): 2 P(U <= 3) = 8/7 -> 1.
  const std::vector<double> mid = {3.5};
  EXPECT_EQ(MannWhitneyU(mid, b).p_value, 1.0);
}

TEST(MannWhitneyUTest, HollanderWolfeExampleFromR) {
  // R: wilcox.test(x, y, exact = TRUE) -> W = 35, p-value = 0.2544
  // (Hollander & Wolfe, in ?wilcox.test). W by hand, counting for each
  // sorted x how many y (0.74 0.88 0.90 1.15 1.21) lie below it:
  // 0.73:0 0.80:1 0.83:1 1.04:3 1.38:5 1.45:5 1.46:5 1.64:5 1.89:5 1.91:5
  // = 35. Exact p = 2 P(U >= 35) = 2 * 382 / 3003 = 0.254412 by
  // enumerating the C(15, 10) = 3003 rank sets below.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45,
                                 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const TestResult r = MannWhitneyU(x, y);
  EXPECT_EQ(r.statistic, 35.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.2544, 5e-5);  // R prints 4 significant digits.
  const std::vector<int64_t> counts = EnumerateUCounts(10, 5);
  int64_t at_least_35 = 0;
  for (size_t u = 35; u < counts.size(); ++u) at_least_35 += counts[u];
  EXPECT_EQ(at_least_35, 382);
  EXPECT_NEAR(r.p_value, 2.0 * 382.0 / 3003.0, 1e-13);
}

TEST(MannWhitneyUTest, MatchesBruteForceEnumeration) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 9, 0));
    const int n1 = 1 + static_cast<int>(sizes.NextBelow(8));
    const int n2 = 1 + static_cast<int>(sizes.NextBelow(8));
    // A location shift on some seeds so small p-values get exercised too.
    const double shift = seed % 3 == 0 ? 0.6 : 0.0;
    const std::vector<double> a = Uniforms(seed, n1, 0.0, 1.0);
    const std::vector<double> b = Uniforms(seed + 1000, n2, shift, 1 + shift);
    const double u = PairCountU(a, b);
    const double expected =
        BruteForceTwoSidedP(EnumerateUCounts(n1, n2), static_cast<int>(u));
    const TestResult r = MannWhitneyU(a, b);
    ASSERT_TRUE(r.exact) << "seed " << seed;
    EXPECT_EQ(r.statistic, u) << "seed " << seed;
    EXPECT_NEAR(r.p_value, expected, 1e-13 * expected) << "seed " << seed;
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

TEST(MannWhitneyUTest, TiesUseNormalApproximationWorkedByHand) {
  // Pooled sorted: 1a 2a 2a 2b 3a 3b 4b 5b. Midranks: 1 -> 1, the three 2s
  // share ranks 2..4 -> 3, the two 3s share 5..6 -> 5.5, 4 -> 7, 5 -> 8.
  // R_a = 1 + 3 + 3 + 5.5 = 12.5, U_a = 12.5 - 4*5/2 = 2.5.
  // Tie term: (27 - 3) + (8 - 2) = 30. N = 8.
  // sigma^2 = (4*4/12) * (9 - 30/(8*7)) = (4/3) * 8.4642857 = 11.2857143.
  // z = (2.5 - 8 + 0.5) / sqrt(11.2857143) = -5 / 3.3594225 = -1.4883514;
  // p = 2 Phi(-1.4883514) = 0.13666 (table: Phi(-1.49) = 0.0681).
  const std::vector<double> a = {1, 2, 2, 3};
  const std::vector<double> b = {2, 3, 4, 5};
  const TestResult r = MannWhitneyU(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.statistic, 2.5);
  const double sigma = std::sqrt((16.0 / 12.0) * (9.0 - 30.0 / 56.0));
  EXPECT_NEAR(r.z, -5.0 / sigma, 1e-14);
  EXPECT_NEAR(r.z, -1.4883514, 1e-7);
  EXPECT_NEAR(r.p_value, std::erfc(5.0 / sigma / std::sqrt(2.0)), 1e-14);
  EXPECT_NEAR(r.p_value, 0.13666, 1e-5);
}

TEST(MannWhitneyUTest, NormalApproximationMatchesPairCountFormula) {
  // No ties, 60 x 70: too large for exact. U by pair counting, then
  // z = (U - 2100 -+ 0.5) / sqrt(60*70*131/12), p = erfc(|z| / sqrt 2).
  const std::vector<double> a = Uniforms(31, 60, 0.0, 1.0);
  const std::vector<double> b = Uniforms(32, 70, 0.1, 1.1);
  const double u = PairCountU(a, b);
  const double dev = u - 2100.0;
  const double z =
      (dev - std::copysign(0.5, dev)) / std::sqrt(60.0 * 70.0 * 131.0 / 12.0);
  const TestResult r = MannWhitneyU(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.statistic, u);
  EXPECT_NEAR(r.z, z, 1e-12);
  EXPECT_NEAR(r.p_value, std::erfc(std::fabs(z) / std::sqrt(2.0)), 1e-12);
}

TEST(MannWhitneyUTest, SwappingSamplesGivesSameP) {
  const std::vector<double> a = Uniforms(41, 9, 0.0, 1.0);
  const std::vector<double> b = Uniforms(42, 12, 0.3, 1.3);
  const TestResult ab = MannWhitneyU(a, b);
  const TestResult ba = MannWhitneyU(b, a);
  EXPECT_EQ(ab.statistic + ba.statistic, 9.0 * 12.0);  // U_a + U_b = n1 n2.
  EXPECT_EQ(ab.p_value, ba.p_value);
  EXPECT_LT(ab.p_value, 1.0);
  // Tied, normal path: z flips sign, p identical.
  const std::vector<double> c = {1, 2, 2, 3};
  const std::vector<double> d = {2, 3, 4, 5};
  const TestResult cd = MannWhitneyU(c, d);
  const TestResult dc = MannWhitneyU(d, c);
  EXPECT_EQ(cd.z, -dc.z);
  EXPECT_EQ(cd.p_value, dc.p_value);
}

TEST(MannWhitneyUTest, IdenticalSamplesGivePOne) {
  // Identical samples tie across, so the normal path is taken; U_a sits
  // exactly on n1 n2 / 2 = 8, the continuity correction is 0 there (R's
  // sign(0) * 0.5), z = 0 and p = 1 exactly.
  const std::vector<double> a = {1, 2, 3, 4};
  const TestResult r = MannWhitneyU(a, a);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.statistic, 8.0);
  EXPECT_EQ(r.z, 0.0);
  EXPECT_EQ(r.p_value, 1.0);
  // Every observation equal: sigma = 0, still z = 0 and p = 1, not NaN.
  const std::vector<double> same = {5, 5, 5};
  const TestResult all_tied = MannWhitneyU(same, same);
  EXPECT_EQ(all_tied.z, 0.0);
  EXPECT_EQ(all_tied.p_value, 1.0);
}

TEST(MannWhitneyUTest, ExactBelowFiftyOnly) {
  const std::vector<double> a49 = Uniforms(51, 49, 0.0, 1.0);
  const std::vector<double> b49 = Uniforms(52, 49, 0.2, 1.2);
  const TestResult exact = MannWhitneyU(a49, b49);
  EXPECT_TRUE(exact.exact);
  // At this size the continuity-corrected normal approximation is within
  // a few thousandths of exact; computed directly from the pair count.
  const double u = PairCountU(a49, b49);
  const double dev = u - 49.0 * 49.0 / 2.0;
  const double z =
      (dev - std::copysign(0.5, dev)) / std::sqrt(49.0 * 49.0 * 99.0 / 12.0);
  EXPECT_NEAR(exact.p_value, std::erfc(std::fabs(z) / std::sqrt(2.0)), 3e-3);
  EXPECT_LT(exact.p_value, 0.05);  // A 0.2 shift on U(0,1) is visible.

  const std::vector<double> a50 = Uniforms(51, 50, 0.0, 1.0);
  const TestResult approx = MannWhitneyU(a50, b49);
  EXPECT_FALSE(approx.exact);
  EXPECT_FALSE(std::isnan(approx.z));
}

TEST(MannWhitneyUTest, EmptyOrNaNGivesNaN) {
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> empty;
  EXPECT_TRUE(std::isnan(MannWhitneyU(a, empty).p_value));
  EXPECT_TRUE(std::isnan(MannWhitneyU(empty, a).p_value));
  const std::vector<double> with_nan = {1, NAN};
  EXPECT_TRUE(std::isnan(MannWhitneyU(a, with_nan).p_value));
}

// ------------------------------------------------------------------ Welch

TEST(WelchTTest, HandWorkedUnequalVariances) {
  // a: mean 14, deviations -4 -2 0 2 4, s^2 = 40/4 = 10, s^2/n = 2.
  // b: mean 21.5, deviations -1.5 -0.5 0.5 1.5, s^2 = 5/3, s^2/n = 5/12.
  // se^2 = 2 + 5/12 = 29/12; t = -7.5 / sqrt(29/12) = -4.824506.
  // df = (29/12)^2 / (2^2/4 + (5/12)^2/3) = (841/144) / (457/432)
  //    = 2523/457 = 5.520788.
  // t table, two-sided: df=5 0.01 -> 4.032; df=6 0.002 -> 5.208. The
  // critical value falls as df grows, so at df = 5.52 the 0.01 point is
  // below 4.032 < 4.82 and the 0.002 point above 5.208 > 4.82:
  // 0.002 < p < 0.01.
  const std::vector<double> a = {10, 12, 14, 16, 18};
  const std::vector<double> b = {20, 21, 22, 23};
  const TestResult r = WelchT(a, b);
  EXPECT_NEAR(r.statistic, -7.5 / std::sqrt(29.0 / 12.0), 1e-13);
  EXPECT_NEAR(r.statistic, -4.824506, 1e-6);
  EXPECT_NEAR(r.df, 2523.0 / 457.0, 1e-12);
  EXPECT_GT(r.p_value, 0.002);
  EXPECT_LT(r.p_value, 0.01);
  EXPECT_TRUE(std::isnan(r.z));
  EXPECT_FALSE(r.exact);
}

TEST(WelchTTest, IntegerDfMatchesClosedFormStudentT) {
  // Equal sizes and variances make Welch's df = 2(n - 1): here s^2 = 1 on
  // both sides, n = 3, se^2 = 2/3, t = -3 / sqrt(2/3) = -3.674235, df = 4.
  // For even df Abramowitz & Stegun 26.7.3 gives A(t|4) = P(|T| < t) =
  // sin(th) (1 + cos^2(th) / 2), th = atan(t / 2); p = 1 - A = 0.021312.
  // Table check: df=4, 0.05 -> 2.776, 0.02 -> 3.747, so 0.02 < p < 0.05.
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> b = {4, 5, 6};
  const TestResult r = WelchT(a, b);
  const double t = 3.0 / std::sqrt(2.0 / 3.0);
  EXPECT_NEAR(r.statistic, -t, 1e-14);
  EXPECT_NEAR(r.df, 4.0, 1e-14);
  const double sin_th = t / std::sqrt(4.0 + t * t);
  const double cos2_th = 4.0 / (4.0 + t * t);
  const double p = 1.0 - sin_th * (1.0 + cos2_th / 2.0);
  EXPECT_NEAR(r.p_value, p, 1e-13);
  EXPECT_GT(r.p_value, 0.02);
  EXPECT_LT(r.p_value, 0.05);
}

TEST(WelchTTest, SwapNegatesTKeepsP) {
  const std::vector<double> a = Uniforms(61, 8, 0.0, 1.0);
  const std::vector<double> b = Uniforms(62, 13, 0.2, 2.0);
  const TestResult ab = WelchT(a, b);
  const TestResult ba = WelchT(b, a);
  EXPECT_EQ(ab.statistic, -ba.statistic);
  EXPECT_EQ(ab.df, ba.df);
  EXPECT_EQ(ab.p_value, ba.p_value);
  // Satterthwaite df lies between min(n) - 1 and n1 + n2 - 2.
  EXPECT_GE(ab.df, 7.0);
  EXPECT_LE(ab.df, 19.0);
}

TEST(WelchTTest, ZeroVarianceAndTooFewSamples) {
  const std::vector<double> fives = {5, 5, 5};
  const std::vector<double> sixes = {6, 6};
  const TestResult same = WelchT(fives, fives);
  EXPECT_EQ(same.p_value, 1.0);
  EXPECT_EQ(same.statistic, 0.0);
  const TestResult differ = WelchT(fives, sixes);
  EXPECT_EQ(differ.p_value, 0.0);
  EXPECT_EQ(differ.statistic, -std::numeric_limits<double>::infinity());
  // One constant side: df = n - 1 of the other side. a = {1, 3}: s^2 = 2,
  // se^2 = 1, t = (2 - 5)/1 = -3, df = 1 (Cauchy): p = 1 - 2 atan(3)/pi.
  const std::vector<double> a = {1, 3};
  const TestResult one_sided = WelchT(a, fives);
  EXPECT_NEAR(one_sided.statistic, -3.0, 1e-15);
  EXPECT_NEAR(one_sided.df, 1.0, 1e-15);
  EXPECT_NEAR(one_sided.p_value, 1.0 - 2.0 * std::atan(3.0) / std::numbers::pi,
              1e-14);
  const std::vector<double> single = {1};
  EXPECT_TRUE(std::isnan(WelchT(single, fives).p_value));
  EXPECT_TRUE(std::isnan(WelchT(fives, single).statistic));
}

// ------------------------------------------------------------ Signed rank

TEST(WilcoxonSignedRankTest, PairedExampleFromR) {
  // R ?wilcox.test: wilcox.test(x, y, paired = TRUE) -> V = 40,
  // p-value = 0.03906. By hand, d = x - y = 0.952 -0.147 1.022 0.43 0.62
  // 0.59 0.49 -0.08 0.01; |d| ranks: 0.01:1 0.08:2 0.147:3 0.43:4 0.49:5
  // 0.59:6 0.62:7 0.952:8 1.022:9. Negatives hold ranks 2 and 3, so
  // V = 45 - 5 = 40. P(V >= 40) = P(V <= 5): subsets of {1..9} with sum
  // <= 5 number 1+1+1+2+2+3 = 10, so p = 2 * 10/512 = 0.0390625.
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68,
                                 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06,
                                 1.29,  1.06,  3.14,  1.29};
  std::vector<double> d;
  for (size_t i = 0; i < x.size(); ++i) d.push_back(x[i] - y[i]);
  const TestResult r = WilcoxonSignedRank(d);
  EXPECT_EQ(r.statistic, 40.0);
  EXPECT_TRUE(r.exact);
  // The signed-rank table is exact in doubles (counts over 2^9).
  EXPECT_EQ(r.p_value, 20.0 / 512.0);
  EXPECT_NEAR(r.p_value, 0.03906, 5e-6);
}

TEST(WilcoxonSignedRankTest, MatchesBruteForceSignEnumeration) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 10, 0));
    const int n = 1 + static_cast<int>(sizes.NextBelow(14));
    const double center = seed % 3 == 0 ? 0.4 : 0.0;
    const std::vector<double> d = Uniforms(seed, n, center - 1, center + 1);
    // W+ from ranks defined by counting, not by sorting.
    int w_plus = 0;
    for (double di : d) {
      int rank = 1;
      for (double dj : d) rank += std::fabs(dj) < std::fabs(di) ? 1 : 0;
      if (di > 0) w_plus += rank;
    }
    const double expected = BruteForceTwoSidedP(EnumerateWCounts(n), w_plus);
    const TestResult r = WilcoxonSignedRank(d);
    ASSERT_TRUE(r.exact) << "seed " << seed;
    EXPECT_EQ(r.statistic, w_plus) << "seed " << seed;
    EXPECT_EQ(r.p_value, expected) << "seed " << seed;
  }
}

TEST(WilcoxonSignedRankTest, TiesAndZerosWorkedByHand) {
  // The 0 is dropped: n = 7, |d| = 1 2 2 3 3 3 4 with midranks
  // 1, 2.5, 2.5, 5, 5, 5, 7; only -2 is negative, so
  // W+ = 1 + 2.5 + 15 + 7 = 25.5. Mean 7*8/4 = 14.
  // sigma^2 = 7*8*15/24 - ((8 - 2) + (27 - 3))/48 = 35 - 0.625 = 34.375.
  // z = (25.5 - 14 - 0.5)/sqrt(34.375) = 11/5.8630197 = 1.8761663,
  // p = 2 (1 - Phi(1.8761663)) = 0.060632 (table: Phi(1.88) = 0.9699).
  const std::vector<double> d = {1, -2, 2, 3, 3, 3, 4, 0};
  const TestResult r = WilcoxonSignedRank(d);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.statistic, 25.5);
  EXPECT_NEAR(r.z, 11.0 / std::sqrt(34.375), 1e-14);
  EXPECT_NEAR(r.p_value, std::erfc(11.0 / std::sqrt(34.375) / std::sqrt(2.0)),
              1e-14);
  EXPECT_NEAR(r.p_value, 0.060632, 1e-6);
}

TEST(WilcoxonSignedRankTest, ZerosDroppedStaysExact) {
  // {0, 0, 1, 2, 3}: zeros dropped, n = 3, all positive, W+ = 6 = max;
  // P(W+ >= 6) = 1/8, p = 2/8. (R would switch to the normal approximation
  // because of the zeros; see the header.)
  const std::vector<double> d = {0, 0, 1, 2, 3};
  const TestResult r = WilcoxonSignedRank(d);
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.statistic, 6.0);
  EXPECT_EQ(r.p_value, 0.25);
}

TEST(WilcoxonSignedRankTest, NegatingDiffsKeepsP) {
  const std::vector<double> d = Uniforms(71, 11, -0.5, 1.0);
  std::vector<double> neg;
  for (double x : d) neg.push_back(-x);
  const TestResult r = WilcoxonSignedRank(d);
  const TestResult rn = WilcoxonSignedRank(neg);
  EXPECT_EQ(r.statistic + rn.statistic, 66.0);  // W+ + W- = 11*12/2.
  EXPECT_EQ(r.p_value, rn.p_value);
}

TEST(WilcoxonSignedRankTest, AllZeroAndEmpty) {
  const std::vector<double> zeros = {0, 0, 0};
  const TestResult r = WilcoxonSignedRank(zeros);
  EXPECT_EQ(r.p_value, 1.0);
  EXPECT_EQ(r.statistic, 0.0);
  const std::vector<double> empty;
  EXPECT_TRUE(std::isnan(WilcoxonSignedRank(empty).p_value));
}

// ------------------------------------- the p-value an interval inverts

TEST(ShiftPValueTest, EqualsTheRankTestsWithoutZeroDifferences) {
  // Continuous samples: no difference is exactly 0, so S is U (or W+) and
  // the p-value is R's wilcox.test one, bit for bit, exact and normal.
  for (auto [n1, n2] : {std::pair{5, 7}, std::pair{20, 30}, std::pair{49, 49},
                        std::pair{60, 75}}) {
    const std::vector<double> a = Uniforms(200 + n1, n1, 0.0, 1.0);
    const std::vector<double> b = Uniforms(300 + n2, n2, 0.1, 1.1);
    const ShiftEstimate s = HodgesLehmannShift(a, b, 0.95);
    const TestResult u = MannWhitneyU(a, b);
    EXPECT_EQ(s.exact, u.exact) << n1;
    EXPECT_EQ(s.statistic, n1 * n2 - u.statistic) << n1;
    EXPECT_EQ(s.p_value, u.p_value) << n1;
  }
  for (int n : {6, 20, 49, 80}) {
    const std::vector<double> d = Uniforms(400 + n, n, -0.8, 1.0);
    const ShiftEstimate s = WalshAverageShift(d, 0.95);
    const TestResult w = WilcoxonSignedRank(d);
    EXPECT_EQ(s.exact, w.exact) << n;
    EXPECT_EQ(s.statistic, w.statistic) << n;
    EXPECT_EQ(s.p_value, w.p_value) << n;
  }
}

TEST(ShiftPValueTest, ZeroPairedDifferencesAgreeWithTheInterval) {
  // Issue 12's case: 12 pairs identical, 8 slower. The signed-rank test
  // drops the zeros (8 of 8 positive: p = 2/256 = 0.0078, R's value) but
  // the Walsh interval keeps them and contains 0. The comparison's p is
  // the one the interval inverts: 78 Walsh averages are 0 (pairs of
  // zeros), 132 positive, so S ranges over 132..210 of 210; the value
  // nearest the centre 105 is 132. The zeros tie: sigma^2 = 20*21*41/24 -
  // (12^3 - 12)/48 = 717.5 - 35.75 = 681.75, z = (132 - 105 - 0.5)/sigma
  // = 1.015, p = 0.31.
  std::vector<double> d(12, 0.0);
  for (int i = 1; i <= 8; ++i) d.push_back(0.01 * i);
  EXPECT_EQ(WilcoxonSignedRank(d).p_value, 2.0 / 256.0);
  const ShiftEstimate s = WalshAverageShift(d, 0.95);
  EXPECT_GT(s.estimate, 0.0);  // 132 of 210 Walsh averages are positive
  EXPECT_LE(s.interval.low, 0.0);
  EXPECT_GE(s.interval.high, 0.0);
  EXPECT_EQ(s.statistic, 132.0);
  EXPECT_FALSE(s.exact);
  EXPECT_NEAR(s.p_value, std::erfc(26.5 / std::sqrt(681.75) / std::sqrt(2.0)),
              1e-14);
  EXPECT_GT(s.p_value, 0.05);
}

TEST(ShiftPValueTest, CrossSampleTiesUseTheIntervalsExactNull) {
  // a = {1, 2, 3}, b = {3, 4, 5, 6} (CrossSampleTiesKeepExactRanks): the
  // interval is exact; MannWhitneyU switches to the normal approximation
  // because of the tie at 3. D = b - a has one 0 and 11 positives, so S
  // ranges over 11..12 of 12; the exact null of U for 3 x 4 (35 equally
  // likely rank sets) gives P(U <= 1) = 2/35, so p = max(2 * 2/35,
  // 2 * 1/35) = 4/35.
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> b = {3, 4, 5, 6};
  const ShiftEstimate s = HodgesLehmannShift(a, b, 0.8);
  EXPECT_TRUE(s.exact);
  EXPECT_FALSE(MannWhitneyU(a, b).exact);
  EXPECT_EQ(s.statistic, 11.0);
  EXPECT_NEAR(s.p_value, 4.0 / 35.0, 1e-15);
  // 80%: the interval [1, 4] excludes 0 and p = 0.114 <= 0.2.
  EXPECT_LE(s.p_value, 0.2);
  EXPECT_GT(s.interval.low, 0.0);
}

TEST(ShiftPValueTest, ZeroInsideTheIntervalExactlyWhenPIsAboveAlpha) {
  // Tie-heavy samples (small integers), paired and not, every size from 2
  // to 14 and several levels: the interval holds 0 iff 1 - p < confidence.
  int checked = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 11, 0));
    const int n1 = 2 + static_cast<int>(sizes.NextBelow(13));
    const int n2 = 2 + static_cast<int>(sizes.NextBelow(13));
    const std::vector<double> a = SmallIntegers(seed, n1, 6);
    std::vector<double> b = SmallIntegers(seed + 1000, n2, 6);
    for (double& x : b) x += static_cast<double>(seed % 3);
    std::vector<double> d;
    for (int i = 0; i < std::min(n1, n2); ++i) d.push_back(b[i] - a[i] - 1);
    for (double conf : {0.8, 0.9, 0.95, 0.99}) {
      for (const ShiftEstimate& s :
           {HodgesLehmannShift(a, b, conf), WalshAverageShift(d, conf)}) {
        if (std::isnan(s.interval.low)) continue;
        const bool inside = s.interval.low <= 0.0 && 0.0 <= s.interval.high;
        // "1 - p < conf" is how the interval's coverage rule reads it;
        // "p > 1 - conf" can differ in the last bit (p = 0.2 at 80%).
        EXPECT_EQ(inside, 1.0 - s.p_value < conf)
            << "seed " << seed << " conf " << conf << " p " << s.p_value << " ["
            << s.interval.low << ", " << s.interval.high << "]";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1500);
}

TEST(ShiftPValueTest, SmallestSamplesThatGiveAnInterval) {
  // docs/statistics.md's table. Independent: the exact U null puts
  // 2 / C(n1 + n2, n1) on its two extremes, which must be <= 5%.
  auto unpaired_ok = [](int n1, int n2) {
    return !std::isnan(
        HodgesLehmannShift(Uniforms(1, n1, 0, 1), Uniforms(2, n2, 0, 1), 0.95)
            .interval.low);
  };
  EXPECT_FALSE(unpaired_ok(3, 3));   // 2/20
  EXPECT_TRUE(unpaired_ok(4, 4));    // 2/70
  EXPECT_FALSE(unpaired_ok(3, 4));   // 2/35
  EXPECT_TRUE(unpaired_ok(3, 5));    // 2/56
  EXPECT_FALSE(unpaired_ok(2, 7));   // 2/36
  EXPECT_TRUE(unpaired_ok(2, 8));    // 2/45
  EXPECT_FALSE(unpaired_ok(1, 38));  // 2/39
  EXPECT_TRUE(unpaired_ok(1, 39));   // 2/40
  // Paired: 2 / 2^n <= 5% from n = 6.
  auto paired_ok = [](int n) {
    return !std::isnan(
        WalshAverageShift(Uniforms(3, n, -1, 1), 0.95).interval.low);
  };
  EXPECT_FALSE(paired_ok(5));
  EXPECT_TRUE(paired_ok(6));
}

// ---------------------------------------------------------- Hodges-Lehmann

TEST(HodgesLehmannShiftTest, ExactShiftIsRecovered) {
  // b = a + c with integer a and c = 2.5 (all exact in binary): the
  // differences are (a_j - a_i) + c, symmetric about c with the n diagonal
  // terms equal to c, so the median is exactly c.
  for (int n : {20, 200}) {  // Exact and normal-approximation intervals.
    CounterRng rng(CounterRng::KeyFor(81, static_cast<uint64_t>(n), 0));
    std::vector<double> a;
    for (int i = 0; i < n; ++i) {
      a.push_back(static_cast<double>(i * 7) +
                  static_cast<double>(rng.NextBelow(7)));  // Distinct.
    }
    std::vector<double> b;
    for (double x : a) b.push_back(x + 2.5);
    const ShiftEstimate s = HodgesLehmannShift(a, b, 0.95);
    EXPECT_EQ(s.estimate, 2.5) << "n " << n;
    EXPECT_LT(s.interval.low, 2.5) << "n " << n;
    EXPECT_GT(s.interval.high, 2.5) << "n " << n;
    EXPECT_EQ(s.interval.level, 0.95);
    EXPECT_GE(s.coverage, 0.95);
  }
}

TEST(HodgesLehmannShiftTest, HandWorkedDifferenceMatrix) {
  // D = b_j - a_i:          b=4   8   9  12
  //                  a=1:     3   7   8  11
  //                  a=3:     1   5   6   9
  //                  a=6:    -2   2   3   6
  // Sorted: -2 1 2 3 3 5 6 6 7 8 9 11; median (5 + 6)/2 = 5.5.
  // U null for 3 vs 4 (C(7,3) = 35 rank sets), counts for U = 0..12:
  // 1 1 2 3 4 4 5 4 4 3 2 1 1 (partitions into at most 3 parts <= 4).
  // 95%: P(U <= 0) = 1/35 > 0.025, unreachable -> NaN.
  // 80%: P(U <= 1) = 2/35 <= 0.1 < P(U <= 2) = 4/35, so k = 2:
  // [D_(2), D_(11)] = [1, 9] with coverage 1 - 4/35 = 31/35.
  const std::vector<double> a = {3, 1, 6};
  const std::vector<double> b = {9, 4, 12, 8};
  const ShiftEstimate s80 = HodgesLehmannShift(a, b, 0.8);
  EXPECT_EQ(s80.estimate, 5.5);
  EXPECT_EQ(s80.interval.low, 1.0);
  EXPECT_EQ(s80.interval.high, 9.0);
  EXPECT_NEAR(s80.coverage, 31.0 / 35.0, 1e-14);
  const ShiftEstimate s95 = HodgesLehmannShift(a, b, 0.95);
  EXPECT_EQ(s95.estimate, 5.5);
  EXPECT_TRUE(std::isnan(s95.interval.low));
  EXPECT_TRUE(std::isnan(s95.interval.high));
  EXPECT_TRUE(std::isnan(s95.coverage));
  // 90%: P(U <= 0) = 1/35 <= 0.05 < 2/35, k = 1: [min, max] = [-2, 11].
  const ShiftEstimate s90 = HodgesLehmannShift(a, b, 0.9);
  EXPECT_EQ(s90.interval.low, -2.0);
  EXPECT_EQ(s90.interval.high, 11.0);
  EXPECT_NEAR(s90.coverage, 33.0 / 35.0, 1e-14);
}

TEST(HodgesLehmannShiftTest, WithinSampleTiesUseNormalRanks) {
  // a = {1, 1, 2}, b = {3, 4, 4, 6}: ties within each sample survive every
  // shift, so the interval uses the tie-corrected normal approximation.
  // D:        b=3  4  4  6
  //   a=1:      2  3  3  5
  //   a=1:      2  3  3  5
  //   a=2:      1  2  2  4
  // Sorted: 1 2 2 2 2 3 3 3 3 4 5 5, median 3.
  // Tie term 6 + 6 = 12, N = 7: sigma^2 = (12/12)(8 - 12/42) = 7.7142857,
  // sigma = 2.7774603. 80%: z_{0.9} = 1.2815516 (table);
  // 12/2 - 0.5 - 1.2815516 * 2.7774603 = 1.9405 -> k = 2:
  // [D_(2), D_(11)] = [2, 5]. Coverage 1 - 2 Phi((2 - 0.5 - 6)/sigma)
  // = 1 - 2 Phi(-1.6201852) = 0.894807 (exact would be 31/35 = 0.885714).
  const std::vector<double> a = {1, 1, 2};
  const std::vector<double> b = {3, 4, 4, 6};
  const ShiftEstimate s = HodgesLehmannShift(a, b, 0.8);
  EXPECT_EQ(s.estimate, 3.0);
  EXPECT_EQ(s.interval.low, 2.0);
  EXPECT_EQ(s.interval.high, 5.0);
  const double sigma = std::sqrt(8.0 - 12.0 / 42.0);
  EXPECT_NEAR(s.coverage, 1.0 - std::erfc(4.5 / sigma / std::sqrt(2.0)), 1e-14);
  EXPECT_NEAR(s.coverage, 0.894807, 1e-6);
}

TEST(HodgesLehmannShiftTest, CrossSampleTiesKeepExactRanks) {
  // a = {1, 2, 3}, b = {3, 4, 5, 6}: the 3 ties across samples only at
  // shift 0 and the interval is about all shifts, so it stays exact even
  // though MannWhitneyU(a, b) itself is not. D:
  //   a=1: 2 3 4 5;  a=2: 1 2 3 4;  a=3: 0 1 2 3
  // Sorted: 0 1 1 2 2 2 3 3 3 4 4 5, median 2.5. 80%: k = 2 as in
  // HandWorkedDifferenceMatrix: [D_(2), D_(11)] = [1, 4], coverage 31/35.
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> b = {3, 4, 5, 6};
  EXPECT_FALSE(MannWhitneyU(a, b).exact);
  const ShiftEstimate s = HodgesLehmannShift(a, b, 0.8);
  EXPECT_EQ(s.estimate, 2.5);
  EXPECT_EQ(s.interval.low, 1.0);
  EXPECT_EQ(s.interval.high, 4.0);
  EXPECT_NEAR(s.coverage, 31.0 / 35.0, 1e-14);
}

TEST(HodgesLehmannShiftTest, IntervalRanksMatchBruteForce) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 11, 0));
    const int n1 = 2 + static_cast<int>(sizes.NextBelow(7));
    const int n2 = 2 + static_cast<int>(sizes.NextBelow(7));
    const std::vector<double> a = Uniforms(seed, n1, 0.0, 1.0);
    const std::vector<double> b = Uniforms(seed + 500, n2, 0.2, 1.2);
    std::vector<double> diffs;
    for (double x : a) {
      for (double y : b) diffs.push_back(y - x);
    }
    std::sort(diffs.begin(), diffs.end());
    const std::vector<int64_t> counts = EnumerateUCounts(n1, n2);
    const double total = static_cast<double>(Sum(counts, counts.size()));
    for (const Level& level : kLevels) {
      const ShiftEstimate s = HodgesLehmannShift(a, b, level.confidence);
      EXPECT_EQ(s.estimate, QuantileSorted(diffs, 0.5)) << "seed " << seed;
      const auto [k, tail] = BruteForceOrderRank(counts, level.denom);
      if (k < 0) continue;  // Level hit exactly: either answer is right.
      if (k == 0) {
        EXPECT_TRUE(std::isnan(s.interval.low)) << "seed " << seed;
        continue;
      }
      const size_t n = diffs.size();
      EXPECT_EQ(s.interval.low, diffs[static_cast<size_t>(k - 1)])
          << "seed " << seed << " level " << level.confidence;
      EXPECT_EQ(s.interval.high, diffs[n - static_cast<size_t>(k)])
          << "seed " << seed << " level " << level.confidence;
      EXPECT_NEAR(s.coverage, 1.0 - 2.0 * static_cast<double>(tail) / total,
                  1e-13);
      ++compared;
    }
  }
  EXPECT_GT(compared, 50);
}

// The interval is the set of shifts the U test does not reject: just inside
// each end MannWhitneyU(a, b - delta) has p > 1 - confidence, just outside
// p <= 1 - confidence. Checked on the exact path, the normal path (n >= 50)
// and the normal path forced by within-sample ties.
TEST(HodgesLehmannShiftTest, IntervalInvertsTheUTest) {
  struct Case {
    std::vector<double> a, b;
  };
  const std::vector<Case> cases = {
      {Uniforms(91, 12, 0.0, 1.0), Uniforms(92, 17, 0.3, 1.3)},
      {Uniforms(93, 60, 0.0, 1.0), Uniforms(94, 75, 0.1, 1.1)},
      {SmallIntegers(95, 15, 20), SmallIntegers(96, 18, 20)},
  };
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    std::vector<double> diffs;
    for (double x : c.a) {
      for (double y : c.b) diffs.push_back(y - x);
    }
    std::sort(diffs.begin(), diffs.end());
    const ShiftEstimate s = HodgesLehmannShift(c.a, c.b, 0.95);
    ASSERT_FALSE(std::isnan(s.interval.low)) << "case " << ci;
    // Next distinct differences on either side of each end.
    const auto below = [&](double v) {
      return *(std::lower_bound(diffs.begin(), diffs.end(), v) - 1);
    };
    const auto above = [&](double v) {
      return *std::upper_bound(diffs.begin(), diffs.end(), v);
    };
    const auto p_at = [&](double delta) {
      std::vector<double> shifted;
      for (double y : c.b) shifted.push_back(y - delta);
      return MannWhitneyU(c.a, shifted).p_value;
    };
    const double lo = s.interval.low;
    const double hi = s.interval.high;
    ASSERT_GT(lo, diffs.front()) << "case " << ci;  // So `below(lo)` exists.
    ASSERT_LT(hi, diffs.back()) << "case " << ci;
    EXPECT_GT(p_at((lo + above(lo)) / 2), 0.05) << "case " << ci;
    EXPECT_GT(p_at((hi + below(hi)) / 2), 0.05) << "case " << ci;
    EXPECT_LE(p_at((lo + below(lo)) / 2), 0.05) << "case " << ci;
    EXPECT_LE(p_at((hi + above(hi)) / 2), 0.05) << "case " << ci;
  }
}

TEST(HodgesLehmannShiftTest, LargeTiedSamplesMatchFullSort) {
  // 1000 x 1200 tie-heavy samples (values on a 0.25 grid): normal-path
  // ranks. sigma and k computed here from the formulas in Hollander &
  // Wolfe with the within-sample tie groups counted by std::map.
  std::vector<double> a = SmallIntegers(101, 1000, 400);
  std::vector<double> b = SmallIntegers(102, 1200, 420);
  for (double& x : a) x *= 0.25;
  for (double& x : b) x *= 0.25;
  std::vector<double> diffs;
  diffs.reserve(a.size() * b.size());
  for (double x : a) {
    for (double y : b) diffs.push_back(y - x);
  }
  std::sort(diffs.begin(), diffs.end());
  double tie_term = 0;
  for (const std::vector<double>* sample : {&a, &b}) {
    std::map<double, int> groups;
    for (double x : *sample) ++groups[x];
    for (const auto& [value, t] : groups)
      tie_term += static_cast<double>(t) * t * t - t;
  }
  const double n = 2200;
  const double sigma =
      std::sqrt(1000.0 * 1200.0 / 12.0 * ((n + 1) - tie_term / (n * (n - 1))));
  const auto k = static_cast<size_t>(
      std::floor(1000.0 * 1200.0 / 2 - 0.5 - kZ975 * sigma) + 1);
  const ShiftEstimate s = HodgesLehmannShift(a, b, 0.95);
  EXPECT_EQ(s.estimate, QuantileSorted(diffs, 0.5));
  EXPECT_EQ(s.interval.low, diffs[k - 1]);
  EXPECT_EQ(s.interval.high, diffs[diffs.size() - k]);
  // P(U <= k - 1) by the continuity-corrected normal, via erfc.
  const double zk = (static_cast<double>(k) - 0.5 - 600000.0) / sigma;
  EXPECT_NEAR(s.coverage, 1.0 - std::erfc(-zk / std::sqrt(2.0)), 1e-12);
  EXPECT_GE(s.coverage, 0.95);
}

TEST(HodgesLehmannShiftTest, CoverageOverDeterministicTrials) {
  // 400 fixed-seed trials of U(0,1) samples (12 vs 15, exact path; 60 vs
  // 70, normal path) with b shifted by 0.3. Nominal 95%; binomial sd over
  // 400 trials is ~1.1%, so 93-97% is about +-1.8 sd. The seeds are fixed,
  // so this cannot flake. It catches gross errors (wrong tail, wrong
  // normal scale); single-rank errors, which move the true coverage at
  // 12 x 15 from 0.953 to 0.947, are left to the brute-force tests.
  for (const auto& [n1, n2] : {std::pair{12, 15}, std::pair{60, 70}}) {
    int covered = 0;
    for (uint64_t trial = 0; trial < 400; ++trial) {
      const std::vector<double> a = Uniforms(trial * 2 + 1, n1, 0.0, 1.0);
      const std::vector<double> b = Uniforms(trial * 2 + 2, n2, 0.3, 1.3);
      const ShiftEstimate s = HodgesLehmannShift(a, b, 0.95);
      if (s.interval.low <= 0.3 && 0.3 <= s.interval.high) ++covered;
    }
    RecordProperty(n1 == 12 ? "covered_exact" : "covered_normal", covered);
    EXPECT_GE(covered, 372) << n1 << " x " << n2;
    EXPECT_LE(covered, 388) << n1 << " x " << n2;
  }
}

TEST(HodgesLehmannShiftTest, UndefinedCases) {
  const std::vector<double> a = {1, 2, 3};
  const std::vector<double> empty;
  EXPECT_TRUE(std::isnan(HodgesLehmannShift(a, empty, 0.95).estimate));
  EXPECT_TRUE(std::isnan(HodgesLehmannShift(empty, a, 0.95).estimate));
  // Bad confidence: estimate still defined, interval not.
  const ShiftEstimate bad = HodgesLehmannShift(a, a, 1.0);
  EXPECT_EQ(bad.estimate, 0.0);
  EXPECT_TRUE(std::isnan(bad.interval.low));
  EXPECT_TRUE(std::isnan(bad.interval.level));
}

// ------------------------------------------------------------------- Walsh

TEST(WalshAverageShiftTest, SymmetricExampleHandWorked) {
  // d = -6 -3 -1 0 2 3 5 8 is symmetric about 1 (pairs sum to 2), so the 36
  // Walsh averages are too and their median is 1. Smallest averages:
  // -6 (-6,-6), -4.5 (-6,-3), -3.5 (-6,-1), then -3 twice ((-3,-3) and
  // (-6,0)): A_(4) = -3, and by symmetry A_(33) = 2 - (-3) = 5.
  // Signed-rank null for n = 8 (256 sign patterns), subsets of {1..8} with
  // sum s for s = 0..4: 1 1 1 2 2, cumulative 1 2 3 5 7. 95%: largest k
  // with P(W <= k - 1) <= 0.025 = 6.4/256 is k = 4 (5/256; 7/256 is too
  // many), matching the published two-sided 0.05 critical value 3 for
  // n = 8. Interval [A_(4), A_(33)] = [-3, 5], coverage 1 - 10/256.
  const std::vector<double> d = {5, -6, 0, 8, -1, 3, 2, -3};
  const ShiftEstimate s = WalshAverageShift(d, 0.95);
  EXPECT_EQ(s.estimate, 1.0);
  EXPECT_EQ(s.interval.low, -3.0);
  EXPECT_EQ(s.interval.high, 5.0);
  EXPECT_EQ(s.coverage, 1.0 - 10.0 / 256.0);  // Exact: counts over 2^8.
  // 99%: need cumulative <= 1.28 -> k = 1, [min, max] = [-6, 8].
  const ShiftEstimate s99 = WalshAverageShift(d, 0.99);
  EXPECT_EQ(s99.interval.low, -6.0);
  EXPECT_EQ(s99.interval.high, 8.0);
  EXPECT_EQ(s99.coverage, 1.0 - 2.0 / 256.0);
}

TEST(WalshAverageShiftTest, TiedValuesUseNormalRanks) {
  // d = -1 2 2 3 5 6 (n = 6, one tied pair). The 21 Walsh averages:
  // -1; 0.5 0.5 1 2 2.5 (with -1); 2 2 2 (the 2s with each other and
  // themselves); 2.5 2.5 3.5 3.5 4 4 (2s with 3 5 6); 3 4 4.5; 5 5.5; 6.
  // Sorted: -1 .5 .5 1 2 2 2 2 2.5 2.5 2.5 3 3.5 3.5 4 4 4 4.5 5 5.5 6;
  // median A_(11) = 2.5.
  // sigma^2 = 6*7*13/24 - (8 - 2)/48 = 22.75 - 0.125 = 22.625,
  // sigma = 4.7565744. 90%: z_{0.95} = 1.6448536 (table);
  // 21/2 - 0.5 - 1.6448536 * 4.7565744 = 2.1761 -> k = 3:
  // [A_(3), A_(19)] = [0.5, 5]. Coverage 1 - 2 Phi((3 - 0.5 - 10.5)/sigma)
  // = 1 - 2 Phi(-1.6818827) = 0.907408.
  const std::vector<double> d = {5, 2, -1, 6, 2, 3};
  const ShiftEstimate s = WalshAverageShift(d, 0.9);
  EXPECT_EQ(s.estimate, 2.5);
  EXPECT_EQ(s.interval.low, 0.5);
  EXPECT_EQ(s.interval.high, 5.0);
  const double sigma = std::sqrt(22.625);
  EXPECT_NEAR(s.coverage, 1.0 - std::erfc(8.0 / sigma / std::sqrt(2.0)), 1e-14);
  EXPECT_NEAR(s.coverage, 0.907408, 1e-6);
}

TEST(WalshAverageShiftTest, IntervalRanksMatchBruteForce) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 12, 0));
    const int n = 2 + static_cast<int>(sizes.NextBelow(12));
    const std::vector<double> d = Uniforms(seed, n, -0.7, 1.0);
    std::vector<double> walsh;
    for (int i = 0; i < n; ++i) {
      for (int j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
    }
    std::sort(walsh.begin(), walsh.end());
    const std::vector<int64_t> counts = EnumerateWCounts(n);
    for (const Level& level : kLevels) {
      const ShiftEstimate s = WalshAverageShift(d, level.confidence);
      EXPECT_EQ(s.estimate, QuantileSorted(walsh, 0.5)) << "seed " << seed;
      const auto [k, tail] = BruteForceOrderRank(counts, level.denom);
      if (k < 0) continue;
      if (k == 0) {
        EXPECT_TRUE(std::isnan(s.interval.low)) << "seed " << seed;
        continue;
      }
      EXPECT_EQ(s.interval.low, walsh[static_cast<size_t>(k - 1)])
          << "seed " << seed;
      EXPECT_EQ(s.interval.high, walsh[walsh.size() - static_cast<size_t>(k)])
          << "seed " << seed;
      EXPECT_EQ(s.coverage,
                1.0 - 2.0 * std::ldexp(static_cast<double>(tail), -n));
      ++compared;
    }
  }
  EXPECT_GT(compared, 40);
}

TEST(WalshAverageShiftTest, IntervalInvertsTheSignedRankTest) {
  const std::vector<std::vector<double>> cases = {
      Uniforms(111, 15, -0.5, 1.0),  // Exact.
      Uniforms(112, 80, -0.5, 1.0),  // Normal, n >= 50.
      SmallIntegers(113, 25, 12),    // Normal, forced by ties.
  };
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const std::vector<double>& d = cases[ci];
    std::vector<double> walsh;
    for (size_t i = 0; i < d.size(); ++i) {
      for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
    }
    std::sort(walsh.begin(), walsh.end());
    const ShiftEstimate s = WalshAverageShift(d, 0.95);
    ASSERT_FALSE(std::isnan(s.interval.low)) << "case " << ci;
    const auto below = [&](double v) {
      return *(std::lower_bound(walsh.begin(), walsh.end(), v) - 1);
    };
    const auto above = [&](double v) {
      return *std::upper_bound(walsh.begin(), walsh.end(), v);
    };
    const auto p_at = [&](double delta) {
      std::vector<double> shifted;
      for (double x : d) shifted.push_back(x - delta);
      return WilcoxonSignedRank(shifted).p_value;
    };
    const double lo = s.interval.low;
    const double hi = s.interval.high;
    ASSERT_GT(lo, walsh.front()) << "case " << ci;  // So `below(lo)` exists.
    ASSERT_LT(hi, walsh.back()) << "case " << ci;
    EXPECT_GT(p_at((lo + above(lo)) / 2), 0.05) << "case " << ci;
    EXPECT_GT(p_at((hi + below(hi)) / 2), 0.05) << "case " << ci;
    EXPECT_LE(p_at((lo + below(lo)) / 2), 0.05) << "case " << ci;
    EXPECT_LE(p_at((hi + above(hi)) / 2), 0.05) << "case " << ci;
  }
}

TEST(WalshAverageShiftTest, LargeTiedSampleMatchesFullSort) {
  std::vector<double> d = SmallIntegers(121, 2000, 300);
  for (double& x : d) x = (x - 100.0) * 0.125;
  std::vector<double> walsh;
  walsh.reserve(2000 * 2001 / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  std::map<double, int> groups;
  for (double x : d) ++groups[x];
  double tie_term = 0;
  for (const auto& [value, t] : groups)
    tie_term += static_cast<double>(t) * t * t - t;
  const double n = 2000;
  const double count = n * (n + 1) / 2;
  const double sigma =
      std::sqrt(n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48);
  const auto k =
      static_cast<size_t>(std::floor(count / 2 - 0.5 - kZ975 * sigma) + 1);
  const ShiftEstimate s = WalshAverageShift(d, 0.95);
  EXPECT_EQ(s.estimate, QuantileSorted(walsh, 0.5));
  EXPECT_EQ(s.interval.low, walsh[k - 1]);
  EXPECT_EQ(s.interval.high, walsh[walsh.size() - k]);
  const double zk = (static_cast<double>(k) - 0.5 - count / 2) / sigma;
  EXPECT_NEAR(s.coverage, 1.0 - std::erfc(-zk / std::sqrt(2.0)), 1e-12);
}

// ------------------------------------------------------------- Selection

// Forces the quickselect pivot rounds (materialize_at 0 or 1 never copies
// out early) on many small tie-free and tie-heavy inputs and checks every
// k against a full sort.
TEST(OrderStatisticSelectionTest, EveryRankMatchesFullSort) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    CounterRng sizes(CounterRng::KeyFor(seed, 13, 0));
    const int n1 = 1 + static_cast<int>(sizes.NextBelow(9));
    const int n2 = 1 + static_cast<int>(sizes.NextBelow(9));
    const bool tied = seed % 2 == 0;
    std::vector<double> a =
        tied ? SmallIntegers(seed, n1, 4) : Uniforms(seed, n1, 0, 1);
    std::vector<double> b =
        tied ? SmallIntegers(seed + 99, n2, 4) : Uniforms(seed + 99, n2, 0, 1);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::vector<double> diffs;
    for (double x : a) {
      for (double y : b) diffs.push_back(y - x);
    }
    std::sort(diffs.begin(), diffs.end());
    std::vector<double> walsh;
    for (size_t i = 0; i < a.size(); ++i) {
      for (size_t j = i; j < a.size(); ++j) walsh.push_back((a[i] + a[j]) / 2);
    }
    std::sort(walsh.begin(), walsh.end());
    for (size_t materialize_at : {0, 1, 7}) {
      for (size_t k = 0; k < diffs.size(); ++k) {
        ASSERT_EQ(internal::KthPairwiseDifference(a, b, k, materialize_at),
                  diffs[k])
            << "seed " << seed << " k " << k;
        ++checked;
      }
      for (size_t k = 0; k < walsh.size(); ++k) {
        ASSERT_EQ(internal::KthWalshAverage(a, k, materialize_at), walsh[k])
            << "seed " << seed << " k " << k;
        ++checked;
      }
    }
    EXPECT_TRUE(
        std::isnan(internal::KthPairwiseDifference(a, b, diffs.size(), 0)));
    EXPECT_TRUE(std::isnan(internal::KthWalshAverage(a, walsh.size(), 0)));
  }
  EXPECT_GT(checked, 3000);
}

TEST(WalshAverageShiftTest, SingleValueAndEmpty) {
  const std::vector<double> one = {4.5};
  const ShiftEstimate s = WalshAverageShift(one, 0.95);
  EXPECT_EQ(s.estimate, 4.5);
  // n = 1: P(W <= 0) = 1/2, no interval at any useful level.
  EXPECT_TRUE(std::isnan(s.interval.low));
  const std::vector<double> empty;
  EXPECT_TRUE(std::isnan(WalshAverageShift(empty, 0.95).estimate));
}

// -------------------------------------------------------------------- Holm

TEST(HolmAdjustTest, TextbookExample) {
  // m = 4. Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06,
  // 0.04*1 = 0.04 -> running max 0.06. Back in input order:
  // {0.03, 0.06, 0.06, 0.02}.
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> adj = HolmAdjust(p);
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_DOUBLE_EQ(adj[0], 0.03);
  EXPECT_DOUBLE_EQ(adj[1], 0.06);
  EXPECT_DOUBLE_EQ(adj[2], 0.06);
  EXPECT_DOUBLE_EQ(adj[3], 0.02);
}

TEST(HolmAdjustTest, NaNStaysAndIsNotCounted) {
  // m = 2 (the NaN is not a comparison): 0.01*2 = 0.02, 0.04*1 = 0.04.
  const std::vector<double> p = {0.04, NAN, 0.01};
  const std::vector<double> adj = HolmAdjust(p);
  ASSERT_EQ(adj.size(), 3u);
  EXPECT_DOUBLE_EQ(adj[0], 0.04);
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_DOUBLE_EQ(adj[2], 0.02);
  const std::vector<double> all_nan = {NAN, NAN};
  for (double x : HolmAdjust(all_nan)) EXPECT_TRUE(std::isnan(x));
  EXPECT_TRUE(HolmAdjust(std::vector<double>{}).empty());
}

TEST(HolmAdjustTest, CappedMonotoneAndNeverBelowRaw) {
  // 0.3*3 = 0.9, 0.5*2 = 1.0, 0.7*1 = 0.7 -> running max 0.9, 1, 1.
  const std::vector<double> p = {0.7, 0.3, 0.5};
  const std::vector<double> adj = HolmAdjust(p);
  EXPECT_DOUBLE_EQ(adj[0], 1.0);
  EXPECT_DOUBLE_EQ(adj[1], 0.9);
  EXPECT_DOUBLE_EQ(adj[2], 1.0);
  const std::vector<double> many = Uniforms(131, 50, 0.0, 0.2);
  const std::vector<double> adj_many = HolmAdjust(many);
  for (size_t i = 0; i < many.size(); ++i) {
    EXPECT_GE(adj_many[i], many[i]);
    EXPECT_LE(adj_many[i], 1.0);
    for (size_t j = 0; j < many.size(); ++j) {
      if (many[i] < many[j]) {
        EXPECT_LE(adj_many[i], adj_many[j]);
      }
    }
  }
}

// --------------------------------------------------------------- Repeats

TEST(RepeatsToResolveTest, HandComputed) {
  // cv = 0.1, delta = 5%, alpha = 0.05, power = 0.8.
  // sigma = sqrt(ln 1.01) = sqrt(0.00995033) = 0.0997514;
  // ln 1.05 = 0.0487902; z_{0.975} + z_{0.8} = 1.959964 + 0.841621
  // = 2.801585 (normal table); ratio = 2.801585 * 0.0997514 / 0.0487902
  // = 5.727873; n = 2 * 5.727873^2 = 65.616 -> 66.
  EXPECT_EQ(RepeatsToResolve(0.1, 0.05, 0.05, 0.8), 66);
  // cv = 2%, delta = 1%: sigma = sqrt(ln 1.0004) = 0.0199980,
  // ln 1.01 = 0.00995033, ratio = 2.801585 * 0.0199980 / 0.00995033
  // = 5.630560, n = 63.407 -> 64.
  EXPECT_EQ(RepeatsToResolve(0.02, 0.01, 0.05, 0.8), 64);
  // cv = 0.5, delta = 10%: sigma = sqrt(ln 1.25) = 0.4723807 (using cv
  // itself, 0.5, would give 432), ln 1.1 = 0.0953102, ratio = 2.801585 *
  // 0.4723807 / 0.0953102 = 13.885346, n = 385.61 -> 386.
  EXPECT_EQ(RepeatsToResolve(0.5, 0.1, 0.05, 0.8), 386);
  // A slowdown of the same log size needs the same count:
  // ln(1 / 1.05) = -ln 1.05.
  EXPECT_EQ(RepeatsToResolve(0.1, 1.0 / 1.05 - 1.0, 0.05, 0.8), 66);
}

TEST(RepeatsToResolveTest, FloorAndInvalid) {
  EXPECT_EQ(RepeatsToResolve(0.0, 0.05, 0.05, 0.8), 2);   // No noise.
  EXPECT_EQ(RepeatsToResolve(0.001, 0.5, 0.05, 0.8), 2);  // Huge effect.
  EXPECT_EQ(RepeatsToResolve(0.1, 1e-15, 0.05, 0.8),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(RepeatsToResolve(-0.1, 0.05, 0.05, 0.8), -1);
  EXPECT_EQ(RepeatsToResolve(0.1, 0.0, 0.05, 0.8), -1);
  EXPECT_EQ(RepeatsToResolve(0.1, -1.0, 0.05, 0.8), -1);
  EXPECT_EQ(RepeatsToResolve(0.1, 0.05, 0.0, 0.8), -1);
  EXPECT_EQ(RepeatsToResolve(0.1, 0.05, 0.05, 1.0), -1);
  EXPECT_EQ(RepeatsToResolve(NAN, 0.05, 0.05, 0.8), -1);
}

TEST(RepeatsToResolveTest, MonotoneInInputs) {
  const int64_t base = RepeatsToResolve(0.05, 0.02, 0.05, 0.8);
  EXPECT_GT(RepeatsToResolve(0.10, 0.02, 0.05, 0.8), base);  // Noisier.
  EXPECT_LT(RepeatsToResolve(0.05, 0.04, 0.05, 0.8), base);  // Bigger effect.
  EXPECT_GT(RepeatsToResolve(0.05, 0.02, 0.01, 0.8), base);  // Stricter.
  EXPECT_GT(RepeatsToResolve(0.05, 0.02, 0.05, 0.9), base);  // More power.
}

}  // namespace
}  // namespace trn::stats
