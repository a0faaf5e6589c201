// The JSON of a measurement's provenance and of a summary without samples,
// shared by the results and baseline writers and readers
// (docs/results-format.md, docs/baseline-format.md).
#ifndef TRNBENCH_HARNESS_IMPORT_MEASUREMENT_JSON_H_
#define TRNBENCH_HARNESS_IMPORT_MEASUREMENT_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/runner/results.h"
#include "nlohmann/json.hpp"

namespace trn::import {

nlohmann::ordered_json MeasurementToJson(const Measurement& m);
// {"p1": 20, "p50": 20, "p99": 21}
nlohmann::ordered_json PercentilesToJson(
    const std::vector<std::pair<double, double>>& percentiles);

// The "measurement" object at `pointer` of `file`.
absl::StatusOr<Measurement> MeasurementFromJson(const nlohmann::json& j,
                                                absl::string_view file,
                                                const std::string& pointer);
// An object keyed by percent ("50", "99.9" or "p50") with non-decreasing
// finite values; sorted by percent.
absl::StatusOr<std::vector<std::pair<double, double>>> PercentilesFromJson(
    const nlohmann::json& obj, absl::string_view file,
    const std::string& pointer);

// The summary of a metric known only by percentiles (no samples): the
// tool's percentiles where the summary has a field for them, else NaN.
stats::Summary SummaryFromPercentiles(
    const std::vector<std::pair<double, double>>& percentiles);

}  // namespace trn::import

#endif  // TRNBENCH_HARNESS_IMPORT_MEASUREMENT_JSON_H_
