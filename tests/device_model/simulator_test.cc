#include "device_model/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "support/counter_rng.h"
#include "device_model/device_profile.h"
#include "device_model/metrics.h"
#include "device_model/program.h"
#include "device_model/timeline.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/device_model/test_profile.h"

namespace trn {
namespace {

using ::trn::testing::TestProfile;

// Times are sums and quotients of round numbers; 1e-9 us absorbs rounding.
constexpr double kTol = 1e-9;

DeviceProfile Parse(const nlohmann::json& j) {
  auto p = ParseDeviceProfile(j.dump(), "test.json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

// The test profile (see test_profile.h) with parameters replaced.
DeviceProfile Profile(
    const std::vector<std::pair<std::string, double>>& values = {}) {
  auto j = TestProfile();
  for (const auto& [key, value] : values) {
    j["parameters"][key]["value"] = value;
  }
  return Parse(j);
}

// The test profile with noise on every host, device and DMA cost.
DeviceProfile NoisyProfile() {
  auto j = TestProfile();
  auto noisy = [&j](const std::string& key, double lo, double mid, double hi) {
    auto& p = j["parameters"][key];
    p.erase("value");
    p["quantiles"] = {{0, lo}, {0.5, mid}, {1, hi}};
  };
  noisy("dma_latency_us", 1, 2, 3);
  noisy("op_exec_overhead_us", 8, 10, 12);
  noisy("graph_exec_overhead_us", 4, 5, 6);
  noisy("host_op_dispatch_us", 2, 3, 4);
  noisy("runtime_schedule_us", 1, 2, 3);
  noisy("h2d_copy_latency_us", 3, 4, 5);
  noisy("nki_host_latency_us", 20, 30, 40);
  noisy("nki_iteration_gap_us", 90, 100, 110);
  return Parse(j);
}

uint32_t AddCompute(Kernel& k, Engine e, int64_t work,
                    const std::vector<uint32_t>& deps = {},
                    DType t = DType::kBf16) {
  Instruction in;
  in.kind = InstrKind::kCompute;
  in.engine = e;
  in.dtype = t;
  in.work = work;
  in.opcode = k.Intern(std::string(EngineName(e)) + "_op");
  in.label = k.Intern("tile");
  return k.Add(in, deps);
}

// A DMA transfer of its own (transfer = own index), or a chunk of the
// transfer whose first chunk is `transfer`.
uint32_t AddDma(Kernel& k, int queue, int64_t bytes,
                const std::vector<uint32_t>& deps = {}, int64_t transfer = -1) {
  Instruction in;
  in.kind = InstrKind::kDma;
  in.queue = queue;
  in.work = bytes;
  in.opcode = k.Intern("dma_copy");
  in.label = k.Intern("tile");
  in.transfer = static_cast<uint32_t>(
      transfer < 0 ? static_cast<int64_t>(k.instrs.size()) : transfer);
  return k.Add(in, deps);
}

struct KernelRun {
  Timeline tl;
  double end = 0;  // when the last instruction ends
};

// Runs `k` alone from t = 0; events[i] belongs to instruction i.
KernelRun RunKernel(const Kernel& k, const DeviceProfile& p, uint64_t key = 1) {
  KernelSim sim(k, p);
  CounterRng rng(key);
  KernelRun r;
  r.tl.lanes = StandardLanes(p.dma_queues);
  r.end = sim.Run(rng, 0.0, 0, r.tl);
  return r;
}

void ExpectEvent(const Event& e, double start, double end) {
  EXPECT_NEAR(e.start_us, start, kTol);
  EXPECT_NEAR(e.end_us, end, kTol);
}

// ----------------------------------------------------------- engine costs

TEST(KernelSimTest, EachEngineCostsOverheadPlusWorkOverThroughput) {
  const DeviceProfile p = Profile();
  struct Case {
    Engine engine;
    DType dtype;
    int64_t work;
    double expected_us;
  };
  // overhead 1000 cycles; duration = 1000 / clock + W / (clock x rate).
  const Case cases[] = {
      // tensor 1 GHz x 1: 1 + 3000 / 1000 = 4.
      {Engine::kTensor, DType::kBf16, 3000, 4.0},
      // tensor fp32 at 0.25 x: 1 + 3000 / 250 = 13.
      {Engine::kTensor, DType::kFp32, 3000, 13.0},
      // int32 is as slow as fp32 on the PE array: 13.
      {Engine::kTensor, DType::kInt32, 3000, 13.0},
      // vector 1 GHz x 2: 1 + 3000 / 2000 = 2.5, whatever the dtype.
      {Engine::kVector, DType::kBf16, 3000, 2.5},
      {Engine::kVector, DType::kFp32, 3000, 2.5},
      // scalar 2 GHz x 1: 1000 / 2000 + 3000 / 2000 = 0.5 + 1.5 = 2.
      {Engine::kScalar, DType::kFp32, 3000, 2.0},
      // gpsimd 0.5 GHz x 4: 1000 / 500 + 3000 / 2000 = 2 + 1.5 = 3.5.
      {Engine::kGpSimd, DType::kFp32, 3000, 3.5},
      // No work: the overhead alone, 1000 / 500 = 2.
      {Engine::kGpSimd, DType::kFp32, 0, 2.0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrFormat("%s %s W=%d", EngineName(c.engine),
                                 DTypeName(c.dtype), c.work));
    Kernel k;
    AddCompute(k, c.engine, c.work, {}, c.dtype);
    KernelSim sim(k, p);
    EXPECT_NEAR(sim.ComputeDurationUs(0), c.expected_us, kTol);
    KernelRun r = RunKernel(k, p);
    ASSERT_EQ(r.tl.events.size(), 1u);
    const Event& e = r.tl.events[0];
    EXPECT_EQ(e.lane, EngineLane(c.engine));
    EXPECT_EQ(r.tl.str(e.name), std::string(EngineName(c.engine)) + "_op");
    EXPECT_EQ(r.tl.str(e.detail), "tile");
    EXPECT_EQ(e.bytes, 0);
    EXPECT_EQ(e.dispatch, 0);
    ExpectEvent(e, 0.0, c.expected_us);
    EXPECT_NEAR(r.end, c.expected_us, kTol);
  }
}

TEST(KernelSimTest, RunStartsAtT0) {
  const DeviceProfile p = Profile();
  Kernel k;
  AddCompute(k, Engine::kVector, 2000);  // 1 + 1 = 2 us
  KernelSim sim(k, p);
  CounterRng rng(1);
  Timeline tl;
  tl.lanes = StandardLanes(p.dma_queues);
  // Run returns the absolute end of the last instruction.
  EXPECT_NEAR(sim.Run(rng, 100.0, 3, tl), 102.0, kTol);
  ASSERT_EQ(tl.events.size(), 1u);
  ExpectEvent(tl.events[0], 100.0, 102.0);
  EXPECT_EQ(tl.events[0].dispatch, 3);
  // An empty kernel ends where it starts.
  Kernel empty;
  KernelSim none(empty, p);
  EXPECT_EQ(none.Run(rng, 100.0, 3, tl), 100.0);
  EXPECT_EQ(tl.events.size(), 1u);
}

// ----------------------------------------------------------- ordering

TEST(KernelSimTest, DependencyOnAnotherEngineStartsAtItsEnd) {
  const DeviceProfile p = Profile();
  Kernel k;
  uint32_t a = AddCompute(k, Engine::kVector, 2000);  // [0, 2]
  AddCompute(k, Engine::kScalar, 0, {a});             // 0.5 us: [2, 2.5]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 2.0);
  ExpectEvent(r.tl.events[1], 2.0, 2.5);
  EXPECT_NEAR(r.end, 2.5, kTol);
}

TEST(KernelSimTest, WaitsForTheLastOfSeveralDependencies) {
  const DeviceProfile p = Profile();
  Kernel k;
  uint32_t a = AddCompute(k, Engine::kVector, 2000);   // [0, 2]
  uint32_t b = AddCompute(k, Engine::kScalar, 18000);  // 0.5 + 9: [0, 9.5]
  AddCompute(k, Engine::kTensor, 0, {a, b});           // 1 us: [9.5, 10.5]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 2.0);
  ExpectEvent(r.tl.events[1], 0.0, 9.5);
  ExpectEvent(r.tl.events[2], 9.5, 10.5);
}

TEST(KernelSimTest, SameEngineSerializesInProgramOrder) {
  const DeviceProfile p = Profile();
  Kernel k;
  AddCompute(k, Engine::kVector, 2000);  // [0, 2]
  AddCompute(k, Engine::kVector, 4000);  // 1 + 2 = 3 us: [2, 5]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 2.0);
  ExpectEvent(r.tl.events[1], 2.0, 5.0);
  EXPECT_NEAR(r.end, 5.0, kTol);
  // Back to back: the second starts at exactly the first's end.
  EXPECT_EQ(r.tl.events[1].start_us, r.tl.events[0].end_us);
}

TEST(KernelSimTest, DifferentEnginesRunConcurrently) {
  const DeviceProfile p = Profile();
  Kernel k;
  AddCompute(k, Engine::kVector, 2000);  // [0, 2]
  AddCompute(k, Engine::kScalar, 2000);  // 0.5 + 1: [0, 1.5]
  AddCompute(k, Engine::kGpSimd, 0);     // [0, 2]
  AddCompute(k, Engine::kTensor, 0);     // [0, 1]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 2.0);
  ExpectEvent(r.tl.events[1], 0.0, 1.5);
  ExpectEvent(r.tl.events[2], 0.0, 2.0);
  ExpectEvent(r.tl.events[3], 0.0, 1.0);
  EXPECT_NEAR(r.end, 2.0, kTol);
}

TEST(KernelSimTest, InOrderLaneBlocksBehindAWaitingInstruction) {
  const DeviceProfile p = Profile();
  Kernel k;
  uint32_t s = AddCompute(k, Engine::kScalar, 18000);  // [0, 9.5]
  AddCompute(k, Engine::kVector, 0, {s});              // [9.5, 10.5]
  // Ready at 0, but behind the waiting one on the same in-order engine.
  AddCompute(k, Engine::kVector, 0);  // [10.5, 11.5]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[1], 9.5, 10.5);
  ExpectEvent(r.tl.events[2], 10.5, 11.5);
  EXPECT_NEAR(r.end, 11.5, kTol);
}

TEST(KernelSimTest, DmaAndComputeWaitForEachOther) {
  const DeviceProfile p = Profile();
  Kernel k;
  uint32_t load = AddDma(k, 0, 100000);  // 2 + 1e5 / 1e4: [0, 12]
  uint32_t c = AddCompute(k, Engine::kVector, 0, {load});  // [12, 13]
  AddDma(k, 1, 100000, {c});                               // [13, 25]
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 12.0);
  ExpectEvent(r.tl.events[1], 12.0, 13.0);
  ExpectEvent(r.tl.events[2], 13.0, 25.0);
  EXPECT_EQ(r.tl.events[0].lane, DmaLane(0));
  EXPECT_EQ(r.tl.events[2].lane, DmaLane(1));
  EXPECT_EQ(r.tl.events[0].bytes, 100000);
}

// ------------------------------------------------------------------ DMA

TEST(KernelSimTest, SingleTransferIsLatencyPlusBytesOverMinOfQueueAndHbm) {
  Kernel k;
  AddDma(k, 0, 100000);
  {
    // Queue 10 GB/s < HBM 20 GB/s: 2 + 1e5 / 1e4 = 12 us.
    const DeviceProfile p = Profile();
    KernelSim sim(k, p);
    EXPECT_NEAR(sim.DmaCapBytesPerUs(0), 1e4, kTol);
    EXPECT_EQ(sim.ComputeDurationUs(0), 0.0);
    KernelRun r = RunKernel(k, p);
    ExpectEvent(r.tl.events[0], 0.0, 12.0);
  }
  {
    // HBM 5 GB/s < queue 10 GB/s: 2 + 1e5 / 5e3 = 22 us.
    const DeviceProfile p = Profile({{"hbm_gbps", 5}});
    ExpectEvent(RunKernel(k, p).tl.events[0], 0.0, 22.0);
  }
  {
    // Latency 7 us: 7 + 10 = 17 us.
    const DeviceProfile p = Profile({{"dma_latency_us", 7}});
    ExpectEvent(RunKernel(k, p).tl.events[0], 0.0, 17.0);
  }
}

TEST(KernelSimTest, SmallTransfersRunBelowQueueRate) {
  // Efficiency b / (b + h) with h = 1e5 B: a 1e5 B transfer runs at half
  // the queue rate, 5e3 B/us: 2 + 20 = 22 us.
  const DeviceProfile p = Profile({{"dma_half_efficiency_bytes", 100000}});
  Kernel k;
  AddDma(k, 0, 100000);
  KernelSim sim(k, p);
  EXPECT_NEAR(sim.DmaCapBytesPerUs(0), 5e3, kTol);
  ExpectEvent(RunKernel(k, p).tl.events[0], 0.0, 22.0);
}

TEST(KernelSimTest, FourEqualTransfersShareHbmEqually) {
  // 4 x 1e5 B on 4 queues; HBM 2e4 B/us over 4 = 5e3 B/us each (below the
  // 1e4 queue cap): 2 + 1e5 / 5e3 = 22 us each.
  const DeviceProfile p = Profile();
  Kernel k;
  for (int q = 0; q < 4; ++q) AddDma(k, q, 100000);
  KernelRun r = RunKernel(k, p);
  for (int q = 0; q < 4; ++q) {
    SCOPED_TRACE(q);
    ExpectEvent(r.tl.events[static_cast<size_t>(q)], 0.0, 22.0);
    EXPECT_EQ(r.tl.events[static_cast<size_t>(q)].lane, DmaLane(q));
  }
  EXPECT_NEAR(r.end, 22.0, kTol);
}

TEST(KernelSimTest, EarlyFinisherGivesItsShareToTheOthers) {
  // A = 5e4 B, B = C = D = 1e5 B, all moving from t = 2.
  // [2, 12]: 4 share 2e4 -> 5e3 each; A has moved 5e4 and ends at 12.
  // [12, ..]: B, C, D have 5e4 left each and share 2e4 -> 2e4/3 each:
  //           5e4 / (2e4 / 3) = 7.5 us -> end 19.5.
  const DeviceProfile p = Profile();
  Kernel k;
  AddDma(k, 0, 50000);
  for (int q = 1; q < 4; ++q) AddDma(k, q, 100000);
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 12.0);
  for (size_t i = 1; i < 4; ++i) ExpectEvent(r.tl.events[i], 0.0, 19.5);
}

TEST(KernelSimTest, LastTransferIsCappedByItsQueue) {
  // A = B = C = 5e4 B, D = 1.5e5 B.
  // [2, 12]: 5e3 each; A, B, C end at 12; D has 1e5 left.
  // [12, ..]: D alone gets min(queue 1e4, HBM 2e4) = 1e4: 10 us -> 22.
  // (Uncapped it would end at 12 + 1e5 / 2e4 = 17.)
  const DeviceProfile p = Profile();
  Kernel k;
  for (int q = 0; q < 3; ++q) AddDma(k, q, 50000);
  AddDma(k, 3, 150000);
  KernelRun r = RunKernel(k, p);
  for (size_t i = 0; i < 3; ++i) ExpectEvent(r.tl.events[i], 0.0, 12.0);
  ExpectEvent(r.tl.events[3], 0.0, 22.0);
}

TEST(KernelSimTest, LateJoinerSlowsTheRunningTransfer) {
  // HBM = queue = 1e4 B/us. A (1e5 B) moves alone from 2 at 1e4.
  // B (1e5 B) waits for a 4 us compute (1 + 6000 / 2000), then its 2 us
  // latency: it moves from 6. By 6, A has moved 4e4.
  // [6, ..]: 5e3 each; A's 6e4 take 12 us -> A ends at 18, when B has
  // moved 6e4; B's last 4e4 alone at 1e4 take 4 us -> B ends at 22.
  const DeviceProfile p = Profile({{"hbm_gbps", 10}});
  Kernel k;
  AddDma(k, 0, 100000);
  uint32_t c = AddCompute(k, Engine::kVector, 6000);
  AddDma(k, 1, 100000, {c});
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 18.0);
  ExpectEvent(r.tl.events[1], 0.0, 4.0);
  ExpectEvent(r.tl.events[2], 4.0, 22.0);
}

TEST(KernelSimTest, WaterFillingWithUnequalCaps) {
  // h = 1e5 B, HBM 1e4 B/us. A = 1e5 B: cap 1e4 x 1/2 = 5e3.
  // B = 3e5 B: cap 1e4 x 3/4 = 7.5e3. Fair share 5e3 each; A takes its
  // cap 5e3, B gets the other 5e3.
  // A: 2 + 1e5 / 5e3 = 22. B has moved 1e5 by 22; the last 2e5 at its cap
  // 7.5e3 take 80/3 us -> 22 + 26.666... = 48.666...
  const DeviceProfile p =
      Profile({{"hbm_gbps", 10}, {"dma_half_efficiency_bytes", 100000}});
  Kernel k;
  AddDma(k, 0, 100000);
  AddDma(k, 1, 300000);
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 22.0);
  ExpectEvent(r.tl.events[1], 0.0, 22.0 + 80.0 / 3.0);
}

