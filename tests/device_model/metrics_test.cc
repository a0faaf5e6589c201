#include "device_model/metrics.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_model/engine.h"
#include "device_model/exec_mode.h"
#include "device_model/timeline.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

constexpr double kTol = 1e-12;

// A timeline with the standard lanes and two DMA queues (lanes: 0
// framework, 1 runtime, 2 hardware, 3 host_to_device, 4-7 engines, 8-9
// DMA queues), filled by hand.
class TimelineBuilder {
 public:
  explicit TimelineBuilder(ExecMode mode = ExecMode::kEager) {
    tl_.program = "hand";
    tl_.mode = mode;
    tl_.lanes = StandardLanes(2);
  }
  TimelineBuilder& Add(uint32_t lane, const std::string& name, double start,
                       double end, int32_t dispatch = 0, int64_t bytes = 0) {
    Event e;
    e.lane = lane;
    e.name = tl_.Intern(name);
    e.detail = tl_.Intern("");
    e.start_us = start;
    e.end_us = end;
    e.dispatch = dispatch;
    e.bytes = bytes;
    tl_.events.push_back(e);
    return *this;
  }
  TimelineBuilder& Dispatches(std::vector<std::string> names) {
    tl_.dispatch_names = std::move(names);
    return *this;
  }
  const Timeline& tl() const { return tl_; }

 private:
  Timeline tl_;
};

