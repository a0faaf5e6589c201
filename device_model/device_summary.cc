#include "device_model/device_summary.h"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "support/interval_union.h"

namespace trn {
namespace {

// Time during which at least two of the per-engine unions are busy.
double AtLeastTwo(const std::array<std::vector<TimeInterval>, kNumEngines>& u) {
  std::vector<std::pair<double, int>> edges;
  for (const auto& engine : u) {
    for (const auto& iv : engine) {
      edges.emplace_back(iv.first, +1);
      edges.emplace_back(iv.second, -1);
    }
  }
  // Ends sort before starts at the same instant, so back-to-back intervals
  // of two engines do not count as concurrent.
  std::sort(edges.begin(), edges.end());
  double total = 0;
  int depth = 0;
  double since = 0;
  for (const auto& [t, d] : edges) {
    if (depth >= 2) total += t - since;
    depth += d;
    since = t;
  }
  return total;
}

}  // namespace

DeviceSummary SummarizeDevice(const Timeline& tl) {
  DeviceSummary s;
  std::array<std::vector<TimeInterval>, kNumEngines> engine_iv;
  std::vector<TimeInterval> dma_iv;
  std::vector<TimeInterval> compute_iv;
  std::vector<char> queue_used;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Per hardware execution: its start, and the first device event in it.
  std::vector<double> exec_start;
  std::vector<double> first_device;
  auto slot = [&](int32_t dispatch) -> size_t {
    const auto d = static_cast<size_t>(dispatch);
    if (exec_start.size() <= d) {
      exec_start.resize(d + 1, kInf);
      first_device.resize(d + 1, kInf);
    }
    return d;
  };
  for (const Event& e : tl.events) {
    const Lane& lane = tl.lanes[e.lane];
    switch (lane.kind) {
      case LaneKind::kHardware: {
        s.total_us += e.dur_us();
        ++s.hardware_executions;
        if (e.dispatch >= 0) {
          const size_t d = slot(e.dispatch);
          exec_start[d] = std::min(exec_start[d], e.start_us);
        }
        break;
      }
      case LaneKind::kEngine: {
        auto& a = s.engines[static_cast<size_t>(lane.index)];
        ++a.instructions;
        a.flops += e.flops;
        a.instruction_us += e.dur_us();
        engine_iv[static_cast<size_t>(lane.index)].emplace_back(e.start_us,
                                                                e.end_us);
        compute_iv.emplace_back(e.start_us, e.end_us);
        if (e.dispatch >= 0) {
          const size_t d = slot(e.dispatch);
          first_device[d] = std::min(first_device[d], e.start_us);
        }
        break;
      }
      case LaneKind::kDmaQueue: {
        ++s.dma.chunks;
        s.dma.bytes += e.bytes;
        s.dma.queue_busy_us += e.dur_us();
        dma_iv.emplace_back(e.start_us, e.end_us);
        const auto q = static_cast<size_t>(lane.index);
        if (queue_used.size() <= q) queue_used.resize(q + 1, 0);
        queue_used[q] = 1;
        if (e.dispatch >= 0) {
          const size_t d = slot(e.dispatch);
          first_device[d] = std::min(first_device[d], e.start_us);
        }
        break;
      }
      default:
        break;
    }
  }
  for (size_t e = 0; e < engine_iv.size(); ++e) {
    engine_iv[e] = UnionOf(std::move(engine_iv[e]));
    auto& a = s.engines[e];
    a.active_us = LengthOf(engine_iv[e]);
    a.active_fraction = s.total_us > 0 ? a.active_us / s.total_us : 0.0;
    s.engines_used += a.instructions > 0;
  }
  for (char used : queue_used) s.dma.queues_used += used;
  const auto dma_u = UnionOf(std::move(dma_iv));
  const auto compute_u = UnionOf(std::move(compute_iv));
  s.dma.active_us = LengthOf(dma_u);
  s.dma.bandwidth_gbps =
      s.dma.active_us > 0
          ? static_cast<double>(s.dma.bytes) / s.dma.active_us / 1e3
          : 0.0;
  s.compute_active_us = LengthOf(compute_u);
  s.engines_concurrent_us = AtLeastTwo(engine_iv);
  s.dma_compute_overlap_us = OverlapOf(dma_u, compute_u);
  s.dma_compute_overlap =
      s.dma.active_us > 0 ? s.dma_compute_overlap_us / s.dma.active_us : 0.0;
  // Latency that nothing hides: waiting time outside every busy lane.
  if (!tl.dma_latency.empty()) {
    double sum = 0;
    for (const auto& [from, to] : tl.dma_latency) sum += to - from;
    s.dma.transfers = static_cast<int64_t>(tl.dma_latency.size());
    s.dma.mean_latency_us = sum / static_cast<double>(s.dma.transfers);
    const auto waits = UnionOf(tl.dma_latency);
    std::vector<TimeInterval> busy = dma_u;
    busy.insert(busy.end(), compute_u.begin(), compute_u.end());
    s.dma.latency_only_us =
        LengthOf(waits) - OverlapOf(waits, UnionOf(std::move(busy)));
  }
  for (size_t d = 0; d < exec_start.size(); ++d) {
    if (exec_start[d] < kInf && first_device[d] < kInf) {
      s.launch_overhead_us += first_device[d] - exec_start[d];
    }
  }
  return s;
}

}  // namespace trn
