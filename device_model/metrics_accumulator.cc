#include "device_model/metrics_accumulator.h"

#include <algorithm>
#include <string>
#include <utility>

namespace trn {
void MetricsAccumulator::Begin(ExecMode mode,
                               std::vector<std::string> dispatch_names) {
  *this = MetricsAccumulator{};
  mode_ = mode;
  dispatch_names_ = std::move(dispatch_names);
}

void MetricsAccumulator::BeginRun(const Program& program, int /*queues*/) {
  std::vector<std::string> names;
  names.reserve(program.dispatches.size());
  for (const Dispatch& d : program.dispatches) names.push_back(d.name);
  Begin(program.mode, std::move(names));
}

void MetricsAccumulator::Host(const HostSpan& s) {
  Extend(s.start_us, s.end_us);
  if (s.lane == kHardwareLane) {
    device_ += s.end_us - s.start_us;
    hw_end_ = std::max(hw_end_, s.end_us);
  }
  host_.push_back(s);
}

std::vector<MetricValue> MetricsAccumulator::Metrics() const {
  const double wall = last_ - first_;
  std::vector<MetricValue> out;
  out.push_back({"device_time_us", device_});
  out.push_back({"wall_time_us", wall});
  if (mode_ == ExecMode::kNki) {
    out.push_back({"ncl_us", device_});
    out.push_back({"latency_us", hw_end_ - first_});
    out.push_back({"throughput_per_s", wall > 0 ? 1e6 / wall : 0.0});
  }
  for (int e = 0; e < kNumEngines; ++e) {
    out.push_back({std::string(EngineName(static_cast<Engine>(e))) + "_busy_us",
                   busy_[static_cast<size_t>(e)]});
  }
  for (int e = 0; e < kNumEngines; ++e) {
    out.push_back(
        {std::string(EngineName(static_cast<Engine>(e))) + "_util",
         device_ > 0 ? busy_[static_cast<size_t>(e)] / device_ : 0.0});
  }
  out.push_back({"dma_bytes", static_cast<double>(bytes_)});
  out.push_back({"dma_active_us", dma_active_});
  out.push_back({"dma_bandwidth_gbps",
                 dma_active_ > 0
                     ? static_cast<double>(bytes_) / dma_active_ / 1e3
                     : 0.0});
  out.push_back(
      {"dma_compute_overlap", dma_active_ > 0 ? overlap_ / dma_active_ : 0.0});
  return out;
}

std::vector<OpRow> MetricsAccumulator::OpRows() const {
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
  for (const HostSpan& e : host_) {
    if (e.lane == kFrameworkLane && e.dispatch >= 0) {
      OpRow& r = row_for(e.name);
      r.self_cpu_us += e.end_us - e.start_us;
      // An op without a hardware execution of its own (a host copy) is
      // counted here; the others are counted by their executions below.
      if (e.name != dispatch_names_[static_cast<size_t>(e.dispatch)]) ++r.calls;
    }
  }
  for (const HostSpan& e : host_) {
    if (e.dispatch < 0) continue;
    const std::string& op = dispatch_names_[static_cast<size_t>(e.dispatch)];
    if (e.lane == kRuntimeLane) {
      row_for(op).self_cpu_us += e.end_us - e.start_us;
    } else if (e.lane == kHardwareLane) {
      OpRow& r = row_for(op);
      r.self_device_us += e.end_us - e.start_us;
      ++r.calls;
    }
  }
  return rows;
}

}  // namespace trn
