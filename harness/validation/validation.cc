#include "harness/validation/validation.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/timeline.h"
#include "harness/runner/results.h"
#include "harness/runner/runner.h"
#include "harness/statistics/statistics.h"
#include "support/ordered_parallel.h"
#include "support/status_macros.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/shape_override.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

absl::Status Bad(const WorkloadSpec& spec, const PublishedFigure& f,
                 std::string_view field, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: %s%s: %s", spec.file, f.json_path, field, what));
}

absl::StatusOr<std::vector<ShapeOverride>> Overrides(const WorkloadSpec& spec,
                                                     const PublishedFigure& f) {
  std::vector<ShapeOverride> out;
  for (const std::string& text : f.shape) {
    auto o = ParseShapeOverride(text);
    if (!o.ok())
      return Bad(spec, f, "/shape", std::string(o.status().message()));
    out.push_back(*std::move(o));
  }
  return out;
}

// The workload as --shape names its point: "mamba_v3[delta,u,out=...]".
absl::StatusOr<std::string> PointName(const WorkloadSpec& spec,
                                      const PublishedFigure& f) {
  if (f.shape.empty()) return spec.name;
  TRN_ASSIGN_OR_RETURN(std::vector<ShapeOverride> overrides,
                       Overrides(spec, f));
  std::string name = spec.name + "[";
  for (size_t i = 0; i < overrides.size(); ++i) {
    absl::StrAppend(&name, i > 0 ? ";" : "", ShapePointText(overrides[i], 0));
  }
  return name + "]";
}

std::string Key(const std::string& workload, const PublishedFigure& f) {
  return absl::StrCat(workload, " ", f.metric, " ", f.statistic, " ", f.device);
}

// `stat` of `values`, which it sorts (so the result does not depend on
// their order).
double StatisticOf(std::vector<double> values, const Statistic& stat) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  if (!stat.mean) return stats::QuantileSorted(values, stat.percent / 100.0);
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

// An event metric's values on one run's timeline: a duration per event of
// the figure's line, or a start-to-start time per pair of consecutive
// events of that line on one engine.
std::vector<double> EventValues(const Timeline& tl, const PublishedFigure& f) {
  const LaneKind want =
      f.metric == "dma_transfer_us" ? LaneKind::kDmaQueue : LaneKind::kEngine;
  const bool intervals = f.metric == "instruction_interval_us";
  std::vector<double> out;
  std::map<uint32_t, std::vector<double>> starts;  // by lane
  for (const Event& e : tl.events) {
    if (e.source_line != f.line || tl.lanes[e.lane].kind != want) continue;
    if (intervals) {
      starts[e.lane].push_back(e.start_us);
    } else {
      out.push_back(e.dur_us());
    }
  }
  for (auto& [lane, s] : starts) {
    std::sort(s.begin(), s.end());
    for (size_t i = 1; i < s.size(); ++i) out.push_back(s[i] - s[i - 1]);
  }
  return out;
}

// One spec at one shape point on one device: run once, whatever number of
// figures it carries.
struct Measured {
  WorkloadSpec spec;
  WorkloadResult result;
  std::optional<Timeline> timeline;  // replayed when an event metric asks
};

// The spec a figure's run reads: the suite's, compiled for the figure's
// device, or its shape point.
absl::StatusOr<WorkloadSpec> SpecFor(const WorkloadSpec& spec,
                                     const PublishedFigure& f,
                                     const DeviceProfile& profile) {
  if (f.shape.empty()) {
    // The suite was read with one device's limits; each figure's device
    // has its own.
    WorkloadSpec out = spec;
    TRN_RETURN_IF_ERROR(CompileSpec(out, profile.memory));
    return out;
  }
  TRN_ASSIGN_OR_RETURN(std::vector<ShapeOverride> overrides,
                       Overrides(spec, f));
  auto points = ApplyShapeOverrides({spec}, overrides, profile.memory);
  if (!points.ok()) {
    return Bad(spec, f, "/shape", std::string(points.status().message()));
  }
  return std::move(points->front());
}

