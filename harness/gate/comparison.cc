#include "harness/gate/comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "boost/math/distributions/students_t.hpp"
#include "harness/gate/gate_inputs.h"
#include "harness/statistics/comparison_stats.h"
#include "harness/statistics/sample_size.h"
#include "support/p_value_text.h"
#include "support/status_macros.h"

namespace trn {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Past this the suggestion is an extrapolation nobody should act on: the
// estimate itself moves by more than its distance to the threshold.
constexpr int64_t kMaxSuggestedRepeats = 10'000;

// A one-sample t test on paired log differences: the parametric companion
// of the signed-rank test when both sides share their random streams.
double PairedTP(const std::vector<double>& d) {
  const size_t n = d.size();
  if (n < 2) return kNaN;
  double mean = 0;
  for (double x : d) mean += x;
  mean /= static_cast<double>(n);
  double ss = 0;
  for (double x : d) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (sd == 0) return mean == 0 ? 1.0 : 0.0;
  const double t = mean / (sd / std::sqrt(static_cast<double>(n)));
  boost::math::students_t dist(static_cast<double>(n - 1));
  return 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return stats::QuantileSorted(v, 0.5);
}

// The first non-stationary series of a comparison (a drift or a level
// shift at least half the threshold: a smaller one cannot move a verdict
// on that threshold), described for the reason; empty when none.
std::string NonStationarity(const MetricComparison& c) {
  const double material = c.threshold / 2;
  auto describe = [&](const stats::SeriesDiagnostics& d,
                      const char* side) -> std::string {
    if (d.drifting && std::isfinite(d.drift) &&
        std::fabs(d.drift) >= material) {
      return absl::StrFormat(
          "the %s run drifts %+.2f%% from its first to its last quarter "
          "(%s)",
          side, d.drift * 100, PValueClause("Mann-Kendall p", d.p_drift));
    }
    if (d.shifted && std::isfinite(d.level_shift) &&
        std::fabs(d.level_shift) >= material) {
      return absl::StrFormat(
          "the %s run has a level shift of %+.2f%% from sample %d on "
          "(%s)",
          side, d.level_shift * 100, d.shift_at + 1,
          PValueClause("Pettitt p", d.p_level_shift));
    }
    // Autocorrelated, and a step explains it as well (serial_dependence.h,
    // kSuspectedShiftAlpha).
    if (d.autocorrelated && d.p_level_shift < stats::kSuspectedShiftAlpha &&
        std::isfinite(d.level_shift) && std::fabs(d.level_shift) >= material) {
      return absl::StrFormat(
          "the %s run is autocorrelated and has a suspected level shift of "
          "%+.2f%% from sample %d on (%s)",
          side, d.level_shift * 100, d.shift_at + 1,
          PValueClause("Pettitt p", d.p_level_shift));
    }
    return "";
  };
  // Only log-scale series have relative sizes; a paired series of log
  // ratios is judged through its sides.
  for (const auto& [d, side] : {std::pair{&c.baseline_series, "baseline"},
                                std::pair{&c.current_series, "current"}}) {
    if (!d->log_scale) continue;
    std::string what = describe(*d, side);
    if (!what.empty()) return what;
  }
  return "";
}

}  // namespace

