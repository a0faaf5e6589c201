// The neuron-profile-style summary read off a timeline.
#include "device_model/device_summary.h"

#include "device_model/timeline.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

Event At(uint32_t lane, double start, double end, int64_t bytes = 0,
         int64_t flops = 0, int32_t dispatch = 0) {
  Event e;
  e.lane = lane;
  e.start_us = start;
  e.end_us = end;
  e.bytes = bytes;
  e.flops = flops;
  e.dispatch = dispatch;
  return e;
}

TEST(DeviceSummaryTest, EnginesDmaAndTheirOverlap) {
  Timeline tl;
  tl.lanes = StandardLanes(4);
  tl.events = {
      At(kHardwareLane, 0, 20),
      // GpSimd then Vector back to back: busy one at a time.
      At(EngineLane(Engine::kGpSimd), 0, 1),
      At(EngineLane(Engine::kVector), 1, 2, 0, 100),
      // Scalar [6, 10] overlaps the DMA busy over [2, 8] for 2 us.
      At(EngineLane(Engine::kScalar), 6, 10, 0, 500),
      At(DmaLane(0), 2, 8, 600),
      At(DmaLane(1), 3, 7, 400),
      At(DmaLane(0), 12, 14, 1000),
  };
  const DeviceSummary s = SummarizeDevice(tl);
  EXPECT_DOUBLE_EQ(s.total_us, 20);
  EXPECT_EQ(s.hardware_executions, 1);
  EXPECT_EQ(s.engines_used, 3);
  const auto& v = s.engines[static_cast<size_t>(Engine::kVector)];
  EXPECT_EQ(v.instructions, 1);
  EXPECT_EQ(v.flops, 100);
  EXPECT_DOUBLE_EQ(v.active_us, 1);
  EXPECT_DOUBLE_EQ(v.active_fraction, 0.05);
  EXPECT_DOUBLE_EQ(s.compute_active_us, 6);
  // Back-to-back engines are not concurrent.
  EXPECT_DOUBLE_EQ(s.engines_concurrent_us, 0);
  EXPECT_EQ(s.dma.chunks, 3);
  EXPECT_EQ(s.dma.bytes, 2000);
  EXPECT_EQ(s.dma.queues_used, 2);
  EXPECT_DOUBLE_EQ(s.dma.active_us, 8);       // [2, 8] and [12, 14]
  EXPECT_DOUBLE_EQ(s.dma.queue_busy_us, 12);  // 6 + 4 + 2
  EXPECT_DOUBLE_EQ(s.dma.bandwidth_gbps, 2000 / 8.0 / 1e3);
  EXPECT_DOUBLE_EQ(s.dma_compute_overlap_us, 2);  // scalar [6, 8]
  EXPECT_DOUBLE_EQ(s.dma_compute_overlap, 0.25);
  EXPECT_DOUBLE_EQ(s.launch_overhead_us, 0);
}

TEST(DeviceSummaryTest, LatencyOnlyIsTheWaitingNothingElseCovers) {
  Timeline tl;
  tl.lanes = StandardLanes(4);
  tl.events = {
      At(kHardwareLane, 0, 20), At(DmaLane(0), 0, 2, 100),  // transfer 1's data
      At(EngineLane(Engine::kScalar), 6, 7),  // compute in its wait
      At(DmaLane(1), 9, 11, 100),             // transfer 2's data
  };
  // Transfer 1 waits [2, 10], transfer 2 [11, 14]: of their 11 us, the
  // compute [6, 7] and transfer 2's data [9, 10] hide 2 us.
  tl.dma_latency = {{2, 10}, {11, 14}};
  const DeviceSummary s = SummarizeDevice(tl);
  EXPECT_EQ(s.dma.transfers, 2);
  EXPECT_DOUBLE_EQ(s.dma.mean_latency_us, 5.5);
  EXPECT_DOUBLE_EQ(s.dma.latency_only_us, 9);
}

TEST(DeviceSummaryTest, ConcurrentEnginesAndLaunchOverhead) {
  Timeline tl;
  tl.lanes = StandardLanes(2);
  tl.events = {
      At(kHardwareLane, 0, 30, 0, 0, 0),
      At(kHardwareLane, 40, 60, 0, 0, 1),
      // Execution 0 starts computing 25 us in, execution 1 after 10 us.
      At(EngineLane(Engine::kTensor), 25, 29, 0, 0, 0),
      At(EngineLane(Engine::kVector), 27, 30, 0, 0, 0),
      At(DmaLane(1), 50, 55, 64, 0, 1),
  };
  const DeviceSummary s = SummarizeDevice(tl);
  EXPECT_EQ(s.hardware_executions, 2);
  EXPECT_DOUBLE_EQ(s.total_us, 50);
  EXPECT_DOUBLE_EQ(s.engines_concurrent_us, 2);
  EXPECT_DOUBLE_EQ(s.launch_overhead_us, 25 + 10);
}

}  // namespace
}  // namespace trn
