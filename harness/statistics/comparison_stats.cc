#include "harness/statistics/comparison_stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "boost/math/distributions/normal.hpp"
#include "boost/math/distributions/students_t.hpp"
#include "boost/math/special_functions/log1p.hpp"
#include "harness/statistics/boost_policy.h"
#include "support/counter_rng.h"

namespace trn::stats {
namespace {

using Normal = boost::math::normal_distribution<double, NoThrowPolicy>;

// Seeds the quickselect pivots; any value gives the same answers.
inline constexpr uint64_t kSelectSeed = 0x5e1ec7u;
inline constexpr uint64_t kSelectStream = 0xc0a1e5ceu;

bool SmallEnoughForExact(size_t n) {
  return static_cast<int64_t>(n) < kMaxExactSampleSize;
}

bool ValidConfidence(double confidence) {
  return confidence > 0.0 && confidence < 1.0;
}

bool HasNaN(std::span<const double> xs) {
  return std::any_of(xs.begin(), xs.end(),
                     [](double x) { return std::isnan(x); });
}

std::vector<double> SortedCopy(std::span<const double> xs) {
  std::vector<double> out(xs.begin(), xs.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Sum of t^3 - t over runs of equal values in `sorted`; 0 iff no ties.
double TieTerm(std::span<const double> sorted) {
  double sum = 0.0;
  size_t i = 0;
  while (i < sorted.size()) {
    size_t j = i + 1;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    const auto t = static_cast<double>(j - i);
    sum += t * t * t - t;
    i = j;
  }
  return sum;
}

double NormalUpperTail(double z) {
  return boost::math::cdf(boost::math::complement(Normal(), z));
}

double NormalQuantile(double p) { return boost::math::quantile(Normal(), p); }

// Two-sided p for `statistic` against N(mean, sigma^2) with R's continuity
// correction, which moves the statistic half a unit towards the mean (and
// not at all when it sits on the mean).
TestResult NormalApproximation(double statistic, double mean, double sigma) {
  TestResult r;
  r.statistic = statistic;
  const double dev = statistic - mean;
  if (sigma == 0.0) {
    // Only when every observation is tied, which forces dev == 0.
    r.z = 0.0;
  } else {
    const double correction = dev > 0.0 ? 0.5 : (dev < 0.0 ? -0.5 : 0.0);
    r.z = (dev - correction) / sigma;
  }
  r.p_value = std::min(1.0, 2.0 * NormalUpperTail(std::fabs(r.z)));
  return r;
}

// P(U = u) for u = 0..n1 n2 under the Mann-Whitney null without ties. The
// largest of the n1 + n2 observations belongs to the first sample with
// probability i / (i + j) and then beats all j of the second, so
// p(i, j, u) = i/(i+j) p(i-1, j, u-j) + j/(i+j) p(i, j-1, u) (Mann & Whitney
// 1947). Working in probabilities rather than counts keeps every term
// positive and in range: counts reach C(98, 49) ~ 2.5e28, past exact
// doubles anyway.
std::vector<double> MannWhitneyNullPmf(size_t n1, size_t n2) {
  // (i, j) rows kept for the previous and current i; row j has i j + 1
  // entries.
  std::vector<std::vector<double>> prev(n2 + 1, std::vector<double>{1.0});
  std::vector<std::vector<double>> cur(n2 + 1);
  for (size_t i = 1; i <= n1; ++i) {
    cur[0].assign(1, 1.0);
    for (size_t j = 1; j <= n2; ++j) {
      const double total = static_cast<double>(i + j);
      const double w_first = static_cast<double>(i) / total;
      const double w_second = static_cast<double>(j) / total;
      std::vector<double>& out = cur[j];
      out.assign(i * j + 1, 0.0);
      const std::vector<double>& from_second = cur[j - 1];  // (i, j - 1)
      for (size_t u = 0; u < from_second.size(); ++u) {
        out[u] += w_second * from_second[u];
      }
      const std::vector<double>& from_first = prev[j];  // (i - 1, j)
      for (size_t u = 0; u < from_first.size(); ++u) {
        out[u + j] += w_first * from_first[u];
      }
    }
    std::swap(prev, cur);
  }
  return std::move(prev[n2]);
}

// P(W+ = w) for w = 0..n(n+1)/2: rank r is positive with probability 1/2
// independently. Every entry is a count over 2^n and counts stay below
// 2^53 for n < 50, so the table is exact.
std::vector<double> SignedRankNullPmf(size_t n) {
  std::vector<double> pmf{1.0};
  for (size_t r = 1; r <= n; ++r) {
    std::vector<double> next(pmf.size() + r, 0.0);
    for (size_t w = 0; w < pmf.size(); ++w) {
      next[w] += 0.5 * pmf[w];
      next[w + r] += 0.5 * pmf[w];
    }
    pmf = std::move(next);
  }
  return pmf;
}

// Two-sided exact p: the null distributions here are symmetric, so this is
// min(1, 2 P(S <= min(s, max - s))), R's rule.
double ExactTwoSidedP(const std::vector<double>& pmf, double statistic) {
  const auto top = static_cast<double>(pmf.size() - 1);
  const auto lower = static_cast<size_t>(std::min(statistic, top - statistic));
  double cdf = 0.0;
  for (size_t s = 0; s <= lower; ++s) cdf += pmf[s];
  return std::min(1.0, 2.0 * cdf);
}

// Which order statistics bound an interval that inverts a rank test whose
// statistic S counts the pairwise quantities above delta and ranges over
// 0..count.
struct OrderRank {
  size_t k = 0;  // 1-based; 0 when the level cannot be reached.
  double coverage = NAN;
};

// Largest k with P(S <= k - 1) <= (1 - confidence) / 2, phrased as coverage
// >= confidence like MedianInterval so that borderline levels resolve the
// same way in both.
OrderRank ExactOrderRank(const std::vector<double>& pmf, double confidence) {
  OrderRank out;
  double cdf = 0.0;
  for (size_t s = 0; s < pmf.size(); ++s) {
    cdf += pmf[s];
    const double coverage = 1.0 - 2.0 * cdf;
    if (!(coverage >= confidence)) break;
    out.k = s + 1;
    out.coverage = coverage;
  }
  return out;
}

// Continuity-corrected normal counterpart: S = s is accepted when
// |s - count/2| - 0.5 < z sigma, so the smallest accepted s is
// floor(count/2 - 0.5 - z sigma) + 1.
OrderRank NormalOrderRank(size_t count, double sigma, double confidence) {
  OrderRank out;
  const double half = static_cast<double>(count) / 2.0;
  const double z = NormalQuantile((1.0 + confidence) / 2.0);
  const double first = std::floor(half - 0.5 - z * sigma) + 1.0;
  if (!(first >= 1.0)) return out;
  // z >= 0 keeps first <= (count + 1) / 2, so the bounds never cross.
  out.k = static_cast<size_t>(first);
  out.coverage =
      1.0 - 2.0 * boost::math::cdf(Normal(), (first - 0.5 - half) / sigma);
  return out;
}

// The null distribution of S = #{pairwise quantities > delta} at the true
// shift, shared by an interval and the test it inverts: exact (a pmf over
// 0..count) or normal with standard deviation sigma.
struct RankNull {
  size_t count = 0;
  std::vector<double> pmf;  // empty: normal approximation
  double sigma = NAN;
  bool exact() const { return !pmf.empty(); }
};

double RankNullP(const RankNull& null, double s) {
  if (null.exact()) return ExactTwoSidedP(null.pmf, s);
  return NormalApproximation(s, static_cast<double>(null.count) / 2.0,
                             null.sigma)
      .p_value;
}

OrderRank RankNullOrder(const RankNull& null, double confidence) {
  if (!ValidConfidence(confidence)) return OrderRank{};
  return null.exact() ? ExactOrderRank(null.pmf, confidence)
                      : NormalOrderRank(null.count, null.sigma, confidence);
}

// First index c in [lo, hi) with !pred(c), for pred true-then-false.
template <typename Pred>
size_t PartitionPoint(size_t lo, size_t hi, const Pred& pred) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (pred(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The k-th smallest (0-based) of {value(r, c) : lo[r] <= c < hi[r]} where
// each row is nondecreasing in c. Randomised quickselect over the implicit
// matrix (Monahan 1984): a pivot drawn uniformly from the remaining
// candidates is located in every row by binary search, and the rows'
// candidate windows shrink to the side that holds the answer. Equal values
// are split three ways, so a pivot always removes at least itself. The
// answer is the exact order statistic of the computed values, whatever the
// pivots were.
// `materialize_at`: at or below this many candidates they are copied out
// and finished with nth_element.
template <typename Value>
double SelectFromSortedRows(std::vector<size_t> lo, std::vector<size_t> hi,
                            size_t k, const Value& value,
                            size_t materialize_at) {
  const size_t rows = lo.size();
  CounterRng rng(CounterRng::KeyFor(kSelectSeed, kSelectStream, k));
  std::vector<size_t> lt(rows);
  std::vector<size_t> le(rows);
  for (;;) {
    size_t total = 0;
    for (size_t r = 0; r < rows; ++r) total += hi[r] - lo[r];
    if (total <= materialize_at) {
      std::vector<double> buf;
      buf.reserve(total);
      for (size_t r = 0; r < rows; ++r) {
        for (size_t c = lo[r]; c < hi[r]; ++c) buf.push_back(value(r, c));
      }
      const auto nth = buf.begin() + static_cast<std::ptrdiff_t>(k);
      std::nth_element(buf.begin(), nth, buf.end());
      return *nth;
    }
    size_t pick = static_cast<size_t>(rng.NextBelow(total));
    size_t pivot_row = 0;
    while (pick >= hi[pivot_row] - lo[pivot_row]) {
      pick -= hi[pivot_row] - lo[pivot_row];
      ++pivot_row;
    }
    const double pivot = value(pivot_row, lo[pivot_row] + pick);
    size_t n_lt = 0;
    size_t n_le = 0;
    for (size_t r = 0; r < rows; ++r) {
      lt[r] = PartitionPoint(lo[r], hi[r],
                             [&](size_t c) { return value(r, c) < pivot; });
      le[r] = PartitionPoint(lt[r], hi[r],
                             [&](size_t c) { return value(r, c) <= pivot; });
      n_lt += lt[r] - lo[r];
      n_le += le[r] - lo[r];
    }
    if (k < n_lt) {
      hi.swap(lt);
    } else if (k < n_le) {
      return pivot;
    } else {
      k -= n_le;
      lo.swap(le);
    }
  }
}

// Below this many candidates, copying them out is cheaper than another
// round of binary searches.
inline constexpr size_t kMaterializeAt = 4096;

// Row r holds b_c - a_r over ascending b: nondecreasing along the row
// because rounding is monotone.
struct PairwiseDifference {
  std::span<const double> sorted_a;
  std::span<const double> sorted_b;
  double operator()(size_t r, size_t c) const {
    return sorted_b[c] - sorted_a[r];
  }
  std::vector<size_t> RowBegins() const {
    return std::vector<size_t>(sorted_a.size(), 0);
  }
  std::vector<size_t> RowEnds() const {
    return std::vector<size_t>(sorted_a.size(), sorted_b.size());
  }
  size_t count() const { return sorted_a.size() * sorted_b.size(); }
};

// Row r holds the averages of d_r with d_c for c >= r, ascending in c.
struct WalshAverage {
  std::span<const double> sorted_d;
  double operator()(size_t r, size_t c) const {
    return (sorted_d[r] + sorted_d[c]) / 2.0;
  }
  std::vector<size_t> RowBegins() const {
    std::vector<size_t> begins(sorted_d.size());
    for (size_t r = 0; r < begins.size(); ++r) begins[r] = r;
    return begins;
  }
  std::vector<size_t> RowEnds() const {
    return std::vector<size_t>(sorted_d.size(), sorted_d.size());
  }
  size_t count() const { return sorted_d.size() * (sorted_d.size() + 1) / 2; }
};

template <typename Matrix>
double SelectKth(const Matrix& m, size_t k, size_t materialize_at) {
  if (k >= m.count()) return NAN;
  return SelectFromSortedRows(m.RowBegins(), m.RowEnds(), k, m, materialize_at);
}

// Median (type 7, so the same number QuantileSorted would give on the
// materialised values), order-rank interval and the p-value of the test the
// interval inverts, for an implicit row-sorted multiset of `count` values.
// At delta = 0 the statistic S = #{values > delta} is #{values > 0} just
// above 0 and #{values >= 0} just below; values equal to 0 (cross-sample
// ties, zero paired differences) make these differ, and the p-value is the
// largest over that range, so that 0 lies in the interval exactly when
// 1 - p < confidence (the interval's own coverage rule, see ExactOrderRank).
// Without such values S is the usual U or W+ and p is the textbook (and R's)
// p-value.
template <typename Matrix>
ShiftEstimate ShiftFromMatrix(const Matrix& m, const RankNull& null,
                              double confidence) {
  ShiftEstimate out;
  const size_t count = m.count();
  const double upper = SelectKth(m, count / 2, kMaterializeAt);
  if (count % 2 == 1) {
    out.estimate = upper;
  } else {
    const double lower = SelectKth(m, count / 2 - 1, kMaterializeAt);
    out.estimate = upper - (upper - lower) * 0.5;
  }
  std::vector<size_t> lo = m.RowBegins();
  const std::vector<size_t> hi = m.RowEnds();
  size_t below = 0;
  size_t zero = 0;
  for (size_t r = 0; r < lo.size(); ++r) {
    const size_t lt =
        PartitionPoint(lo[r], hi[r], [&](size_t c) { return m(r, c) < 0.0; });
    const size_t le =
        PartitionPoint(lt, hi[r], [&](size_t c) { return m(r, c) <= 0.0; });
    below += lt - lo[r];
    zero += le - lt;
  }
  const size_t s_low = count - below - zero;
  const size_t s_high = count - below;
  out.statistic = static_cast<double>(std::clamp(count / 2, s_low, s_high));
  out.exact = null.exact();
  out.p_value = RankNullP(null, out.statistic);
  const OrderRank rank = RankNullOrder(null, confidence);
  if (rank.k == 0) return out;
  out.interval.low = SelectKth(m, rank.k - 1, kMaterializeAt);
  out.interval.high = SelectKth(m, count - rank.k, kMaterializeAt);
  out.interval.level = confidence;
  out.coverage = rank.coverage;
  return out;
}

struct Moments {
  double mean = NAN;
  double variance = NAN;
};

// Two-pass with the first sample as shift, as in statistics.cc, so an
// all-equal sample has variance exactly 0.
Moments ComputeMoments(std::span<const double> xs) {
  Moments m;
  const double shift = xs.front();
  const auto n = static_cast<double>(xs.size());
  double sum = 0.0;
  for (double x : xs) sum += x - shift;
  m.mean = shift + sum / n;
  double sum_sq = 0.0;
  for (double x : xs) {
    const double d = x - m.mean;
    sum_sq += d * d;
  }
  m.variance = sum_sq / (n - 1.0);
  return m;
}

}  // namespace

TestResult MannWhitneyU(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty() || HasNaN(a) || HasNaN(b)) return TestResult{};
  const size_t n1 = a.size();
  const size_t n2 = b.size();
  std::vector<std::pair<double, bool>> pooled;  // (value, is from a)
  pooled.reserve(n1 + n2);
  for (double x : a) pooled.emplace_back(x, true);
  for (double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end());

  // Midranks are half-integers and their sums stay far below 2^53, so the
  // rank sum and U are exact.
  double rank_sum_a = 0.0;
  double tie_term = 0.0;
  size_t i = 0;
  while (i < pooled.size()) {
    size_t j = i + 1;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double midrank = static_cast<double>(i + 1 + j) / 2.0;
    size_t from_a = 0;
    for (size_t t = i; t < j; ++t) from_a += pooled[t].second ? 1 : 0;
    rank_sum_a += midrank * static_cast<double>(from_a);
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  const auto dn1 = static_cast<double>(n1);
  const auto dn2 = static_cast<double>(n2);
  const double u = rank_sum_a - dn1 * (dn1 + 1.0) / 2.0;

  if (tie_term == 0.0 && SmallEnoughForExact(n1) && SmallEnoughForExact(n2)) {
    TestResult r;
    r.statistic = u;
    r.exact = true;
    r.p_value = ExactTwoSidedP(MannWhitneyNullPmf(n1, n2), u);
    return r;
  }
  const double n = dn1 + dn2;
  const double sigma =
      std::sqrt((dn1 * dn2 / 12.0) * ((n + 1.0) - tie_term / (n * (n - 1.0))));
  return NormalApproximation(u, dn1 * dn2 / 2.0, sigma);
}

TestResult WelchT(std::span<const double> a, std::span<const double> b) {
  TestResult r;
  if (a.size() < 2 || b.size() < 2 || HasNaN(a) || HasNaN(b)) return r;
  const Moments ma = ComputeMoments(a);
  const Moments mb = ComputeMoments(b);
  const double va = ma.variance / static_cast<double>(a.size());
  const double vb = mb.variance / static_cast<double>(b.size());
  const double se2 = va + vb;
  const double diff = ma.mean - mb.mean;
  if (se2 == 0.0) {
    if (diff == 0.0) {
      r.statistic = 0.0;
      r.p_value = 1.0;
    } else {
      r.statistic =
          std::copysign(std::numeric_limits<double>::infinity(), diff);
      r.p_value = 0.0;
    }
    return r;
  }
  r.statistic = diff / std::sqrt(se2);
  // Welch-Satterthwaite, written with the weights va/se2 and vb/se2 so that
  // tiny or huge variances cannot overflow or underflow when squared.
  const double wa = va / se2;
  const double wb = vb / se2;
  r.df = 1.0 / (wa * wa / static_cast<double>(a.size() - 1) +
                wb * wb / static_cast<double>(b.size() - 1));
  const boost::math::students_t_distribution<double, NoThrowPolicy> t_dist(
      r.df);
  r.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(
                                      t_dist, std::fabs(r.statistic))));
  return r;
}

TestResult WilcoxonSignedRank(std::span<const double> diffs) {
  if (diffs.empty() || HasNaN(diffs)) return TestResult{};
  std::vector<double> nonzero;
  nonzero.reserve(diffs.size());
  for (double d : diffs) {
    if (d != 0.0) nonzero.push_back(d);
  }
  std::sort(nonzero.begin(), nonzero.end(),
            [](double x, double y) { return std::fabs(x) < std::fabs(y); });
  const size_t n = nonzero.size();
  if (n == 0) {
    TestResult r;
    r.statistic = 0.0;
    r.p_value = 1.0;
    r.exact = true;  // No approximation involved: nothing can be rejected.
    return r;
  }
  double w_plus = 0.0;
  double tie_term = 0.0;
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && std::fabs(nonzero[j]) == std::fabs(nonzero[i])) ++j;
    const double midrank = static_cast<double>(i + 1 + j) / 2.0;
    for (size_t t = i; t < j; ++t) {
      if (nonzero[t] > 0.0) w_plus += midrank;
    }
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  if (tie_term == 0.0 && SmallEnoughForExact(n)) {
    TestResult r;
    r.statistic = w_plus;
    r.exact = true;
    r.p_value = ExactTwoSidedP(SignedRankNullPmf(n), w_plus);
    return r;
  }
  const auto dn = static_cast<double>(n);
  const double sigma =
      std::sqrt(dn * (dn + 1.0) * (2.0 * dn + 1.0) / 24.0 - tie_term / 48.0);
  return NormalApproximation(w_plus, dn * (dn + 1.0) / 4.0, sigma);
}

ShiftEstimate HodgesLehmannShift(std::span<const double> a,
                                 std::span<const double> b, double confidence) {
  if (a.empty() || b.empty() || HasNaN(a) || HasNaN(b)) return ShiftEstimate{};
  const std::vector<double> sa = SortedCopy(a);
  const std::vector<double> sb = SortedCopy(b);
  const size_t n1 = sa.size();
  const size_t n2 = sb.size();
  const size_t count = n1 * n2;

  RankNull null;
  null.count = count;
  const double ties = TieTerm(sa) + TieTerm(sb);
  if (ties == 0.0 && SmallEnoughForExact(n1) && SmallEnoughForExact(n2)) {
    null.pmf = MannWhitneyNullPmf(n1, n2);
  } else {
    const auto dn1 = static_cast<double>(n1);
    const auto dn2 = static_cast<double>(n2);
    const double n = dn1 + dn2;
    null.sigma =
        std::sqrt((dn1 * dn2 / 12.0) * ((n + 1.0) - ties / (n * (n - 1.0))));
  }
  return ShiftFromMatrix(PairwiseDifference{sa, sb}, null, confidence);
}

ShiftEstimate WalshAverageShift(std::span<const double> diffs,
                                double confidence) {
  if (diffs.empty() || HasNaN(diffs)) return ShiftEstimate{};
  const std::vector<double> sd = SortedCopy(diffs);
  const size_t n = sd.size();
  const size_t count = n * (n + 1) / 2;

  RankNull null;
  null.count = count;
  const double ties = TieTerm(sd);
  if (ties == 0.0 && SmallEnoughForExact(n)) {
    null.pmf = SignedRankNullPmf(n);
  } else {
    const auto dn = static_cast<double>(n);
    null.sigma =
        std::sqrt(dn * (dn + 1.0) * (2.0 * dn + 1.0) / 24.0 - ties / 48.0);
  }
  return ShiftFromMatrix(WalshAverage{sd}, null, confidence);
}

std::vector<double> HolmAdjust(std::span<const double> p_values) {
  std::vector<double> adjusted(p_values.size(), NAN);
  std::vector<size_t> order;
  order.reserve(p_values.size());
  for (size_t i = 0; i < p_values.size(); ++i) {
    if (!std::isnan(p_values[i])) order.push_back(i);
  }
  // Stable so equal p-values keep input order (R's order() does too); the
  // adjusted values come out equal either way.
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return p_values[x] < p_values[y];
  });
  const size_t m = order.size();
  double running_max = 0.0;
  for (size_t j = 0; j < m; ++j) {
    const double scaled = static_cast<double>(m - j) * p_values[order[j]];
    running_max = std::max(running_max, scaled);
    adjusted[order[j]] = std::min(1.0, running_max);
  }
  return adjusted;
}