// A run prepared: its spec and program (the program kept only while the
// programs kept hold kKeptProgramInstructions in all; lowered again
// otherwise), or the error that stopped it, and the work it will take.
struct Prepared {
  absl::Status status;
  WorkloadSpec spec;
  std::optional<Program> program;
  int64_t work = 0;  // SimulatedWork of its runs (and its replay)
};

absl::StatusOr<double> ModelValue(Measured& m, const WorkloadSpec& spec,
                                  const PublishedFigure& f,
                                  const DeviceProfile& profile,
                                  const RunOptions& run) {
  const Statistic stat = *ParseStatistic(f.statistic);
  double value = NAN;
  if (IsEventMetric(f.metric)) {
    if (!m.timeline.has_value()) {
      TRN_ASSIGN_OR_RETURN(
          m.timeline,
          ReplayRun(m.spec, profile, run.seed, run.schedule.IndexOfActive(0)));
    }
    value = StatisticOf(EventValues(*m.timeline, f), stat);
    if (!std::isfinite(value)) {
      return Bad(spec, f, "/line",
                 absl::StrCat("the model has no ", f.metric, " event on line ",
                              f.line));
    }
  } else if (f.metric == "spill_bytes") {
    int64_t bytes = 0;
    for (const SpillDecision& s : m.spec.compiled.spills) {
      bytes += s.SaveBytes() + s.ReloadBytes();
    }
    value = static_cast<double>(bytes);
  } else if (const MetricResult* r = m.result.Find(f.metric)) {
    value = StatisticOf(r->samples, stat);
  }
  if (!std::isfinite(value)) {
    return Bad(spec, f, "/metric",
               absl::StrFormat("the model gives no \"%s\" for a workload "
                               "of mode %s",
                               f.metric, ExecModeName(spec.mode)));
  }
  return value / *UnitFactor(f.unit, MetricUnit(f.metric));
}

void Score(ValidationRow& row) {
  const PublishedFigure& f = row.published;
  row.error = row.model / f.figure - 1.0;
  if (f.tolerance.has_value()) {
    row.low = f.figure * (1.0 - *f.tolerance);
    row.high = f.figure * (1.0 + *f.tolerance);
  } else {
    row.low = f.range->first;
    row.high = f.range->second;
  }
  row.within = row.model >= row.low && row.model <= row.high;
}

std::string OrderKey(const std::string& group) {
  return absl::StrCat("order ", group);
}

