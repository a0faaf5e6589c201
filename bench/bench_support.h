// What the benchmarks share: the trn1 profile and specs of the source tree
// (at a --shape override), loaded as trnbench loads them, and CPU clocks.
// A failure to load a shipped file is a broken tree, so Trn1() aborts.
#ifndef TRNBENCH_BENCH_BENCH_SUPPORT_H_
#define TRNBENCH_BENCH_BENCH_SUPPORT_H_

#include <time.h>

#include <string>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "workloads/spec/spec.h"

namespace trn::bench {

// `relative` (from "/", as "/workloads/specs") under the source tree.
std::string SourcePath(const std::string& relative);

// device_model/profiles/trn1.json, loaded once.
const DeviceProfile& Trn1();

// The spec at `path` (relative to the source tree), compiled for trn1, at
// the --shape override `shape` when it is not empty.
absl::StatusOr<WorkloadSpec> LoadBenchSpec(const std::string& path,
                                           const char* shape);

// Seconds of CPU time on `clock` (CLOCK_PROCESS_CPUTIME_ID: every thread
// of the process; CLOCK_THREAD_CPUTIME_ID: the calling thread).
double CpuSeconds(clockid_t clock);

}  // namespace trn::bench

#endif  // TRNBENCH_BENCH_BENCH_SUPPORT_H_