double Get(const std::vector<MetricValue>& metrics, const std::string& name) {
  for (const auto& m : metrics) {
    if (m.name == name) return m.value;
  }
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

bool Has(const std::vector<MetricValue>& metrics, const std::string& name) {
  for (const auto& m : metrics) {
    if (m.name == name) return true;
  }
  return false;
}

// Two eager dispatches:
//   framework  aten::mul [0, 3]  aten::add [3, 6]
//   runtime    [3, 5] [6, 8]
//   hardware   [5, 15] (d0)  [15, 20] (d1)
//   vector     [6, 10]  [17, 18]     scalar [16, 19]
//   dma_q0     [5, 7] 1000 B  [15, 16] 500 B     dma_q1 [6, 9] 2000 B
Timeline TwoDispatches() {
  TimelineBuilder b;
  b.Dispatches({"aten::mul", "aten::add"})
      .Add(kFrameworkLane, "aten::mul", 0, 3, 0)
      .Add(kRuntimeLane, "nrta_execute_schedule", 3, 5, 0)
      .Add(kHardwareLane, "nc_exec_running", 5, 15, 0)
      .Add(kFrameworkLane, "aten::add", 3, 6, 1)
      .Add(kRuntimeLane, "nrta_execute_schedule", 6, 8, 1)
      .Add(kHardwareLane, "nc_exec_running", 15, 20, 1)
      .Add(EngineLane(Engine::kVector), "tensor_tensor", 6, 10, 0)
      .Add(EngineLane(Engine::kScalar), "activation", 16, 19, 1)
      .Add(EngineLane(Engine::kVector), "tensor_scalar", 17, 18, 1)
      .Add(DmaLane(0), "dma", 5, 7, 0, 1000)
      .Add(DmaLane(1), "dma", 6, 9, 0, 2000)
      .Add(DmaLane(0), "dma", 15, 16, 1, 500);
  return b.tl();
}

TEST(ComputeMetricsTest, TwoDispatchesByHand) {
  const auto m = ComputeMetrics(TwoDispatches());
  // Hardware lane: 10 + 5.
  EXPECT_NEAR(Get(m, "device_time_us"), 15.0, kTol);
  // First event at 0, last end at 20.
  EXPECT_NEAR(Get(m, "wall_time_us"), 20.0, kTol);
  // Vector 4 + 1, scalar 3, the others idle.
  EXPECT_NEAR(Get(m, "tensor_busy_us"), 0.0, kTol);
  EXPECT_NEAR(Get(m, "vector_busy_us"), 5.0, kTol);
  EXPECT_NEAR(Get(m, "scalar_busy_us"), 3.0, kTol);
  EXPECT_NEAR(Get(m, "gpsimd_busy_us"), 0.0, kTol);
  // Busy / device time: 5 / 15 and 3 / 15.
  EXPECT_NEAR(Get(m, "tensor_util"), 0.0, kTol);
  EXPECT_NEAR(Get(m, "vector_util"), 1.0 / 3.0, kTol);
  EXPECT_NEAR(Get(m, "scalar_util"), 0.2, kTol);
  EXPECT_NEAR(Get(m, "gpsimd_util"), 0.0, kTol);
  // 1000 + 2000 + 500 B.
  EXPECT_NEAR(Get(m, "dma_bytes"), 3500.0, kTol);
  // Union of [5, 7], [6, 9], [15, 16] = [5, 9] + [15, 16] = 5 us.
  EXPECT_NEAR(Get(m, "dma_active_us"), 5.0, kTol);
  // 3500 B / 5 us = 700 B/us = 0.7 GB/s.
  EXPECT_NEAR(Get(m, "dma_bandwidth_gbps"), 0.7, kTol);
  // Compute union [6, 10] + [16, 19]; with DMA: [6, 9] = 3 of 5 us.
  EXPECT_NEAR(Get(m, "dma_compute_overlap"), 0.6, kTol);
  // Eager: no NKI metrics.
  EXPECT_FALSE(Has(m, "ncl_us"));
  EXPECT_FALSE(Has(m, "latency_us"));
  EXPECT_FALSE(Has(m, "throughput_per_s"));
}

TEST(ComputeMetricsTest, PartialOverlapIsAFraction) {
  // DMA [0, 10], compute [5, 15]: overlap [5, 10] = 5 of 10 -> 0.5.
  TimelineBuilder b;
  b.Add(DmaLane(0), "dma", 0, 10, 0, 100)
      .Add(EngineLane(Engine::kGpSimd), "iota", 5, 15, 0);
  const auto m = ComputeMetrics(b.tl());
  EXPECT_NEAR(Get(m, "dma_compute_overlap"), 0.5, kTol);
  EXPECT_NEAR(Get(m, "dma_active_us"), 10.0, kTol);
  EXPECT_NEAR(Get(m, "gpsimd_busy_us"), 10.0, kTol);
  // No hardware events: device time 0 and utilisation 0, not a division
  // by zero.
  EXPECT_EQ(Get(m, "device_time_us"), 0.0);
  EXPECT_EQ(Get(m, "gpsimd_util"), 0.0);
  EXPECT_NEAR(Get(m, "wall_time_us"), 15.0, kTol);
}

TEST(ComputeMetricsTest, OverlapOfUnionsOfSeveralIntervals) {
  // DMA [0, 4] q0, [2, 6] q1, [8, 10] q0 -> union [0, 6] + [8, 10] = 8.
  // Compute: vector [3, 9], tensor [3.5, 5] (inside) -> union [3, 9].
  // Intersection: [3, 6] + [8, 9] = 4 -> 4 / 8 = 0.5.
  // Touching DMA intervals count once: bandwidth (3 x 80 B) / 8 us.
  TimelineBuilder b;
  b.Add(DmaLane(0), "dma", 0, 4, 0, 80)
      .Add(DmaLane(1), "dma", 2, 6, 0, 80)
      .Add(DmaLane(0), "dma", 8, 10, 0, 80)
      .Add(EngineLane(Engine::kVector), "v", 3, 9, 0)
      .Add(EngineLane(Engine::kTensor), "t", 3.5, 5, 0);
  const auto m = ComputeMetrics(b.tl());
  EXPECT_NEAR(Get(m, "dma_active_us"), 8.0, kTol);
  EXPECT_NEAR(Get(m, "dma_compute_overlap"), 0.5, kTol);
  EXPECT_NEAR(Get(m, "dma_bandwidth_gbps"), 240.0 / 8.0 / 1e3, kTol);
  // Busy time is per engine, not a union: vector 6, tensor 1.5.
  EXPECT_NEAR(Get(m, "vector_busy_us"), 6.0, kTol);
  EXPECT_NEAR(Get(m, "tensor_busy_us"), 1.5, kTol);
}

TEST(ComputeMetricsTest, AdjacentDmaIntervalsMergeAndNoComputeMeansNoOverlap) {
  // [0, 2] and [2, 4] on two queues: union 4 us; no compute -> overlap 0.
  TimelineBuilder b;
  b.Add(DmaLane(0), "dma", 0, 2, 0, 10).Add(DmaLane(1), "dma", 2, 4, 0, 10);
  const auto m = ComputeMetrics(b.tl());
  EXPECT_NEAR(Get(m, "dma_active_us"), 4.0, kTol);
  EXPECT_EQ(Get(m, "dma_compute_overlap"), 0.0);
}

TEST(ComputeMetricsTest, EmptyTimelineIsAllZero) {
  TimelineBuilder b;
  const auto m = ComputeMetrics(b.tl());
  for (const auto& v : m) EXPECT_EQ(v.value, 0.0) << v.name;
  EXPECT_FALSE(Has(m, "ncl_us"));
}

TEST(ComputeMetricsTest, NkiMetrics) {
  // runtime launch [0, 30]; hardware [30, 32]; loop gap [32, 132].
  // ncl = device = 2; latency = hardware end - first start = 32;
  // throughput = 1e6 / wall 132 per second.
  TimelineBuilder b(ExecMode::kNki);
  b.Dispatches({"exp_tiled"})
      .Add(kRuntimeLane, "nrta_execute_schedule", 0, 30, 0)
      .Add(kHardwareLane, "nc_exec_running", 30, 32, 0)
      .Add(EngineLane(Engine::kScalar), "exp", 30.5, 31.5, 0)
      .Add(kFrameworkLane, "nki.benchmark loop", 32, 132, -1);
  const auto m = ComputeMetrics(b.tl());
  EXPECT_NEAR(Get(m, "ncl_us"), 2.0, kTol);
  EXPECT_NEAR(Get(m, "latency_us"), 32.0, kTol);
  EXPECT_NEAR(Get(m, "wall_time_us"), 132.0, kTol);
  EXPECT_NEAR(Get(m, "throughput_per_s"), 1e6 / 132.0, 1e-9);
  EXPECT_NEAR(Get(m, "scalar_util"), 0.5, kTol);  // 1 of 2 us
  // An NKI timeline has every metric, in AllMetrics() order.
  ASSERT_EQ(m.size(), AllMetrics().size());
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i].name, AllMetrics()[i].name);
  }
}

