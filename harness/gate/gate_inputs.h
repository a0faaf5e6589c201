// What the gate checks of its own inputs, so that it cannot be talked into
// passing: a gated metric missing on one side, a workload with nothing to
// compare, and a comparison that cannot be computed are errors that name
// the file and the metric, never a silent "no regression". Leniency is
// explicit (CompareOptions::allow_unchecked, --allow-unchecked).
#ifndef TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_
#define TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"

namespace trn {

// `metric` is gated and at least one side lacks it. Neither side: not a
// metric of this workload's mode, nullopt. One side: an InvalidArgument
// error naming the file and JSON pointer that lack it, or with
// `allow_unchecked` an inconclusive row that says what was not checked.
absl::StatusOr<std::optional<MetricComparison>> CheckMissingMetric(
    const Baseline& old_b, const Baseline& new_b, const std::string& metric,
    bool allow_unchecked);

// A workload of which no gated metric could be compared (both files lack
// all of them): an error naming the file, or with `allow_unchecked` an
// inconclusive row that says so.
absl::StatusOr<MetricComparison> NothingToCompare(
    const Baseline& old_b, const std::vector<std::string>& metrics,
    bool allow_unchecked);

// A decided comparison whose interval could not be computed (too few
// samples): an error naming the baseline's file and metric, or with
// `allow_unchecked` the row kept as inconclusive and marked "not checked".
absl::Status CheckComputed(MetricComparison& c, const Baseline& old_b,
                           bool allow_unchecked);

// A comparison with fewer samples per side than a gated comparison needs
// (stats::kMinGateSamples), or so few that with Holm over `comparisons`
// its rank test cannot reach `alpha` (stats::MinSamplesForGate): an error
// naming the baseline's file and metric and the repeats per side this
// many comparisons need, or with `allow_unchecked` the row marked "not
// checked". Rows without samples or p-value are left to CheckComputed.
absl::Status CheckSampleSize(MetricComparison& c, const Baseline& old_b,
                             int64_t comparisons, double alpha,
                             bool allow_unchecked);

// Before a run: whether the gated comparisons of `repeat` new samples each
// against `baselines` can reach alpha at all (the same rule as
// CheckSampleSize, with each baseline's own sample count and pairing: same
// seed and schedule). Only what the run will compare counts: a baseline of
// another device than `device`, or one that lacks a gated metric the run
// will have (`run_metrics`: workload -> the gated metrics its run
// produces), is left to the comparison's own, more precise errors (the
// device, the missing metric), and Holm's m is the number of (workload,
// metric) pairs that remain. The error names the first baseline that
// cannot, and the repeats per side this many comparisons need.
absl::Status CheckGateCanReachAlpha(
    const std::vector<Baseline>& baselines, const std::string& device,
    uint64_t seed, const Schedule& schedule,
    const std::map<std::string, std::vector<std::string>>& run_metrics,
    double alpha);

// The message of a gate that cannot reach alpha: "N samples per side
// cannot reach alpha 0.05 over M comparisons (Holm): ...", shared by the
// check before a run and the one after it.
std::string SampleSizeProblem(int64_t n_baseline, int64_t n_current,
                              bool paired, int64_t comparisons, double alpha);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_
