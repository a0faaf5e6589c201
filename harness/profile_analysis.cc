#include "harness/profile_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "device_model/metrics.h"
#include "harness/unit_text.h"
#include "support/status_macros.h"
#include "workloads/lowering.h"
#include "workloads/nki_loops.h"
#include "workloads/spec_validator.h"

namespace trn {
namespace {

// Findings are read by people: times get a unit that keeps 3-4 digits.
std::string Time(double us) {
  if (std::fabs(us) >= 1e3) return absl::StrFormat("%.3f ms", us / 1e3);
  if (std::fabs(us) >= 100) return absl::StrFormat("%.1f μs", us);
  return absl::StrFormat("%.2f μs", us);
}

std::string Pct(double fraction) {
  const double p = fraction * 100;
  if (p != 0 && std::fabs(p) < 0.1) return absl::StrFormat("%.2g%%", p);
  return absl::StrFormat("%.1f%%", p);
}

std::string SignedPct(double fraction) {
  // U+2212, the minus sign, as in "-5%" typeset.
  const double p = fraction * 100;
  return p < 0 ? absl::StrFormat("\u2212%.1f%%", -p)
               : absl::StrFormat("+%.1f%%", p);
}

std::string Flops(double per_s) {
  if (per_s >= 1e12) return absl::StrFormat("%.2f TFLOP/s", per_s / 1e12);
  if (per_s >= 1e9) return absl::StrFormat("%.2f GFLOP/s", per_s / 1e9);
  return absl::StrFormat("%.2f MFLOP/s", per_s / 1e6);
}

std::string EngineTitle(Engine e) {
  switch (e) {
    case Engine::kTensor:
      return "TensorE";
    case Engine::kVector:
      return "VectorE";
    case Engine::kScalar:
      return "ScalarE";
    case Engine::kGpSimd:
      return "GpSimdE";
  }
  return "?";
}

std::string EngineList(const std::vector<Engine>& engines) {
  std::vector<std::string> names;
  for (Engine e : engines) names.push_back(EngineTitle(e));
  if (names.size() <= 1) return absl::StrJoin(names, "");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrFormat("%s and %s", absl::StrJoin(names, ", "), last);
}

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

// Runs `variant` like the workload and fills the what-if's figures; an
// invalid variant (it does not fit on chip) is reported, not an error.
absl::StatusOr<WhatIf> RunWhatIf(std::string id, std::string change,
                                 const WorkloadSpec& variant,
                                 const DeviceProfile& profile,
                                 const RunOptions& options,
                                 const std::string& metric, double median) {
  WhatIf w;
  w.id = std::move(id);
  w.change = std::move(change);
  if (absl::Status s = ValidateSpec(variant, profile.memory); !s.ok()) {
    w.feasible = false;
    w.why_not = WithoutFile(
        variant, std::string_view(s.message().data(), s.message().size()));
    return w;
  }
  RunOptions quiet = options;
  quiet.on_run = nullptr;
  TRN_ASSIGN_OR_RETURN(WorkloadResult r, RunWorkload(variant, profile, quiet));
  w.time_us = MedianOf(r, metric);
  w.relative = median > 0 ? w.time_us / median - 1 : 0.0;
  w.dma_compute_overlap = MedianOf(r, "dma_compute_overlap");
  return w;
}

const WhatIf* FindWhatIf(const WorkloadProfile& p, const std::string& id) {
  for (const auto& w : p.what_ifs) {
    if (w.id == id) return &w;
  }
  return nullptr;
}

std::string Prediction(const WhatIf& w, const std::string& how) {
  if (!w.feasible) {
    return absl::StrFormat("; %s would not fit: %s", how, w.why_not);
  }
  return absl::StrFormat("; %s the model predicts %s (%s)", how,
                         Time(w.time_us), SignedPct(w.relative));
}

std::vector<Finding> MakeFindings(const WorkloadSpec& spec,
                                  const WorkloadProfile& p,
                                  const DeviceProfile& profile,
                                  const DevicePeaks& peaks) {
  std::vector<Finding> out;
  const DeviceSummary& s = p.summary;
  const Roofline& r = p.roofline;

  // Where the roofline puts it.
  Finding bound;
  if (r.memory_bound) {
    bound.id = "memory_bound";
    bound.text = absl::StrFormat(
        "Memory-bound: %.3g FLOP per HBM byte is below the ridge point of "
        "%.3g FLOP/B, so HBM bandwidth would limit it before compute; it "
        "moves %s at %.3g GB/s, %s of the %.0f GB/s the DMA queues can draw "
        "from HBM.",
        r.arithmetic_intensity, r.ridge_point, BytesText(r.hbm_bytes),
        r.hbm_bytes / (p.time_us * 1e3),
        Pct(r.hbm_bytes / (p.time_us * 1e-6) / peaks.dma_bytes_per_s),
        peaks.dma_bytes_per_s / 1e9);
  } else {
    bound.id = "compute_bound";
    bound.text = absl::StrFormat(
        "Compute-bound: %.3g FLOP per HBM byte is above the ridge point of "
        "%.3g FLOP/B; it reaches %s, %s of the %s TensorE bf16 peak and %s "
        "of the %s its engines allow.",
        r.arithmetic_intensity, r.ridge_point, Flops(r.achieved_flops_per_s),
        Pct(r.achieved_flops_per_s / r.device_peak_flops_per_s),
        Flops(r.device_peak_flops_per_s), Pct(r.attained_fraction),
        Flops(r.compute_roof_flops_per_s));
  }
  if (r.attained_fraction < 0.25) {
    bound.text += absl::StrFormat(
        " At %s of what the roofline allows, fixed costs set its time "
        "rather than either roof.",
        Pct(r.attained_fraction));
  }
  out.push_back(std::move(bound));

  // Launch overhead: the seed's eager-versus-fused story.
  if (s.launch_overhead_us > 0.5 * s.total_us && s.hardware_executions > 0) {
    std::string text = absl::StrFormat(
        "Fixed execution overhead: %s of the %s device time (%s) is the cost "
        "of launching %d hardware execution%s, not kernel work",
        Time(s.launch_overhead_us), Time(s.total_us),
        Pct(s.launch_overhead_us / s.total_us), s.hardware_executions,
        s.hardware_executions == 1 ? "" : "s");
    if (const WhatIf* w = FindWhatIf(p, "compile_graph")) {
      text += Prediction(*w, "compiled into one graph");
    }
    out.push_back({"launch_overhead", text + "."});
  }

  // DMA against compute.
  const bool has_compute = s.compute_active_us > 0;
  if (s.dma.active_us > 0 && has_compute) {
    if (s.dma_compute_overlap < 0.01) {
      std::string text = absl::StrFormat(
          "DMA and compute never overlap (%s of DMA time): every tile is "
          "loaded whole before it is computed",
          Pct(s.dma_compute_overlap));
      if (const WhatIf* w = FindWhatIf(p, "double_buffering")) {
        text += Prediction(*w, "with 2 buffers");
        if (w->feasible) {
          text += absl::StrFormat(
              ", with DMA overlapping compute for %s of "
              "DMA time",
              Pct(w->dma_compute_overlap));
        }
      }
      out.push_back({"no_dma_compute_overlap", text + "."});
    } else {
      std::string text = absl::StrFormat(
          "DMA overlaps compute for %s of DMA time (%s of %s)",
          Pct(s.dma_compute_overlap), Time(s.dma_compute_overlap_us),
          Time(s.dma.active_us));
      if (const WhatIf* w = FindWhatIf(p, "double_buffering")) {
        text += Prediction(*w, "double-buffering its single-buffered loops");
      }
      out.push_back({"dma_compute_overlap", text + "."});
    }
  }

  // Engines taking turns.
  std::vector<Engine> used;
  for (int e = 0; e < kNumEngines; ++e) {
    if (s.engines[static_cast<size_t>(e)].instructions > 0) {
      used.push_back(static_cast<Engine>(e));
    }
  }
  if (used.size() >= 2) {
    if (s.engines_concurrent_us <= 0) {
      out.push_back(
          {"engines_take_turns",
           absl::StrFormat("%s are busy one at a time: no two engines ever "
                           "compute together (compute active %s of %s).",
                           EngineList(used), Time(s.compute_active_us),
                           Time(s.total_us))});
    } else {
      out.push_back({"engines_overlap",
                     absl::StrFormat(
                         "%s compute concurrently for %s of the time at "
                         "least one of them is busy.",
                         EngineList(used),
                         Pct(s.engines_concurrent_us / s.compute_active_us))});
    }
  }

  // DMA fixed latency: the queues serve one transfer at a time, latency
  // included, so small transfers leave the bandwidth unused.
  // Only where memory is the bound: a compute-bound kernel hides it.
  if (r.memory_bound && s.dma.chunks > 0 && s.dma.queue_busy_us > 0) {
    const double latency = profile.dma_latency_us.Median();
    const double share = std::min(
        1.0, static_cast<double>(s.dma.chunks) * latency / s.dma.queue_busy_us);
    if (share > 0.5) {
      out.push_back(
          {"dma_latency_bound",
           absl::StrFormat(
               "DMA is latency-bound: %s of the queues' busy time is the "
               "fixed ~%s cost of each of %d transfers (%d pieces averaging "
               "%s), so they average %.1f GB/s while active; fewer, larger "
               "transfers would move the same bytes in less time.",
               Pct(share), Time(latency), p.cost.dma_transfers, s.dma.chunks,
               BytesText(static_cast<double>(s.dma.bytes) /
                         static_cast<double>(s.dma.chunks)),
               s.dma.bandwidth_gbps)});
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
      out.push_back(
          {absl::StrFormat("%s_issue_overhead", EngineName(e)),
           absl::StrFormat("%s spends %s of its instruction time on the fixed "
                           "issue overhead of its %d instructions; larger "
                           "tiles would amortise it.",
                           EngineList({e}), Pct(c.overhead_us / total),
                           c.instructions)});
    }
  }
  (void)spec;
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
  TRN_ASSIGN_OR_RETURN(p.result, RunWorkload(spec, profile, options));
  p.time_metric = spec.mode == ExecMode::kNki ? "ncl_us" : "device_time_us";
  const MetricResult* m = p.result.Find(p.time_metric);
  if (m == nullptr || m->samples.empty()) {
    return absl::InternalError(
        absl::StrFormat("%s: no %s samples", spec.name, p.time_metric));
  }
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
  TRN_ASSIGN_OR_RETURN(Timeline tl,
                       ReplayRun(spec, profile, options.seed, p.repeat_index));
  p.summary = SummarizeDevice(tl);
  p.cost = ComputeProgramCost(program, profile);
  const DevicePeaks peaks = ComputePeaks(profile);
  p.roofline = ComputeRoofline(p.cost, peaks, p.time_us);
  p.memory_bandwidth_utilisation =
      p.time_us > 0 ? static_cast<double>(p.cost.dma_bytes) /
                          (p.time_us * 1e-6) / peaks.hbm_bytes_per_s
                    : 0.0;
  p.flop_utilisation =
      p.roofline.achieved_flops_per_s / p.roofline.device_peak_flops_per_s;

  // What-ifs the findings quote.
  if (spec.mode == ExecMode::kNki) {
    bool changed = false;
    WorkloadSpec variant = WithDoubleBuffering(spec, &changed);
    // The variant keeps the name, and so the random stream: the comparison
    // is paired, draw for draw.
    if (changed) {
      TRN_ASSIGN_OR_RETURN(
          WhatIf w,
          RunWhatIf("double_buffering",
                    "every single-buffered affine loop given 2 buffers",
                    variant, profile, options, p.time_metric, p.median_us));
      p.what_ifs.push_back(std::move(w));
    }
  } else if (spec.mode == ExecMode::kEager && program.dispatches.size() >= 2) {
    WorkloadSpec variant = spec;
    variant.mode = ExecMode::kCompiled;
    TRN_ASSIGN_OR_RETURN(
        WhatIf w,
        RunWhatIf("compile_graph",
                  "the same ops compiled into one graph (one NEFF)", variant,
                  profile, options, p.time_metric, p.median_us));
    p.what_ifs.push_back(std::move(w));
  }
  p.findings = MakeFindings(spec, p, profile, peaks);
  return p;
}

}  // namespace trn
