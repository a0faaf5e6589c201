#include "harness/gate/gate_inputs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "harness/statistics/sample_size.h"

namespace trn {
namespace {

std::string Where(const Baseline& b) {
  return b.file.empty() ? std::string("the run") : b.file;
}

// A row for what the gate did not check, allowed by --allow-unchecked.
MetricComparison Unchecked(const std::string& workload,
                           const std::string& metric, const std::string& what) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  MetricComparison c;
  c.workload = workload;
  c.metric = metric;
  c.verdict = Verdict::kInconclusive;
  c.unchecked = true;
  c.reason = absl::StrCat("not checked: ", what);
  c.change = c.change_interval.low = c.change_interval.high = kNaN;
  c.p_rank = c.p_t = c.p_adjusted = kNaN;
  return c;
}

}  // namespace

absl::StatusOr<std::optional<MetricComparison>> CheckMissingMetric(
    const Baseline& old_b, const Baseline& new_b, const std::string& metric,
    bool allow_unchecked) {
  const bool in_old = old_b.Find(metric) != nullptr;
  const bool in_new = new_b.Find(metric) != nullptr;
  if (!in_old && !in_new) return std::nullopt;
  const Baseline& lacking = in_old ? new_b : old_b;
  const Baseline& having = in_old ? old_b : new_b;
  const std::string what =
      absl::StrCat(Where(lacking), ": ", lacking.pointer, "/metrics/", metric,
                   ": missing; the gate judges ", metric, " of a ", having.mode,
                   " workload and ", Where(having), " has it");
  if (!allow_unchecked) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " (pass `allow_unchecked` to report it as not checked)"));
  }
  return Unchecked(new_b.workload, metric, what);
}

absl::StatusOr<MetricComparison> NothingToCompare(
    const Baseline& old_b, const std::vector<std::string>& metrics,
    bool allow_unchecked) {
  const std::string what = absl::StrCat(
      Where(old_b), ": ", old_b.pointer.empty() ? "/" : old_b.pointer,
      ": workload ", old_b.workload,
      " has none of the metrics the gate judges; expected at least one of ",
      absl::StrJoin(metrics, ", "));
  if (!allow_unchecked) return absl::InvalidArgumentError(what);
  return Unchecked(old_b.workload, "*", what);
}

absl::Status CheckComputed(MetricComparison& c, const Baseline& old_b,
                           bool allow_unchecked) {
  if (std::isfinite(c.change_interval.low) &&
      std::isfinite(c.change_interval.high)) {
    return absl::OkStatus();
  }
  const std::string what = absl::StrCat(
      "no interval of the change could be computed from ", c.n_baseline,
      " baseline and ", c.n_current, " new samples, so the gate cannot check ",
      c.workload, " ", c.metric);
  if (allow_unchecked) {
    c.verdict = Verdict::kInconclusive;
    c.unchecked = true;
    c.reason = absl::StrCat("not checked: ", what);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      Where(old_b), ": ", old_b.pointer, "/metrics/", c.metric, ": ", what,
      "; expected more samples per side (raise `repeat`), or "
      "`allow_unchecked` to report it as not checked"));
}

std::string SampleSizeProblem(int64_t n_baseline, int64_t n_current,
                              bool paired, int64_t comparisons, double alpha) {
  const int64_t n = std::min(n_baseline, n_current);
  const int64_t need = stats::MinSamplesForGate(comparisons, alpha, paired);
  if (n < stats::kMinGateSamples) {
    return absl::StrFormat(
        "%d baseline and %d new samples: a gated comparison needs at least "
        "%d per side (below that their order cannot be checked for serial "
        "dependence), and %d per side for %d comparisons at alpha %g",
        n_baseline, n_current, stats::kMinGateSamples, need, comparisons,
        alpha);
  }
  const double p_min = stats::SmallestRankP(n_baseline, n_current, paired);
  if (static_cast<double>(comparisons) * p_min < alpha) return "";
  return absl::StrFormat(
      "%d baseline and %d new samples cannot reach alpha %g over %d "
      "comparisons: the smallest %s p is %.3g, %.3g after Holm, so no "
      "regression could be called; expected at least %d repeats per side "
      "for %d comparisons",
      n_baseline, n_current, alpha, comparisons,
      paired ? "signed-rank" : "Mann-Whitney", p_min,
      static_cast<double>(comparisons) * p_min, need, comparisons);
}

absl::Status CheckGateCanReachAlpha(
    const std::vector<Baseline>& baselines, const std::string& device,
    uint64_t seed, const Schedule& schedule,
    const std::map<std::string, std::vector<std::string>>& run_metrics,
    double alpha) {
  // What will be compared: a measurement holds its own counts, a baseline
  // of another device is refused after the run by name, and one lacking a
  // metric the run has is refused (or not checked) by CheckMissingMetric.
  auto compared = [&](const Baseline& b) -> const std::vector<std::string>* {
    if (b.measured() || b.device != device) return nullptr;
    const auto it = run_metrics.find(b.workload);
    if (it == run_metrics.end() || it->second.empty()) return nullptr;
    for (const std::string& m : it->second) {
      if (b.Find(m) == nullptr) return nullptr;
    }
    return &it->second;
  };
  int64_t comparisons = 0;
  for (const Baseline& b : baselines) {
    if (const auto* metrics = compared(b)) {
      comparisons += static_cast<int64_t>(metrics->size());
    }
  }
  for (const Baseline& b : baselines) {
    if (compared(b) == nullptr) continue;
    const bool paired = b.seed == seed && b.schedule.wait == schedule.wait &&
                        b.schedule.warmup == schedule.warmup &&
                        b.schedule.repeat == schedule.repeat;
    const std::string what = SampleSizeProblem(
        b.schedule.repeat, schedule.repeat, paired, comparisons, alpha);
    if (what.empty()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        Where(b), ": ", b.workload, " ", what,
        "; refused before running (raise `repeat`, and save the baseline "
        "again with as many, or `allow_unchecked` to run anyway)"));
  }
  return absl::OkStatus();
}

absl::Status CheckSampleSize(MetricComparison& c, const Baseline& old_b,
                             int64_t comparisons, double alpha,
                             bool allow_unchecked) {
  if (std::isnan(c.p_value) || c.n_baseline == 0 || c.n_current == 0) {
    return absl::OkStatus();
  }
  const std::string what = SampleSizeProblem(c.n_baseline, c.n_current,
                                             c.paired, comparisons, alpha);
  if (what.empty()) return absl::OkStatus();
  if (allow_unchecked) {
    c.verdict = Verdict::kInconclusive;
    c.unchecked = true;
    c.reason = absl::StrCat("not checked: ", what);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      Where(old_b), ": ", old_b.pointer, "/metrics/", c.metric, ": ",
      c.workload, " ", what,
      " (raise `repeat` on both sides and save the "
      "baseline again, or `allow_unchecked` to report it as not checked)"));
}

}  // namespace trn