TEST(KernelSimTest, CappedTransferLeavesItsShareToTheOthers) {
  // h = 1e5 B, HBM 2e4 B/us. A = 2.5e4 B: cap 1e4 x 0.2 = 2e3.
  // B = C = 9e5 B: cap 1e4 x 0.9 = 9e3. The fair share 2e4 / 3 = 6667 is
  // above A's cap, so A takes 2e3 and B and C split the other 1.8e4:
  // 9e3 each (their cap; HBM is exactly full).
  // A: 2 + 2.5e4 / 2e3 = 14.5. B, C stay at their 9e3 cap throughout:
  // 2 + 9e5 / 9e3 = 102. (Without passing A's unused share on they would
  // move at 6667 until 14.5 and end at ~105.2.)
  const DeviceProfile p =
      Profile({{"hbm_gbps", 20}, {"dma_half_efficiency_bytes", 100000}});
  Kernel k;
  AddDma(k, 0, 25000);
  AddDma(k, 1, 900000);
  AddDma(k, 2, 900000);
  KernelRun r = RunKernel(k, p);
  ExpectEvent(r.tl.events[0], 0.0, 14.5);
  ExpectEvent(r.tl.events[1], 0.0, 102.0);
  ExpectEvent(r.tl.events[2], 0.0, 102.0);
}

