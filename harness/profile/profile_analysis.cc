#include "harness/profile/profile_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "device_model/metrics.h"
#include "support/ordered_parallel.h"
#include "support/status_macros.h"
#include "workloads/compiler/allocation.h"
#include "workloads/loading/shape_override.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

double MedianOf(const WorkloadResult& r, const std::string& metric) {
  const MetricResult* m = r.Find(metric);
  return m == nullptr ? 0.0 : m->summary.median;
}

// Double-buffering pays where a loop loads and runs more than once: only
// there can a load run ahead of the compute of an earlier iteration.
void DoubleBuffer(const WorkloadSpec& spec, LoopChain& chain, NkiLoop& loop,
                  bool* changed) {
  chain.push_back(&loop);
  const bool loads =
      std::any_of(loop.body.begin(), loop.body.end(),
                  [](const NkiOp& op) { return op.op == "load"; });
  const bool repeats =
      LoopExtents(spec, chain, chain.size() - 1).back() > loop.TileSize();
  if (loop.range == LoopRange::kAffine && loop.buffers == 1 && loads &&
      repeats) {
    loop.buffers = 2;
    loop.buffers_stated = true;  // the what-if's override, not a decision
    *changed = true;
  }
  for (NkiOp& op : loop.body) {
    for (NkiLoop& nested : op.loop) DoubleBuffer(spec, chain, nested, changed);
  }
  chain.pop_back();
}

// The validator's message without the spec file it starts with.
std::string WithoutFile(const WorkloadSpec& spec, std::string_view message) {
  const std::string prefix = spec.file + ": ";
  if (message.substr(0, prefix.size()) == prefix) {
    message.remove_prefix(prefix.size());
  }
  return std::string(message);
}

// A what-if: the workload changed one way, run like the workload. An
// invalid variant (it does not fit on chip) is reported, not an error.
struct WhatIfPlan {
  WhatIf w;
  WorkloadSpec variant;
};

WhatIfPlan PlanWhatIf(std::string id, std::string change, WorkloadSpec variant,
                      const DeviceProfile& profile) {
  WhatIfPlan plan;
  WhatIf& w = plan.w;
  w.id = std::move(id);
  w.change = std::move(change);
  // A --shape point is validated under its spec's name, as
  // ApplyShapeOverrides does: the point's name breaks the name pattern.
  WorkloadSpec check = variant;
  check.name = SpecNameOfPoint(variant.name);
  absl::Status s = ValidateSpec(check, profile.memory);
  // The variant's depths are overrides: the allocator says if they fit.
  if (s.ok()) s = RefusalOf(check, Allocate(check, profile.memory));
  if (!s.ok()) {
    w.feasible = false;
    w.why_not = WithoutFile(
        variant, std::string_view(s.message().data(), s.message().size()));
  }
  plan.variant = std::move(variant);
  return plan;
}

// Fills a feasible what-if's figures from its variant's run.
void ScoreWhatIf(WhatIf& w, const WorkloadResult& r, const std::string& metric,
                 double median) {
  w.time_us = MedianOf(r, metric);
  w.relative = median > 0 ? w.time_us / median - 1 : 0.0;
  w.dma_compute_overlap = MedianOf(r, "dma_compute_overlap");
}

const WhatIf* FindWhatIf(const WorkloadProfile& p, const std::string& id) {
  for (const auto& w : p.what_ifs) {
    if (w.id == id) return &w;
  }
  return nullptr;
}

Finding MakeFinding(std::string id, std::vector<FindingFigure> figures) {
  Finding f;
  f.id = std::move(id);
  f.figures = std::move(figures);
  return f;
}

