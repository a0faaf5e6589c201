#include "harness/runner/runner.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/simulator.h"
#include "support/ordered_parallel.h"
#include "support/status_macros.h"
#include "workloads/lowering/lowering.h"

namespace trn {

absl::Status CheckRunSize(int64_t workloads, const Schedule& schedule) {
  const int64_t per_repeat = workloads * kMetricsPerWorkloadBound;
  if (per_repeat > 0 && schedule.repeat > kMaxSamplesPerRun / per_repeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "`repeat`=", schedule.repeat, " with ", workloads, " workload",
        workloads == 1 ? "" : "s", " would record up to ",
        schedule.repeat * per_repeat, " samples; expected at most ",
        kMaxSamplesPerRun, " per run (", kMetricsPerWorkloadBound,
        " metrics a workload), so `repeat` at most ",
        kMaxSamplesPerRun / per_repeat, " here, or fewer workloads"));
  }
  return absl::OkStatus();
}

int64_t SimulatedWork(int64_t instructions, int64_t runs) {
  if (instructions < 0 || runs <= 0) return 0;
  const int64_t per_run = instructions + kRunOverheadInstructions;
  if (runs > std::numeric_limits<int64_t>::max() / per_run) {
    return std::numeric_limits<int64_t>::max();
  }
  return runs * per_run;
}

absl::Status WholeCommandTooLarge(const Schedule& schedule, int64_t workloads,
                                  absl::string_view command) {
  return absl::InvalidArgumentError(absl::StrCat(
      "`repeat`=", schedule.repeat, ": ", command, " of ", workloads,
      " workload", workloads == 1 ? "" : "s", " would simulate more than the ",
      kMaxSimulatedInstructions,
      " instructions one command may (two to four minutes; each run counts "
      "its program's instructions and ",
      kRunOverheadInstructions,
      " more): lower `repeat`, or select fewer workloads"));
}

absl::Status CheckRunOverhead(const std::vector<WorkloadSpec>& specs,
                              const Schedule& schedule,
                              absl::string_view command, int64_t passes) {
  // Both at most kMaxRepeat (the flags' range), passes small: no overflow.
  const int64_t runs = schedule.SimulatedRuns() * std::max<int64_t>(1, passes);
  const auto n = static_cast<int64_t>(specs.size());
  if (n > 0 && SimulatedWork(0, runs) > kMaxSimulatedInstructions / n) {
    return WholeCommandTooLarge(schedule, n, command);
  }
  return absl::OkStatus();
}

absl::Status CheckSimulatedWork(const std::vector<WorkloadSpec>& specs,
                                const DeviceProfile& profile,
                                const Schedule& schedule,
                                absl::string_view command, int64_t passes) {
  TRN_RETURN_IF_ERROR(CheckRunOverhead(specs, schedule, command, passes));
  const int64_t runs = schedule.SimulatedRuns() * std::max<int64_t>(1, passes);
  int64_t total = 0;
  for (const WorkloadSpec& spec : specs) {
    TRN_ASSIGN_OR_RETURN(Program program, Lower(spec, profile));
    const int64_t work = SimulatedWork(program.InstructionCount(), runs);
    if (work > kMaxSimulatedInstructions - total) {
      return WholeCommandTooLarge(schedule, static_cast<int64_t>(specs.size()),
                                  command);
    }
    total += work;
  }
  return absl::OkStatus();
}

std::string SimulatedTimeEstimate(int64_t instructions) {
  const double fast =
      static_cast<double>(instructions) / kSimulatedInstructionsPerSecond;
  const double slow = 2 * fast;
  const bool minutes = fast >= 90;
  const double unit = minutes ? 60 : 1;
  return absl::StrFormat("about %.2g instructions: %.*f to %.*f %s on one core",
                         static_cast<double>(instructions), minutes ? 1 : 0,
                         fast / unit, minutes ? 1 : 0, slow / unit,
                         minutes ? "minutes" : "seconds");
}

