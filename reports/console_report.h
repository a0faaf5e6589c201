// The terminal report: per family a summary table with intervals and
// speed-ups, NKI benchmark figures and series notes, then per-variant op
// tables; a measured run shows every metric of each workload instead of the
// family tables. Tables
// wider than the terminal fold their columns (text_table.h).
#ifndef TRNBENCH_REPORTS_CONSOLE_REPORT_H_
#define TRNBENCH_REPORTS_CONSOLE_REPORT_H_

#include <string>

#include "harness/runner/results.h"
#include "reports/text_table.h"

namespace trn {

std::string RenderConsoleReport(const RunResult& run,
                                const ConsoleStyle& style = {});

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CONSOLE_REPORT_H_
