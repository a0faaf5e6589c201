#include "harness/statistics/serial_dependence.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "boost/math/distributions/normal.hpp"
#include "boost/math/distributions/students_t.hpp"
#include "harness/statistics/boost_policy.h"
#include "harness/statistics/sample_buffer.h"
#include "harness/statistics/statistics.h"
#include "support/p_value_text.h"

namespace trn::stats {
namespace {

using Normal = boost::math::normal_distribution<double, NoThrowPolicy>;
using StudentT = boost::math::students_t_distribution<double, NoThrowPolicy>;

constexpr double kMaxRho = 0.99;

double MeanOf(std::span<const double> y) {
  // Deviations from the first value, as in statistics.cc: a constant
  // series then has exactly zero deviations.
  const double shift = y.front();
  double sum = 0.0;
  for (double v : y) sum += v - shift;
  return shift + sum / static_cast<double>(y.size());
}

// Lag-1 autocorrelation about the mean; NaN when the series is constant.
double Lag1(std::span<const double> y) {
  const double m = MeanOf(y);
  double num = 0.0;
  double den = 0.0;
  for (size_t t = 0; t < y.size(); ++t) {
    const double d = y[t] - m;
    den += d * d;
    if (t + 1 < y.size()) num += d * (y[t + 1] - m);
  }
  return den > 0.0 ? num / den : NAN;
}

// Quenouille's (1949) half-series jackknife, 2 r1 - (r1(first half) +
// r1(second half)) / 2: it removes the O(1/n) bias of r1 (about
// -(1 + 3 rho) / n for AR(1), Marriott and Pope 1954) without a formula
// that holds only to first order; at rho = 0.9, n = 100 the first-order
// correction still leaves the inflation 10% low.
double CorrectedRho(std::span<const double> y, double r1) {
  const size_t half = y.size() / 2;
  const double first = Lag1(y.first(half));
  const double second = Lag1(y.subspan(half));
  const double rho = std::isfinite(first) && std::isfinite(second)
                         ? 2.0 * r1 - (first + second) / 2.0
                         : r1;
  return std::clamp(rho, -kMaxRho, kMaxRho);
}

double MedianOfCopy(std::span<const double> xs) {
  SampleBuffer<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  return QuantileSorted(v, 0.5);
}

// Mann-Kendall S = sum over i < j of sign(y_j - y_i), in O(n log n) with a
// Fenwick tree over the values' dense ranks; and the tie term
// sum t (t - 1) (2t + 5) of its null variance.
struct KendallS {
  double s = 0.0;
  double tie_term = 0.0;
};

KendallS MannKendallS(std::span<const double> y) {
  const size_t n = y.size();
  SampleBuffer<double> sorted(y.begin(), y.end());
  std::sort(sorted.begin(), sorted.end());
  KendallS out;
  SampleBuffer<double> distinct;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && sorted[j] == sorted[i]) ++j;
    const auto t = static_cast<double>(j - i);
    out.tie_term += t * (t - 1.0) * (2.0 * t + 5.0);
    distinct.push_back(sorted[i]);
    i = j;
  }
  SampleBuffer<int64_t> tree(distinct.size() + 1, 0);
  auto add = [&](size_t pos) {
    for (size_t i = pos; i < tree.size(); i += i & (~i + 1)) ++tree[i];
  };
  auto prefix = [&](size_t pos) {  // count of ranks 1..pos
    int64_t c = 0;
    for (size_t i = pos; i > 0; i -= i & (~i + 1)) c += tree[i];
    return c;
  };
  int64_t s = 0;
  for (size_t j = 0; j < n; ++j) {
    const size_t rank =
        static_cast<size_t>(
            std::lower_bound(distinct.begin(), distinct.end(), y[j]) -
            distinct.begin()) +
        1;
    const int64_t less = prefix(rank - 1);
    const int64_t not_greater = prefix(rank);
    const int64_t greater = static_cast<int64_t>(j) - not_greater;
    s += less - greater;
    add(rank);
  }
  out.s = static_cast<double>(s);
  return out;
}