std::vector<OrderCheck> CheckOrders(const std::vector<ValidationRow>& rows) {
  std::map<std::string, std::vector<const ValidationRow*>> groups;
  for (const ValidationRow& r : rows) {
    if (!r.published.order.empty()) {
      groups[r.published.order].push_back(&r);
    }
  }
  std::vector<OrderCheck> out;
  for (auto& [group, members] : groups) {
    std::stable_sort(members.begin(), members.end(),
                     [](const ValidationRow* a, const ValidationRow* b) {
                       return a->published.figure > b->published.figure;
                     });
    OrderCheck c;
    c.group = group;
    c.key = OrderKey(group);
    c.holds = true;
    for (size_t i = 0; i < members.size(); ++i) {
      c.workloads.push_back(members[i]->workload);
      c.published.push_back(members[i]->published.figure);
      c.model.push_back(members[i]->model);
      if (i > 0 && !(members[i]->model < members[i - 1]->model)) {
        c.holds = false;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseKnownGaps(
    std::string_view text, std::string_view label) {
  std::vector<std::string> out;
  size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') continue;
    if (line.front() == ' ' || line.find("  ") != std::string_view::npos ||
        line.find('\t') != std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s:%d: expected a key such as \"nki_matmul_tiled ncl_us p99 "
          "trn1\", its words separated by single spaces",
          label, line_no));
    }
    out.emplace_back(line);
  }
  return out;
}

std::vector<std::string> SuiteDevices(const std::vector<WorkloadSpec>& suite,
                                      const std::string& device) {
  std::set<std::string> out;
  for (const WorkloadSpec& s : suite) {
    for (const PublishedFigure& f : s.published) {
      if (device.empty() || f.device == device) out.insert(f.device);
    }
  }
  return {out.begin(), out.end()};
}

absl::StatusOr<ValidationResult> RunValidation(
    const std::vector<WorkloadSpec>& suite, const ProfileSet& profiles,
    const ValidationOptions& options) {
  // Every key of the suite, whatever the device filter, so that a known
  // gap of another device is not mistaken for a typo.
  std::set<std::string> suite_keys;
  for (const WorkloadSpec& spec : suite) {
    if (spec.published.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(spec.file,
                       ": /published: required key \"published\" is missing: "
                       "every spec of the validation suite carries the "
                       "figures it is held against"));
    }
    for (const PublishedFigure& f : spec.published) {
      if (!f.order.empty()) suite_keys.insert(OrderKey(f.order));
      TRN_ASSIGN_OR_RETURN(std::string name, PointName(spec, f));
      if (!suite_keys.insert(Key(name, f)).second) {
        return Bad(spec, f, "",
                   absl::StrCat("a second figure for \"", Key(name, f),
                                "\"; one figure per workload, metric, "
                                "statistic and device"));
      }
    }
  }
  std::set<std::string> gaps;
  for (const std::string& g : options.known_gaps) {
    if (!suite_keys.contains(g)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "known gap \"", g,
          "\" names no figure of the suite; expected \"<workload> <metric> "
          "<statistic> <device>\" as the validation table's key column "
          "shows it"));
    }
    gaps.insert(g);
  }

  ValidationResult result;
  result.model_version = std::string(kModelVersion);
  result.seed = options.seed;
  result.repeat = options.repeat;
  result.device = options.device;
  RunOptions run;
  run.seed = options.seed;
  run.schedule.repeat = options.repeat;
  // The figures in suite order, each with the run it reads (a spec at one
  // shape point on one device, run once however many figures it carries).
  // The runs go on up to DefaultJobs() threads, each run's repeats on what
  // jobs are left over; the figures are scored on this thread in suite
  // order as their runs arrive, so the rows, and the first error, are
  // those of a serial walk: a run's error comes after the figures before
  // it, a figure's after the runs it follows.
  struct Task {
    const WorkloadSpec* spec;
    const PublishedFigure* figure;  // the first that reads the run
    const DeviceProfile* profile;
    RunOptions run;
    bool replay = false;  // some figure of the run reads an event metric
  };
  struct Figure {
    const WorkloadSpec* spec;
    const PublishedFigure* figure;
    const DeviceProfile* profile;
    std::string name;
    RunOptions run;
    size_t task;
  };
  std::vector<Task> tasks;
  std::vector<Figure> figures;
  // An error of the walk itself, after the figures collected before it.
  absl::Status walk_error = absl::OkStatus();
  std::map<std::tuple<std::string, std::string, int64_t>, size_t> task_of;
  for (const WorkloadSpec& spec : suite) {
    for (const PublishedFigure& f : spec.published) {
      if (!options.device.empty() && f.device != options.device) continue;
      auto profile = profiles.find(f.device);
      if (profile == profiles.end()) {
        walk_error = Bad(spec, f, "/device",
                         absl::StrCat("no device profile \"", f.device, "\""));
        break;
      }
      absl::StatusOr<std::string> name = PointName(spec, f);
      if (!name.ok()) {
        walk_error = name.status();
        break;
      }
      RunOptions figure_run = run;
      if (f.runs > 0) figure_run.schedule.repeat = f.runs;
      const auto run_key =
          std::make_tuple(*name, f.device, figure_run.schedule.repeat);
      auto [it, added] = task_of.try_emplace(run_key, tasks.size());
      if (added) tasks.push_back({&spec, &f, &profile->second, figure_run});
      tasks[it->second].replay =
          tasks[it->second].replay || IsEventMetric(f.metric);
      figures.push_back({&spec, &f, &profile->second, *std::move(name),
                         figure_run, it->second});
    }
    if (!walk_error.ok()) break;
  }

  const JobSplit split = SplitJobs(options.jobs, tasks.size());
  const int outer = split.outer;
  const int inner = split.inner;

  // First every run's spec and program, on `outer` threads (one fewer
  // with slots: their holder beside, validate's front end process, keeps
  // a core for longer than these take): what each run will cost (its
  // program's instructions) is known only once lowered. A task's error is
  // kept as its outcome and met again below, in order.
  const int prepare_jobs =
      options.slots != nullptr && outer > 1 ? outer - 1 : outer;
  std::vector<Prepared> prepared(tasks.size());
  int64_t kept_instructions = 0;
  TRN_RETURN_IF_ERROR(OrderedParallelMap<Prepared>(
      tasks.size(), prepare_jobs,
      [&](size_t, size_t k) -> absl::StatusOr<Prepared> {
        const Task& t = tasks[k];
        Prepared p;
        // In the order a serial walk meets the errors: the spec, the
        // schedule (RunWorkload), the program.
        absl::StatusOr<WorkloadSpec> spec =
            SpecFor(*t.spec, *t.figure, *t.profile);
        if (!spec.ok()) {
          p.status = spec.status();
          return p;
        }
        p.spec = *std::move(spec);
        p.status = CheckSchedule(t.run.schedule);
        if (!p.status.ok()) return p;
        absl::StatusOr<Program> program = Lower(p.spec, *t.profile);
        if (!program.ok()) {
          p.status = program.status();
          return p;
        }
        const int64_t n = program->InstructionCount();
        p.work = SimulatedWork(
            n, t.run.schedule.SimulatedRuns() + (t.replay ? 1 : 0));
        p.program = *std::move(program);
        return p;
      },
      [&](size_t k, Prepared p) -> absl::Status {
        if (p.program.has_value()) {
          const int64_t n = p.program->InstructionCount();
          if (n <= kKeptProgramInstructions - kept_instructions) {
            kept_instructions += n;
          } else {
            p.program.reset();  // lowered again when its turn comes
          }
        }
        prepared[k] = std::move(p);
        return absl::OkStatus();
      }));

  // Then the runs, dealt longest first (the largest work first, ties in
  // suite order), so that the threads finish together: in suite order the
  // largest runs came last and one thread ran them while the other had
  // nothing left (issue 42). Every run depends on its task alone, and the
  // figures are scored below in suite order, so rows and errors are those
  // of a serial walk whatever the order the runs go in.
  std::vector<size_t> order(tasks.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return prepared[a].work > prepared[b].work;
  });
  struct Outcome {
    size_t task = 0;
    absl::StatusOr<Measured> measured = absl::UnknownError("not run");
  };
  std::vector<std::optional<absl::StatusOr<Measured>>> measured(tasks.size());
  // Each call takes the next run in `order` once it holds its slot, not
  // the j-th: a thread that waited for a slot (the front end's) would
  // otherwise start the largest run last.
  std::atomic<size_t> next_run{0};
  TRN_RETURN_IF_ERROR(OrderedParallelMap<Outcome>(
      tasks.size(), outer,
      [&](size_t, size_t) -> absl::StatusOr<Outcome> {
        const HeldSlot slot(options.slots);
        Outcome out;
        out.task = order[next_run.fetch_add(1)];
        const Task& t = tasks[out.task];
        Prepared& p = prepared[out.task];
        if (!p.status.ok()) {
          out.measured = p.status;
          return out;
        }
        RunOptions each = t.run;
        each.jobs = inner;
        Measured m;
        m.spec = std::move(p.spec);
        absl::StatusOr<WorkloadResult> r =
            p.program.has_value()
                ? RunLowered(m.spec, *std::move(p.program), *t.profile, each)
                : RunWorkload(m.spec, *t.profile, each);
        p.program.reset();
        if (!r.ok()) {
          out.measured = r.status();
          return out;
        }
        m.result = *std::move(r);
        if (t.replay) {
          // The timeline an event metric reads, replayed here rather than
          // on the scoring thread; a failure is met again there, in order.
          auto tl = ReplayRun(m.spec, *t.profile, each.seed,
                              each.schedule.IndexOfActive(0));
          if (tl.ok()) m.timeline = *std::move(tl);
        }
        out.measured = std::move(m);
        return out;
      },
      [&](size_t, Outcome o) -> absl::Status {
        measured[o.task] = std::move(o.measured);
        return absl::OkStatus();
      },
      // Every outcome is kept until scoring anyway, so the window costs no
      // memory; a bounded one would stop the other threads behind a run
      // waiting for its slot.
      tasks.size()));

  // The figures in suite order, as a serial walk meets them: a run's error
  // comes after the figures of the runs before it.
  size_t scored = 0;  // figures scored so far
  for (size_t k = 0; k < tasks.size(); ++k) {
    TRN_RETURN_IF_ERROR(measured[k]->status());
    // Every figure up to the one that starts run k + 1.
    for (; scored < figures.size() && figures[scored].task <= k; ++scored) {
      const Figure& fig = figures[scored];
      ValidationRow row;
      row.workload = fig.name;
      row.key = Key(fig.name, *fig.figure);
      row.spec_file = fig.spec->file;
      row.published = *fig.figure;
      row.runs = fig.run.schedule.repeat;
      TRN_ASSIGN_OR_RETURN(
          row.model, ModelValue(**measured[fig.task], *fig.spec, *fig.figure,
                                *fig.profile, fig.run));
      Score(row);
      row.known_gap = gaps.contains(row.key);
      result.rows.push_back(std::move(row));
    }
  }
  TRN_RETURN_IF_ERROR(walk_error);

  MarkFittedRows(result.rows, profiles);
  SummarizeRows(result, gaps);
  result.orders = CheckOrders(result.rows);
  for (OrderCheck& c : result.orders) {
    c.known_gap = gaps.contains(c.key);
    if (c.holds && c.known_gap) result.stale_gaps.push_back(c.key);
    result.passed = result.passed && (c.holds || c.known_gap);
  }
  result.passed = result.passed && result.stale_gaps.empty();
  return result;
}

