#include "reports/profile_report.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/runner/summary_json.h"
#include "reports/finding_text.h"
#include "reports/number_format.h"
#include "reports/text_table.h"

namespace trn {
namespace {

using nlohmann::ordered_json;

ordered_json Num(double x) { return JsonNumber(x); }

std::string Time(double us) { return FormatQuantity(us, Unit::kMicroseconds); }
std::string Pct(double fraction) { return FormatPercent(fraction); }
std::string Rate(double flops_per_s) {
  return FormatQuantity(flops_per_s, Unit::kFlopsPerSecond);
}
std::string Flops(double flops) { return FormatQuantity(flops, Unit::kFlops); }
std::string Bytes(double bytes) { return FormatQuantity(bytes, Unit::kBytes); }
std::string Bandwidth(double bytes_per_s) {
  return FormatQuantity(bytes_per_s / 1e9, Unit::kGigabytesPerSecond);
}
std::string Intensity(double flops_per_byte) {
  return FormatQuantity(flops_per_byte, Unit::kFlopsPerByte);
}

const char* Bound(const Roofline& r) {
  return r.memory_bound ? "memory" : "compute";
}

std::string MetricLabel(const std::string& metric) {
  return metric == "ncl_us" ? "NCL" : "device time";
}

void RenderWorkload(const ProfileReport& rep, const WorkloadProfile& p,
                    std::string& out) {
  const WorkloadResult& w = p.result;
  const MetricResult* m = w.Find(p.time_metric);
  absl::StrAppendFormat(&out, "\n%s (%s, %s)\n", w.name, w.family, w.mode);
  absl::StrAppendFormat(
      &out,
      "  run shown: recorded run %d of %d, the one closest to the median "
      "(replay alone: --seed %d --wait %d --warmup 0 --repeat 1)\n",
      p.recorded_run, rep.schedule.repeat, rep.seed, p.repeat_index);
  if (m != nullptr) {
    absl::StrAppendFormat(
        &out, "  %s %s; over %d runs median %s, p1 %s, p99 %s\n",
        MetricLabel(p.time_metric), Time(p.time_us), rep.schedule.repeat,
        Time(m->summary.median), Time(m->summary.p01), Time(m->summary.p99));
  }

  const DeviceSummary& s = p.summary;
  absl::StrAppend(&out, "\n  Device summary\n");
  absl::StrAppendFormat(&out, "    total time   %s (%d hardware execution%s",
                        Time(s.total_us), s.hardware_executions,
                        s.hardware_executions == 1 ? "" : "s");
  if (s.launch_overhead_us > 0) {
    absl::StrAppendFormat(&out, ", %s of it launch overhead",
                          Time(s.launch_overhead_us));
  }
  absl::StrAppend(&out, ")\n");
  TextTable t({"engine", "active", "active %", "instructions",
               "instruction time", "FLOPs", "FLOP/s", "% of engine peak"});
  for (int e = 0; e < kNumEngines; ++e) {
    const EngineActivity& a = s.engines[static_cast<size_t>(e)];
    const double rate =
        a.active_us > 0 ? static_cast<double>(a.flops) / (a.active_us * 1e-6)
                        : 0.0;
    const double peak = rep.peaks.flops_per_s[static_cast<size_t>(e)];
    t.AddRow(
        {std::string(EngineName(static_cast<Engine>(e))), Time(a.active_us),
         Pct(a.active_fraction), absl::StrFormat("%d", a.instructions),
         Time(a.instruction_us), Flops(static_cast<double>(a.flops)),
         a.flops > 0 ? Rate(rate) : "-", a.flops > 0 ? Pct(rate / peak) : "-"});
  }
  out += t.Render("    ");
  absl::StrAppendFormat(
      &out,
      "    DMA          %d transfers in %d pieces on %d queues, %s, active "
      "%s (%s), %s while active\n",
      p.cost.dma_transfers, s.dma.chunks, s.dma.queues_used,
      Bytes(static_cast<double>(s.dma.bytes)), Time(s.dma.active_us),
      Pct(s.total_us > 0 ? s.dma.active_us / s.total_us : 0.0),
      FormatQuantity(s.dma.bandwidth_gbps, Unit::kGigabytesPerSecond));
  absl::StrAppendFormat(&out,
                        "    memory-bandwidth utilisation  %s of %s HBM\n",
                        Pct(p.memory_bandwidth_utilisation),
                        Bandwidth(rep.peaks.hbm_bytes_per_s));
  absl::StrAppendFormat(&out,
                        "    FLOP utilisation              %s of %s (TensorE "
                        "bf16 peak)\n",
                        Pct(p.flop_utilisation),
                        Rate(p.roofline.device_peak_flops_per_s));
  absl::StrAppendFormat(
      &out, "    DMA/compute overlap           %s of DMA time (%s)\n",
      Pct(s.dma_compute_overlap), Time(s.dma_compute_overlap_us));
  absl::StrAppendFormat(
      &out, "    engines concurrent            %s (two or more computing)\n",
      Time(s.engines_concurrent_us));

  const Roofline& r = p.roofline;
  absl::StrAppend(&out, "\n  Roofline\n");
  absl::StrAppendFormat(
      &out,
      "    %s over %s of HBM traffic: arithmetic intensity %s; ridge point "
      "%s\n",
      Flops(r.flops), Bytes(r.hbm_bytes), Intensity(r.arithmetic_intensity),
      Intensity(r.ridge_point));
  absl::StrAppendFormat(
      &out,
      "    roofs: compute %s (the peaks of the engines doing its arithmetic), "
      "memory %s\n",
      Rate(r.compute_roof_flops_per_s), Bandwidth(r.memory_roof_bytes_per_s));
  absl::StrAppendFormat(
      &out, "    attainable %s, achieved %s (%s of attainable): %s-bound\n",
      Rate(r.attainable_flops_per_s), Rate(r.achieved_flops_per_s),
      Pct(r.attained_fraction), Bound(r));

  if (p.compiler.done) {
    const CompilerDecisions& c = p.compiler;
    absl::StrAppend(&out, "\n  Compiler decisions\n");
    for (const LoopDecision& l : c.loops) {
      absl::StrAppendFormat(
          &out, "    loop %s (%d trips): depth %d, by %s: %s\n", l.var, l.trips,
          l.depth, DecidedByName(l.by), l.why);
    }
    for (const EngineDecision& e : c.engines) {
      absl::StrAppendFormat(&out, "    op %s (%s, line %d): %s, by %s: %s\n",
                            e.id, e.op, e.line, EngineName(e.engine),
                            DecidedByName(e.by), e.why);
    }
    for (const HoistDecision& h : c.hoists) {
      absl::StrAppendFormat(&out, "    hoist %s (%s) out of loop %s: %s\n",
                            h.id, h.json_path, h.var, h.why);
    }
    for (const RematDecision& rm : c.remats) {
      absl::StrAppendFormat(&out, "    rematerialize %s (%s) in loop %s: %s\n",
                            rm.id, rm.json_path, rm.var, rm.why);
    }
    for (const SpillDecision& sp : c.spills) {
      if (sp.slots > 0) {
        absl::StrAppendFormat(
            &out,
            "    spill %s: the last %d of its %d slots (%d B x %d partitions "
            "each) saved to HBM after %s fills them, %d times, and reloaded "
            "before each of their %d reads: %d B saved, %d B reloaded: %s\n",
            sp.id, sp.slots, sp.block_slots, sp.bytes, sp.partitions,
            sp.json_path, sp.runs, sp.reloads, sp.SaveBytes(), sp.ReloadBytes(),
            sp.why);
        continue;
      }
      absl::StrAppendFormat(
          &out,
          "    spill %s: %d B x %d partitions saved to HBM after %s and "
          "reloaded before %s, %d times: %d B saved, %d B reloaded: %s\n",
          sp.id, sp.bytes, sp.partitions, sp.json_path, sp.reload_before,
          sp.runs, sp.SaveBytes(), sp.ReloadBytes(), sp.why);
    }
    absl::StrAppendFormat(
        &out, "    SBUF peak %d of %d B per partition at %s\n", c.sbuf.used,
        c.sbuf.limit, c.sbuf.at.empty() ? "-" : c.sbuf.at);
    absl::StrAppendFormat(&out, "    PSUM peak %d of %d banks at %s\n",
                          c.psum.used, c.psum.limit,
                          c.psum.at.empty() ? "-" : c.psum.at);
  }

  if (!p.what_ifs.empty()) {
    absl::StrAppend(&out, "\n  What-ifs (same seed and runs)\n");
    for (const WhatIf& wi : p.what_ifs) {
      if (wi.feasible) {
        absl::StrAppendFormat(&out, "    %s: median %s %s (%s)\n", wi.change,
                              MetricLabel(p.time_metric), Time(wi.time_us),
                              FormatSignedPercent(wi.relative));
      } else {
        absl::StrAppendFormat(&out, "    %s: does not fit: %s\n", wi.change,
                              wi.why_not);
      }
    }
  }

  absl::StrAppend(&out, "\n  Findings\n");
  for (size_t i = 0; i < p.findings.size(); ++i) {
    absl::StrAppendFormat(&out, "    %d. %s\n", i + 1,
                          FindingText(p.findings[i], p));
  }
}

ordered_json PeakJson(const MemoryPeak& m) {
  ordered_json live = ordered_json::array();
  for (const LiveTile& t : m.live) {
    live.push_back({{"id", t.id}, {"bytes", t.bytes}, {"copies", t.copies}});
  }
  return {{"used", m.used}, {"limit", m.limit}, {"at", m.at}, {"live", live}};
}

// The compiler stage's decisions (docs/profile.md, "compiler").
ordered_json CompilerJson(const CompilerDecisions& c) {
  ordered_json loops = ordered_json::array();
  for (const LoopDecision& l : c.loops) {
    loops.push_back({{"path", l.json_path},
                     {"var", l.var},
                     {"trips", l.trips},
                     {"depth", l.depth},
                     {"by", DecidedByName(l.by)},
                     {"why", l.why}});
  }
  ordered_json engines = ordered_json::array();
  for (const EngineDecision& e : c.engines) {
    engines.push_back({{"path", e.json_path},
                       {"id", e.id},
                       {"op", e.op},
                       {"line", e.line},
                       {"engine", std::string(EngineName(e.engine))},
                       {"by", DecidedByName(e.by)},
                       {"why", e.why}});
  }
  ordered_json spills = ordered_json::array();
  int64_t save_bytes = 0;
  int64_t reload_bytes = 0;
  for (const SpillDecision& s : c.spills) {
    ordered_json j = {{"path", s.json_path},
                      {"id", s.id},
                      {"reload_before", s.reload_before},
                      {"partitions", s.partitions},
                      {"bytes_per_partition", s.bytes},
                      {"runs", s.runs}};
    if (s.slots > 0) {
      j["slots"] = s.slots;
      j["block_slots"] = s.block_slots;
      j["reloads"] = s.reloads;
    }
    j["save_bytes"] = s.SaveBytes();
    j["reload_bytes"] = s.ReloadBytes();
    j["why"] = s.why;
    spills.push_back(std::move(j));
    save_bytes += s.SaveBytes();
    reload_bytes += s.ReloadBytes();
  }
  return {{"loops", loops},
          {"engines", engines},
          {"spills", spills},
          {"spill_save_bytes", save_bytes},
          {"spill_reload_bytes", reload_bytes},
          {"sbuf_peak_bytes_per_partition", PeakJson(c.sbuf)},
          {"psum_peak_banks", PeakJson(c.psum)},
          {"psum_bank_bytes", c.psum_bank_bytes}};
}

ordered_json WhatIfJson(const WhatIf& w) {
  ordered_json j;
  j["id"] = w.id;
  j["change"] = w.change;
  j["feasible"] = w.feasible;
  if (w.feasible) {
    j["time_us"] = Num(w.time_us);
    j["relative_change"] = Num(w.relative);
    j["dma_compute_overlap"] = Num(w.dma_compute_overlap);
  } else {
    j["why_not"] = w.why_not;
  }
  return j;
}

}  // namespace

std::string UncalibratedWarning(const std::string& device) {
  return absl::StrFormat(
      "WARNING: device profile %s is NOT calibrated: its figures are public "
      "hardware specs and values carried over from another device, and no "
      "measurement pins them. Treat its times as estimates.",
      device);
}

std::string RenderProfileText(const ProfileReport& rep) {
  std::string out;
  if (!rep.device_calibrated) {
    absl::StrAppend(&out, UncalibratedWarning(rep.device), "\n\n");
  }
  absl::StrAppendFormat(
      &out,
      "trnbench %s profile · device %s (%s) · seed %d · wait %d / warmup %d "
      "/ repeat %d\n",
      rep.trnbench_version, rep.device,
      rep.device_calibrated ? "calibrated" : "UNCALIBRATED", rep.seed,
      rep.schedule.wait, rep.schedule.warmup, rep.schedule.repeat);
  absl::StrAppendFormat(
      &out,
      "peaks: TensorE %s bf16, VectorE %s, ScalarE %s, GpSimdE %s; HBM %s, "
      "DMA %s\n",
      Rate(rep.peaks.flops_per_s[0]), Rate(rep.peaks.flops_per_s[1]),
      Rate(rep.peaks.flops_per_s[2]), Rate(rep.peaks.flops_per_s[3]),
      Bandwidth(rep.peaks.hbm_bytes_per_s),
      Bandwidth(rep.peaks.dma_bytes_per_s));
  for (const auto& p : rep.workloads) RenderWorkload(rep, p, out);
  if (rep.workloads.size() > 1) {
    absl::StrAppend(&out, "\nRoofline, one row per workload\n");
    TextTable t({"workload", "time", "FLOP", "HBM bytes", "FLOP/B",
                 "attainable", "achieved", "of attainable", "bound"});
    for (const auto& p : rep.workloads) {
      const Roofline& r = p.roofline;
      t.AddRow({p.result.name, Time(p.time_us), Flops(r.flops),
                Bytes(r.hbm_bytes), Intensity(r.arithmetic_intensity),
                Rate(r.attainable_flops_per_s), Rate(r.achieved_flops_per_s),
                Pct(r.attained_fraction), Bound(r)});
    }
    out += t.Render("  ");
  }
  return out;
}

ordered_json ProfileToJson(const ProfileReport& rep) {
  ordered_json j;
  j["schema"] = "trnbench.profile";
  j["schema_version"] = kProfileReportSchemaVersion;
  j["trnbench_version"] = rep.trnbench_version;
  j["model_version"] = rep.model_version;
  j["device"] = {{"name", rep.device},
                 {"content_hash", rep.device_hash},
                 {"calibrated", rep.device_calibrated}};
  if (!rep.device_calibrated) {
    j["device"]["warning"] = UncalibratedWarning(rep.device);
  }
  ordered_json peaks;
  for (int e = 0; e < kNumEngines; ++e) {
    peaks[std::string(EngineName(static_cast<Engine>(e))) + "_flops_per_s"] =
        Num(rep.peaks.flops_per_s[static_cast<size_t>(e)]);
  }
  peaks["tensor_fp32_flops_per_s"] = Num(rep.peaks.tensor_fp32_flops_per_s);
  peaks["hbm_bytes_per_s"] = Num(rep.peaks.hbm_bytes_per_s);
  peaks["dma_queue_bytes_per_s"] = Num(rep.peaks.dma_queue_bytes_per_s);
  peaks["dma_bytes_per_s"] = Num(rep.peaks.dma_bytes_per_s);
  j["device"]["peaks"] = peaks;
  j["seed"] = rep.seed;
  j["schedule"] = ScheduleToJson(rep.schedule);
  ordered_json ws = ordered_json::array();
  for (const auto& p : rep.workloads) {
    const WorkloadResult& w = p.result;
    const DeviceSummary& s = p.summary;
    ordered_json wj;
    SetWorkloadIdentity(w, wj);
    wj["time_metric"] = p.time_metric;
    const MetricResult* m = w.Find(p.time_metric);
    wj["time_summary"] =
        m != nullptr ? SummaryToJson(m->summary) : ordered_json(nullptr);
    wj["run"] = {{"recorded_run", p.recorded_run},
                 {"repeat_index", p.repeat_index},
                 {"time_us", Num(p.time_us)}};
    ordered_json sj;
    sj["total_time_us"] = Num(s.total_us);
    sj["hardware_executions"] = s.hardware_executions;
    sj["launch_overhead_us"] = Num(s.launch_overhead_us);
    ordered_json engines = ordered_json::array();
    for (int e = 0; e < kNumEngines; ++e) {
      const EngineActivity& a = s.engines[static_cast<size_t>(e)];
      const EngineCost& c = p.cost.engines[static_cast<size_t>(e)];
      engines.push_back(
          {{"engine", std::string(EngineName(static_cast<Engine>(e)))},
           {"active_us", Num(a.active_us)},
           {"active_fraction", Num(a.active_fraction)},
           {"instructions", a.instructions},
           {"instruction_time_us", Num(a.instruction_us)},
           {"issue_overhead_us", Num(c.overhead_us)},
           {"flops", a.flops},
           {"peak_flops_per_s",
            Num(rep.peaks.flops_per_s[static_cast<size_t>(e)])}});
    }
    sj["engines"] = engines;
    sj["dma"] = {{"transfers", p.cost.dma_transfers},
                 {"pieces", s.dma.chunks},
                 {"queues_used", s.dma.queues_used},
                 {"bytes", s.dma.bytes},
                 {"active_us", Num(s.dma.active_us)},
                 {"queue_busy_us", Num(s.dma.queue_busy_us)},
                 {"bandwidth_gbps", Num(s.dma.bandwidth_gbps)},
                 {"mean_latency_us", Num(s.dma.mean_latency_us)},
                 {"latency_only_us", Num(s.dma.latency_only_us)}};
    sj["memory_bandwidth_utilisation"] = Num(p.memory_bandwidth_utilisation);
    sj["flop_utilisation"] = Num(p.flop_utilisation);
    sj["compute_active_us"] = Num(s.compute_active_us);
    sj["engines_concurrent_us"] = Num(s.engines_concurrent_us);
    sj["dma_compute_overlap_us"] = Num(s.dma_compute_overlap_us);
    sj["dma_compute_overlap"] = Num(s.dma_compute_overlap);
    wj["summary"] = sj;
    const Roofline& r = p.roofline;
    wj["roofline"] = {
        {"flops", Num(r.flops)},
        {"hbm_bytes", Num(r.hbm_bytes)},
        {"arithmetic_intensity", Num(r.arithmetic_intensity)},
        {"ridge_point", Num(r.ridge_point)},
        {"compute_roof_flops_per_s", Num(r.compute_roof_flops_per_s)},
        {"device_peak_flops_per_s", Num(r.device_peak_flops_per_s)},
        {"memory_roof_bytes_per_s", Num(r.memory_roof_bytes_per_s)},
        {"attainable_flops_per_s", Num(r.attainable_flops_per_s)},
        {"achieved_flops_per_s", Num(r.achieved_flops_per_s)},
        {"attained_fraction", Num(r.attained_fraction)},
        {"compute_floor_us", Num(p.cost.compute_floor_us)},
        {"memory_floor_us", Num(p.cost.memory_floor_us)},
        {"bound", Bound(r)}};
    if (p.compiler.done) wj["compiler"] = CompilerJson(p.compiler);
    ordered_json what_ifs = ordered_json::array();
    for (const WhatIf& wi : p.what_ifs) what_ifs.push_back(WhatIfJson(wi));
    wj["what_ifs"] = what_ifs;
    ordered_json findings = ordered_json::array();
    for (const Finding& f : p.findings) {
      ordered_json fj;
      fj["id"] = f.id;
      ordered_json figures = ordered_json::object();
      for (const FindingFigure& x : f.figures) figures[x.key] = Num(x.value);
      fj["figures"] = std::move(figures);
      if (!f.engines.empty()) {
        ordered_json names = ordered_json::array();
        for (Engine e : f.engines) names.push_back(std::string(EngineName(e)));
        fj["engines"] = std::move(names);
      }
      if (!f.what_if.empty()) fj["what_if"] = f.what_if;
      fj["text"] = FindingText(f, p);
      findings.push_back(std::move(fj));
    }
    wj["findings"] = findings;
    ws.push_back(std::move(wj));
  }
  j["workloads"] = ws;
  return j;
}

std::string ProfileToJsonText(const ProfileReport& report) {
  return ProfileToJson(report).dump(2) + "\n";
}

}  // namespace trn