TEST(ComputeMetricsTest, EagerMetricsFollowAllMetricsOrder) {
  const auto m = ComputeMetrics(TwoDispatches());
  // Every metric but the three NKI ones, in AllMetrics() order.
  EXPECT_EQ(m.size(), AllMetrics().size() - 3);
  size_t j = 0;
  for (const auto& v : m) {
    while (j < AllMetrics().size() && AllMetrics()[j].name != v.name) ++j;
    EXPECT_LT(j, AllMetrics().size()) << v.name << " out of order";
  }
}

TEST(MetricInfoTest, FindMetric) {
  const MetricInfo* d = FindMetric("device_time_us");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->unit, Unit::kMicroseconds);
  EXPECT_EQ(UnitSymbol(d->unit), "us");
  EXPECT_TRUE(d->lower_is_better);
  const MetricInfo* t = FindMetric("throughput_per_s");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->lower_is_better);
  EXPECT_EQ(FindMetric("nonexistent"), nullptr);
  for (const auto& m : AllMetrics()) {
    EXPECT_EQ(FindMetric(m.name), &m);
    EXPECT_FALSE(m.description.empty()) << m.name;
  }
}

// ---------------------------------------------------------------- op rows

TEST(ComputeOpRowsTest, AttributesHostAndDeviceTimeToOps) {
  // d0 aten::mul: framework [0, 3], runtime [3, 5], hardware [5, 15].
  // d1 aten::add with a host copy: aten::copy_ [3, 6], host_to_device
  //    [6, 14], aten::add [6, 9], runtime [9, 11], hardware [15, 20].
  // d2 aten::mul again: framework [9, 12], runtime [12, 14], hardware
  //    [20, 27].
  // synchronize [12, 27] belongs to no dispatch.
  TimelineBuilder b;
  b.Dispatches({"aten::mul", "aten::add", "aten::mul"})
      .Add(kFrameworkLane, "aten::mul", 0, 3, 0)
      .Add(kRuntimeLane, "nrta_execute_schedule", 3, 5, 0)
      .Add(EngineLane(Engine::kVector), "tensor_tensor", 6, 10, 0)
      .Add(kHardwareLane, "nc_exec_running", 5, 15, 0)
      .Add(kFrameworkLane, "aten::copy_", 3, 6, 1, 4)
      .Add(kHostToDeviceLane, "host_to_device_copy", 6, 14, 1, 4)
      .Add(kFrameworkLane, "aten::add", 6, 9, 1)
      .Add(kRuntimeLane, "nrta_execute_schedule", 9, 11, 1)
      .Add(kHardwareLane, "nc_exec_running", 15, 20, 1)
      .Add(kFrameworkLane, "aten::mul", 9, 12, 2)
      .Add(kRuntimeLane, "nrta_execute_schedule", 12, 14, 2)
      .Add(kHardwareLane, "nc_exec_running", 20, 27, 2)
      .Add(kFrameworkLane, "torch.neuron.synchronize", 12, 27, -1);
  const auto rows = ComputeOpRows(b.tl());
  // First-appearance order on the framework lane.
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "aten::mul");
  EXPECT_EQ(rows[1].name, "aten::copy_");
  EXPECT_EQ(rows[2].name, "aten::add");
  // aten::mul: cpu 3 + 3 framework + 2 + 2 runtime = 10; device 10 + 7;
  // two executions.
  EXPECT_NEAR(rows[0].self_cpu_us, 10.0, kTol);
  EXPECT_NEAR(rows[0].self_device_us, 17.0, kTol);
  EXPECT_EQ(rows[0].calls, 2);
  // aten::copy_: its framework time only, one call, no device time (the
  // copy is on the host-to-device lane, not a hardware execution).
  EXPECT_NEAR(rows[1].self_cpu_us, 3.0, kTol);
  EXPECT_NEAR(rows[1].self_device_us, 0.0, kTol);
  EXPECT_EQ(rows[1].calls, 1);
  // aten::add: 3 + 2 cpu, 5 device, one call.
  EXPECT_NEAR(rows[2].self_cpu_us, 5.0, kTol);
  EXPECT_NEAR(rows[2].self_device_us, 5.0, kTol);
  EXPECT_EQ(rows[2].calls, 1);
}

TEST(ComputeOpRowsTest, EmptyTimelineHasNoRows) {
  TimelineBuilder b;
  EXPECT_TRUE(ComputeOpRows(b.tl()).empty());
}

}  // namespace
}  // namespace trn
