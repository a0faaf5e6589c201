// The terminal report: per family a summary table with intervals and
// speed-ups, NKI benchmark figures, then per-variant op tables.
#ifndef TRNBENCH_REPORTS_CONSOLE_REPORT_H_
#define TRNBENCH_REPORTS_CONSOLE_REPORT_H_

#include <string>

#include "harness/results.h"

namespace trn {

// `color`: bold section headings (callers decide: only on a terminal).
std::string RenderConsoleReport(const RunResult& run, bool color = false);

// A duration in microseconds, scaled to a readable unit.
std::string FormatMicros(double us);
// A value in its metric's unit: microseconds scaled, fractions as percents,
// rates per second, other units as "<value> <unit>".
std::string FormatInUnit(const std::string& unit, double x);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CONSOLE_REPORT_H_