TEST(KernelSimTest, ZeroByteTransferTakesItsLatency) {
  // No bytes to move: the transfer is done when its 2 us latency ends, and
  // its dependent (vector, 1 us) runs [2, 3]. This used to end the
  // simulation early with both at [0, 0] (the empty transfer was never
  // picked as the next to finish).
  for (double h : {0.0, 4096.0}) {
    SCOPED_TRACE(h);
    const DeviceProfile p = Profile({{"dma_half_efficiency_bytes", h}});
    Kernel k;
    uint32_t d = AddDma(k, 0, 0);
    AddCompute(k, Engine::kVector, 0, {d});
    KernelRun r = RunKernel(k, p);
    ExpectEvent(r.tl.events[0], 0.0, 2.0);
    ExpectEvent(r.tl.events[1], 2.0, 3.0);
    EXPECT_NEAR(r.end, 3.0, kTol);
  }
}

TEST(KernelSimTest, OneQueueCarriesOneTransferAtATime) {
  // Queue 4 wraps to queue 0 of 4; the second transfer waits for the
  // first: [0, 12], then [12, 24].
  const DeviceProfile p = Profile();
  Kernel k;
  AddDma(k, 0, 100000);
  AddDma(k, 4, 100000);
  KernelRun r = RunKernel(k, p);
  EXPECT_EQ(r.tl.events[1].lane, DmaLane(0));
  ExpectEvent(r.tl.events[0], 0.0, 12.0);
  ExpectEvent(r.tl.events[1], 12.0, 24.0);
}

