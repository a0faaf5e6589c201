#ifndef TRNBENCH_HARNESS_SUMMARY_JSON_H_
#define TRNBENCH_HARNESS_SUMMARY_JSON_H_

#include "harness/results.h"
#include "harness/statistics.h"
#include "nlohmann/json.hpp"

namespace trn {

// JSON has no NaN or infinity: an undefined statistic is written as null.
nlohmann::ordered_json JsonNumber(double x);

// A summary's fields, flat, as documented in docs/results-format.md.
nlohmann::ordered_json SummaryToJson(const stats::Summary& s);

// The schedule object of results and profile files: wait, warmup, repeat
// and first_active_index.
nlohmann::ordered_json ScheduleToJson(const Schedule& s);

// What identifies a workload in results and profile files: name, family,
// mode, description, spec_file and spec_hash, set on `j` in that order.
void SetWorkloadIdentity(const WorkloadResult& w, nlohmann::ordered_json& j);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_SUMMARY_JSON_H_