// Two-sided Mann-Kendall p with the variance inflated by the AR(1)
// inflation of the series after removing its least-squares line.
double MannKendallP(std::span<const double> y) {
  const auto n = static_cast<double>(y.size());
  const KendallS k = MannKendallS(y);
  double var = (n * (n - 1.0) * (2.0 * n + 5.0) - k.tie_term) / 18.0;
  if (!(var > 0.0)) return 1.0;
  // Least-squares slope against the index, then the residuals' lag-1
  // autocorrelation: a trend alone would otherwise look like correlation.
  const double t_mean = (n - 1.0) / 2.0;
  const double y_mean = MeanOf(y);
  double sxy = 0.0;
  double sxx = 0.0;
  for (size_t t = 0; t < y.size(); ++t) {
    const double dt = static_cast<double>(t) - t_mean;
    sxy += dt * (y[t] - y_mean);
    sxx += dt * dt;
  }
  const double slope = sxy / sxx;
  SampleBuffer<double> resid(y.size());
  for (size_t t = 0; t < y.size(); ++t) {
    resid[t] = y[t] - slope * (static_cast<double>(t) - t_mean);
  }
  const double r1 = Lag1(resid);
  if (std::isfinite(r1)) {
    var *= Ar1VarianceInflation(CorrectedRho(resid, r1),
                                static_cast<int64_t>(y.size()));
  }
  const double dev = std::fabs(k.s) - (k.s != 0.0 ? 1.0 : 0.0);
  const double z = std::max(0.0, dev) / std::sqrt(var);
  return std::min(1.0,
                  2.0 * boost::math::cdf(boost::math::complement(Normal(), z)));
}

// Pettitt's change-point test on the ranks (midranks for ties): the split
// that maximises |U_t|, U_t = sum_{i <= t} (2 r_i - n - 1), and its
// two-sided p with the variance inflated as MannKendallP's is, for the
// autocorrelation of the series after removing the step.
struct Step {
  size_t at = 0;  // first index after the change point
  double p = 1.0;
};

Step PettittStep(std::span<const double> y) {
  const size_t n = y.size();
  SampleBuffer<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return y[a] < y[b]; });
  SampleBuffer<double> rank(n);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && y[order[j]] == y[order[i]]) ++j;
    const double mid = static_cast<double>(i + 1 + j) / 2.0;
    for (size_t t = i; t < j; ++t) rank[order[t]] = mid;
    i = j;
  }
  const auto dn = static_cast<double>(n);
  double u = 0.0;
  double k = 0.0;
  Step out;
  for (size_t t = 0; t + 1 < n; ++t) {
    u += 2.0 * rank[t] - dn - 1.0;
    if (std::fabs(u) > k) {
      k = std::fabs(u);
      out.at = t + 1;
    }
  }
  if (k == 0.0) return out;
  // The series minus its two segments' means: what is left is noise whose
  // correlation widens K's null distribution as it does S's.
  const double before = MeanOf(y.first(out.at));
  const double after = MeanOf(y.subspan(out.at));
  SampleBuffer<double> resid(n);
  for (size_t t = 0; t < n; ++t)
    resid[t] = y[t] - (t < out.at ? before : after);
  double vif = 1.0;
  const double r1 = Lag1(resid);
  if (std::isfinite(r1)) {
    vif =
        Ar1VarianceInflation(CorrectedRho(resid, r1), static_cast<int64_t>(n));
  }
  out.p = std::min(
      1.0, 2.0 * std::exp(-6.0 * k * k / ((dn * dn * dn + dn * dn) * vif)));
  return out;
}

struct Bimodality {
  bool bimodal = false;
  double low_mode = NAN;
  double high_mode = NAN;
  double high_share = NAN;
};