TEST(KernelSimTest, EightTransfersOnFourQueuesRunInTwoWaves) {
  // Wave 1 (instructions 0-3): [0, 22] as in FourEqualTransfers; wave 2
  // (4-7) starts when its queue frees: [22, 44].
  const DeviceProfile p = Profile();
  Kernel k;
  for (int i = 0; i < 8; ++i) AddDma(k, i % 4, 100000);
  KernelRun r = RunKernel(k, p);
  for (size_t i = 0; i < 4; ++i) ExpectEvent(r.tl.events[i], 0.0, 22.0);
  for (size_t i = 4; i < 8; ++i) ExpectEvent(r.tl.events[i], 22.0, 44.0);
  EXPECT_NEAR(r.end, 44.0, kTol);
}

TEST(KernelSimTest, NoTransferExceedsItsQueueOrTheHbm) {
  // A mixed kernel: 24 transfers of 1e4..7e4 B on 4 queues, a third of
  // them behind computes, so transfers join and leave at odd times.
  // Latency is a constant 2 us, so a transfer moves during
  // [start + 2, end]; its average rate bytes / (dur - 2) may not exceed
  // its cap, and all bytes moved may not exceed HBM x the time at least
  // one transfer moves.
  for (double hbm : {20.0, 5.0, 30.0}) {
    SCOPED_TRACE(hbm);
    const DeviceProfile p =
        Profile({{"hbm_gbps", hbm}, {"dma_half_efficiency_bytes", 4096}});
    Kernel k;
    uint32_t prev = AddCompute(k, Engine::kVector, 1000);
    for (int i = 0; i < 24; ++i) {
      std::vector<uint32_t> deps;
      if (i % 3 == 0) deps.push_back(prev);
      AddDma(k, i % 4, 10000 * (1 + i % 7), deps);
      if (i % 5 == 0) prev = AddCompute(k, Engine::kScalar, 1000 * i);
    }
    KernelSim sim(k, p);
    KernelRun r = RunKernel(k, p);
    std::vector<std::pair<double, double>> moving;
    double total = 0;
    for (size_t i = 0; i < k.instrs.size(); ++i) {
      if (k.instrs[i].kind != InstrKind::kDma) continue;
      const Event& e = r.tl.events[i];
      const double b = static_cast<double>(e.bytes);
      const double cap = std::min(sim.DmaCapBytesPerUs(i), hbm * 1e3);
      // The cap is 1e4 x b / (b + 4096) <= 1e4.
      EXPECT_LE(sim.DmaCapBytesPerUs(i), 1e4);
      ASSERT_GT(e.dur_us(), 2.0) << i;
      EXPECT_LE(b / (e.dur_us() - 2.0), cap * (1 + 1e-9)) << "instr " << i;
      moving.emplace_back(e.start_us + 2.0, e.end_us);
      total += b;
    }
    std::sort(moving.begin(), moving.end());
    double busy = 0;
    double lo = moving[0].first;
    double hi = moving[0].second;
    for (const auto& [s, e] : moving) {
      if (s > hi) {
        busy += hi - lo;
        lo = s;
      }
      hi = std::max(hi, e);
    }
    busy += hi - lo;
    EXPECT_LE(total, hbm * 1e3 * busy * (1 + 1e-9));
  }
}

