// Results in Google Benchmark's JSON output format (as emitted by Google
// Benchmark 1.7.1 with --benchmark_format=json --benchmark_repetitions=N),
// so tools/compare.py and services that ingest that format read trnbench
// results unchanged (docs/reports.md).
#ifndef TRNBENCH_REPORTS_GBENCH_JSON_H_
#define TRNBENCH_REPORTS_GBENCH_JSON_H_

#include <string>
#include <vector>

#include "harness/runner/results.h"

namespace trn {

// One benchmark per workload, its primary time metric (device_time_us,
// else ncl_us, else its first time metric that ran), plus one per workload
// x each time metric named in `metrics` ("all": every time metric that
// ran), named "<workload>/<metric>", in nanoseconds ("ns", so compare.py
// keeps the precision of a 19.93 us figure). Each recorded run is an
// "iteration" run with repetitions and repetition_index, followed by mean,
// median, stddev and cv aggregates (when there are at least two runs, as
// Google Benchmark does). The workload's non-time metrics ride on its
// primary metric's runs as user counters. Never writes NaN or infinity: an
// undefined value is left out. One benchmark per workload keeps
// compare.py's OVERALL_GEOMEAN the geometric mean of the workloads'
// primary changes, not of every engine's busy time.
std::string GbenchJson(const RunResult& run,
                       const std::vector<std::string>& metrics = {});

}  // namespace trn

#endif  // TRNBENCH_REPORTS_GBENCH_JSON_H_
