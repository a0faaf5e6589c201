// The runner: lowers a spec, runs the schedule on the timing model and
// summarises every metric.
#ifndef TRNBENCH_HARNESS_RUNNER_RUNNER_H_
#define TRNBENCH_HARNESS_RUNNER_RUNNER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "device_model/timeline.h"
#include "harness/runner/results.h"
#include "workloads/spec/spec.h"

namespace trn {

// Upper bound on --repeat: beyond it memory for samples, not insight, grows.
inline constexpr int64_t kMaxRepeat = 1'000'000;
// Samples one run records, repeat x workloads x metrics (counted as
// kMetricsPerWorkloadBound per workload): their memory, and results and
// baseline files that trnbench can still read (at most 64 MiB; a sample
// takes up to 35 bytes of JSON).
inline constexpr int64_t kMaxSamplesPerRun = 1'500'000;
inline constexpr int64_t kMetricsPerWorkloadBound = 17;
// Instructions simulated for one workload, repeat x the size of its program
// (Schedule::SimulatedRuns): at some 15 million a second, about two minutes.
// Beyond it a run is a mistake, not a benchmark.
inline constexpr int64_t kMaxSimulatedInstructions = 2'000'000'000;
// What one simulated run costs beyond its instructions, counted as the
// instructions that take as long: the schedule, the noise draws, the host
// driver's spans and the metrics read-out. Without it the bound above let
// `--warmup 1000000` of a 21-instruction workload through as 21 million
// instructions, and the whole command was not bounded at all (issue 26).
// bench/run_overhead_bench.cc measures it per shipped workload (host time of
// a run over that of one instruction of a large exp kernel, less the run's
// instructions): 5-8 for the NKI and fused ones, 52 for rmsnorm_naive (six
// dispatches of a few instructions); 64 is the largest rounded up. Eager
// instructions cost up to about twice an NKI instruction (rmsnorm_llm_naive:
// 304 over its 336), so a command at the bound runs two to four minutes.
inline constexpr int64_t kRunOverheadInstructions = 64;
// Lowered programs RunAll keeps between bounding a command and running it,
// in instructions over all its workloads (some 60 bytes each: about 120
// MB); programs beyond it are lowered again when their turn comes.
inline constexpr int64_t kKeptProgramInstructions = 2'000'000;

// The work `runs` runs of a program of `instructions` instructions count
// for against kMaxSimulatedInstructions: runs x (instructions +
// kRunOverheadInstructions), saturating at INT64_MAX instead of overflowing.
int64_t SimulatedWork(int64_t instructions, int64_t runs);

// The refusal of a command whose runs would pass kMaxSimulatedInstructions.
absl::Status WholeCommandTooLarge(const Schedule& schedule, int64_t workloads,
                                  absl::string_view command);

// Refuses, before anything is lowered or run, a command of `specs` whose
// runs' overhead alone (SimulatedWork of empty programs) would pass
// kMaxSimulatedInstructions when each workload runs `schedule` `passes`
// times (profile: the workload and its what-if), so that `--workload all
// --warmup 1000000` fails at once. `command` names it in the message.
absl::Status CheckRunOverhead(const std::vector<WorkloadSpec>& specs,
                              const Schedule& schedule,
                              absl::string_view command, int64_t passes = 1);

// CheckRunOverhead, then the same bound on the programs' instructions too:
// each spec is lowered once to count them (a command that lowers its specs
// again, such as profile, pays that twice; RunAll lowers once and keeps).
absl::Status CheckSimulatedWork(const std::vector<WorkloadSpec>& specs,
                                const DeviceProfile& profile,
                                const Schedule& schedule,
                                absl::string_view command, int64_t passes = 1);

// Refuses a schedule no run can have: `repeat` outside 1..kMaxRepeat, a
// negative `wait` or `warmup` (RunWorkload and RunLowered check it first).
absl::Status CheckSchedule(const Schedule& schedule);

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
  // Called after every simulated run (the recorded ones), and before each
  // workload of RunAll, to drive a progress display; they cannot influence
  // any result. With jobs > 1 they may be called from several threads, one
  // at a time.
  std::function<void()> on_run;
  std::function<void(const std::string& workload)> on_workload;
  // Called once by RunAll, after every spec is lowered and the whole
  // command bounded and before the first run, with the instructions the
  // command will simulate (SimulatedWork summed over its workloads), so
  // that a long run can say how long before it starts.
  std::function<void(int64_t simulated)> on_planned;
};

// How a command's `jobs` threads (0: DefaultJobs()) are shared between
// `items` run at once and each item's repeats: `outer` items at once, and
// what is left over, `inner`, to each one's runs.
struct JobSplit {
  int jobs = 1;
  int outer = 1;
  int inner = 1;
};
JobSplit SplitJobs(int jobs, size_t items);

// `options` for each of `split.outer` items run at once: `split.inner`
// jobs, and `on_run` called one call at a time under `progress`, so that a
// progress display need not be thread-safe. `progress` must outlive the
// runs.
RunOptions OptionsForEach(const RunOptions& options, const JobSplit& split,
                          std::mutex& progress);

// Simulated instructions a second on one core: NKI programs run at some 15
// million (BM_SimulateAndMeasureExp), an eager program's instructions cost
// up to about twice as much (docs/errors.md, "Limits").
inline constexpr double kSimulatedInstructionsPerSecond = 15e6;
// A command planned to simulate more than this (10 s at that speed) says
// how long it will take before it starts (issue 43: `--warmup 1000000`
// ran for minutes with nothing said).
inline constexpr int64_t kAnnouncedSimulatedInstructions = 150'000'000;

// "about 2.0e+09 instructions: 2.2 to 4.4 minutes on one core", for the
// note a long command prints before it runs.
std::string SimulatedTimeEstimate(int64_t instructions);

absl::StatusOr<WorkloadResult> RunWorkload(const WorkloadSpec& spec,
                                           const DeviceProfile& profile,
                                           const RunOptions& options);
// The same with `spec` already lowered to `program` (RunAll lowers every
// spec first, to bound the whole command before anything runs).
absl::StatusOr<WorkloadResult> RunLowered(const WorkloadSpec& spec,
                                          Program program,
                                          const DeviceProfile& profile,
                                          const RunOptions& options);

// The identity of a run of `options` on `profile`, as every document of
// the run records it.
RunContext ContextFor(const DeviceProfile& profile, const RunOptions& options,
                      const std::string& trnbench_version);

// Runs every spec in order on `profile` and fills the run's identity
// (versions, device, seed, schedule) and each family's speed-ups on device
// time. Every spec is lowered first and the whole command bounded by
// kMaxSimulatedInstructions (as CheckSimulatedWork, without lowering twice:
// programs are kept for their runs up to kKeptProgramInstructions in all,
// the rest lowered again when their turn comes); the first workload that
// fails stops the run.
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

// Ranks the points of each `--kwarg` sweep (the sweep points of a family
// that solve the same problem, SameProblem) by the median of `metric`,
// fastest first, reading the medians and their intervals from the
// summaries (nothing is recomputed). Ties in the median keep run order.
void ComputeSweepRanks(RunResult& run, std::string_view metric);

// Replays one run alone: the timeline of repeat `repeat_index`.
absl::StatusOr<Timeline> ReplayRun(const WorkloadSpec& spec,
                                   const DeviceProfile& profile, uint64_t seed,
                                   int64_t repeat_index);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_RUNNER_H_