TEST(KernelSimTest, ChunksOfOneTransferShareOneLatencyDraw) {
  // Noisy latency in [1, 3]. Two 2e4 B chunks on queues 0 and 1 share
  // instruction 0's draw L; together they get 2e4 B/us, 1e4 each (= cap),
  // so each takes L + 2: the durations are identical.
  const DeviceProfile p = NoisyProfile();
  Kernel chunked;
  AddDma(chunked, 0, 20000);
  AddDma(chunked, 1, 20000, {}, /*transfer=*/0);
  KernelRun r = RunKernel(chunked, p, /*key=*/12345);
  const double d0 = r.tl.events[0].dur_us();
  EXPECT_EQ(d0, r.tl.events[1].dur_us());
  EXPECT_GE(d0, 3.0);
  EXPECT_LE(d0, 5.0);
  // As two transfers, each draws its own latency (the same key): the
  // first gets the same draw as the chunked case, the second another.
  Kernel separate;
  AddDma(separate, 0, 20000);
  AddDma(separate, 1, 20000);
  KernelRun s = RunKernel(separate, p, /*key=*/12345);
  EXPECT_EQ(s.tl.events[0].dur_us(), d0);
  EXPECT_NE(s.tl.events[1].dur_us(), d0);
}

TEST(KernelSimTest, EventsCarryInstructionArguments) {
  const DeviceProfile p = Profile();
  Kernel k;
  Instruction in;
  in.kind = InstrKind::kCompute;
  in.engine = Engine::kScalar;
  in.opcode = k.Intern("activation_exp");
  in.label = k.Intern("x_tile");
  in.source_line = 42;
  in.iteration = 3;
  k.Add(in, {});
  KernelRun r = RunKernel(k, p);
  ASSERT_EQ(r.tl.events.size(), 1u);
  const Event& e = r.tl.events[0];
  EXPECT_EQ(r.tl.str(e.name), "activation_exp");
  EXPECT_EQ(r.tl.str(e.detail), "x_tile");
  EXPECT_EQ(e.source_line, 42);
  EXPECT_EQ(e.iteration, 3);
  EXPECT_EQ(e.lane, EngineLane(Engine::kScalar));
}

// ------------------------------------------------------------ host lanes

// One dispatch whose kernel is a 2 us vector instruction (1 + 2000 / 2000).
Dispatch VectorDispatch(const std::string& name) {
  Dispatch d;
  d.name = name;
  d.kernel.name = name;
  AddCompute(d.kernel, Engine::kVector, 2000);
  return d;
}

std::vector<const Event*> OnLane(const Timeline& tl, uint32_t lane) {
  std::vector<const Event*> out;
  for (const Event& e : tl.events) {
    if (e.lane == lane) out.push_back(&e);
  }
  return out;
}

Simulator MustCreate(const Program& program, const DeviceProfile& p) {
  auto s = Simulator::Create(program, p);
  EXPECT_TRUE(s.ok()) << s.status();
  return *std::move(s);
}

