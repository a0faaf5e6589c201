// The runner: lowers a spec, runs the schedule on the timing model and
// summarises every metric.
#ifndef TRNBENCH_HARNESS_RUNNER_RUNNER_H_
#define TRNBENCH_HARNESS_RUNNER_RUNNER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/timeline.h"
#include "harness/runner/results.h"
#include "workloads/spec.h"

namespace trn {

// Upper bound on --repeat: beyond it memory for samples, not insight, grows.
inline constexpr int64_t kMaxRepeat = 1'000'000;
// Samples one run records, repeat x workloads x metrics (counted as
// kMetricsPerWorkloadBound per workload): their memory, and results and
// baseline files that trnbench can still read (at most 64 MiB; a sample
// takes up to 35 bytes of JSON).
inline constexpr int64_t kMaxSamplesPerRun = 1'500'000;
inline constexpr int64_t kMetricsPerWorkloadBound = 17;
// Instructions simulated for one workload, (warmup + repeat) x the size of
// its program: at some 15 million a second, about two minutes. Beyond it a
// run is a mistake, not a benchmark.
inline constexpr int64_t kMaxSimulatedInstructions = 2'000'000'000;

// Refuses, before anything runs, a run of `workloads` workloads that would
// record more than kMaxSamplesPerRun samples.
absl::Status CheckRunSize(int64_t workloads, const Schedule& schedule);

// How many runs go at once when RunOptions::jobs is 0: what the program
// sets once from `--jobs`, before it runs anything (1 until then), so that
// every command that runs workloads, however it builds its options, runs
// them in parallel. No result depends on it.
void SetDefaultJobs(int jobs);
int DefaultJobs();

struct RunOptions {
  uint64_t seed = 1;
  Schedule schedule;
  double confidence = 0.95;
  // Runs simulated at once, on as many threads: the repeats of a workload,
  // and the workloads of RunAll. Each run is keyed by (seed, workload,
  // index) and results are assembled in index order, so every output is
  // the same to the bit for any value; 1 runs everything on the calling
  // thread, 0 means DefaultJobs().
  int jobs = 0;
  // Called after every simulated run (warm-up or recorded), and before each
  // workload of RunAll, to drive a progress display; they cannot influence
  // any result. With jobs > 1 they may be called from several threads, one
  // at a time.
  std::function<void()> on_run;
  std::function<void(const std::string& workload)> on_workload;
};

absl::StatusOr<WorkloadResult> RunWorkload(const WorkloadSpec& spec,
                                           const DeviceProfile& profile,
                                           const RunOptions& options);

// The identity of a run of `options` on `profile`, as every document of
// the run records it.
RunContext ContextFor(const DeviceProfile& profile, const RunOptions& options,
                      const std::string& trnbench_version);

// Runs every spec in order on `profile` and fills the run's identity
// (versions, device, seed, schedule) and each family's speed-ups on device
// time. The first workload that fails stops the run.
absl::StatusOr<RunResult> RunAll(const std::vector<WorkloadSpec>& specs,
                                 const DeviceProfile& profile,
                                 const RunOptions& options,
                                 const std::string& trnbench_version);

// Fills each workload's speed-up over the first variant of its family of
// the same size (in the order of `run.workloads`) on `metric`: the first
// earlier workload of the family whose shared tensors all have the same
// shapes. A workload with none is a reference itself, so the points of a
// size sweep never get "speed-ups" over one another.
void ComputeSpeedups(RunResult& run, std::string_view metric);

// Replays one run alone: the timeline of repeat `repeat_index`.
absl::StatusOr<Timeline> ReplayRun(const WorkloadSpec& spec,
                                   const DeviceProfile& profile, uint64_t seed,
                                   int64_t repeat_index);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_RUNNER_H_
