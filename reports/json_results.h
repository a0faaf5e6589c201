// The versioned results document (docs/results-format.md).
#ifndef TRNBENCH_REPORTS_JSON_RESULTS_H_
#define TRNBENCH_REPORTS_JSON_RESULTS_H_

#include <string>

#include "harness/gate/comparison.h"
#include "harness/runner/results.h"
#include "nlohmann/json.hpp"

namespace trn {

// A workload's "speedup" object.
nlohmann::ordered_json SpeedupToJson(const Speedup& speedup);
// A `--kwarg` sweep point's "rank" object (docs/results-format.md).
nlohmann::ordered_json SweepRankToJson(const SweepRank& rank);

// `comparison`, when given, is included as the top-level "comparison".
nlohmann::ordered_json ResultsToJson(
    const RunResult& run, const ComparisonReport* comparison = nullptr);
// Pretty-printed, newline-terminated; byte-identical for identical results.
std::string ResultsToJsonText(const RunResult& run,
                              const ComparisonReport* comparison = nullptr);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_JSON_RESULTS_H_