TEST(SimulatorTest, EagerDispatchesRunAheadOnTheHost) {
  // dispatch 3 us, runtime 2 us, op overhead 10 us, kernel 2 us.
  // d0: framework [0, 3], runtime [3, 5], hardware [5, 17] (10 + 2), its
  //     vector op at [15, 17].
  // d1: framework [3, 6] (the host does not wait), runtime [6, 8],
  //     hardware waits for d0: [17, 29], vector op at [27, 29].
  // synchronize: framework [6, 29].
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "eager2";
  prog.mode = ExecMode::kEager;
  prog.dispatches = {VectorDispatch("aten::mul"), VectorDispatch("aten::add")};
  Simulator sim = MustCreate(prog, p);
  Timeline tl = sim.Run(1, 0);
  EXPECT_EQ(tl.program, "eager2");
  EXPECT_EQ(tl.mode, ExecMode::kEager);
  EXPECT_EQ(tl.lanes.size(), StandardLanes(4).size());
  EXPECT_EQ(tl.dispatch_names,
            (std::vector<std::string>{"aten::mul", "aten::add"}));

  auto fw = OnLane(tl, kFrameworkLane);
  auto rt = OnLane(tl, kRuntimeLane);
  auto hw = OnLane(tl, kHardwareLane);
  auto vec = OnLane(tl, EngineLane(Engine::kVector));
  ASSERT_EQ(fw.size(), 3u);
  ASSERT_EQ(rt.size(), 2u);
  ASSERT_EQ(hw.size(), 2u);
  ASSERT_EQ(vec.size(), 2u);
  EXPECT_TRUE(OnLane(tl, kHostToDeviceLane).empty());

  EXPECT_EQ(tl.str(fw[0]->name), "aten::mul");
  EXPECT_EQ(tl.str(fw[1]->name), "aten::add");
  EXPECT_EQ(tl.str(fw[2]->name), "torch.neuron.synchronize");
  ExpectEvent(*fw[0], 0, 3);
  ExpectEvent(*fw[1], 3, 6);
  ExpectEvent(*fw[2], 6, 29);
  EXPECT_EQ(fw[2]->dispatch, -1);

  EXPECT_EQ(tl.str(rt[0]->name), "nrta_execute_schedule");
  ExpectEvent(*rt[0], 3, 5);
  ExpectEvent(*rt[1], 6, 8);

  EXPECT_EQ(tl.str(hw[0]->name), "nc_exec_running");
  EXPECT_EQ(tl.str(hw[0]->detail), "aten::mul");
  EXPECT_EQ(tl.str(hw[1]->detail), "aten::add");
  ExpectEvent(*hw[0], 5, 17);
  ExpectEvent(*hw[1], 17, 29);
  EXPECT_EQ(hw[0]->dispatch, 0);
  EXPECT_EQ(hw[1]->dispatch, 1);
  ExpectEvent(*vec[0], 15, 17);
  ExpectEvent(*vec[1], 27, 29);

  // The host runs ahead: op 2 is created before execution 1 ends.
  EXPECT_LT(fw[1]->start_us, hw[0]->end_us);
  // Hardware executions never overlap; back to back they share one double.
  EXPECT_EQ(hw[0]->end_us, hw[1]->start_us);
}

TEST(SimulatorTest, HostCopyDelaysAnIdleDevice) {
  // A 4000 B copy: latency 4 + 4000 / 1e3 = 8 us.
  // framework: aten::copy_ [0, 3], aten::add [3, 6]; host_to_device
  // [3, 11]; runtime [6, 8]; hardware waits for the copy: [11, 23].
  // Without the copy: aten::add [0, 3], runtime [3, 5], hardware [5, 17].
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "copy";
  prog.dispatches = {VectorDispatch("aten::add")};
  prog.dispatches[0].host_copies.push_back({"epsilon", 4000});
  Simulator sim = MustCreate(prog, p);
  Timeline tl = sim.Run(1, 0);
  auto fw = OnLane(tl, kFrameworkLane);
  auto h2d = OnLane(tl, kHostToDeviceLane);
  auto hw = OnLane(tl, kHardwareLane);
  ASSERT_EQ(fw.size(), 3u);  // copy_, add, synchronize
  ASSERT_EQ(h2d.size(), 1u);
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(tl.str(fw[0]->name), "aten::copy_");
  EXPECT_EQ(tl.str(fw[0]->detail), "epsilon");
  EXPECT_EQ(fw[0]->bytes, 4000);
  EXPECT_EQ(fw[0]->dispatch, 0);
  ExpectEvent(*fw[0], 0, 3);
  ExpectEvent(*fw[1], 3, 6);
  EXPECT_EQ(tl.str(h2d[0]->name), "host_to_device_copy");
  EXPECT_EQ(h2d[0]->bytes, 4000);
  ExpectEvent(*h2d[0], 3, 11);
  ExpectEvent(*hw[0], 11, 23);

  prog.dispatches[0].host_copies.clear();
  Simulator plain = MustCreate(prog, p);
  Timeline tl2 = plain.Run(1, 0);
  auto hw2 = OnLane(tl2, kHardwareLane);
  ASSERT_EQ(hw2.size(), 1u);
  ExpectEvent(*hw2[0], 5, 17);
}