namespace {

std::atomic<int> default_jobs{1};

}  // namespace

absl::Status CheckSchedule(const Schedule& s) {
  if (s.repeat < 1 || s.repeat > kMaxRepeat) {
    return absl::InvalidArgumentError(
        absl::StrCat("`repeat`: expected 1..", kMaxRepeat, ", got ", s.repeat));
  }
  if (s.wait < 0 || s.warmup < 0) {
    return absl::InvalidArgumentError("`wait` and `warmup` must be >= 0");
  }
  return absl::OkStatus();
}

void SetDefaultJobs(int jobs) { default_jobs.store(std::max(1, jobs)); }
int DefaultJobs() { return default_jobs.load(); }

JobSplit SplitJobs(int jobs, size_t items) {
  JobSplit split;
  split.jobs = jobs > 0 ? jobs : DefaultJobs();
  split.outer = static_cast<int>(
      std::min<size_t>(items, static_cast<size_t>(split.jobs)));
  split.inner =
      split.outer > 1 ? std::max(1, split.jobs / split.outer) : split.jobs;
  return split;
}

RunOptions OptionsForEach(const RunOptions& options, const JobSplit& split,
                          std::mutex& progress) {
  RunOptions each = options;
  each.jobs = split.inner;
  if (split.outer > 1 && options.on_run) {
    each.on_run = [&progress, on_run = options.on_run] {
      std::lock_guard<std::mutex> lock(progress);
      on_run();
    };
  }
  return each;
}

absl::StatusOr<WorkloadResult> RunWorkload(const WorkloadSpec& spec,
                                           const DeviceProfile& profile,
                                           const RunOptions& options) {
  TRN_RETURN_IF_ERROR(CheckSchedule(options.schedule));
  TRN_ASSIGN_OR_RETURN(Program program, Lower(spec, profile));
  return RunLowered(spec, std::move(program), profile, options);
}

