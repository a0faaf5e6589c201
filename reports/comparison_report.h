// Renders a comparison with baselines: the verdict table people and CI logs
// read, and its JSON form.
#ifndef TRNBENCH_REPORTS_COMPARISON_REPORT_H_
#define TRNBENCH_REPORTS_COMPARISON_REPORT_H_

#include <string>

#include "harness/gate/comparison.h"
#include "nlohmann/json.hpp"
#include "reports/text_table.h"

namespace trn {

// The table of comparisons, the reason of every verdict that is not
// `unchanged`, the notes (each once) and the result line.
std::string RenderComparisonReport(const ComparisonReport& report,
                                   const ConsoleStyle& style = {});

nlohmann::ordered_json ComparisonToJson(const ComparisonReport& report);
// ComparisonToJson(report).dump(2) plus a newline, byte for byte, made one
// row at a time: the tree of 100k rows took ~250 MB.
std::string ComparisonJsonText(const ComparisonReport& report);
// One row of the comparison's "rows" (docs/results-format.md).
nlohmann::ordered_json ComparisonRowToJson(const MetricComparison& row);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_COMPARISON_REPORT_H_
