#ifndef TRNBENCH_HARNESS_SUMMARY_JSON_H_
#define TRNBENCH_HARNESS_SUMMARY_JSON_H_

#include "harness/statistics.h"
#include "nlohmann/json.hpp"

namespace trn {

// JSON has no NaN or infinity: an undefined statistic is written as null.
nlohmann::ordered_json JsonNumber(double x);

// A summary's fields, flat, as documented in docs/results-format.md.
nlohmann::ordered_json SummaryToJson(const stats::Summary& s);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_SUMMARY_JSON_H_