absl::StatusOr<WorkloadResult> RunLowered(const WorkloadSpec& spec,
                                          Program program,
                                          const DeviceProfile& profile,
                                          const RunOptions& options) {
  const Schedule& s = options.schedule;
  TRN_RETURN_IF_ERROR(CheckSchedule(s));
  const int64_t simulated =
      SimulatedWork(program.InstructionCount(), s.SimulatedRuns());
  if (simulated > kMaxSimulatedInstructions) {
    return absl::InvalidArgumentError(absl::StrCat(
        spec.file, ": `repeat`=", s.repeat, " runs of its ",
        program.InstructionCount(),
        "-instruction program would simulate the work of ", simulated,
        " instructions (", kRunOverheadInstructions,
        " more for each run); expected at most ", kMaxSimulatedInstructions,
        " per workload (about two minutes): lower `repeat`, or use a smaller "
        "shape"));
  }
  const int jobs = options.jobs > 0 ? options.jobs : DefaultJobs();
  // The simulator's setup on the runs' threads too: for a large kernel it
  // is as long as a run or two, which no thread shared (issue 42).
  TRN_ASSIGN_OR_RETURN(Simulator sim,
                       Simulator::Create(program, profile, {.threads = jobs}));

  WorkloadResult r;
  r.name = spec.name;
  r.family = spec.family;
  r.mode = std::string(ExecModeName(spec.mode));
  r.description = spec.description;
  r.spec_file = spec.file;
  r.spec_hash = spec.content_hash;
  r.sweep_point = spec.kernel_source.has_value() &&
                  !spec.kernel_source->kwargs.empty() &&
                  spec.family != spec.name;
  r.noise_threshold = spec.noise_threshold.value_or(NAN);
  r.instructions = program.InstructionCount();
  r.dispatches = static_cast<int64_t>(program.dispatches.size());
  // The repeats below read no instruction: the simulator keeps what its
  // runs need, and the metrics listener reads none. Their storage goes
  // (11 MB at 100k tiles, a quarter of the run's peak heap).
  program.ReleaseInstructions();
  for (const TensorDecl& t : spec.tensors) {
    r.tensor_shapes.emplace_back(t.name, t.shape);
  }

  // Only the recorded runs are simulated (Schedule::SimulatedRuns): the
  // model keeps no state between runs, so a skipped or warm-up run would
  // change nothing. A model that kept state (caches, NEFF loading) would
  // have to simulate them again, in order, before the recorded runs. Metrics
  // are accumulated as events arrive: no timeline is kept, so memory does not
  // grow with the size of the program. Runs go on `options.jobs` threads, each
  // with its accumulator; their results are taken in index order, so every sum
  // below adds in the same order.
  struct RunValues {
    std::vector<MetricValue> values;
    std::vector<OpRow> rows;
  };
  // Each worker's accumulator on pages of its own (kNoFalseSharing). Side
  // by side in one vector, the end of one (its sweep state, written on
  // every event) and the start of the next (its vtable pointer, read on
  // every listener call) shared a line, which then moved between the two
  // cores on nearly every event of both runs: at --jobs 2 each run cost
  // about twice the CPU time and the runs no less wall time than at --jobs
  // 1. A line apart, the prefetchers still moved it (issue 42).
  struct alignas(kNoFalseSharing) WorkerAccumulator {
    MetricsAccumulator acc;
  };
  std::vector<WorkerAccumulator> accs(static_cast<size_t>(std::max(1, jobs)));
  std::vector<OpRow> op_sum;
  TRN_RETURN_IF_ERROR(OrderedParallelMap<RunValues>(
      static_cast<size_t>(s.SimulatedRuns()), jobs,
      [&](size_t worker, size_t k) -> absl::StatusOr<RunValues> {
        MetricsAccumulator& acc = accs[worker].acc;
        RunValues v;
        sim.Run(options.seed,
                static_cast<uint64_t>(s.IndexOfActive(static_cast<int64_t>(k))),
                acc);
        v.values = acc.Metrics();
        v.rows = acc.OpRows();
        return v;
      },
      [&](size_t, RunValues v) -> absl::Status {
        if (options.on_run) options.on_run();
        if (r.metrics.empty()) {
          for (const auto& mv : v.values) {
            const MetricInfo* info = FindMetric(mv.name);
            MetricResult m;
            m.name = mv.name;
            m.unit = std::string(UnitSymbol(info->unit));
            m.lower_is_better = info->lower_is_better;
            m.samples.reserve(static_cast<size_t>(s.repeat));
            r.metrics.push_back(std::move(m));
          }
        }
        for (size_t i = 0; i < v.values.size(); ++i) {
          r.metrics[i].samples.push_back(v.values[i].value);
        }
        if (op_sum.empty()) {
          op_sum = std::move(v.rows);
        } else {
          for (size_t i = 0; i < v.rows.size() && i < op_sum.size(); ++i) {
            op_sum[i].self_cpu_us += v.rows[i].self_cpu_us;
            op_sum[i].self_device_us += v.rows[i].self_device_us;
            op_sum[i].calls += v.rows[i].calls;
          }
        }
        return absl::OkStatus();
      }));
  for (auto& m : r.metrics) {
    m.summary = stats::Summarize(m.samples, options.confidence);
  }
  const double n = static_cast<double>(s.repeat);
  for (const OpRow& row : op_sum) {
    r.ops.push_back({row.name, row.self_cpu_us / n, row.self_device_us / n,
                     row.self_device_us / n,
                     static_cast<double>(row.calls) / n});
  }
  std::stable_sort(r.ops.begin(), r.ops.end(),
                   [](const OpResult& a, const OpResult& b) {
                     return a.self_device_us > b.self_device_us;
                   });
  return r;
}