// A Gaussian kernel density on a grid, from linearly binned counts, with
// Silverman's rule-of-thumb bandwidth: that bandwidth over-smooths
// multimodal data, so a dip that survives it is real.
Bimodality FindBimodality(SampleBuffer<double> y) {
  Bimodality out;
  const size_t n = y.size();
  std::sort(y.begin(), y.end());
  const double sd = [&] {
    const double m = MeanOf(y);
    double ss = 0.0;
    for (double v : y) ss += (v - m) * (v - m);
    return std::sqrt(ss / static_cast<double>(n - 1));
  }();
  int64_t distinct = 1;
  for (size_t i = 1; i < n; ++i) distinct += y[i] != y[i - 1];
  if (distinct < kMinBimodalityDistinct) return out;
  const double iqr = QuantileSorted(y, 0.75) - QuantileSorted(y, 0.25);
  double spread = iqr > 0.0 ? std::min(sd, iqr / 1.34) : sd;
  if (!(spread > 0.0)) return out;
  const double h = 0.9 * spread * std::pow(static_cast<double>(n), -0.2);
  constexpr int kGrid = 256;
  const double lo = y.front() - 3.0 * h;
  const double hi = y.back() + 3.0 * h;
  const double step = (hi - lo) / (kGrid - 1);
  std::vector<double> counts(kGrid, 0.0);
  for (double v : y) {
    const double pos = (v - lo) / step;
    const auto i = std::min(static_cast<int>(pos), kGrid - 2);
    const double frac = pos - i;
    counts[i] += 1.0 - frac;
    counts[i + 1] += frac;
  }
  const int reach = static_cast<int>(std::ceil(4.0 * h / step));
  std::vector<double> kernel(reach + 1);
  for (int k = 0; k <= reach; ++k) {
    const double u = k * step / h;
    kernel[k] = std::exp(-0.5 * u * u);
  }
  std::vector<double> f(kGrid, 0.0);
  for (int g = 0; g < kGrid; ++g) {
    if (counts[g] == 0.0) continue;
    const int from = std::max(0, g - reach);
    const int to = std::min(kGrid - 1, g + reach);
    for (int x = from; x <= to; ++x)
      f[x] += counts[g] * kernel[std::abs(x - g)];
  }
  std::vector<int> left_peak(kGrid);
  std::vector<int> right_peak(kGrid);
  for (int g = 0; g < kGrid; ++g) {
    left_peak[g] = g > 0 && f[left_peak[g - 1]] >= f[g] ? left_peak[g - 1] : g;
  }
  for (int g = kGrid - 1; g >= 0; --g) {
    right_peak[g] =
        g + 1 < kGrid && f[right_peak[g + 1]] > f[g] ? right_peak[g + 1] : g;
  }
  double best = kBimodalDipRatio;
  for (int a = 1; a + 1 < kGrid; ++a) {
    if (!(f[a] <= f[a - 1] && f[a] <= f[a + 1])) continue;
    const double lower_peak = std::min(f[left_peak[a]], f[right_peak[a]]);
    if (!(lower_peak > 0.0)) continue;
    const double ratio = f[a] / lower_peak;
    if (!(ratio < best)) continue;
    const double cut = lo + a * step;
    const auto below = static_cast<double>(
        std::lower_bound(y.begin(), y.end(), cut) - y.begin());
    const double share_high = 1.0 - below / static_cast<double>(n);
    if (std::min(share_high, 1.0 - share_high) < kBimodalMinShare) continue;
    best = ratio;
    out.bimodal = true;
    out.low_mode = lo + left_peak[a] * step;
    out.high_mode = lo + right_peak[a] * step;
    out.high_share = share_high;
  }
  return out;
}

std::string Percent(double x) { return absl::StrFormat("%+.1f%%", x * 100); }

// The traces behind ExpectedLag1 and SetAr1InflationAt for the AR(1)
// correlation matrix Sigma (unit variance) of length n, with X = M Sigma M
// the covariance of the deviations from the mean: tr(X), tr(X^2), the
// lag-1 traces tr(L X) and tr(L X^2), and 1'Sigma 1 / n (the VIF).
struct Ar1Traces {
  double x = 0.0;
  double x2 = 0.0;
  double lx = 0.0;
  double lx2 = 0.0;
  double vif = 1.0;
};

Ar1Traces Ar1QuadraticTraces(double rho, int64_t n_samples) {
  const auto n = static_cast<size_t>(n_samples);
  const auto dn = static_cast<double>(n);
  std::vector<double> power(n);
  power[0] = 1.0;
  for (size_t k = 1; k < n; ++k) power[k] = power[k - 1] * rho;
  std::vector<double> row_sum(n, 0.0);  // Sigma 1
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) row_sum[i] += power[i > j ? i - j : j - i];
  }
  double total = 0.0;  // 1'Sigma 1
  for (double c : row_sum) total += c;
  // X = Sigma - (1 c' + c 1') / n + (1'Sigma 1 / n^2) 1 1'.
  std::vector<double> x(n * n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      x[i * n + j] = power[i > j ? i - j : j - i] -
                     (row_sum[i] + row_sum[j]) / dn + total / (dn * dn);
    }
  }
  Ar1Traces t;
  t.vif = total / dn;
  for (size_t i = 0; i < n; ++i) {
    t.x += x[i * n + i];
    if (i + 1 < n) t.lx += x[i * n + i + 1];
    for (size_t j = 0; j < n; ++j) t.x2 += x[i * n + j] * x[i * n + j];
  }
  // tr(L X^2) = sum_t (X^2)_{t,t+1}, L having 1/2 either side of its
  // diagonal and X^2 symmetric.
  for (size_t i = 0; i + 1 < n; ++i) {
    for (size_t k = 0; k < n; ++k) t.lx2 += x[i * n + k] * x[k * n + i + 1];
  }
  return t;
}

}  // namespace

