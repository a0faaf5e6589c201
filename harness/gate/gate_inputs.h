// What the gate checks of its own inputs, so that it cannot be talked into
// passing: a gated metric missing on one side, a workload with nothing to
// compare, and a comparison that cannot be computed are errors that name
// the file and the metric, never a silent "no regression". Leniency is
// explicit (CompareOptions::allow_unchecked, --allow-unchecked).
#ifndef TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_
#define TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_

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

}  // namespace trn

#endif  // TRNBENCH_HARNESS_GATE_GATE_INPUTS_H_