// Applies the threshold rule to a comparison whose adjusted p is known.
void DecideVerdict(MetricComparison& c, double alpha, int64_t comparisons) {
  const double lo = c.change_interval.low;
  const double hi = c.change_interval.high;
  const double thr = c.threshold;
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    c.verdict = Verdict::kInconclusive;
    c.reason =
        c.interval_withheld
            ? absl::StrFormat(
                  "no interval: its coverage is not established below %d "
                  "samples per side, whose serial correlation cannot be "
                  "checked",
                  stats::kMinDiagnosedSamples)
            : "no interval could be computed (too few samples)";
    return;
  }
  const int64_t n = std::min(c.n_baseline, c.n_current);
  // A run whose level moved inside it has no single distribution to
  // compare: no verdict, and no "more repeats" advice, since repeating
  // such a run does not make it stationary.
  if (const std::string what = NonStationarity(c); !what.empty()) {
    c.verdict = Verdict::kInconclusive;
    c.reason = absl::StrCat(
        "not stationary: ", what,
        "; more repeats of such a run will not settle it: find what "
        "changed during the run");
    return;
  }
  // Express the interval as "how much worse": positive is a regression.
  const double worse_lo = c.lower_is_better ? lo : -hi;
  const double worse_hi = c.lower_is_better ? hi : -lo;
  const bool significant = c.p_adjusted < alpha;
  const std::string iv =
      absl::StrFormat("[%+.2f%%, %+.2f%%]", lo * 100, hi * 100);
  const std::string th = absl::StrFormat("%.2f%%", thr * 100);
  const bool beyond_worse = worse_lo > thr;
  const bool beyond_better = worse_hi < -thr;
  if (significant && beyond_worse) {
    c.verdict = Verdict::kRegression;
    c.reason =
        absl::StrFormat("%s: interval %s lies beyond the %s threshold, %s",
                        c.lower_is_better ? "higher (worse)" : "lower (worse)",
                        iv, th, PValueClause("adjusted p", c.p_adjusted));
  } else if (significant && beyond_better) {
    c.verdict = Verdict::kImprovement;
    c.reason = absl::StrFormat(
        "%s: interval %s lies beyond the %s threshold, %s",
        c.lower_is_better ? "lower (better)" : "higher (better)", iv, th,
        PValueClause("adjusted p", c.p_adjusted));
  } else if (worse_lo >= -thr && worse_hi <= thr) {
    c.verdict = Verdict::kUnchanged;
    c.reason = absl::StrFormat("interval %s lies within ±%s", iv, th);
  } else if (beyond_worse || beyond_better) {
    // The interval clears the threshold but Holm's adjusted p does not
    // reach alpha: the cause is the p-value, not the interval.
    c.verdict = Verdict::kInconclusive;
    const int64_t need = stats::MinSamplesForGate(comparisons, alpha, c.paired);
    c.repeats_to_resolve = std::max(need, n + 1);
    c.reason = absl::StrFormat(
        "interval %s lies beyond the %s threshold but the %s "
        "does not reach alpha %.3g (Holm over %d comparisons); more repeats "
        "per side would lower it",
        iv, th, PValueClause("adjusted p", c.p_adjusted), alpha, comparisons);
  } else {
    c.verdict = Verdict::kInconclusive;
    // The interval narrows as 1/sqrt(n) (also with autocorrelation, whose
    // inflation does not depend on n); find the n at which it would clear
    // the threshold it straddles if the estimate stayed where it is.
    const double center = (worse_lo + worse_hi) / 2;
    const double half = (worse_hi - worse_lo) / 2;
    const double room = std::fabs(std::fabs(center) - thr);
    const double dn = static_cast<double>(n);
    const double need = dn * (half / room) * (half / room);
    const bool bounded = room > 0 && need <= kMaxSuggestedRepeats;
    c.repeats_to_resolve =
        bounded ? std::max(static_cast<int64_t>(std::ceil(need)), n + 1)
                : kMaxSuggestedRepeats;
    const std::string sig = absl::StrCat(
        significant ? " (the change is significant)" : "",
        c.autocorrelation_adjusted
            ? absl::StrCat(c.small_sample_dependence
                               ? " (widened for the serial correlation so few "
                                 "samples cannot rule out"
                               : " (widened for the samples' autocorrelation",
                           c.pooled_autocorrelation
                               ? ", by the lag-1 test pooled over the run"
                               : "",
                           ")")
            : "");
    if (bounded) {
      c.reason = absl::StrFormat(
          "interval %s straddles the ±%s threshold%s; about %d repeats per "
          "side would resolve it",
          iv, th, sig, c.repeats_to_resolve);
    } else {
      c.reason = absl::StrFormat(
          "interval %s straddles the ±%s threshold%s; its centre sits "
          "%.2f%% from the threshold, so more than %d repeats per side "
          "would be needed and more repeats alone are unlikely to settle "
          "it: the change is about the size of the threshold",
          iv, th, sig, room * 100, kMaxSuggestedRepeats);
    }
  }
}

