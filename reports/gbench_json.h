// Results in Google Benchmark's JSON output format (as emitted by Google
// Benchmark 1.7.1 with --benchmark_format=json --benchmark_repetitions=N),
// so tools/compare.py and services that ingest that format read trnbench
// results unchanged (docs/reports.md).
#ifndef TRNBENCH_REPORTS_GBENCH_JSON_H_
#define TRNBENCH_REPORTS_GBENCH_JSON_H_

#include <string>

#include "harness/runner/results.h"

namespace trn {

// One benchmark per workload x time metric (unit us), named
// "<workload>/<metric>": each recorded run is an "iteration" run with
// repetitions and repetition_index, followed by mean, median, stddev and cv
// aggregates (when there are at least two runs, as Google Benchmark does).
// The workload's other metrics ride on its device_time_us runs as user
// counters. Never writes NaN or infinity: an undefined value is left out.
std::string GbenchJson(const RunResult& run);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_GBENCH_JSON_H_
