// CSV exports for spreadsheets and CI systems (docs/reports.md): RFC 4180
// (CRLF line ends, fields quoted only when needed, a header row).
#ifndef TRNBENCH_REPORTS_CSV_REPORT_H_
#define TRNBENCH_REPORTS_CSV_REPORT_H_

#include <string>

#include "harness/gate/comparison.h"
#include "harness/runner/results.h"

namespace trn {

// summary.csv: one row per workload x metric with every statistic and, when
// `comparison` is given, that metric's comparison with its baseline. The
// header is the same with or without a comparison; cells that do not apply
// or are undefined are empty.
std::string SummaryCsv(const RunResult& run,
                       const ComparisonReport* comparison = nullptr);

// samples.csv: long format, one row per sample: workload, metric, repeat
// (0-based recorded run), seed, value.
std::string SamplesCsv(const RunResult& run);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_CSV_REPORT_H_
