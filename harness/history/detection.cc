#include "harness/history/detection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "harness/history/drift.h"

namespace trn::history {
namespace {

// Whether the nights [c, e) all lie clear of the level before the change:
// each night's interval beyond the median of [a, c) in the direction of the
// change. A night that is a mixture of two modes has an interval spanning
// both, so a run of bimodal nights cannot pass for a new level.
bool Clear(const LogSeries& s, int a, int c, int e) {
  if (s.low.empty() || s.high.empty()) return true;
  const double before =
      Median(std::vector<double>(s.level.begin() + a, s.level.begin() + c));
  const double after =
      Median(std::vector<double>(s.level.begin() + c, s.level.begin() + e));
  for (int k = c; k < e; ++k) {
    const auto i = static_cast<size_t>(k);
    if (after > before ? !(s.low[i] > before) : !(s.high[i] < before)) {
      return false;
    }
  }
  return true;
}

// The window with every single-night spike replaced by the median of its
// neighbours (the next two for the first night, the previous two for the
// last). A spike at a window's edge is concordant or discordant with every
// other night, and alone can make a Mann-Kendall test significant; a ramp
// or a step is left as it is, each of its nights lying near its
// neighbours' median.
std::vector<double> WithoutSpikes(std::span<const double> w, double scale) {
  std::vector<double> out(w.begin(), w.end());
  const size_t n = w.size();
  if (n < 3) return out;
  constexpr double kSpike = 4.0;  // noise scales from the neighbours
  for (size_t i = 0; i < n; ++i) {
    const size_t a = i == 0 ? 1 : (i == n - 1 ? n - 3 : i - 1);
    const size_t b = i == 0 ? 2 : (i == n - 1 ? n - 2 : i + 1);
    const double around = 0.5 * (w[a] + w[b]);
    const bool beyond_both = (w[i] - w[a]) * (w[i] - w[b]) > 0;
    if (beyond_both && std::fabs(w[i] - around) > kSpike * scale) {
      out[i] = around;
    }
  }
  return out;
}

}  // namespace

std::vector<Candidate> SeriesCandidates(const LogSeries& series,
                                        const L1CostTable& table, int n,
                                        const DetectOptions& options,
                                        double* scale_out) {
  const std::span<const double> y = series.level;
  std::vector<Candidate> out;
  const std::span<const double> prefix = y.first(static_cast<size_t>(n));
  const double scale = NoiseScaleFromDifferences(prefix, options.scale_floor);
  if (scale_out != nullptr) *scale_out = scale;
  const std::vector<int> cps =
      SegmentL1Prefix(table, n, scale, options.segmentation);
  const int confirm = options.confirm_nights;
  int last_step = 0;
  for (size_t i = 0; i < cps.size(); ++i) {
    const int a = i == 0 ? 0 : cps[i - 1];
    const int c = cps[i];
    const int e = i + 1 < cps.size() ? cps[i + 1] : n;
    const bool long_before = c - a >= confirm;
    const bool long_after = e - c >= confirm;
    const bool at_end = e == n;
    // A short segment inside the series is a transient (a spike that
    // outlived a night, a bimodal pair of nights): neither of its edges is
    // a change of level.
    if (!long_before || (!long_after && !at_end)) continue;
    const ShiftTest t = TestShift(prefix, a, c, e, scale, n);
    // Only a step large enough to report restarts the drift window: the
    // small steps a segmentation cuts a ramp into would hide the ramp.
    if (long_after && std::fabs(std::expm1(t.shift)) >= options.threshold &&
        std::fabs(t.shift) >= options.noise_multiple * scale) {
      last_step = c;
    }
    Candidate cand;
    cand.kind = AlertKind::kStep;
    cand.confirmable = long_after && Clear(series, a, c, c + confirm);
    cand.first = c;
    cand.last = c;
    cand.log_change = t.shift;
    cand.p = t.p;
    cand.scale = scale;
    out.push_back(cand);
  }
  // Drift: the nights since the last lasting change of level, at most a
  // window.
  const int start = std::max(last_step, n - options.drift_window);
  if (n - start >= options.drift_min_nights) {
    const std::vector<double> w =
        WithoutSpikes(prefix.subspan(static_cast<size_t>(start)), scale);
    const TrendTest mk = MannKendall(w);
    const double slope = TheilSenSlope(w);
    Candidate cand;
    cand.kind = AlertKind::kDrift;
    cand.confirmable = true;
    cand.first = start;
    cand.last = n - 1;
    cand.slope = slope;
    cand.log_change = slope * static_cast<double>(n - 1 - start);
    cand.p = mk.p;
    cand.scale = scale;
    out.push_back(cand);
  }
  return out;
}

void AdjustBenjaminiHochberg(std::span<Candidate*> candidates) {
  const size_t m = candidates.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return candidates[a]->p < candidates[b]->p;
  });
  double running = 1.0;
  for (size_t r = m; r-- > 0;) {
    Candidate* c = candidates[order[r]];
    const double adjusted =
        c->p * static_cast<double>(m) / static_cast<double>(r + 1);
    running = std::min(running, adjusted);
    c->q = std::min(1.0, running);
  }
}