namespace {

bool SameProblem(const WorkloadResult& a, const WorkloadResult& b) {
  bool shared = false;
  for (const auto& [name, shape] : a.tensor_shapes) {
    for (const auto& [other, other_shape] : b.tensor_shapes) {
      if (name != other) continue;
      if (shape != other_shape) return false;
      shared = true;
    }
  }
  // Results read back from files carry no shapes: the family decides.
  return shared || (a.tensor_shapes.empty() && b.tensor_shapes.empty());
}

}  // namespace

RunContext ContextFor(const DeviceProfile& profile, const RunOptions& options,
                      const std::string& trnbench_version) {
  RunContext c;
  c.trnbench_version = trnbench_version;
  c.device = profile.name;
  c.device_hash = profile.content_hash;
  for (const auto& [key, param] : profile.params) {
    c.device_params.emplace_back(key, param.dist.Median());
  }
  c.device_calibrated = profile.calibrated;
  c.seed = options.seed;
  c.schedule = options.schedule;
  c.confidence = options.confidence;
  return c;
}

absl::StatusOr<RunResult> RunAll(const std::vector<WorkloadSpec>& specs,
                                 const DeviceProfile& profile,
                                 const RunOptions& options,
                                 const std::string& trnbench_version) {
  const Schedule& schedule = options.schedule;
  TRN_RETURN_IF_ERROR(CheckRunOverhead(specs, schedule, "the run"));
  RunResult run;
  static_cast<RunContext&>(run) =
      ContextFor(profile, options, trnbench_version);
  // Workloads go on up to `jobs` threads at once (each with its program
  // and simulator: memory grows with the jobs, not with the workloads), and
  // what jobs are left over go to each workload's repeats. Results are
  // taken in the specs' order.
  const JobSplit split = SplitJobs(options.jobs, specs.size());
  const int outer = split.outer;

  // Every spec is lowered before any runs, so that a command whose runs
  // would pass kMaxSimulatedInstructions in all is refused before it has
  // spent minutes. The programs are kept for their runs while they hold
  // kKeptProgramInstructions in all (memory), the rest lowered again.
  std::vector<std::optional<Program>> kept(specs.size());
  int64_t total = 0;
  int64_t kept_instructions = 0;
  TRN_RETURN_IF_ERROR(OrderedParallelMap<Program>(
      specs.size(), outer,
      [&](size_t, size_t k) -> absl::StatusOr<Program> {
        return Lower(specs[k], profile);
      },
      [&](size_t k, Program program) -> absl::Status {
        const int64_t n = program.InstructionCount();
        const int64_t work = SimulatedWork(n, schedule.SimulatedRuns());
        if (work > kMaxSimulatedInstructions - total) {
          // One workload alone past the bound: RunLowered names its file.
          if (work > kMaxSimulatedInstructions) {
            return RunLowered(specs[k], std::move(program), profile, options)
                .status();
          }
          return WholeCommandTooLarge(
              schedule, static_cast<int64_t>(specs.size()), "the run");
        }
        total += work;
        if (n <= kKeptProgramInstructions - kept_instructions) {
          kept_instructions += n;
          kept[k] = std::move(program);
        }
        return absl::OkStatus();
      }));

  if (options.on_planned) options.on_planned(total);

  std::mutex progress;
  const RunOptions each = OptionsForEach(options, split, progress);
  run.workloads.reserve(specs.size());
  TRN_RETURN_IF_ERROR(OrderedParallelMap<WorkloadResult>(
      specs.size(), outer,
      [&](size_t, size_t k) -> absl::StatusOr<WorkloadResult> {
        if (options.on_workload) {
          std::lock_guard<std::mutex> lock(progress);
          options.on_workload(specs[k].name);
        }
        if (kept[k].has_value()) {
          Program program = *std::move(kept[k]);
          kept[k].reset();
          return RunLowered(specs[k], std::move(program), profile, each);
        }
        return RunWorkload(specs[k], profile, each);
      },
      [&](size_t, WorkloadResult r) -> absl::Status {
        run.workloads.push_back(std::move(r));
        return absl::OkStatus();
      }));
  ComputeSpeedups(run, "device_time_us");
  ComputeSweepRanks(run, "device_time_us");
  return run;
}

