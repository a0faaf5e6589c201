#include "harness/gate/gate_inputs.h"

#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

}  // namespace trn
