// MetricsAccumulator's one-call forms against the calls they stand for.
#include "device_model/metrics_accumulator.h"

#include <bit>
#include <cstdint>
#include <vector>

#include "device_model/engine.h"
#include "device_model/exec_mode.h"
#include "device_model/sim_events.h"
#include "device_model/timeline.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

// EngineHandoff(span) is Busy(span) then BusyStart(span.lane, span.end_us)
// (KernelSim's start, when the engine's last span is still open): random
// sequences of spans on the four engine lanes and two DMA lanes, some of
// them ending at the instant the next starts and some not, some steps
// taking no time, fed both ways; every metric is the same to the bit.
TEST(MetricsAccumulatorTest, EngineHandoffIsBusyThenBusyStart) {
  constexpr int kLanes = kNumEngines + 2;
  auto lane_of = [](int l) {
    return l < kNumEngines ? EngineLane(static_cast<Engine>(l))
                           : DmaLane(l - kNumEngines);
  };
  int handoffs = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    uint64_t state = seed * 0x9e3779b97f4a7c15ULL;
    auto next = [&state](uint64_t n) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return (state >> 33) % n;
    };
    MetricsAccumulator calls;
    MetricsAccumulator joined;
    calls.Begin(ExecMode::kNki, {"kernel"});
    joined.Begin(ExecMode::kNki, {"kernel"});
    std::vector<double> open_since(kLanes, -1);
    double t = 0;
    for (int step = 0; step < 300; ++step) {
      const int l = static_cast<int>(next(kLanes));
      const uint32_t lane = lane_of(l);
      if (open_since[l] < 0) {
        calls.BusyStart(lane, t);
        joined.BusyStart(lane, t);
        open_since[l] = t;
      } else {
        const BusySpan span{
            lane, nullptr, 0, open_since[l], t, l < kNumEngines ? 0 : 4096, 0};
        calls.Busy(span);
        if (l < kNumEngines && next(3) != 0) {
          calls.BusyStart(lane, t);
          joined.EngineHandoff(span);
          open_since[l] = t;
          ++handoffs;
        } else {
          joined.Busy(span);
          open_since[l] = -1;
        }
      }
      // A third of the steps take no time: starts and ends of one instant.
      if (next(3) != 0) t += 0.001 * static_cast<double>(1 + next(997));
    }
    for (int l = 0; l < kLanes; ++l) {
      if (open_since[l] < 0) continue;
      const BusySpan span{lane_of(l), nullptr, 0, open_since[l], t, 0, 0};
      calls.Busy(span);
      joined.Busy(span);
    }
    const std::vector<MetricValue> a = calls.Metrics();
    const std::vector<MetricValue> b = joined.Metrics();
    ASSERT_EQ(a.size(), b.size());
    for (size_t m = 0; m < a.size(); ++m) {
      EXPECT_EQ(a[m].name, b[m].name);
      EXPECT_EQ(std::bit_cast<uint64_t>(a[m].value),
                std::bit_cast<uint64_t>(b[m].value))
          << "seed " << seed << ", " << a[m].name << ": " << a[m].value
          << " against " << b[m].value;
    }
  }
  EXPECT_GT(handoffs, 1000);
}

}  // namespace
}  // namespace trn