TEST(SimulatorTest, HostCopyHiddenBehindABusyDevice) {
  // d0 as in EagerDispatchesRunAhead: hardware [5, 17].
  // d1: copy_ [3, 6], copy lands [6, 14], add [6, 9], runtime [9, 11];
  // hardware starts when d0 ends (17 > 14): [17, 29].
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "copy2";
  prog.dispatches = {VectorDispatch("aten::mul"), VectorDispatch("aten::add")};
  prog.dispatches[1].host_copies.push_back({"epsilon", 4000});
  Simulator sim = MustCreate(prog, p);
  Timeline tl = sim.Run(1, 0);
  auto h2d = OnLane(tl, kHostToDeviceLane);
  auto hw = OnLane(tl, kHardwareLane);
  auto rt = OnLane(tl, kRuntimeLane);
  ASSERT_EQ(h2d.size(), 1u);
  ASSERT_EQ(hw.size(), 2u);
  ASSERT_EQ(rt.size(), 2u);
  ExpectEvent(*h2d[0], 6, 14);
  ExpectEvent(*rt[1], 9, 11);
  ExpectEvent(*hw[0], 5, 17);
  ExpectEvent(*hw[1], 17, 29);
}

TEST(SimulatorTest, ModesUseTheirOwnExecutionOverhead) {
  // fused_op: op overhead 10 -> hardware [5, 17]; compiled: graph
  // overhead 5 -> hardware [5, 12].
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "one";
  prog.dispatches = {VectorDispatch("Torch-Compiled Region")};
  prog.mode = ExecMode::kFusedOp;
  {
    Simulator sim = MustCreate(prog, p);
    const Timeline tl = sim.Run(1, 0);
    auto hw = OnLane(tl, kHardwareLane);
    ASSERT_EQ(hw.size(), 1u);
    ExpectEvent(*hw[0], 5, 17);
  }
  prog.mode = ExecMode::kCompiled;
  {
    Simulator sim = MustCreate(prog, p);
    Timeline tl = sim.Run(1, 0);
    EXPECT_EQ(tl.mode, ExecMode::kCompiled);
    auto hw = OnLane(tl, kHardwareLane);
    ASSERT_EQ(hw.size(), 1u);
    ExpectEvent(*hw[0], 5, 12);
  }
}

TEST(SimulatorTest, NkiLaunchThenKernelThenLoopGap) {
  // runtime: launch [0, 30]; hardware [30, 32] with the kernel inside;
  // framework: benchmark-loop gap [32, 132].
  // Metrics: ncl = 2, latency = host 30 + kernel 2 = 32,
  // throughput = 1e6 / 132 per second.
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "exp_tiled";
  prog.mode = ExecMode::kNki;
  prog.dispatches = {VectorDispatch("exp_tiled")};
  prog.dispatches[0].kernel.source_file = "exp_tiled.py";
  Simulator sim = MustCreate(prog, p);
  Timeline tl = sim.Run(1, 0);
  EXPECT_EQ(tl.source_file, "exp_tiled.py");
  auto rt = OnLane(tl, kRuntimeLane);
  auto hw = OnLane(tl, kHardwareLane);
  auto fw = OnLane(tl, kFrameworkLane);
  auto vec = OnLane(tl, EngineLane(Engine::kVector));
  ASSERT_EQ(rt.size(), 1u);
  ASSERT_EQ(hw.size(), 1u);
  ASSERT_EQ(fw.size(), 1u);
  ASSERT_EQ(vec.size(), 1u);
  EXPECT_EQ(tl.str(rt[0]->name), "nrta_execute_schedule");
  ExpectEvent(*rt[0], 0, 30);
  ExpectEvent(*hw[0], 30, 32);
  ExpectEvent(*vec[0], 30, 32);
  ExpectEvent(*fw[0], 32, 132);

  auto metrics = ComputeMetrics(tl);
  auto get = [&](const std::string& name) {
    for (const auto& m : metrics) {
      if (m.name == name) return m.value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1.0;
  };
  EXPECT_NEAR(get("ncl_us"), 2.0, kTol);
  EXPECT_NEAR(get("device_time_us"), 2.0, kTol);
  EXPECT_NEAR(get("latency_us"), 32.0, kTol);
  EXPECT_NEAR(get("wall_time_us"), 132.0, kTol);
  EXPECT_NEAR(get("throughput_per_s"), 1e6 / 132.0, 1e-6);
}

TEST(SimulatorTest, CreateRejectsForwardDependenciesAndMissingStrings) {
  const DeviceProfile p = Profile();
  Program prog;
  prog.name = "bad";
  prog.dispatches = {VectorDispatch("op")};
  Kernel& k = prog.dispatches[0].kernel;
  // Instruction 1 depending on itself.
  Instruction in;
  in.opcode = k.Intern("x");
  k.Add(in, {1});
  auto s = Simulator::Create(prog, p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("later instruction"), std::string::npos);

  prog.dispatches = {VectorDispatch("op")};
  Instruction bad;
  bad.opcode = 99;
  prog.dispatches[0].kernel.Add(bad, {});
  EXPECT_FALSE(Simulator::Create(prog, p).ok());
}

// ---------------------------------------------------------- determinism

Program NoisyProgram(const std::string& name) {
  // Three dispatches of load (2 chunks) -> compute -> store; the second
  // needs a host copy.
  Program prog;
  prog.name = name;
  prog.mode = ExecMode::kEager;
  for (int d = 0; d < 3; ++d) {
    Dispatch disp;
    disp.name = d == 1 ? "aten::add" : "aten::mul";
    Kernel& k = disp.kernel;
    uint32_t c0 = AddDma(k, 0, 30000);
    uint32_t c1 = AddDma(k, 1, 30000, {}, /*transfer=*/c0);
    uint32_t v = AddCompute(k, Engine::kVector, 4000, {c0, c1});
    uint32_t s = AddCompute(k, Engine::kScalar, 4000, {v});
    AddDma(k, 2, 60000, {s});
    if (d == 1) disp.host_copies.push_back({"epsilon", 4});
    prog.dispatches.push_back(std::move(disp));
  }
  return prog;
}

void ExpectSameTimeline(const Timeline& a, const Timeline& b) {
  EXPECT_EQ(a.program, b.program);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.strings, b.strings);
  EXPECT_EQ(a.dispatch_names, b.dispatch_names);
  ASSERT_EQ(a.lanes.size(), b.lanes.size());
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    SCOPED_TRACE(i);
    const Event& x = a.events[i];
    const Event& y = b.events[i];
    EXPECT_EQ(x.lane, y.lane);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.start_us, y.start_us);  // bit-identical, not near
    EXPECT_EQ(x.end_us, y.end_us);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.dispatch, y.dispatch);
    EXPECT_EQ(x.source_line, y.source_line);
    EXPECT_EQ(x.iteration, y.iteration);
    EXPECT_EQ(x.detail, y.detail);
  }
}

