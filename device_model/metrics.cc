#include "device_model/metrics.h"

#include <algorithm>
#include <array>
#include <utility>

#include "device_model/metrics_accumulator.h"
#include "device_model/sim_events.h"

namespace trn {

const std::vector<MetricInfo>& AllMetrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"device_time_us", Unit::kMicroseconds, true,
       "sum of hardware-lane execution time (self_privateuse1_time_total)"},
      {"wall_time_us", Unit::kMicroseconds, true,
       "first to last event of a run (NKI: includes the benchmark-loop gap)"},
      {"ncl_us", Unit::kMicroseconds, true,
       "NKI: NeuronCore latency of the kernel"},
      {"latency_us", Unit::kMicroseconds, true,
       "NKI: end-to-end latency, launch to done"},
      {"throughput_per_s", Unit::kPerSecond, false,
       "NKI: benchmark-loop iterations per second"},
      {"tensor_busy_us", Unit::kMicroseconds, true, "TensorE busy time"},
      {"vector_busy_us", Unit::kMicroseconds, true, "VectorE busy time"},
      {"scalar_busy_us", Unit::kMicroseconds, true, "ScalarE busy time"},
      {"gpsimd_busy_us", Unit::kMicroseconds, true, "GpSimdE busy time"},
      {"tensor_util", Unit::kFraction, false, "TensorE busy / device time"},
      {"vector_util", Unit::kFraction, false, "VectorE busy / device time"},
      {"scalar_util", Unit::kFraction, false, "ScalarE busy / device time"},
      {"gpsimd_util", Unit::kFraction, false, "GpSimdE busy / device time"},
      {"dma_bytes", Unit::kBytes, true, "bytes moved by the DMA queues"},
      {"dma_active_us", Unit::kMicroseconds, true,
       "time at least one DMA queue is busy"},
      {"dma_bandwidth_gbps", Unit::kGigabytesPerSecond, false,
       "DMA bytes / DMA active time"},
      {"dma_compute_overlap", Unit::kFraction, false,
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

namespace {

// A recorded timeline fed back through the accumulator, so metrics of a
// recorded run and of a live one come from the same code. Device events
// are swept in time order; at equal times the order cannot matter (no
// time passes between them).
MetricsAccumulator Replay(const Timeline& tl) {
  MetricsAccumulator acc;
  acc.Begin(tl.mode, tl.dispatch_names);
  struct Edge {
    double t;
    bool start;
    uint32_t lane;
    int64_t bytes;
    size_t event;
  };
  std::vector<Edge> edges;
  for (size_t i = 0; i < tl.events.size(); ++i) {
    const Event& e = tl.events[i];
    const LaneKind kind = tl.lanes[e.lane].kind;
    if (kind == LaneKind::kEngine || kind == LaneKind::kDmaQueue) {
      edges.push_back({e.start_us, true, e.lane, 0, i});
      edges.push_back({e.end_us, false, e.lane, e.bytes, i});
    } else {
      acc.Host({e.lane, tl.str(e.name), tl.str(e.detail), e.start_us, e.end_us,
                e.dispatch, e.bytes});
    }
  }
  std::stable_sort(edges.begin(), edges.end(),
                   [](const Edge& a, const Edge& b) { return a.t < b.t; });
  for (const Edge& g : edges) {
    if (g.start) {
      acc.BusyStart(g.lane, g.t);
    } else {
      const Event& e = tl.events[g.event];
      BusySpan s;
      s.lane = e.lane;
      s.start_us = e.start_us;
      s.end_us = e.end_us;
      s.bytes = e.bytes;
      acc.Busy(s);
    }
  }
  return acc;
}

}  // namespace

std::vector<MetricValue> ComputeMetrics(const Timeline& tl) {
  return Replay(tl).Metrics();
}

std::vector<OpRow> ComputeOpRows(const Timeline& tl) {
  return Replay(tl).OpRows();
}

}  // namespace trn