namespace {

void AddSeriesNotes(const std::string& metric, const char* side,
                    const stats::SeriesDiagnostics& d,
                    std::vector<std::string>& notes) {
  for (const std::string& n : stats::DiagnosticNotes(d)) {
    notes.push_back(absl::StrCat(metric, " ", side, " ", n));
  }
}

// The metrics of `options` that both sides carry. A measurement of host
// time only (Google Benchmark, hyperfine, a trace without device events)
// has none of the default ones: it is judged by wall_time_us.
std::vector<std::string> GatedMetrics(const Baseline& a, const Baseline& b,
                                      const std::vector<std::string>& wanted) {
  // Modelled workloads are judged on every gated metric: one that either
  // side lacks is an error (gate_inputs.h), never silently left out. A
  // measurement holds only what its tool measured.
  if (!a.measured() && !b.measured()) return wanted;
  std::vector<std::string> out;
  for (const std::string& m : wanted) {
    if (a.Find(m) != nullptr && b.Find(m) != nullptr) out.push_back(m);
  }
  if (out.empty() && a.Find("wall_time_us") != nullptr &&
      b.Find("wall_time_us") != nullptr) {
    out.push_back("wall_time_us");
  }
  return out;
}

// A summary without samples (nki.benchmark's table, neuron-bench's
// info.json) has medians to set side by side but nothing to test.
void NoteSummaryWithoutSamples(const MetricResult& a, const MetricResult& b,
                               MetricComparison& c) {
  c.baseline_median = a.summary.median;
  c.current_median = b.summary.median;
  std::string moved;
  if (std::isfinite(a.summary.median) && std::isfinite(b.summary.median) &&
      a.summary.median > 0) {
    moved = absl::StrFormat("; the median moved %+.2f%%",
                            (b.summary.median / a.summary.median - 1) * 100);
  }
  c.notes.push_back(
      absl::StrCat("a summary without samples (percentiles only)", moved,
                   ": no rank test and no interval can be computed"));
}

// Says why a row's threshold is not the one its recorded figures ask
// for (ApplicableThreshold): a current side's above kMaxNoiseThreshold is
// capped; a baseline's may narrow the gate's threshold and never widen
// it, so one above the gate's is set aside, and one below it applies.
void ThresholdNotes(const Baseline& old_b, const Baseline& new_b, double flag,
                    double applied, std::vector<std::string>& notes) {
  auto who = [](const Baseline& b) {
    return b.file.empty() ? std::string("the run") : b.file;
  };
  const double current = new_b.noise_threshold;
  const double recorded = old_b.noise_threshold;
  if (std::isfinite(current) && current > kMaxNoiseThreshold) {
    notes.push_back(absl::StrFormat(
        "%s records noise_threshold %g; applied as the maximum, %.0f%%",
        who(new_b), current, kMaxNoiseThreshold * 100));
  }
  if (!std::isfinite(recorded)) return;
  const double gate =
      std::isfinite(current) ? std::min(current, kMaxNoiseThreshold) : flag;
  const std::string gate_source =
      std::isfinite(current)
          ? absl::StrFormat("%s's spec threshold", who(new_b))
          : std::string("--threshold");
  if (recorded > gate) {
    notes.push_back(absl::StrFormat(
        "%s records noise_threshold %g, wider than %s %.2f%%: a baseline "
        "may narrow the threshold, never widen it; %.2f%% applies",
        who(old_b), recorded, gate_source, gate * 100, applied * 100));
  } else if (recorded < gate) {
    notes.push_back(absl::StrFormat(
        "%s records noise_threshold %g, narrower than %s %.2f%%: "
        "applied",
        who(old_b), recorded, gate_source, gate * 100));
  }
}

struct Side {
  const Baseline* old_b;
  const Baseline* new_b;
  double threshold;
};

absl::StatusOr<ComparisonReport> CompareCore(
    const std::vector<Side>& sides, const std::vector<const Baseline*>& missing,
    const std::vector<std::string>& absent, const CompareOptions& options,
    std::string source) {
  ComparisonReport report;
  report.baseline_source = std::move(source);
  report.threshold = options.threshold;
  report.alpha = options.alpha;
  report.confidence = options.confidence;
  std::vector<size_t> tested;  // rows that take part in Holm's correction
  std::vector<const Baseline*> tested_old;  // the baseline of each
  struct Samples {
    const std::vector<double>* old_s;
    const std::vector<double>* new_s;
    bool paired;
  };
  std::vector<Samples> tested_samples;  // what each was computed from
  for (const Side& s : sides) {
    const size_t rows_before = report.rows.size();
    std::vector<std::string> notes;
    const bool both_model = !s.old_b->measured() && !s.new_b->measured();
    if (s.old_b->source != s.new_b->source) {
      notes.push_back(absl::StrCat(s.old_b->source, " -> ", s.new_b->source));
    }
    // A measurement has no spec, model or profile that could have changed.
    if (both_model && s.old_b->spec_hash != s.new_b->spec_hash) {
      notes.push_back("spec changed since the baseline");
    }
    if (both_model && s.old_b->model_version != s.new_b->model_version) {
      notes.push_back(absl::StrCat("model version ", s.old_b->model_version,
                                   " -> ", s.new_b->model_version));
    }
    if (both_model && s.old_b->device_hash != s.new_b->device_hash) {
      notes.push_back("device profile differs (edited or --set)");
    }
    ThresholdNotes(*s.old_b, *s.new_b, options.threshold, s.threshold, notes);
    // Only the model's samples share random streams; two measurements
    // with the same (absent) seed are independent.
    const bool paired = both_model && s.old_b->seed == s.new_b->seed &&
                        s.old_b->schedule.wait == s.new_b->schedule.wait &&
                        s.old_b->schedule.warmup == s.new_b->schedule.warmup &&
                        s.old_b->schedule.repeat == s.new_b->schedule.repeat;
    for (const std::string& metric :
         GatedMetrics(*s.old_b, *s.new_b, options.metrics)) {
      const MetricResult* a = s.old_b->Find(metric);
      const MetricResult* b = s.new_b->Find(metric);
      if (a == nullptr || b == nullptr) {
        // Never silently dropped: see gate_inputs.h.
        TRN_ASSIGN_OR_RETURN(std::optional<MetricComparison> unchecked,
                             CheckMissingMetric(*s.old_b, *s.new_b, metric,
                                                options.allow_unchecked));
        if (unchecked) report.rows.push_back(*std::move(unchecked));
        continue;
      }
      MetricComparison c =
          CompareSamples(a->samples, b->samples, paired, options.confidence);
      if (a->samples.empty() || b->samples.empty()) {
        NoteSummaryWithoutSamples(*a, *b, c);
      }
      c.workload = s.new_b->workload;
      c.metric = metric;
      c.lower_is_better = b->lower_is_better;
      c.threshold = s.threshold;
      c.notes.insert(c.notes.begin(), notes.begin(), notes.end());
      if (paired) c.notes.push_back("paired: same seeds on both sides");
      tested.push_back(report.rows.size());
      tested_old.push_back(s.old_b);
      tested_samples.push_back({&a->samples, &b->samples, paired});
      report.rows.push_back(std::move(c));
    }
    if (report.rows.size() == rows_before) {
      TRN_ASSIGN_OR_RETURN(
          MetricComparison none,
          NothingToCompare(*s.old_b, options.metrics, options.allow_unchecked));
      report.rows.push_back(std::move(none));
    }
  }
  // A correlation shared by the run's series is detected by pooling their
  // lag-1 statistics where each series alone is too short to show it; the
  // comparisons are then computed again with each series treated as
  // autocorrelated (serial_dependence.h).
  std::vector<const stats::SeriesDiagnostics*> series;
  for (size_t i : tested) {
    const MetricComparison& c = report.rows[i];
    if (c.paired) {
      series.push_back(&c.paired_series);
    } else {
      series.push_back(&c.baseline_series);
      series.push_back(&c.current_series);
    }
  }
  const stats::PooledLag1 pooled = stats::PooledLag1Test(series);
  for (size_t k = 0; k < tested.size(); ++k) {
    MetricComparison& c = report.rows[tested[k]];
    if (std::isnan(c.p_value)) continue;  // nothing was computed
    const int64_t n = std::min(c.n_baseline, c.n_current);
    if (n < stats::kMinDiagnosedSamples) {
      // Too few samples to diagnose their order at all: no interval
      // rather than one that assumes independence (issue 43).
      c.interval_withheld = true;
      c.change_interval.low = c.change_interval.high = kNaN;
      c.notes.push_back(absl::StrFormat(
          "%s: no interval: fewer than %d samples per side cannot show "
          "whether they are serially correlated, so the coverage of any "
          "interval is not established",
          c.metric, stats::kMinDiagnosedSamples));
      continue;
    }
    // Below kSmallSampleAr1 per side a lag-1 test cannot show samples
    // independent (at 10 per side it misses rho 0.5 in most runs, and the
    // rank interval then covered 0.80 instead of 0.95: issue 43), so every
    // such comparison allows for the correlation the run's series do not
    // rule out, detected or not.
    const bool small = n < stats::kSmallSampleAr1 && std::isfinite(pooled.rho);
    if (!pooled.autocorrelated && !small) continue;
    MetricComparison fresh =
        CompareSamples(*tested_samples[k].old_s, *tested_samples[k].new_s,
                       tested_samples[k].paired, options.confidence,
                       /*assume_autocorrelated=*/true, pooled.rho);
    fresh.workload = std::move(c.workload);
    fresh.metric = std::move(c.metric);
    fresh.lower_is_better = c.lower_is_better;
    fresh.threshold = c.threshold;
    fresh.notes = std::move(c.notes);
    if (pooled.autocorrelated) {
      fresh.pooled_autocorrelation = true;
      fresh.notes.push_back(absl::StrFormat(
          "the run's samples are autocorrelated by the lag-1 test pooled "
          "over its %d series (z %.2f, %s)",
          pooled.series, pooled.z, PValueClause("p", pooled.p_value)));
    } else {
      // Nothing was detected: the diagnostics say so, and the row says
      // what the interval allowed for.
      fresh.small_sample_dependence = fresh.autocorrelation_adjusted;
      fresh.baseline_series = c.baseline_series;
      fresh.current_series = c.current_series;
      fresh.paired_series = c.paired_series;
      if (fresh.small_sample_dependence) {
        fresh.notes.push_back(absl::StrFormat(
            "%s: fewer than %d samples per side are too few to show them "
            "independent: the interval allows for a serial correlation up "
            "to %.2f, the %.0f%% upper bound of the one the run's %d series "
            "share (lag-1 test z %.2f, %s)",
            fresh.metric, stats::kSmallSampleAr1, pooled.rho,
            stats::kSmallSampleRhoLevel * 100, pooled.series, pooled.z,
            PValueClause("p", pooled.p_value)));
      }
    }
    c = std::move(fresh);
  }
  for (size_t i : tested) {
    MetricComparison& c = report.rows[i];
    AddSeriesNotes(c.metric, "baseline", c.baseline_series, c.notes);
    AddSeriesNotes(c.metric, "current", c.current_series, c.notes);
    if (c.paired) {
      AddSeriesNotes(c.metric, "log ratios", c.paired_series, c.notes);
    }
    if (c.autocorrelation_adjusted) {
      c.notes.push_back(absl::StrCat(
          c.metric, ": interval and p allow for ",
          c.small_sample_dependence ? "that correlation"
                                    : "the autocorrelation",
          " (t test on log times with AR(1) effective sample sizes); no rank "
          "test"));
    }
  }
  // Holm adjusts each row's p_value (the test behind its interval); rows
  // without one take no part, and m counts only the rows that do.
  std::vector<double> raw;
  for (size_t i : tested) raw.push_back(report.rows[i].p_value);
  std::vector<double> adjusted = stats::HolmAdjust(raw);
  report.comparisons = std::count_if(raw.begin(), raw.end(),
                                     [](double p) { return !std::isnan(p); });
  for (size_t k = 0; k < tested.size(); ++k) {
    MetricComparison& c = report.rows[tested[k]];
    c.p_adjusted = adjusted[k];
    TRN_RETURN_IF_ERROR(CheckSampleSize(c, *tested_old[k], report.comparisons,
                                        options.alpha,
                                        options.allow_unchecked));
    if (c.unchecked) continue;
    DecideVerdict(c, options.alpha, report.comparisons);
    TRN_RETURN_IF_ERROR(
        CheckComputed(c, *tested_old[k], options.allow_unchecked));
  }
  // A new workload is shown with its own figures, one row per gated
  // metric it has (nothing to compare them with).
  for (const Baseline* b : missing) {
    MetricComparison c;
    c.workload = b->workload;
    c.metric = "*";
    c.verdict = Verdict::kNew;
    c.reason = "no baseline for this workload (allowed by --allow-missing)";
    c.change = kNaN;
    c.baseline_median = kNaN;
    c.p_rank = c.p_t = c.p_adjusted = kNaN;
    bool any = false;
    for (const std::string& metric : options.metrics) {
      const MetricResult* m = b->Find(metric);
      if (m == nullptr) continue;
      MetricComparison row = c;
      row.metric = metric;
      row.lower_is_better = m->lower_is_better;
      row.n_current = static_cast<int64_t>(m->samples.size());
      row.current_median = m->summary.median;
      report.rows.push_back(std::move(row));
      any = true;
    }
    if (!any) report.rows.push_back(std::move(c));
  }
  for (const std::string& w : absent) {
    MetricComparison c;
    c.workload = w;
    c.metric = "*";
    c.verdict = Verdict::kInconclusive;
    c.unchecked = true;
    c.reason = absl::StrCat(
        "not checked: the baselines have this workload and the results do "
        "not (allowed by --allow-missing)");
    c.change = c.change_interval.low = c.change_interval.high = kNaN;
    c.p_rank = c.p_t = c.p_value = c.p_adjusted = kNaN;
    report.rows.push_back(std::move(c));
  }
  return report;
}

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
      return "regression";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kNew:
      return "new";
  }
  return "?";
}

