// A listener that computes a run's metrics as its events arrive, in memory
// that does not grow with the number of events: device lanes are swept in
// time order (busy counts per lane), and only the host spans (a few per
// dispatch) are kept, for the per-op table.
#ifndef TRNBENCH_DEVICE_MODEL_METRICS_ACCUMULATOR_H_
#define TRNBENCH_DEVICE_MODEL_METRICS_ACCUMULATOR_H_

#include <array>
#include <cstdint>
#include <vector>

#include "device_model/engine.h"
#include "device_model/metrics.h"
#include "device_model/sim_events.h"
#include "device_model/timeline.h"

namespace trn {

class MetricsAccumulator : public SimListener {
 public:
  void BeginRun(const Program& program, int dma_queues) override;
  void BusyStart(uint32_t lane, double t_us) override;
  void Busy(const BusySpan& span) override;
  // A group counts as its lanes one by one would: they start or end at one
  // instant, so the sweep sees the same counts between instants.
  void BusyStartGroup(uint32_t first_lane, int count, double t_us) override;
  void BusyGroup(const BusySpan& span, int count) override;
  void Host(const HostSpan& span) override;

  // For replaying a recorded timeline (ComputeMetrics): the same state
  // without a Program.
  void Begin(ExecMode mode, std::vector<std::string> dispatch_names);
  void BusyEnd(uint32_t lane, double t_us, int64_t bytes);

  // The run's metrics, in AllMetrics() order (NKI-only metrics only for NKI
  // runs), and its profiler-style op rows.
  std::vector<MetricValue> Metrics() const;
  std::vector<OpRow> OpRows() const;

 private:
  void Advance(double t_us);
  void Extend(double start_us, double end_us);

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