void ComputeSpeedups(RunResult& run, std::string_view metric) {
  for (size_t i = 0; i < run.workloads.size(); ++i) {
    WorkloadResult& w = run.workloads[i];
    // The reference is the family's first variant of the same size: a size
    // sweep's points are not variants of one another.
    const WorkloadResult* first = nullptr;
    for (size_t j = 0; j < i && first == nullptr; ++j) {
      const WorkloadResult& o = run.workloads[j];
      if (o.family == w.family && SameProblem(o, w)) first = &o;
    }
    w.speedup = Speedup{};
    w.speedup.metric = std::string(metric);
    const MetricResult* mine = w.Find(metric);
    if (first == nullptr || mine == nullptr) continue;
    const MetricResult* base = first->Find(metric);
    if (base == nullptr) continue;
    w.speedup.baseline = first->name;
    w.speedup.ratio = base->summary.median / mine->summary.median;
    w.speedup.resamples = stats::kDefaultBootstrapResamples;
    w.speedup.bootstrap_seed = stats::kDefaultBootstrapSeed;
    w.speedup.interval = stats::BootstrapRatioOfMedians(
        base->samples, mine->samples, run.confidence, w.speedup.resamples,
        w.speedup.bootstrap_seed);
  }
}

void ComputeSweepRanks(RunResult& run, std::string_view metric) {
  std::vector<bool> done(run.workloads.size(), false);
  for (size_t i = 0; i < run.workloads.size(); ++i) {
    const WorkloadResult& head = run.workloads[i];
    if (done[i] || !head.sweep_point) continue;
    std::vector<size_t> points;
    for (size_t j = i; j < run.workloads.size(); ++j) {
      const WorkloadResult& o = run.workloads[j];
      if (!done[j] && o.sweep_point && o.family == head.family &&
          SameProblem(head, o) && o.Find(metric) != nullptr) {
        points.push_back(j);
        done[j] = true;
      }
    }
    auto median = [&](size_t k) {
      return run.workloads[k].Find(metric)->summary.median;
    };
    std::stable_sort(points.begin(), points.end(),
                     [&](size_t a, size_t b) { return median(a) < median(b); });
    for (size_t r = 0; r < points.size(); ++r) {
      WorkloadResult& w = run.workloads[points[r]];
      const stats::Summary& s = w.Find(metric)->summary;
      w.rank.position = static_cast<int>(r + 1);
      w.rank.of = static_cast<int>(points.size());
      w.rank.metric = std::string(metric);
      w.rank.median = s.median;
      w.rank.interval = s.median_ci;
      w.rank.fastest = r == 0;
      if (r > 0) {
        // Not separated when the intervals overlap, or when either is
        // undefined (too few runs to say): a tie, said honestly.
        const stats::Interval& above =
            run.workloads[points[r - 1]].rank.interval;
        const stats::Interval& mine = w.rank.interval;
        w.rank.tied_with_previous = !(mine.low > above.high);
      }
    }
  }
}

absl::StatusOr<Timeline> ReplayRun(const WorkloadSpec& spec,
                                   const DeviceProfile& profile, uint64_t seed,
                                   int64_t repeat_index) {
  if (repeat_index < 0) {
    return absl::InvalidArgumentError("repeat index must be >= 0");
  }
  TRN_ASSIGN_OR_RETURN(Program program, Lower(spec, profile));
  TRN_ASSIGN_OR_RETURN(Simulator sim, Simulator::Create(program, profile));
  return sim.Run(seed, static_cast<uint64_t>(repeat_index));
}

}  // namespace trn
