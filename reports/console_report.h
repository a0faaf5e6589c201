// The terminal report: per family a summary table with intervals and
// speed-ups, NKI benchmark figures, then per-variant op tables. Tables
// wider than the terminal fold their columns (text_table.h).
#ifndef TRNBENCH_REPORTS_CONSOLE_REPORT_H_
#define TRNBENCH_REPORTS_CONSOLE_REPORT_H_

#include <string>

#include "harness/results.h"
#include "reports/text_table.h"

namespace trn {

std::string RenderConsoleReport(const RunResult& run,
                                const ConsoleStyle& style = {});

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CONSOLE_REPORT_H_