bool TimesDiffer(const Timeline& a, const Timeline& b) {
  if (a.events.size() != b.events.size()) return true;
  for (size_t i = 0; i < a.events.size(); ++i) {
    if (a.events[i].start_us != b.events[i].start_us ||
        a.events[i].end_us != b.events[i].end_us) {
      return true;
    }
  }
  return false;
}

TEST(SimulatorDeterminismTest, SameSeedAndIndexGiveIdenticalTimelines) {
  const DeviceProfile p = NoisyProfile();
  const Program prog = NoisyProgram("noisy");
  Simulator sim = MustCreate(prog, p);
  Simulator other = MustCreate(prog, p);
  const Timeline a = sim.Run(7, 3);
  ExpectSameTimeline(a, sim.Run(7, 3));
  ExpectSameTimeline(a, other.Run(7, 3));
}

TEST(SimulatorDeterminismTest, DifferentIndexSeedOrProgramDiffers) {
  const DeviceProfile p = NoisyProfile();
  const Program prog = NoisyProgram("noisy");
  const Program renamed = NoisyProgram("noisy2");
  Simulator sim = MustCreate(prog, p);
  const Timeline a = sim.Run(7, 3);
  EXPECT_TRUE(TimesDiffer(a, sim.Run(7, 4)));
  EXPECT_TRUE(TimesDiffer(a, sim.Run(8, 3)));
  Simulator sim2 = MustCreate(renamed, p);
  EXPECT_TRUE(TimesDiffer(a, sim2.Run(7, 3)));
}

TEST(SimulatorDeterminismTest, ReplayingOneIndexAloneMatchesTheSequence) {
  const DeviceProfile p = NoisyProfile();
  const Program prog = NoisyProgram("noisy");
  Simulator sim = MustCreate(prog, p);
  std::vector<Timeline> seq;
  for (uint64_t i = 0; i < 6; ++i) seq.push_back(sim.Run(11, i));
  Simulator fresh = MustCreate(prog, p);
  ExpectSameTimeline(fresh.Run(11, 4), seq[4]);
  ExpectSameTimeline(fresh.Run(11, 1), seq[1]);
}

TEST(SimulatorDeterminismTest, NoisyRunsKeepTheInvariants) {
  // Whatever the draws: durations non-negative and finite, hardware
  // executions in order without overlap, every engine and DMA event inside
  // its own dispatch's hardware execution, no dispatch before its
  // runtime call.
  const DeviceProfile p = NoisyProfile();
  const Program prog = NoisyProgram("noisy");
  Simulator sim = MustCreate(prog, p);
  for (uint64_t i = 0; i < 50; ++i) {
    SCOPED_TRACE(i);
    const Timeline tl = sim.Run(3, i);
    auto hw = OnLane(tl, kHardwareLane);
    auto rt = OnLane(tl, kRuntimeLane);
    ASSERT_EQ(hw.size(), 3u);
    ASSERT_EQ(rt.size(), 3u);
    for (size_t d = 0; d < 3; ++d) {
      EXPECT_GE(hw[d]->start_us, rt[d]->end_us);
      if (d > 0) {
        EXPECT_GE(hw[d]->start_us, hw[d - 1]->end_us);
      }
    }
    for (const Event& e : tl.events) {
      ASSERT_TRUE(std::isfinite(e.start_us) && std::isfinite(e.end_us));
      EXPECT_GE(e.dur_us(), 0.0);
      if (e.lane >= EngineLane(Engine::kTensor)) {
        const Event& h = *hw[static_cast<size_t>(e.dispatch)];
        EXPECT_GE(e.start_us, h.start_us);
        EXPECT_LE(e.end_us, h.end_us);
      }
    }
  }
}

}  // namespace
}  // namespace trn
