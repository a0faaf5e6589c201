// Renders a comparison with baselines: the verdict table people and CI logs
// read, and its JSON form.
#ifndef TRNBENCH_REPORTS_COMPARISON_REPORT_H_
#define TRNBENCH_REPORTS_COMPARISON_REPORT_H_

#include <string>

#include "harness/comparison.h"
#include "nlohmann/json.hpp"

namespace trn {

// `color`: ANSI colours for verdicts (callers decide: only on a terminal).
std::string RenderComparisonReport(const ComparisonReport& report,
                                   bool color = false);
nlohmann::ordered_json ComparisonToJson(const ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_COMPARISON_REPORT_H_