double ExpectedLag1(double rho, int64_t n) {
  if (n < 3) return NAN;
  const Ar1Traces t = Ar1QuadraticTraces(rho, n);
  const double mean_n = t.lx;
  const double mean_d = t.x;
  const double var_d = 2.0 * t.x2;
  const double cov_nd = 2.0 * t.lx2;
  return mean_n / mean_d - cov_nd / (mean_d * mean_d) +
         mean_n * var_d / (mean_d * mean_d * mean_d);
}

double Ar1VarianceInflation(double rho, int64_t n) {
  if (!(rho > 0.0) || n < 2) return 1.0;
  const auto dn = static_cast<double>(n);
  const double one_minus = 1.0 - rho;
  return (1.0 + rho) / one_minus -
         2.0 * rho * (1.0 - std::pow(rho, dn)) / (dn * one_minus * one_minus);
}

SeriesDiagnostics DiagnoseSeries(std::span<const double> in_order,
                                 SeriesScale scale) {
  SeriesDiagnostics d;
  d.n = static_cast<int64_t>(in_order.size());
  d.effective_n = static_cast<double>(d.n);
  d.dof = static_cast<double>(d.n - 1);
  if (d.n < kMinDiagnosedSamples) return d;
  if (std::any_of(in_order.begin(), in_order.end(),
                  [](double x) { return !std::isfinite(x); })) {
    return d;
  }
  {
    const auto [lo, hi] = std::minmax_element(in_order.begin(), in_order.end());
    const double magnitude = std::max(std::fabs(*lo), std::fabs(*hi));
    if (*hi - *lo <= kSeriesResolution * magnitude) return d;
  }
  d.log_scale = scale == SeriesScale::kAuto &&
                std::all_of(in_order.begin(), in_order.end(),
                            [](double x) { return x > 0.0; });
  SampleBuffer<double> y(in_order.begin(), in_order.end());
  if (d.log_scale) {
    for (double& v : y) v = std::log(v);
  }
  const auto n = static_cast<double>(d.n);

  d.lag1 = Lag1(y);
  if (std::isfinite(d.lag1)) {
    d.rho = CorrectedRho(y, d.lag1);
    const double null_sd = (n - 2.0) / (n * std::sqrt(n - 1.0));
    const double z = (d.lag1 + 1.0 / n) / null_sd;
    d.p_autocorrelation =
        boost::math::cdf(boost::math::complement(Normal(), z));
    d.autocorrelated = d.p_autocorrelation < kSerialTestAlpha && d.rho > 0.0;
  }
  if (d.autocorrelated) SetAr1Inflation(d);

  const size_t quarter = in_order.size() / 4;
  const double first = MedianOfCopy(in_order.first(quarter));
  const double last = MedianOfCopy(in_order.last(quarter));
  d.drift = d.log_scale ? last / first - 1.0 : last - first;
  d.p_drift = MannKendallP(y);
  d.drifting = d.p_drift < kSerialTestAlpha;

  const Step step = PettittStep(y);
  d.p_level_shift = step.p;
  d.shift_at = static_cast<int64_t>(step.at);
  if (step.at > 0) {
    const double before = MedianOfCopy(in_order.first(step.at));
    const double after = MedianOfCopy(in_order.subspan(step.at));
    d.level_shift = d.log_scale ? after / before - 1.0 : after - before;
  }
  d.shifted = d.p_level_shift < kSerialTestAlpha;

  if (d.n >= kMinBimodalitySamples) {
    const Bimodality b = FindBimodality(y);
    d.bimodal = b.bimodal;
    if (b.bimodal) {
      d.low_mode = d.log_scale ? std::exp(b.low_mode) : b.low_mode;
      d.high_mode = d.log_scale ? std::exp(b.high_mode) : b.high_mode;
      d.high_share = b.high_share;
    }
  }
  return d;
}