std::vector<Finding> MakeFindings(const WorkloadProfile& p,
                                  const DevicePeaks& peaks) {
  std::vector<Finding> out;
  const DeviceSummary& s = p.summary;
  const Roofline& r = p.roofline;
  constexpr Unit kUs = Unit::kMicroseconds;
  constexpr Unit kFrac = Unit::kFraction;

  // Where the roofline puts it.
  if (r.memory_bound) {
    const double bytes_per_s = r.hbm_bytes / (p.time_us * 1e-6);
    out.push_back(MakeFinding(
        "memory_bound",
        {{"arithmetic_intensity", r.arithmetic_intensity, Unit::kFlopsPerByte},
         {"ridge_point", r.ridge_point, Unit::kFlopsPerByte},
         {"hbm_bytes", r.hbm_bytes, Unit::kBytes},
         {"bandwidth", bytes_per_s / 1e9, Unit::kGigabytesPerSecond},
         {"bandwidth_share", bytes_per_s / peaks.dma_bytes_per_s, kFrac},
         {"dma_peak", peaks.dma_bytes_per_s / 1e9, Unit::kGigabytesPerSecond},
         {"attained_fraction", r.attained_fraction, kFrac}}));
  } else {
    out.push_back(MakeFinding(
        "compute_bound",
        {{"arithmetic_intensity", r.arithmetic_intensity, Unit::kFlopsPerByte},
         {"ridge_point", r.ridge_point, Unit::kFlopsPerByte},
         {"achieved", r.achieved_flops_per_s, Unit::kFlopsPerSecond},
         {"peak_share", r.achieved_flops_per_s / r.device_peak_flops_per_s,
          kFrac},
         {"device_peak", r.device_peak_flops_per_s, Unit::kFlopsPerSecond},
         {"compute_roof", r.compute_roof_flops_per_s, Unit::kFlopsPerSecond},
         {"attained_fraction", r.attained_fraction, kFrac}}));
  }

  // Launch overhead: the seed's eager-versus-fused story.
  if (s.launch_overhead_us > 0.5 * s.total_us && s.hardware_executions > 0) {
    Finding f = MakeFinding(
        "launch_overhead",
        {{"launch_overhead", s.launch_overhead_us, kUs},
         {"total_time", s.total_us, kUs},
         {"share", s.launch_overhead_us / s.total_us, kFrac},
         {"hardware_executions", static_cast<double>(s.hardware_executions),
          Unit::kCount}});
    if (FindWhatIf(p, "compile_graph") != nullptr) f.what_if = "compile_graph";
    out.push_back(std::move(f));
  }

  // DMA against compute.
  if (s.dma.active_us > 0 && s.compute_active_us > 0) {
    const bool none = s.dma_compute_overlap < 0.01;
    Finding f =
        none ? MakeFinding("no_dma_compute_overlap",
                           {{"overlap", s.dma_compute_overlap, kFrac}})
             : MakeFinding("dma_compute_overlap",
                           {{"overlap", s.dma_compute_overlap, kFrac},
                            {"overlap_time", s.dma_compute_overlap_us, kUs},
                            {"dma_active", s.dma.active_us, kUs}});
    if (FindWhatIf(p, "double_buffering") != nullptr) {
      f.what_if = "double_buffering";
    }
    out.push_back(std::move(f));
  }

  // Engines taking turns.
  std::vector<Engine> used;
  for (int e = 0; e < kNumEngines; ++e) {
    if (s.engines[static_cast<size_t>(e)].instructions > 0) {
      used.push_back(static_cast<Engine>(e));
    }
  }
  if (used.size() >= 2) {
    Finding f =
        s.engines_concurrent_us <= 0
            ? MakeFinding("engines_take_turns",
                          {{"compute_active", s.compute_active_us, kUs},
                           {"total_time", s.total_us, kUs}})
            : MakeFinding(
                  "engines_overlap",
                  {{"concurrent_share",
                    s.engines_concurrent_us / s.compute_active_us, kFrac}});
    f.engines = used;
    out.push_back(std::move(f));
  }

  // DMA fixed latency, measured from the run's events: the time some
  // transfer waits for its completion while nothing else moves or computes.
  // A latency that overlaps data or compute is hidden and costs nothing.
  if (s.dma.chunks > 0 && s.total_us > 0) {
    const double share = s.dma.latency_only_us / s.total_us;
    // A quarter: the tutorial's tiled matmul with two buffers (86 ms, of
    // which 54 ms is data) waits on latency alone for 29% of its time.
    if (share > 0.25) {
      out.push_back(MakeFinding(
          "dma_latency_bound",
          {{"latency_share", share, kFrac},
           {"latency_only", s.dma.latency_only_us, kUs},
           {"latency", s.dma.mean_latency_us, kUs},
           {"transfers", static_cast<double>(s.dma.transfers), Unit::kCount},
           {"pieces", static_cast<double>(s.dma.chunks), Unit::kCount},
           {"piece_bytes",
            static_cast<double>(s.dma.bytes) /
                static_cast<double>(s.dma.chunks),
            Unit::kBytes},
           {"bandwidth", s.dma.bandwidth_gbps, Unit::kGigabytesPerSecond}}));
    }
  }

  // Issue overhead of small instructions.
  for (Engine e : used) {
    const EngineCost& c = p.cost.engines[static_cast<size_t>(e)];
    const double total = c.work_us + c.overhead_us;
    // Only where it matters: the engine's overhead is a visible share of
    // the run, not two tiny mask instructions.
    if (total > 0 && c.overhead_us / total > 0.25 && c.instructions >= 2 &&
        c.overhead_us > 0.05 * s.total_us) {
      Finding f =
          MakeFinding(std::string(EngineName(e)) + "_issue_overhead",
                      {{"overhead_share", c.overhead_us / total, kFrac},
                       {"instructions", static_cast<double>(c.instructions),
                        Unit::kCount}});
      f.engines = {e};
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace

WorkloadSpec WithDoubleBuffering(const WorkloadSpec& spec, bool* changed) {
  WorkloadSpec out = spec;
  *changed = false;
  if (out.kernel.has_value()) {
    for (NkiLoop& loop : out.kernel->loops) {
      LoopChain chain;
      DoubleBuffer(out, chain, loop, changed);
    }
  }
  return out;
}

absl::StatusOr<WorkloadProfile> ProfileWorkload(const WorkloadSpec& spec,
                                                const DeviceProfile& profile,
                                                const RunOptions& options) {
  WorkloadProfile p;
  p.time_metric = spec.mode == ExecMode::kNki ? "ncl_us" : "device_time_us";
  // The what-if the findings quote, decided before anything runs, so that
  // its runs go alongside the workload's (on the jobs there are: its
  // figures need only the workload's median, taken after both).
  std::optional<WhatIfPlan> what_if;
  if (spec.mode == ExecMode::kNki) {
    bool changed = false;
    WorkloadSpec variant = WithDoubleBuffering(spec, &changed);
    // The variant keeps the name, and so the random stream: the comparison
    // is paired, draw for draw.
    if (changed) {
      what_if = PlanWhatIf("double_buffering",
                           "every single-buffered affine loop given 2 buffers",
                           std::move(variant), profile);
    }
  } else if (spec.mode == ExecMode::kEager) {
    // A spec that does not lower fails in its own run, below.
    absl::StatusOr<Program> program = Lower(spec, profile);
    if (program.ok() && program->dispatches.size() >= 2) {
      WorkloadSpec variant = spec;
      variant.mode = ExecMode::kCompiled;
      what_if = PlanWhatIf("compile_graph",
                           "the same ops compiled into one graph (one NEFF)",
                           std::move(variant), profile);
    }
  }
  const bool run_what_if = what_if.has_value() && what_if->w.feasible;
  const size_t n = run_what_if ? 2 : 1;
  const JobSplit split = SplitJobs(options.jobs, n);
  const int outer = split.outer;
  std::mutex progress;
  const RunOptions each = OptionsForEach(options, split, progress);
  WorkloadResult variant_result;
  const MetricResult* m = nullptr;
  // Item 0 is the workload, item 1 the what-if's variant (its runs count
  // on the caller's progress line as the workload's do); in that order, so
  // the first error is the one a serial profile meets first.
  TRN_RETURN_IF_ERROR(OrderedParallelMap<WorkloadResult>(
      n, outer,
      [&](size_t, size_t k) -> absl::StatusOr<WorkloadResult> {
        return RunWorkload(k == 0 ? spec : what_if->variant, profile, each);
      },
      [&](size_t k, WorkloadResult r) -> absl::Status {
        if (k == 1) {
          variant_result = std::move(r);
          return absl::OkStatus();
        }
        p.result = std::move(r);
        m = p.result.Find(p.time_metric);
        if (m == nullptr || m->samples.empty()) {
          return absl::InternalError(
              absl::StrFormat("%s: no %s samples", spec.name, p.time_metric));
        }
        return absl::OkStatus();
      }));
  p.median_us = m->summary.median;
  double best = std::numeric_limits<double>::infinity();
  for (size_t k = 0; k < m->samples.size(); ++k) {
    const double d = std::fabs(m->samples[k] - p.median_us);
    if (d < best) {
      best = d;
      p.recorded_run = static_cast<int64_t>(k);
    }
  }
  p.repeat_index = options.schedule.IndexOfActive(p.recorded_run);
  p.time_us = m->samples[static_cast<size_t>(p.recorded_run)];

  TRN_ASSIGN_OR_RETURN(Program program, Lower(spec, profile));
  p.compiler = spec.compiled;
  TRN_ASSIGN_OR_RETURN(Timeline tl,
                       ReplayRun(spec, profile, options.seed, p.repeat_index));
  p.summary = SummarizeDevice(tl);
  p.cost = ComputeProgramCost(program, profile);
  const DevicePeaks peaks = ComputePeaks(profile);
  p.roofline = ComputeRoofline(p.cost, peaks, p.time_us);
  p.memory_bandwidth_utilisation =
      p.time_us > 0 ? static_cast<double>(p.cost.hbm_bytes) /
                          (p.time_us * 1e-6) / peaks.hbm_bytes_per_s
                    : 0.0;
  p.flop_utilisation =
      p.roofline.achieved_flops_per_s / p.roofline.device_peak_flops_per_s;

  if (what_if.has_value()) {
    if (run_what_if) {
      ScoreWhatIf(what_if->w, variant_result, p.time_metric, p.median_us);
    }
    p.what_ifs.push_back(std::move(what_if->w));
  }
  p.findings = MakeFindings(p, peaks);
  return p;
}

absl::StatusOr<std::vector<WorkloadProfile>> ProfileWorkloads(
    const std::vector<WorkloadSpec>& specs, const DeviceProfile& profile,
    const RunOptions& options) {
  // As RunAll: workloads on up to `jobs` threads, what jobs are left over
  // to each workload's runs; profiles taken in the specs' order.
  const JobSplit split = SplitJobs(options.jobs, specs.size());
  const int outer = split.outer;
  std::mutex progress;
  const RunOptions each = OptionsForEach(options, split, progress);
  std::vector<WorkloadProfile> out;
  out.reserve(specs.size());
  TRN_RETURN_IF_ERROR(OrderedParallelMap<WorkloadProfile>(
      specs.size(), outer,
      [&](size_t, size_t k) -> absl::StatusOr<WorkloadProfile> {
        if (options.on_workload) {
          std::lock_guard<std::mutex> lock(progress);
          options.on_workload(specs[k].name);
        }
        return ProfileWorkload(specs[k], profile, each);
      },
      [&](size_t, WorkloadProfile p) -> absl::Status {
        out.push_back(std::move(p));
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace trn