bool Kept(const Candidate& c, const DetectOptions& options) {
  const double change = std::fabs(std::expm1(c.log_change));
  const double multiple = c.kind == AlertKind::kDrift
                              ? options.drift_noise_multiple
                              : options.noise_multiple;
  if (c.kind == AlertKind::kDrift && c.p > options.drift_max_p) return false;
  return c.q <= options.fdr && change >= options.threshold &&
         std::fabs(c.log_change) >= multiple * c.scale;
}

namespace {

struct Found {
  size_t series;
  Candidate cand;
  double scale;
};

struct LogData {
  std::vector<double> level;
  std::vector<double> low;
  std::vector<double> high;
};

// Every kept candidate of every series, without its last `drop` nights.
std::vector<Found> Analyse(const std::vector<LogData>& logs,
                           const std::vector<L1CostTable>& tables, int drop,
                           const DetectOptions& options, size_t* tests) {
  std::vector<Found> all;
  for (size_t i = 0; i < logs.size(); ++i) {
    const int n = static_cast<int>(logs[i].level.size()) - drop;
    if (n < 2) continue;
    double scale = 0;
    const LogSeries view{logs[i].level, logs[i].low, logs[i].high};
    for (const Candidate& c :
         SeriesCandidates(view, tables[i], n, options, &scale)) {
      all.push_back(Found{i, c, scale});
    }
  }
  std::vector<Candidate*> family;
  for (auto& f : all) family.push_back(&f.cand);
  AdjustBenjaminiHochberg(family);
  if (tests != nullptr) *tests = family.size();
  std::vector<Found> kept;
  for (auto& f : all) {
    if (Kept(f.cand, options)) kept.push_back(f);
  }
  return kept;
}

}  // namespace

bool Detection::NewConfirmedRegression() const {
  return std::any_of(alerts.begin(), alerts.end(), [](const Alert& a) {
    return a.is_new && a.regression && a.status == AlertStatus::kConfirmed;
  });
}

Detection Detect(std::span<const Series> series, const DetectOptions& options) {
  Detection d;
  d.series = series.size();
  std::vector<LogData> logs;
  std::vector<L1CostTable> tables;
  logs.reserve(series.size());
  tables.reserve(series.size());
  // A non-positive figure has no logarithm; it cannot come from a results
  // file (times and rates are positive), so it is read as the series' floor.
  auto log_of = [](double x) { return x > 0 ? std::log(x) : -745.0; };
  for (const Series& s : series) {
    LogData y;
    for (const NightPoint& p : s.points) {
      y.level.push_back(log_of(p.median));
      const bool interval = p.ci_low > 0 && p.ci_high >= p.ci_low;
      y.low.push_back(interval ? log_of(p.ci_low) : y.level.back());
      y.high.push_back(interval ? log_of(p.ci_high) : y.level.back());
    }
    d.nights += y.level.size();
    tables.emplace_back(y.level);
    logs.push_back(std::move(y));
  }
  const std::vector<Found> now = Analyse(logs, tables, 0, options, &d.tests);
  const std::vector<Found> before = Analyse(logs, tables, 1, options, nullptr);
  for (const Found& f : now) {
    const Series& s = series[f.series];
    Alert a;
    a.series = f.series;
    a.kind = f.cand.kind;
    a.status = f.cand.confirmable ? AlertStatus::kConfirmed
                                  : AlertStatus::kProvisional;
    a.regression = (f.cand.log_change > 0) == s.lower_is_better;
    a.first = f.cand.first;
    a.last = f.cand.last;
    a.change = std::expm1(f.cand.log_change);
    a.slope_per_night = std::expm1(f.cand.slope);
    a.noise = std::expm1(f.scale);
    a.p = f.cand.p;
    a.q = f.cand.q;
    const auto& pts = s.points;
    a.commit_from = a.first > 0 ? pts[static_cast<size_t>(a.first - 1)].commit
                                : std::string();
    a.commit_to = a.kind == AlertKind::kStep
                      ? pts[static_cast<size_t>(a.first)].commit
                      : pts[static_cast<size_t>(a.last)].commit;
    // New: yesterday's data did not already hold it as confirmed (a step
    // within a night of the same place, a drift of the same sign).
    a.is_new = true;
    for (const Found& b : before) {
      if (b.series != f.series || b.cand.kind != f.cand.kind ||
          !b.cand.confirmable) {
        continue;
      }
      const bool same =
          f.cand.kind == AlertKind::kStep
              ? std::abs(b.cand.first - f.cand.first) <= 1
              : (b.cand.log_change > 0) == (f.cand.log_change > 0);
      if (same) a.is_new = false;
    }
    d.alerts.push_back(std::move(a));
  }
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (size_t i = 0; i < d.alerts.size(); ++i) {
    const Alert& a = d.alerts[i];
    auto key = std::make_pair(a.commit_from, a.commit_to);
    auto [it, inserted] = index.emplace(key, d.groups.size());
    if (inserted) {
      d.groups.push_back(AlertGroup{a.commit_from, a.commit_to, {}, false});
    }
    AlertGroup& g = d.groups[it->second];
    g.alerts.push_back(i);
    g.confirmed_regression =
        g.confirmed_regression ||
        (a.regression && a.status == AlertStatus::kConfirmed);
  }
  return d;
}

}  // namespace trn::history