void SetAr1Inflation(SeriesDiagnostics& d) {
  const auto n = static_cast<double>(d.n);
  const double rho2 = d.rho * d.rho;
  if (d.n >= kSmallSampleAr1) {
    d.variance_inflation = Ar1VarianceInflation(d.rho, d.n);
    d.effective_n = n / d.variance_inflation;
    d.dof = std::max(1.0, n * (1.0 - rho2) / (3.0 + rho2));
    return;
  }
  const double z = boost::math::quantile(Normal(), kSmallSampleRhoLevel);
  const double base = std::max(0.0, d.rho);
  SetAr1InflationAt(
      d, std::min(kMaxRho, base + z * std::sqrt((1.0 - base * base) / n)),
      /*pooled=*/false);
}

void SetAr1InflationAt(SeriesDiagnostics& d, double rho, bool pooled) {
  const auto n = static_cast<double>(d.n);
  const Ar1Traces t = Ar1QuadraticTraces(std::clamp(rho, 0.0, kMaxRho), d.n);
  d.rho_used = rho;
  d.rho_pooled = pooled;
  d.variance_inflation = t.vif * (n - 1.0) / std::max(1.0, t.x);
  d.effective_n = n / d.variance_inflation;
  d.dof = std::max(1.0, t.x * t.x / t.x2);
}

void MarkAutocorrelated(SeriesDiagnostics& d, double run_rho) {
  if (d.n < kMinDiagnosedSamples || !std::isfinite(d.rho)) return;
  if (d.n < kSmallSampleAr1) {
    // The run's estimate replaces the series' own (or its bound): from
    // 10 samples one series says little about rho, the run's 14 say more.
    if (!std::isfinite(run_rho)) return;
    d.autocorrelated = true;
    SetAr1InflationAt(d, run_rho, /*pooled=*/true);
    return;
  }
  // From the small-sample size on, at the series' own estimate, which
  // must then be positive.
  if (d.autocorrelated || !(d.rho > 0.0)) return;
  d.autocorrelated = true;
  SetAr1Inflation(d);
}

PooledLag1 PooledLag1Test(std::span<const SeriesDiagnostics* const> series) {
  PooledLag1 out;
  double sum = 0.0;
  for (const SeriesDiagnostics* d : series) {
    if (d == nullptr || d->n < kMinDiagnosedSamples ||
        !std::isfinite(d->lag1)) {
      continue;
    }
    const auto n = static_cast<double>(d->n);
    sum += (d->lag1 + 1.0 / n) / ((n - 2.0) / (n * std::sqrt(n - 1.0)));
    ++out.series;
  }
  if (out.series == 0) return out;
  out.z = sum / std::sqrt(static_cast<double>(out.series));
  out.p_value = boost::math::cdf(boost::math::complement(Normal(), out.z));
  out.autocorrelated = out.p_value < kSerialTestAlpha;
  // The shared rho from the short series: sum_i E r1(rho, n_i) = sum_i r1_i,
  // solved by bisection (E r1 rises with rho), the lengths grouped so each
  // distinct n costs one O(n^2) evaluation per step.
  std::vector<std::pair<int64_t, int64_t>> lengths;  // (n, how many)
  double r1_sum = 0.0;
  for (const SeriesDiagnostics* d : series) {
    if (d == nullptr || d->n < kMinDiagnosedSamples ||
        d->n >= kSmallSampleAr1 || !std::isfinite(d->lag1)) {
      continue;
    }
    r1_sum += d->lag1;
    auto it = std::find_if(lengths.begin(), lengths.end(),
                           [&](const auto& l) { return l.first == d->n; });
    if (it == lengths.end()) {
      lengths.emplace_back(d->n, 1);
    } else {
      ++it->second;
    }
  }
  if (lengths.empty()) return out;
  auto excess = [&](double rho) {
    double e = -r1_sum;
    for (const auto& [n, count] : lengths) {
      e += static_cast<double>(count) * ExpectedLag1(rho, n);
    }
    return e;
  };
  // E r1 rises with rho (checked for n = 8-49), so bisection finds the one
  // root; 0 and kMaxRho when the sum lies outside the range.
  auto solve = [&](double shift) {
    if (excess(0.0) >= shift) return 0.0;
    if (excess(kMaxRho) <= shift) return kMaxRho;
    double lo = 0.0;
    double hi = kMaxRho;
    for (int step = 0; step < 40; ++step) {
      const double mid = (lo + hi) / 2.0;
      (excess(mid) < shift ? lo : hi) = mid;
    }
    return (lo + hi) / 2.0;
  };
  const double estimate = solve(0.0);
  // As for one short series (SetAr1Inflation), the inflation is taken at
  // the kSmallSampleRhoLevel upper bound: the sum of r1 raised by z times
  // its Bartlett standard error at the estimate, sqrt(sum (1 - rho^2)/n_i).
  double variance = 0.0;
  for (const auto& [n, count] : lengths) {
    variance += static_cast<double>(count) * (1.0 - estimate * estimate) /
                static_cast<double>(n);
  }
  const double z = boost::math::quantile(Normal(), kSmallSampleRhoLevel);
  out.rho = solve(z * std::sqrt(variance));
  return out;
}