void MarkFittedRows(std::vector<ValidationRow>& rows,
                    const ProfileSet& profiles) {
  for (ValidationRow& row : rows) {
    row.fitted_by.clear();
    const auto profile = profiles.find(row.published.device);
    if (profile == profiles.end()) continue;
    for (const auto& [name, param] : profile->second.params) {
      if (std::find(param.fitted_on.begin(), param.fitted_on.end(), row.key) !=
          param.fitted_on.end()) {
        row.fitted_by.push_back(name);
      }
    }
  }
}

void SummarizeRows(ValidationResult& result,
                   const std::set<std::string>& gaps) {
  result.within = result.out = result.known_gaps = result.with_tolerance = 0;
  result.fitted = result.predictions = result.predictions_within =
      result.predictions_with_tolerance = 0;
  result.stale_gaps.clear();
  double abs_sum = 0;
  double prediction_abs_sum = 0;
  bool all_ok = true;
  for (ValidationRow& row : result.rows) {
    row.known_gap = gaps.contains(row.key);
    if (!row.not_run.empty()) continue;
    if (row.fitted_by.empty()) {
      ++result.predictions;
      if (row.within) ++result.predictions_within;
      if (row.published.tolerance.has_value()) {
        prediction_abs_sum += std::fabs(row.error);
        ++result.predictions_with_tolerance;
      }
    } else {
      ++result.fitted;
    }
    if (row.within) {
      ++result.within;
      if (row.known_gap) result.stale_gaps.push_back(row.key);
    } else {
      ++result.out;
      if (row.known_gap) {
        ++result.known_gaps;
      } else {
        all_ok = false;
      }
    }
    if (row.published.tolerance.has_value()) {
      abs_sum += std::fabs(row.error);
      ++result.with_tolerance;
    }
  }
  result.mean_abs_error =
      result.with_tolerance > 0 ? abs_sum / result.with_tolerance : 0.0;
  result.predictions_mean_abs_error =
      result.predictions_with_tolerance > 0
          ? prediction_abs_sum / result.predictions_with_tolerance
          : 0.0;
  result.passed = all_ok && result.stale_gaps.empty();
}

}  // namespace trn
