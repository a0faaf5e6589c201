#include "device_model/metrics.h"

#include <algorithm>
#include <array>
#include <utility>

#include "support/interval_union.h"

namespace trn {

const std::vector<MetricInfo>& AllMetrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"device_time_us", "us", true,
       "sum of hardware-lane execution time (self_privateuse1_time_total)"},
      {"wall_time_us", "us", true,
       "first to last event of a run (NKI: includes the benchmark-loop gap)"},
      {"ncl_us", "us", true, "NKI: NeuronCore latency of the kernel"},
      {"latency_us", "us", true, "NKI: end-to-end latency, launch to done"},
      {"throughput_per_s", "1/s", false,
       "NKI: benchmark-loop iterations per second"},
      {"tensor_busy_us", "us", true, "TensorE busy time"},
      {"vector_busy_us", "us", true, "VectorE busy time"},
      {"scalar_busy_us", "us", true, "ScalarE busy time"},
      {"gpsimd_busy_us", "us", true, "GpSimdE busy time"},
      {"tensor_util", "fraction", false, "TensorE busy / device time"},
      {"vector_util", "fraction", false, "VectorE busy / device time"},
      {"scalar_util", "fraction", false, "ScalarE busy / device time"},
      {"gpsimd_util", "fraction", false, "GpSimdE busy / device time"},
      {"dma_bytes", "B", true, "bytes moved by the DMA queues"},
      {"dma_active_us", "us", true, "time at least one DMA queue is busy"},
      {"dma_bandwidth_gbps", "GB/s", false, "DMA bytes / DMA active time"},
      {"dma_compute_overlap", "fraction", false,
       "share of DMA active time during which an engine computes"},
  };
  return kMetrics;
}

const MetricInfo* FindMetric(std::string_view name) {
  for (const auto& m : AllMetrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::vector<MetricValue> ComputeMetrics(const Timeline& tl) {
  double device = 0;
  double first = 0;
  double last = 0;
  bool any = false;
  double hw_end = 0;
  std::array<double, kNumEngines> busy{};
  std::vector<TimeInterval> dma;
  std::vector<TimeInterval> compute;
  int64_t bytes = 0;
  for (const Event& e : tl.events) {
    if (!any || e.start_us < first) first = e.start_us;
    if (!any || e.end_us > last) last = e.end_us;
    any = true;
    const Lane& lane = tl.lanes[e.lane];
    switch (lane.kind) {
      case LaneKind::kHardware:
        device += e.dur_us();
        hw_end = std::max(hw_end, e.end_us);
        break;
      case LaneKind::kEngine:
        busy[static_cast<size_t>(lane.index)] += e.dur_us();
        compute.emplace_back(e.start_us, e.end_us);
        break;
      case LaneKind::kDmaQueue:
        bytes += e.bytes;
        dma.emplace_back(e.start_us, e.end_us);
        break;
      default:
        break;
    }
  }
  const double wall = last - first;
  std::vector<MetricValue> out;
  out.push_back({"device_time_us", device});
  out.push_back({"wall_time_us", wall});
  if (tl.mode == ExecMode::kNki) {
    out.push_back({"ncl_us", device});
    out.push_back({"latency_us", hw_end - first});
    out.push_back({"throughput_per_s", wall > 0 ? 1e6 / wall : 0.0});
  }
  for (int e = 0; e < kNumEngines; ++e) {
    out.push_back({std::string(EngineName(static_cast<Engine>(e))) + "_busy_us",
                   busy[static_cast<size_t>(e)]});
  }
  for (int e = 0; e < kNumEngines; ++e) {
    out.push_back({std::string(EngineName(static_cast<Engine>(e))) + "_util",
                   device > 0 ? busy[static_cast<size_t>(e)] / device : 0.0});
  }
  auto dma_u = UnionOf(std::move(dma));
  auto compute_u = UnionOf(std::move(compute));
  double dma_active = LengthOf(dma_u);
  out.push_back({"dma_bytes", static_cast<double>(bytes)});
  out.push_back({"dma_active_us", dma_active});
  out.push_back(
      {"dma_bandwidth_gbps",
       dma_active > 0 ? static_cast<double>(bytes) / dma_active / 1e3 : 0.0});
  out.push_back(
      {"dma_compute_overlap",
       dma_active > 0 ? OverlapOf(dma_u, compute_u) / dma_active : 0.0});
  return out;
}

std::vector<OpRow> ComputeOpRows(const Timeline& tl) {
  // Host time and device time of a dispatch are charged to the op that the
  // framework lane created for it, as the profiler correlates them.
  std::vector<OpRow> rows;
  auto row_for = [&](const std::string& name) -> OpRow& {
    for (auto& r : rows) {
      if (r.name == name) return r;
    }
    rows.push_back({name});
    return rows.back();
  };
  for (const Event& e : tl.events) {
    if (e.lane == kFrameworkLane && e.dispatch >= 0) {
      const std::string& name = tl.str(e.name);
      OpRow& r = row_for(name);
      r.self_cpu_us += e.dur_us();
      // An op without a hardware execution of its own (a host copy) is
      // counted here; the others are counted by their executions below.
      if (name != tl.dispatch_names[static_cast<size_t>(e.dispatch)]) ++r.calls;
    }
  }
  for (const Event& e : tl.events) {
    if (e.dispatch < 0) continue;
    const std::string& op = tl.dispatch_names[static_cast<size_t>(e.dispatch)];
    if (e.lane == kRuntimeLane) {
      row_for(op).self_cpu_us += e.dur_us();
    } else if (e.lane == kHardwareLane) {
      OpRow& r = row_for(op);
      r.self_device_us += e.dur_us();
      ++r.calls;
    }
  }
  return rows;
}

}  // namespace trn