std::vector<std::string> DiagnosticNotes(const SeriesDiagnostics& d) {
  std::vector<std::string> notes;
  if (d.autocorrelated) {
    std::string bound;
    if (std::isfinite(d.rho_used)) {
      bound = absl::StrFormat(
          " (allowed for at %s %.2f: fewer than %d samples)",
          d.rho_pooled ? "the run's \xCF\x81" : "its upper bound", d.rho_used,
          kSmallSampleAr1);
    }
    notes.push_back(absl::StrFormat(
        "autocorrelated: \xCF\x81\xCC\x82 %.2f, effective n %.0f of %d%s",
        d.rho, std::max(1.0, std::floor(d.effective_n)), d.n, bound));
  }
  if (d.drifting) {
    notes.push_back(absl::StrFormat(
        "drift: %s from the first to the last quarter of the run "
        "(Mann-Kendall p %.2g)",
        d.log_scale ? Percent(d.drift) : absl::StrFormat("%+.3g", d.drift),
        d.p_drift));
  }
  if (d.shifted) {
    notes.push_back(absl::StrFormat(
        "level shift: %s from sample %d on (%s)",
        d.log_scale ? Percent(d.level_shift)
                    : absl::StrFormat("%+.3g", d.level_shift),
        d.shift_at + 1, PValueClause("Pettitt p", d.p_level_shift)));
  }
  if (d.bimodal) {
    notes.push_back(absl::StrFormat(
        "bimodal: %.0f%% of samples in a second mode %s", d.high_share * 100,
        d.log_scale ? absl::StrCat(Percent(d.high_mode / d.low_mode - 1.0),
                                   " above the first")
                    : absl::StrFormat("%+.3g above the first",
                                      d.high_mode - d.low_mode)));
  }
  return notes;
}

MeanTest DependentMeanTest(std::span<const double> a,
                           const SeriesDiagnostics& da,
                           std::span<const double> b,
                           const SeriesDiagnostics& db, double confidence) {
  MeanTest out;
  if (b.size() < 2 || (!a.empty() && a.size() < 2) ||
      !(confidence > 0.0 && confidence < 1.0)) {
    return out;
  }
  struct Side {
    double mean;
    double var_of_mean;
    double dof;
  };
  auto side = [](std::span<const double> x, const SeriesDiagnostics& dx) {
    const double m = MeanOf(x);
    double ss = 0.0;
    for (double v : x) ss += (v - m) * (v - m);
    const auto n = static_cast<double>(x.size());
    const bool use = dx.n == static_cast<int64_t>(x.size());
    return Side{
        .mean = m,
        .var_of_mean = ss / (n - 1.0) / n * (use ? dx.variance_inflation : 1.0),
        .dof = use ? dx.dof : n - 1.0};
  };
  const Side sb = side(b, db);
  Side sa{.mean = 0.0, .var_of_mean = 0.0, .dof = 1.0};
  if (!a.empty()) sa = side(a, da);
  out.estimate = sb.mean - sa.mean;
  const double var = sa.var_of_mean + sb.var_of_mean;
  if (!(var > 0.0)) {
    out.statistic =
        out.estimate == 0.0 ? 0.0 : std::copysign(INFINITY, out.estimate);
    out.p_value = out.estimate == 0.0 ? 1.0 : 0.0;
    out.interval = Interval{
        .low = out.estimate, .high = out.estimate, .level = confidence};
    return out;
  }
  const double se = std::sqrt(var);
  out.df = var * var /
           (sa.var_of_mean * sa.var_of_mean / sa.dof +
            sb.var_of_mean * sb.var_of_mean / sb.dof);
  out.statistic = out.estimate / se;
  const StudentT t_dist(out.df);
  out.p_value = std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(
                                        t_dist, std::fabs(out.statistic))));
  const double q = boost::math::quantile(t_dist, (1.0 + confidence) / 2.0);
  out.interval = Interval{.low = out.estimate - q * se,
                          .high = out.estimate + q * se,
                          .level = confidence};
  return out;
}

}  // namespace trn::stats