const std::vector<std::string>& DefaultGateMetrics() {
  static const std::vector<std::string> kMetrics = {
      "device_time_us", "ncl_us", "latency_us", "throughput_per_s"};
  return kMetrics;
}

bool IsGatedMetric(std::string_view metric) {
  const auto& gated = DefaultGateMetrics();
  return std::find(gated.begin(), gated.end(), metric) != gated.end();
}

bool ComparisonReport::AnyRegression() const {
  return std::any_of(rows.begin(), rows.end(), [](const MetricComparison& c) {
    return c.verdict == Verdict::kRegression;
  });
}

int64_t ComparisonReport::Unchecked() const {
  int64_t n = 0;
  for (const auto& row : rows) n += row.unchecked;
  return n;
}

MetricComparison CompareSamples(const std::vector<double>& baseline,
                                const std::vector<double>& current, bool paired,
                                double confidence, bool assume_autocorrelated,
                                double run_rho) {
  MetricComparison c;
  c.n_baseline = static_cast<int64_t>(baseline.size());
  c.n_current = static_cast<int64_t>(current.size());
  c.baseline_median = baseline.empty() ? kNaN : Median(baseline);
  c.current_median = current.empty() ? kNaN : Median(current);
  c.paired = paired && baseline.size() == current.size();
  auto positive = [](const std::vector<double>& v) {
    return !v.empty() &&
           std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (!positive(baseline) || !positive(current)) {
    c.change = kNaN;
    c.p_rank = c.p_t = c.p_value = kNaN;
    return c;
  }
  c.baseline_series = stats::DiagnoseSeries(baseline);
  c.current_series = stats::DiagnoseSeries(current);
  if (assume_autocorrelated && !c.paired) {
    stats::MarkAutocorrelated(c.baseline_series, run_rho);
    stats::MarkAutocorrelated(c.current_series, run_rho);
  }
  // Times are compared on a log scale: a shift there is a ratio, which is
  // what "x% slower" means, and log times are closer to symmetric.
  std::vector<double> la(baseline.size());
  std::vector<double> lb(current.size());
  std::transform(baseline.begin(), baseline.end(), la.begin(),
                 [](double x) { return std::log(x); });
  std::transform(current.begin(), current.end(), lb.begin(),
                 [](double x) { return std::log(x); });
  // The analysis chosen below, on the log scale.
  struct LogShift {
    double change = kNaN;
    stats::Interval interval;
  };
  auto ar1_t = [&c](const char* name, const stats::MeanTest& m) {
    c.p_rank = kNaN;
    c.t_test = name;
    c.p_t = m.p_value;
    return LogShift{m.estimate, m.interval};
  };
  auto rank = [&c](const char* name, const stats::ShiftEstimate& s,
                   const char* t_name, double p_t) {
    c.rank_test = name;
    c.p_rank = s.p_value;
    c.t_test = t_name;
    c.p_t = p_t;
    return LogShift{s.estimate, s.interval};
  };
  LogShift shift;
  if (c.paired) {
    std::vector<double> d(la.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = lb[i] - la[i];
    c.paired_series = stats::DiagnoseSeries(d, stats::SeriesScale::kLinear);
    if (assume_autocorrelated)
      stats::MarkAutocorrelated(c.paired_series, run_rho);
    c.autocorrelation_adjusted = c.paired_series.autocorrelated;
    shift = c.autocorrelation_adjusted
                ? ar1_t("paired-t-log-ar1",
                        stats::DependentMeanTest({}, {}, d, c.paired_series,
                                                 confidence))
                : rank("wilcoxon-signed-rank",
                       stats::WalshAverageShift(d, confidence), "paired-t-log",
                       PairedTP(d));
  } else {
    c.autocorrelation_adjusted =
        c.baseline_series.autocorrelated || c.current_series.autocorrelated;
    shift = c.autocorrelation_adjusted
                ? ar1_t("welch-t-log-ar1",
                        stats::DependentMeanTest(la, c.baseline_series, lb,
                                                 c.current_series, confidence))
                : rank("mann-whitney-u",
                       stats::HodgesLehmannShift(la, lb, confidence),
                       "welch-t-log", stats::WelchT(la, lb).p_value);
  }
  const double log_change = shift.change;
  const stats::Interval& log_interval = shift.interval;
  c.test = c.autocorrelation_adjusted ? c.t_test : c.rank_test;
  c.p_value = c.autocorrelation_adjusted ? c.p_t : c.p_rank;
  c.change = std::expm1(log_change);
  c.change_interval.low = std::expm1(log_interval.low);
  c.change_interval.high = std::expm1(log_interval.high);
  c.change_interval.level = log_interval.level;
  return c;
}

double ApplicableThreshold(double current_spec, double baseline_spec,
                           double flag) {
  const double gate = std::isfinite(current_spec)
                          ? std::min(current_spec, kMaxNoiseThreshold)
                          : flag;
  return std::isfinite(baseline_spec) ? std::min(gate, baseline_spec) : gate;
}

std::string ThresholdText(const ComparisonReport& report) {
  auto pct = [](double t) { return absl::StrFormat("±%.2f%%", t * 100); };
  std::vector<std::pair<std::string, double>> differing;
  bool any = false;
  bool uniform = true;
  double first = kNaN;
  for (const MetricComparison& c : report.rows) {
    if (c.verdict == Verdict::kNew) continue;
    if (!any) first = c.threshold;
    any = true;
    uniform = uniform && c.threshold == first;
    if (c.threshold != report.threshold &&
        std::none_of(differing.begin(), differing.end(),
                     [&](const auto& d) { return d.first == c.workload; })) {
      differing.emplace_back(c.workload, c.threshold);
    }
  }
  if (!any) return pct(report.threshold);
  if (uniform) return pct(first);
  std::string out = absl::StrCat(pct(report.threshold), " (");
  for (size_t i = 0; i < differing.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", pct(differing[i].second), " for ",
                    differing[i].first);
  }
  return absl::StrCat(out, ")");
}

absl::StatusOr<ComparisonReport> CompareWithBaselines(
    const RunResult& run, const std::vector<Baseline>& baselines,
    const CompareOptions& options) {
  std::vector<Baseline> current = BaselinesFromRun(run, "", "");
  const std::string source = options.source.empty() && !baselines.empty()
                                 ? baselines.front().file
                                 : options.source;
  std::vector<Side> sides;
  std::vector<const Baseline*> missing;
  // Linear in the workloads: a results file may hold 100k of them.
  absl::flat_hash_map<std::string_view, const Baseline*> by_name;
  for (const auto& b : baselines) by_name[b.workload] = &b;
  for (size_t i = 0; i < current.size(); ++i) {
    const auto found = by_name.find(current[i].workload);
    const Baseline* old_b = found == by_name.end() ? nullptr : found->second;
    if (old_b == nullptr) {
      if (!options.allow_missing) {
        return absl::InvalidArgumentError(absl::StrCat(
            source.empty() ? "" : source + ": ", "no baseline for workload ",
            current[i].workload,
            "; save one with `save_baseline`, or pass `allow_missing` to "
            "report it as new"));
      }
      missing.push_back(&current[i]);
      continue;
    }
    if (old_b->device != run.device) {
      return absl::InvalidArgumentError(absl::StrCat(
          old_b->file, ": /device/name: the baseline is for device ",
          old_b->device, ", this run is on ", run.device,
          "; compare against baselines/", run.device));
    }
    // The run records each spec's noise_threshold (runner.cc).
    const double thr = ApplicableThreshold(
        current[i].noise_threshold, old_b->noise_threshold, options.threshold);
    sides.push_back({old_b, &current[i], thr});
  }
  return CompareCore(sides, missing, {}, options, source);
}

absl::StatusOr<ComparisonReport> CompareFiles(
    const std::vector<Baseline>& old_side,
    const std::vector<Baseline>& new_side, const CompareOptions& options) {
  std::vector<Side> sides;
  std::vector<const Baseline*> missing;
  absl::flat_hash_map<std::string_view, const Baseline*> old_by_name;
  for (const auto& o : old_side) old_by_name.emplace(o.workload, &o);
  for (const auto& n : new_side) {
    const auto found = old_by_name.find(n.workload);
    if (found == old_by_name.end() && options.old_side_is_baseline_set) {
      if (!options.allow_missing) {
        return absl::InvalidArgumentError(absl::StrCat(
            options.source.empty() ? "" : options.source + ": ",
            "no baseline for workload ", n.workload, " of ", n.file,
            "; save one with `save_baseline`, or pass `allow_missing` to "
            "report it as new"));
      }
      missing.push_back(&n);
      continue;
    }
    if (found != old_by_name.end()) {
      const Baseline& o = *found->second;
      if (o.device != n.device) {
        return absl::InvalidArgumentError(
            absl::StrCat(n.file, ": /device/name: device ", n.device,
                         " cannot be compared "
                         "with device ",
                         o.device, " of ", o.file));
      }
      sides.push_back({&o, &n,
                       ApplicableThreshold(n.noise_threshold, o.noise_threshold,
                                           options.threshold)});
    }
  }
  if (sides.empty() && missing.empty()) {
    auto names = [](const std::vector<Baseline>& side) {
      std::string out;
      for (const Baseline& b : side) {
        absl::StrAppend(&out, out.empty() ? "" : ", ", b.workload);
      }
      return out.empty() ? std::string("none") : out;
    };
    auto file = [](const std::vector<Baseline>& side) {
      return side.empty() ? std::string("(empty)") : side.front().file;
    };
    return absl::InvalidArgumentError(absl::StrCat(
        file(new_side), ": no workload in common with ", file(old_side),
        "; expected the same workload on both sides (old: ", names(old_side),
        "; new: ", names(new_side), ")"));
  }
  const std::string source = !options.source.empty() ? options.source
                             : old_side.empty()      ? ""
                                                     : old_side.front().file;
  // A whole-suite gate is whole: what the baselines hold and the results
  // lack is refused, or with allow_missing listed as not checked.
  std::vector<std::string> absent;
  if (options.old_side_is_baseline_set) {
    absl::flat_hash_map<std::string_view, bool> in_new;
    for (const auto& n : new_side) in_new.emplace(n.workload, true);
    for (const std::string& w : options.baseline_set_workloads) {
      if (!in_new.contains(w)) absent.push_back(w);
    }
    if (!absent.empty() && !options.allow_missing) {
      std::string listed;
      for (size_t i = 0; i < absent.size() && i < 10; ++i) {
        absl::StrAppend(&listed, i == 0 ? "" : ", ", absent[i]);
      }
      if (absent.size() > 10) {
        absl::StrAppend(&listed, " and ", absent.size() - 10, " more");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          new_side.empty() ? std::string("the results") : new_side.front().file,
          ": /workloads: lacks ", absent.size(), " workload",
          absent.size() == 1 ? "" : "s", " that ",
          source.empty() ? std::string("the baselines") : source,
          " has baselines for (", listed,
          "); expected the whole suite, or `allow_missing` to gate only "
          "what the file holds"));
    }
  }
  return CompareCore(sides, missing, absent, options, source);
}

absl::StatusOr<Speedup> VersionSpeedup(const Baseline& old_version,
                                       const Baseline& new_version,
                                       std::string_view metric,
                                       double confidence) {
  auto samples = [&](const Baseline& b) -> absl::StatusOr<const MetricResult*> {
    for (const MetricResult& m : b.metrics) {
      if (m.name == metric && !m.samples.empty()) return &m;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        b.file, ": workload ", b.workload, " has no samples of ",
        std::string(metric), "; expected a results file or baseline with ",
        std::string(metric)));
  };
  TRN_ASSIGN_OR_RETURN(const MetricResult* old_m, samples(old_version));
  TRN_ASSIGN_OR_RETURN(const MetricResult* new_m, samples(new_version));
  Speedup s;
  s.baseline = old_version.workload;
  s.metric = std::string(metric);
  s.ratio = old_m->summary.median / new_m->summary.median;
  s.resamples = stats::kDefaultBootstrapResamples;
  s.bootstrap_seed = stats::kDefaultBootstrapSeed;
  s.interval =
      stats::BootstrapRatioOfMedians(old_m->samples, new_m->samples, confidence,
                                     s.resamples, s.bootstrap_seed);
  return s;
}

}  // namespace trn