namespace internal {

double KthPairwiseDifference(std::span<const double> sorted_a,
                             std::span<const double> sorted_b, size_t k,
                             size_t materialize_at) {
  return SelectKth(PairwiseDifference{sorted_a, sorted_b}, k, materialize_at);
}

double KthWalshAverage(std::span<const double> sorted_d, size_t k,
                       size_t materialize_at) {
  return SelectKth(WalshAverage{sorted_d}, k, materialize_at);
}

}  // namespace internal

int64_t RepeatsToResolve(double cv, double delta, double alpha, double power) {
  if (!(cv >= 0.0) || !std::isfinite(cv) || !std::isfinite(delta) ||
      delta == 0.0 || !(delta > -1.0) || !(alpha > 0.0 && alpha < 1.0) ||
      !(power > 0.0 && power < 1.0)) {
    return -1;
  }
  const double sigma = std::sqrt(boost::math::log1p(cv * cv));
  const double effect = std::fabs(boost::math::log1p(delta));
  // A power below alpha / 2 would make the sum negative; squaring it would
  // then ask for more repeats as the demanded power falls.
  const double z =
      std::max(0.0, NormalQuantile(1.0 - alpha / 2.0) + NormalQuantile(power));
  const double ratio = z * sigma / effect;
  const double n = 2.0 * ratio * ratio;
  // 2^63 is exactly representable; anything at or past it saturates.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(n < kLimit)) return std::numeric_limits<int64_t>::max();
  return std::max<int64_t>(2, static_cast<int64_t>(std::ceil(n)));
}

}  // namespace trn::stats
