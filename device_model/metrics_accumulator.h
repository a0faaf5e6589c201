// A listener that computes a run's metrics as its events arrive, in memory
// that does not grow with the number of events: device lanes are swept in
// time order (busy counts per lane), and only the host spans (a few per
// dispatch) are kept, for the per-op table.
#ifndef TRNBENCH_DEVICE_MODEL_METRICS_ACCUMULATOR_H_
#define TRNBENCH_DEVICE_MODEL_METRICS_ACCUMULATOR_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "device_model/engine.h"
#include "device_model/metrics.h"
#include "device_model/sim_events.h"
#include "device_model/timeline.h"

namespace trn {

// The device-lane calls are defined here, inline, because a run makes
// several per simulated instruction: KernelSim::Run calls them directly,
// without the virtual call, when its listener is exactly this class
// (KernelSim::RunWith).
class MetricsAccumulator : public SimListener {
 public:
  void BeginRun(const Program& program, int dma_queues) override;
  void BusyStart(uint32_t lane, double t_us) override {
    Advance(t_us);
    if (IsEngineLane(lane)) {
      ++engine_count_[lane - EngineLane(Engine::kTensor)];
      ++compute_count_;
    } else if (lane >= kFirstDmaLane) {
      ++dma_count_;
    }
  }
  void Busy(const BusySpan& span) override {
    Extend(span.start_us, span.end_us);
    BusyEnd(span.lane, span.end_us, span.bytes);
  }
  // Busy(span) then BusyStart(span.lane, span.end_us), for an engine lane
  // (span.lane): the lane's and the compute count end as they were, and the
  // second sweep step is empty (no time passes), so the span's extent and
  // one step. 33k of the fully optimized matmul's 37k starts; the two calls
  // made two steps and four count updates. Not an override of
  // SimListener::BusyHandoff: KernelSim calls it only on an exact
  // MetricsAccumulator (RunWith's DirectMetrics), so a subclass that
  // overrides Busy or BusyStart still sees every span through them.
  void EngineHandoff(const BusySpan& span) {
    Extend(span.start_us, span.end_us);
    Advance(span.end_us);
  }
  // A group counts as its lanes one by one would: they start or end at one
  // instant, so the sweep sees the same counts between instants.
  void BusyStartGroup(uint32_t first_lane, int count, double t_us) override {
    if (first_lane < kFirstDmaLane) {
      SimListener::BusyStartGroup(first_lane, count, t_us);
      return;
    }
    Advance(t_us);
    dma_count_ += count;
  }
  void BusyGroup(const BusySpan& span, int count) override {
    if (span.lane < kFirstDmaLane) {
      SimListener::BusyGroup(span, count);
      return;
    }
    Extend(span.start_us, span.end_us);
    Advance(span.end_us);
    dma_count_ -= count;
    bytes_ += span.bytes * count;
  }
  void Host(const HostSpan& span) override;

  // For replaying a recorded timeline (ComputeMetrics): the same state
  // without a Program.
  void Begin(ExecMode mode, std::vector<std::string> dispatch_names);
  void BusyEnd(uint32_t lane, double t_us, int64_t bytes) {
    Advance(t_us);
    if (IsEngineLane(lane)) {
      --engine_count_[lane - EngineLane(Engine::kTensor)];
      --compute_count_;
    } else if (lane >= kFirstDmaLane) {
      --dma_count_;
      bytes_ += bytes;
    }
  }

  // The run's metrics, in AllMetrics() order (NKI-only metrics only for NKI
  // runs), and its profiler-style op rows.
  std::vector<MetricValue> Metrics() const;
  std::vector<OpRow> OpRows() const;

 private:
  static constexpr uint32_t kFirstDmaLane = DmaLane(0);
  static constexpr bool IsEngineLane(uint32_t lane) {
    return lane >= EngineLane(Engine::kTensor) && lane < kFirstDmaLane;
  }
  void Advance(double t_us) {
    if (!swept_) {
      now_ = t_us;
      swept_ = true;
      return;
    }
    const double dt = t_us - now_;
    if (dt > 0) {
      // No engine is busy without compute_count_ counting it: most steps of
      // a DMA-bound run skip the scan.
      if (compute_count_ > 0) {
        // Without a branch per engine, which way each went was data
        // (callgrind --branch-sim: 8% of a compute-bound run's
        // mispredictions). Adding +0.0 leaves a sum unchanged: each starts
        // at +0.0 and only grows.
        for (size_t e = 0; e < kNumEngines; ++e) {
          busy_[e] += engine_count_[e] > 0 ? dt : 0.0;
        }
      }
      if (dma_count_ > 0) {
        dma_active_ += dt;
        if (compute_count_ > 0) overlap_ += dt;
      }
      now_ = t_us;
    }
  }
  void Extend(double start_us, double end_us) {
    if (!any_ || start_us < first_) first_ = start_us;
    if (!any_ || end_us > last_) last_ = end_us;
    any_ = true;
  }

  ExecMode mode_ = ExecMode::kEager;
  std::vector<std::string> dispatch_names_;
  std::vector<HostSpan> host_;  // O(dispatches)
  bool any_ = false;
  double first_ = 0;
  double last_ = 0;
  double device_ = 0;
  double hw_end_ = 0;
  // The sweep over device lanes.
  double now_ = 0;
  bool swept_ = false;
  std::array<int, kNumEngines> engine_count_{};
  std::array<double, kNumEngines> busy_{};
  int dma_count_ = 0;
  int compute_count_ = 0;
  double dma_active_ = 0;
  double overlap_ = 0;
  int64_t bytes_ = 0;
};

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_METRICS_ACCUMULATOR_H_
