// The runner: lowers a spec, runs the schedule on the timing model and
// summarises every metric.
#ifndef TRNBENCH_HARNESS_RUNNER_H_
#define TRNBENCH_HARNESS_RUNNER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/timeline.h"
#include "harness/results.h"
#include "workloads/spec.h"

namespace trn {

// Upper bound on --repeat: beyond it memory for samples, not insight, grows.
inline constexpr int64_t kMaxRepeat = 1'000'000;

struct RunOptions {
  uint64_t seed = 1;
  Schedule schedule;
  double confidence = 0.95;
};

absl::StatusOr<WorkloadResult> RunWorkload(const WorkloadSpec& spec,
                                           const DeviceProfile& profile,
                                           const RunOptions& options);

// Fills each workload's speed-up over the first variant of its family (in
// the order of `run.workloads`) on `metric`.
void ComputeSpeedups(RunResult& run, std::string_view metric);

// Replays one run alone: the timeline of repeat `repeat_index`.
absl::StatusOr<Timeline> ReplayRun(const WorkloadSpec& spec,
                                   const DeviceProfile& profile, uint64_t seed,
                                   int64_t repeat_index);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_H_
