// The versioned results document (docs/results-format.md).
#ifndef TRNBENCH_REPORTS_JSON_RESULTS_H_
#define TRNBENCH_REPORTS_JSON_RESULTS_H_

#include <string>

#include "harness/results.h"
#include "nlohmann/json.hpp"

namespace trn {

nlohmann::ordered_json ResultsToJson(const RunResult& run);
// Pretty-printed, newline-terminated; byte-identical for identical results.
std::string ResultsToJsonText(const RunResult& run);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_JSON_RESULTS_H_
