#include "device_model/simulator.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/instruction_cost.h"
#include "device_model/kernel_sim.h"
#include "device_model/metrics.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/program.h"
#include "device_model/timeline.h"
#include "device_model/timeline_recorder.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/counter_rng.h"
#include "tests/device_model/test_profile.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

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

Instruction Compute(Engine e, CostRule rule, int64_t n, DType t = DType::kBf16,
                    int64_t aux = 0) {
  Instruction in;
  in.kind = InstrKind::kCompute;
  in.engine = e;
  in.rule = rule;
  in.dtype = t;
  in.work = n;
  in.aux = aux;
  return in;
}

uint32_t AddCompute(Kernel& k, Engine e, CostRule rule, int64_t n,
                    const std::vector<uint32_t>& deps = {}) {
  Instruction in = Compute(e, rule, n);
  in.opcode = k.Intern(std::string(EngineName(e)) + "_op");
  in.label = k.Intern("tile");
  return k.Add(in, deps);
}

// A transfer of `partitions` rows of `row_bytes` each.
// `edit`, if given, sets what else the transfer is (a copy in HBM, rows
// that follow one another) before it is added.
uint32_t AddDma(Kernel& k, int64_t partitions, int64_t row_bytes,
                const std::vector<uint32_t>& deps = {},
                void (*edit)(Instruction&) = nullptr) {
  Instruction in;
  in.kind = InstrKind::kDma;
  in.partitions = static_cast<int32_t>(partitions);
  in.aux = partitions;
  in.work = partitions * row_bytes;
  in.opcode = k.Intern("dma_copy");
  in.label = k.Intern("tile");
  if (edit != nullptr) edit(in);
  return k.Add(in, deps);
}

// Every span and completion of one kernel run, as delivered.
struct Recorder : SimListener {
  std::vector<BusySpan> spans;
  std::vector<DmaCompletion> dma;
  std::vector<double> starts;  // BusyStart times, in delivery order
  void BusyStart(uint32_t, double t) override { starts.push_back(t); }
  void Busy(const BusySpan& s) override { spans.push_back(s); }
  void DmaDone(const DmaCompletion& d) override { dma.push_back(d); }
  const BusySpan& Of(uint32_t instr, size_t nth = 0) const {
    for (const BusySpan& s : spans) {
      if (s.instr == instr && nth-- == 0) return s;
    }
    static const BusySpan kNone{};
    ADD_FAILURE() << "no span " << nth << " of instruction " << instr;
    return kNone;
  }
};

struct KernelRun {
  Recorder rec;
  double end = 0;
};

KernelRun RunKernel(const Kernel& k, const DeviceProfile& p) {
  FairShareHbmPolicy policy;
  KernelSim sim(k, p, policy);
  CounterRng rng(1);
  KernelRun r;
  r.end = sim.Run(rng, 0.0, 0, r.rec);
  return r;
}

// ------------------------------------------------- per-instruction costs

TEST(InstructionCostTest, EachRuleCostsItsPublishedCycles) {
  const DeviceProfile p = Profile();
  struct Case {
    Instruction in;
    double cycles;
  };
  const Case cases[] = {
      // Vector: 2 elements per cycle, so N = 1000 elements is 500 cycles.
      {Compute(Engine::kVector, CostRule::kStream, 1000), 500},
      {Compute(Engine::kVector, CostRule::kStream2, 1000), 1000},
      {Compute(Engine::kVector, CostRule::kReciprocal, 1000), 4000},
      {Compute(Engine::kVector, CostRule::kBnAggr, 1000), 2000},
      {Compute(Engine::kScalar, CostRule::kActivation, 1000), 1000},
      {Compute(Engine::kScalar, CostRule::kAccumulate, 1000), 1010},
      {Compute(Engine::kGpSimd, CostRule::kIndexGen, 400), 250},
      // Matmul: moving columns; fp32 4x; a narrow moving tile leaves
      // min(MIN_II, stationary columns) exposed.
      {Compute(Engine::kTensor, CostRule::kMatmul, 512, DType::kBf16, 128),
       512},
      {Compute(Engine::kTensor, CostRule::kMatmul, 512, DType::kFp32, 128),
       2048},
      {Compute(Engine::kTensor, CostRule::kMatmul, 4, DType::kBf16, 128), 10},
      {Compute(Engine::kTensor, CostRule::kMatmul, 4, DType::kBf16, 6), 6},
  };
  for (const Case& c : cases) {
    EXPECT_DOUBLE_EQ(RuleCycles(c.in, p), c.cycles)
        << "rule " << static_cast<int>(c.in.rule) << " N " << c.in.work;
  }
  Instruction psum = Compute(Engine::kVector, CostRule::kStream2, 1000);
  psum.psum_operand = true;
  EXPECT_DOUBLE_EQ(RuleCycles(psum, p), 500);  // the 1x case
  Instruction tr =
      Compute(Engine::kTensor, CostRule::kTransposePe, 0, DType::kFp32, 100);
  tr.partitions = 128;
  EXPECT_DOUBLE_EQ(RuleCycles(tr, p), 256);  // max(128, 10) at half speed
}

TEST(InstructionCostTest, IntervalHasAFloorAndLatencyAddsTheOverhead) {
  const DeviceProfile p = Profile();
  // 2 elements: 1 cycle of work, raised to MIN_II = 10 cycles (10 ns);
  // the result is readable 100 cycles later.
  InstructionTiming t =
      ComputeTiming(Compute(Engine::kVector, CostRule::kStream, 2), p);
  EXPECT_NEAR(t.interval_us, 0.010, kTol);
  EXPECT_NEAR(t.latency_us, 0.110, kTol);
  // TensorE: 512 columns + 50 cycles + 128 stationary columns.
  t = ComputeTiming(
      Compute(Engine::kTensor, CostRule::kMatmul, 512, DType::kBf16, 128), p);
  EXPECT_NEAR(t.interval_us, 0.512, kTol);
  EXPECT_NEAR(t.latency_us, 0.690, kTol);
}

// Added in model version 13: a profile written before it keeps its
// meaning, the engine active for the whole static overhead; given, the
// engine is active for the interval plus the access overhead only.
TEST(InstructionCostTest, AccessOverheadMayBeAbsentAndThenCountsInFull) {
  auto j = TestProfile();
  j["parameters"].erase("sbuf_access_overhead_cycles");
  const DeviceProfile old = Parse(j);
  EXPECT_NE(old.params.at("sbuf_access_overhead_cycles")
                .source.find("absent from the profile"),
            std::string::npos);
  const Instruction in = Compute(Engine::kVector, CostRule::kStream, 2);
  InstructionTiming t = ComputeTiming(in, old);
  EXPECT_DOUBLE_EQ(t.active_us, t.latency_us);
  t = ComputeTiming(in, Profile({{"sbuf_access_overhead_cycles", 30}}));
  // MIN_II 10 cycles + 30 of access, of the 100-cycle overhead.
  EXPECT_NEAR(t.active_us, 0.040, kTol);
  EXPECT_NEAR(t.latency_us, 0.110, kTol);
}

TEST(InstructionCostTest, Trn2VectorPerformanceModeSpeedsNarrowStreams) {
  const DeviceProfile p = Profile({{"vector_narrow_speedup_1input", 4},
                                   {"vector_narrow_speedup_2input", 2}});
  Instruction one = Compute(Engine::kVector, CostRule::kStream, 1000);
  Instruction two = Compute(Engine::kVector, CostRule::kStream2, 1000);
  EXPECT_DOUBLE_EQ(RuleCycles(one, p), 500);
  one.narrow_dtype = true;
  two.narrow_dtype = true;
  EXPECT_DOUBLE_EQ(RuleCycles(one, p), 125);
  EXPECT_DOUBLE_EQ(RuleCycles(two, p), 500);
}

// ------------------------------------------------------- engine streams

TEST(KernelSimTest, IndependentInstructionsIssueEveryInterval) {
  Kernel k;
  // 1000 elements on vector: 500 cycles = 0.5 us interval, 0.6 us latency.
  const uint32_t a = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
  const uint32_t b = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
  const KernelRun r = RunKernel(k, Profile());
  // b starts when a's interval ends; a's span is cut there, so a lane never
  // shows two instructions at once.
  EXPECT_NEAR(r.rec.Of(a).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(a).end_us, 0.5, kTol);
  EXPECT_NEAR(r.rec.Of(b).start_us, 0.5, kTol);
  EXPECT_NEAR(r.rec.Of(b).end_us, 1.1, kTol);
  EXPECT_NEAR(r.end, 1.1, kTol);
}

TEST(KernelSimTest, DependentInstructionWaitsForLatencyAndHandOff) {
  Kernel k;
  const uint32_t a = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
  const uint32_t b =
      AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {a});
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(a).end_us, 0.6, kTol);
  EXPECT_NEAR(r.rec.Of(b).start_us, 1.1, kTol);  // 0.6 + 0.5 hand-off
  EXPECT_NEAR(r.end, 1.7, kTol);
}

// A matmul releases the matmuls that accumulate after it once it has
// streamed its operands (its issue interval) and its other dependents at its
// result (latency plus the hand-off), whatever order its dependents come in
// (KernelSim sorts them into the two kinds once, when it is built).
TEST(KernelSimTest, AMatmulReleasesAccumulationAtItsIntervalOthersAtItsResult) {
  Kernel k;
  const uint32_t m1 = AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512);
  const uint32_t v1 =
      AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {m1});
  const uint32_t m2 =
      AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512, {m1});
  const uint32_t s1 =
      AddCompute(k, Engine::kScalar, CostRule::kStream, 1000, {m1});
  const uint32_t m3 =
      AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512, {m2});
  const uint32_t v2 =
      AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {m3});
  const DeviceProfile p = Profile();
  FairShareHbmPolicy policy;
  const KernelSim sim(k, p, policy);
  const InstructionTiming& mm = sim.Timing(m1);
  ASSERT_LT(mm.interval_us, mm.latency_us);
  const double sync = p.cost.dependency_sync_us;
  ASSERT_GT(sync, 0);
  const KernelRun r = RunKernel(k, p);
  EXPECT_NEAR(r.rec.Of(m2).start_us, mm.interval_us, kTol);
  EXPECT_NEAR(r.rec.Of(m3).start_us, 2 * mm.interval_us, kTol);
  EXPECT_NEAR(r.rec.Of(v1).start_us, mm.latency_us + sync, kTol);
  EXPECT_NEAR(r.rec.Of(s1).start_us, mm.latency_us + sync, kTol);
  EXPECT_NEAR(r.rec.Of(v2).start_us, 2 * mm.interval_us + mm.latency_us + sync,
              kTol);
}

// A profile built in code may give a matmul a latency below its issue
// interval (a negative overhead; the loader refuses one): its result then
// comes before its streaming, and its dependents, matmuls too, are
// released at its result (KernelSim keeps such a matmul's edges apart,
// marked done per run).
TEST(KernelSimTest, AMatmulThatCompletesBeforeItStreamsReleasesAtItsResult) {
  Kernel k;
  const uint32_t m1 = AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512);
  const uint32_t m2 =
      AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512, {m1});
  const uint32_t v1 =
      AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {m1});
  DeviceProfile p = Profile();
  p.engines[static_cast<size_t>(Engine::kTensor)].static_overhead_cycles = -100;
  FairShareHbmPolicy policy;
  const KernelSim sim(k, p, policy);
  const InstructionTiming& mm = sim.Timing(m1);
  ASSERT_GT(mm.latency_us, 0);
  ASSERT_LT(mm.latency_us, mm.interval_us);
  const double sync = p.cost.dependency_sync_us;
  const KernelRun r = RunKernel(k, p);
  EXPECT_NEAR(r.rec.Of(v1).start_us, mm.latency_us + sync, kTol);
  EXPECT_NEAR(r.rec.Of(m2).start_us,
              std::max(mm.latency_us + sync, mm.interval_us), kTol);
}

// A run leaves the per-instruction state it used zeroed for the next run on
// its thread, except after a kernel with such a matmul (whose streaming
// counts a dependent once more after it is ready): a kernel run after it
// on the thread must run as it does alone.
TEST(KernelSimTest, AKernelRunsAloneAfterAnUnsplitMatmulsKernel) {
  // m2 waits for m1 and x: made ready by m1's result, then counted again
  // by m1's streaming, it ends the run with a count of 1 of 2.
  Kernel unsplit;
  const uint32_t x = AddCompute(unsplit, Engine::kVector, CostRule::kStream, 8);
  const uint32_t m1 =
      AddCompute(unsplit, Engine::kTensor, CostRule::kMatmul, 4096);
  AddCompute(unsplit, Engine::kTensor, CostRule::kMatmul, 4096, {m1, x});
  DeviceProfile up = Profile();
  up.engines[static_cast<size_t>(Engine::kTensor)].static_overhead_cycles =
      -2000;
  {
    // The second matmul is ready (the first's result and the hand-off)
    // before the first has streamed, which counts it once more.
    FairShareHbmPolicy policy;
    const KernelSim sim(unsplit, up, policy);
    const InstructionTiming& mm = sim.Timing(m1);
    ASSERT_GT(mm.latency_us, 0);
    ASSERT_GT(mm.interval_us, mm.latency_us + up.cost.dependency_sync_us);
  }
  Kernel chain;
  uint32_t last = AddCompute(chain, Engine::kVector, CostRule::kStream, 1000);
  for (int i = 0; i < 4; ++i) {
    last = AddCompute(chain, Engine::kVector, CostRule::kStream, 1000, {last});
  }
  const DeviceProfile p = Profile();
  const KernelRun alone = RunKernel(chain, p);
  RunKernel(unsplit, up);
  const KernelRun after = RunKernel(chain, p);
  EXPECT_EQ(after.end, alone.end);
  ASSERT_EQ(after.rec.spans.size(), alone.rec.spans.size());
  for (size_t i = 0; i < alone.rec.spans.size(); ++i) {
    EXPECT_EQ(after.rec.spans[i].start_us, alone.rec.spans[i].start_us);
  }
}

// An engine is active for an instruction's whole latency only when an
// instruction of its own engine reads the result (the architecture guide's
// static overhead of dependent back-to-back instructions); otherwise, for
// its interval and its tensor access (~60 cycles), however long it then
// idles (the NKIBench matmul's PSUM copies: N + 62 cycles each).
TEST(KernelSimTest, AnEngineIsActiveForTheOverheadOnlyWhenItWaitsForTheResult) {
  // 1000 elements on vector: 0.5 us interval, 0.6 us latency, 40 cycles
  // (0.04 us) of tensor access.
  const DeviceProfile p = Profile({{"sbuf_access_overhead_cycles", 40}});
  {
    Kernel k;
    const uint32_t a = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
    const uint32_t b =
        AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {a});
    const KernelRun r = RunKernel(k, p);
    // a: read by b on its own engine, active to its completion.
    EXPECT_NEAR(r.rec.Of(a).end_us, 0.6, kTol);
    // b, at 0.6 + 0.5 hand-off: nothing reads it; active for its interval
    // and its access.
    EXPECT_NEAR(r.rec.Of(b).start_us, 1.1, kTol);
    EXPECT_NEAR(r.rec.Of(b).end_us, 1.64, kTol);
    EXPECT_NEAR(r.end, 1.7, kTol);  // latency unchanged
  }
  {
    // c's result goes to ScalarE: VectorE idles while d waits for it.
    Kernel k;
    const uint32_t c = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
    const uint32_t d =
        AddCompute(k, Engine::kScalar, CostRule::kStream, 1000, {c});
    const KernelRun r = RunKernel(k, p);
    EXPECT_NEAR(r.rec.Of(c).end_us, 0.54, kTol);
    // ScalarE (2 GHz): 1000 cycles (0.5 us) + 40 (0.02 us), from c's
    // completion and the hand-off; its result 100 cycles after the
    // interval.
    EXPECT_NEAR(r.rec.Of(d).start_us, 1.1, kTol);
    EXPECT_NEAR(r.rec.Of(d).end_us, 1.62, kTol);
    EXPECT_NEAR(r.end, 1.65, kTol);
  }
}

// Each engine issues, of its instructions whose dependencies are met, the
// first in program order: the compiler's scheduler reorders instructions
// subject only to their dependencies (NKI scheduling APIs guide).
TEST(KernelSimTest, EnginesRunConcurrentlyFirstReadyFirst) {
  Kernel k;
  const uint32_t a = AddCompute(k, Engine::kScalar, CostRule::kActivation, 200);
  const uint32_t b = AddCompute(k, Engine::kVector, CostRule::kStream, 200);
  // c is behind a waiting instruction on scalar and does not depend on it:
  // it goes first.
  const uint32_t w =
      AddCompute(k, Engine::kScalar, CostRule::kActivation, 200, {b});
  const uint32_t c = AddCompute(k, Engine::kScalar, CostRule::kActivation, 200);
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(a).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(b).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(c).start_us, 0.1, kTol);  // a's interval: 0.1 us
  // b: 100 cycles + 100 overhead at 1 GHz = 0.2 us, + 0.5 hand-off.
  EXPECT_NEAR(r.rec.Of(w).start_us, 0.7, kTol);
}

// Of two ready instructions, the engine takes the earlier in program order,
// whichever became ready first.
TEST(KernelSimTest, ReadyInstructionsIssueInProgramOrder) {
  Kernel k;
  const uint32_t a = AddCompute(k, Engine::kScalar, CostRule::kActivation, 400);
  // z holds VectorE until 1.0 us; y is ready at once, x once a's result is
  // visible (0.3 + 0.5 hand-off = 0.8 us): x, earlier, goes first.
  const uint32_t z = AddCompute(k, Engine::kVector, CostRule::kStream, 2000);
  const uint32_t x =
      AddCompute(k, Engine::kVector, CostRule::kStream, 200, {a});
  const uint32_t y = AddCompute(k, Engine::kVector, CostRule::kStream, 200);
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(z).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(x).start_us, 1.0, kTol);
  EXPECT_NEAR(r.rec.Of(y).start_us, 1.1, kTol);  // x's interval: 0.1 us
}

// VectorE and GpSimdE cannot access SBUF in parallel (architecture guide):
// their instructions take turns; ScalarE runs beside either.
TEST(KernelSimTest, VectorAndGpSimdShareTheSbufPort) {
  Kernel k;
  const uint32_t v = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
  const uint32_t g = AddCompute(k, Engine::kGpSimd, CostRule::kStream, 1000);
  const uint32_t s =
      AddCompute(k, Engine::kScalar, CostRule::kActivation, 1000);
  const uint32_t v2 = AddCompute(k, Engine::kVector, CostRule::kStream, 1000);
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(v).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(s).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(g).start_us, 0.5, kTol);   // v's interval
  EXPECT_NEAR(r.rec.Of(v2).start_us, 1.0, kTol);  // then g's
}

// ------------------------------------------------------------------ DMA

TEST(KernelSimTest, TransferSplitsOverEnginesByPartition) {
  const DeviceProfile p = Profile();
  FairShareHbmPolicy policy;
  Kernel k;
  AddDma(k, 128, 1000);  // four engines of 32 partitions
  AddDma(k, 4, 1000);    // the first engine only (the guide's A[4, 4096])
  AddDma(k, 40, 1000);   // 32 + 8 partitions
  KernelSim sim(k, p, policy);
  ASSERT_EQ(sim.Pieces(0).size(), 4u);
  EXPECT_EQ(sim.Pieces(0)[3].bytes, 32000);
  ASSERT_EQ(sim.Pieces(1).size(), 1u);
  EXPECT_EQ(sim.Pieces(1)[0].engine, 0);
  ASSERT_EQ(sim.Pieces(2).size(), 2u);
  EXPECT_EQ(sim.Pieces(2)[0].bytes, 32000);
  EXPECT_EQ(sim.Pieces(2)[1].bytes, 8000);
}

TEST(KernelSimTest, DescriptorOverheadIsPerRow) {
  const DeviceProfile p = Profile({{"dma_descriptor_overhead_bytes", 500}});
  FairShareHbmPolicy policy;
  Kernel k;
  AddDma(k, 4, 1000);
  KernelSim sim(k, p, policy);
  EXPECT_DOUBLE_EQ(sim.Pieces(0)[0].work, 4 * (1000 + 500));
}

TEST(KernelSimTest, ContiguousRowsShareDescriptorsWhereTheProfileSays) {
  FairShareHbmPolicy policy;
  Kernel k;
  AddDma(k, 40, 1000, {}, [](Instruction& in) { in.contiguous_rows = true; });
  // 32 rows on engine 0, 8 on engine 1
  AddDma(k, 40, 1000);  // the same rows, cut from wider ones
  // Every row its own descriptor, whole or not: the per-row cost.
  const DeviceProfile per_row =
      Profile({{"dma_descriptor_overhead_bytes", 500}});
  KernelSim a(k, per_row, policy);
  EXPECT_DOUBLE_EQ(a.Pieces(0)[0].work, 32 * (1000 + 500));
  EXPECT_DOUBLE_EQ(a.Pieces(0)[1].work, 8 * (1000 + 500));
  // 16 rows a descriptor: engine 0's 32 whole rows are 2, engine 1's 8 one;
  // rows that do not follow one another still pay one each.
  const DeviceProfile merged = Profile({{"dma_descriptor_overhead_bytes", 500},
                                        {"dma_rows_per_descriptor", 16}});
  KernelSim b(k, merged, policy);
  EXPECT_DOUBLE_EQ(b.Pieces(0)[0].work, 32 * 1000 + 2 * 500);
  EXPECT_DOUBLE_EQ(b.Pieces(0)[1].work, 8 * 1000 + 1 * 500);
  EXPECT_DOUBLE_EQ(b.Pieces(1)[0].work, 32 * (1000 + 500));
  EXPECT_DOUBLE_EQ(b.Pieces(1)[1].work, 8 * (1000 + 500));
}

TEST(KernelSimTest, OneTransferIsDataThenLatency) {
  Kernel k;
  const uint32_t d = AddDma(k, 4, 5000);  // 20 kB on one engine at 1e4 B/us
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(d).start_us, 0.0, kTol);
  EXPECT_NEAR(r.rec.Of(d).end_us, 2.0, kTol);
  ASSERT_EQ(r.rec.dma.size(), 1u);
  EXPECT_NEAR(r.rec.dma[0].data_end_us, 2.0, kTol);
  EXPECT_NEAR(r.rec.dma[0].end_us, 4.0, kTol);  // + 2 us latency
  EXPECT_NEAR(r.end, 4.0, kTol);
}

// Model 16: a share moves at its rate from when the rate was set, and the
// simulator works out its end once per rate, not at every step of the
// event loop. So the steps other engines' events make while a transfer
// moves change neither its end nor anything it times, to the bit (before,
// each step moved the share on by rate * dt and the roundings added up).
TEST(KernelSimTest, StepsOfOtherEnginesDoNotMoveATransfersEnd) {
  for (const int64_t row_bytes : {4999, 5000, 7777}) {
    Kernel alone;
    AddDma(alone, 4, row_bytes);
    Kernel busy;
    AddDma(busy, 4, row_bytes);
    // ScalarE instructions, each an event (or two) within the transfer.
    for (int i = 0; i < 200; ++i) {
      AddCompute(busy, Engine::kScalar, CostRule::kActivation, 1 + i % 7);
    }
    const KernelRun a = RunKernel(alone, Profile());
    const KernelRun b = RunKernel(busy, Profile());
    ASSERT_EQ(a.rec.dma.size(), 1u);
    ASSERT_EQ(b.rec.dma.size(), 1u);
    ASSERT_GT(b.rec.spans.size(), 100u);
    // The compute instructions' events fall inside the transfer.
    EXPECT_LT(b.rec.spans[100].end_us, a.rec.dma[0].data_end_us);
    EXPECT_EQ(std::bit_cast<uint64_t>(a.rec.dma[0].data_end_us),
              std::bit_cast<uint64_t>(b.rec.dma[0].data_end_us))
        << row_bytes << ": " << a.rec.dma[0].data_end_us << " vs "
        << b.rec.dma[0].data_end_us;
    EXPECT_EQ(std::bit_cast<uint64_t>(a.rec.dma[0].end_us),
              std::bit_cast<uint64_t>(b.rec.dma[0].end_us));
  }
}

TEST(KernelSimTest, LatencyIsPipelinedAcrossTransfersOnAnEngine) {
  Kernel k;
  const uint32_t a = AddDma(k, 4, 5000);
  const uint32_t b = AddDma(k, 4, 5000);
  const KernelRun r = RunKernel(k, Profile());
  // b's data follows a's data at once: latencies overlap, they do not add.
  EXPECT_NEAR(r.rec.Of(b).start_us, r.rec.Of(a).end_us, kTol);
  EXPECT_NEAR(r.end, 6.0, kTol);
}

// Model 12: a DMA statement is one queue, and an engine pauses
// dma_queue_gap_us between two transfers of one queue, held by the queue.
TEST(KernelSimTest, AQueuesNextTransferOnAnEngineWaitsOutTheGap) {
  Kernel k;
  const uint32_t a = AddDma(k, 4, 5000);
  const uint32_t b = AddDma(k, 4, 5000);  // the same statement: one queue
  const KernelRun r = RunKernel(k, Profile({{"dma_queue_gap_us", 0.5}}));
  EXPECT_NEAR(r.rec.Of(a).end_us, 2.0, kTol);
  // b's engine is held from a's end for the gap; b's span is its data.
  EXPECT_NEAR(r.rec.Of(b).start_us, 2.5, kTol);
  EXPECT_NEAR(r.rec.Of(b).end_us, 4.5, kTol);
  ASSERT_EQ(r.rec.dma.size(), 2u);
  EXPECT_NEAR(r.rec.dma[1].data_end_us, 4.5, kTol);
  EXPECT_NEAR(r.end, 6.5, kTol);
  // Without the parameter (every profile before model 12), no gap.
  EXPECT_NEAR(RunKernel(k, Profile()).end, 6.0, kTol);
}

TEST(KernelSimTest, AnotherQueuesTransferFillsTheGap) {
  Kernel k;
  auto line2 = [](Instruction& in) { in.source_line = 2; };
  AddDma(k, 4, 5000);                     // queue 1
  AddDma(k, 4, 5000, {}, line2);          // queue 2, between the two
  const uint32_t c = AddDma(k, 4, 5000);  // queue 1 again
  const KernelRun r = RunKernel(k, Profile({{"dma_queue_gap_us", 0.5}}));
  // Round robin: queue 2 ran while queue 1 paused, so c starts at once.
  ASSERT_EQ(r.rec.dma.size(), 3u);
  EXPECT_NEAR(r.rec.dma[2].data_end_us, 6.0, kTol);
  EXPECT_NEAR(r.rec.Of(c).start_us, 4.0, kTol);
  EXPECT_NEAR(r.end, 8.0, kTol);
}

TEST(KernelSimTest, AnEngineIdleLongerThanTheGapStartsAtOnce) {
  Kernel k;
  const uint32_t a = AddDma(k, 4, 5000);
  // 10000 ScalarE elements: far longer than the gap after a's data.
  const uint32_t c =
      AddCompute(k, Engine::kScalar, CostRule::kActivation, 10000, {a});
  const uint32_t b = AddDma(k, 4, 5000, {c});
  const KernelRun r = RunKernel(k, Profile({{"dma_queue_gap_us", 0.5}}));
  const KernelRun none = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(b).start_us, none.rec.Of(b).start_us, kTol);
  EXPECT_NEAR(r.rec.Of(b).end_us, none.rec.Of(b).end_us, kTol);
}

TEST(KernelSimTest, HbmArbiterCapsConcurrentEngines) {
  Kernel k;
  // 4 engines x 1e4 B/us want 4e4 B/us; HBM gives 2e4: each runs at half.
  const uint32_t d = AddDma(k, 128, 100);  // 3200 B per engine
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(d).end_us, 3200.0 / 5000.0, kTol);
}

TEST(KernelSimTest, AnHbmCopyDrawsTwiceItsBytesFromHbm) {
  // Alone on one engine the copy runs at the engine's rate, as a load does;
  // with four engines the HBM arbiter gives it half a load's share.
  Kernel one;
  const uint32_t a =
      AddDma(one, 4, 5000, {}, [](Instruction& in) { in.hbm_to_hbm = true; });
  EXPECT_NEAR(RunKernel(one, Profile()).rec.Of(a).end_us, 2.0, kTol);
  Kernel four;
  const uint32_t c = AddDma(four, 128, 100, {}, [](Instruction& in) {
    in.hbm_to_hbm = true;
  });  // 3200 B per engine
  // 4 engines x 1e4 B/us of copies want 8e4 B/us of HBM; it gives 2e4.
  EXPECT_NEAR(RunKernel(four, Profile()).rec.Of(c).end_us, 3200.0 / 2500.0,
              kTol);
}

TEST(KernelSimTest, AnSbufCopyDrawsNothingFromHbm) {
  // With four engines, loads share HBM's 2e4 B/us; SBUF-to-SBUF copies of
  // the same shape run at each engine's own rate.
  Kernel loads;
  const uint32_t l = AddDma(loads, 128, 100);  // 3200 B per engine
  EXPECT_NEAR(RunKernel(loads, Profile()).rec.Of(l).end_us, 3200.0 / 5000.0,
              kTol);
  Kernel copies;
  const uint32_t c =
      AddDma(copies, 128, 100, {}, [](Instruction& in) { in.on_chip = true; });
  EXPECT_NEAR(RunKernel(copies, Profile()).rec.Of(c).end_us, 3200.0 / 1e4,
              kTol);
}

TEST(KernelSimTest, DependentDmaWaitsForCompletionAndHandOff) {
  Kernel k;
  const uint32_t a = AddDma(k, 4, 5000);
  const uint32_t c =
      AddCompute(k, Engine::kVector, CostRule::kStream, 1000, {a});
  const uint32_t s = AddDma(k, 4, 5000, {c});
  const KernelRun r = RunKernel(k, Profile());
  EXPECT_NEAR(r.rec.Of(c).start_us, 4.5, kTol);
  EXPECT_NEAR(r.rec.Of(s).start_us, 4.5 + 0.6 + 0.5, kTol);
}

TEST(KernelSimTest, IssueCostSerialisesOnTheIssuers) {
  Kernel k;
  AddDma(k, 4, 1000);
  AddDma(k, 4, 1000);
  AddDma(k, 4, 1000);
  const KernelRun r =
      RunKernel(k, Profile({{"dma_issue_us", 1}, {"dma_issuers", 2}}));
  ASSERT_EQ(r.rec.dma.size(), 3u);
  // Two issue at once; the third waits for an issuer.
  EXPECT_NEAR(r.rec.dma[2].issue_us, 2.0, kTol);
}

TEST(KernelSimTest, EventsArriveInTimeOrder) {
  Kernel k;
  uint32_t prev = AddDma(k, 128, 4000);
  for (int i = 0; i < 20; ++i) {
    const uint32_t c =
        AddCompute(k, Engine::kScalar, CostRule::kActivation, 300, {prev});
    AddCompute(k, Engine::kVector, CostRule::kStream2, 100);
    prev = AddDma(k, 64, 2000, {c});
  }
  const KernelRun r = RunKernel(k, Profile());
  double last = 0;
  size_t s = 0;
  for (const BusySpan& span : r.rec.spans) {
    EXPECT_GE(span.end_us, last);
    last = span.end_us;
    ++s;
  }
  EXPECT_GT(s, 0u);
  for (size_t i = 1; i < r.rec.starts.size(); ++i) {
    EXPECT_GE(r.rec.starts[i], r.rec.starts[i - 1]);
  }
}

// ------------------------------------------------------------ listeners

Program NkiProgram() {
  Program p;
  p.name = "prog";
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = "kernel";
  Kernel& k = d.kernel;
  uint32_t prev = AddDma(k, 128, 4000);
  for (int i = 0; i < 8; ++i) {
    const uint32_t c =
        AddCompute(k, Engine::kScalar, CostRule::kActivation, 300, {prev});
    AddCompute(k, Engine::kVector, CostRule::kStream2, 100);
    AddDma(k, 128, 1000);
    prev = AddDma(k, 64, 2000, {c});
  }
  p.dispatches.push_back(std::move(d));
  return p;
}

// A program the lowering could not have made is a bug (internal), named by
// its first bad instruction: Simulator::Create checks a form's fields where
// it first appears, which finds the one a check of every instruction would.
TEST(SimulatorTest, CreateNamesTheFirstInstructionABrokenProgramBreaksAt) {
  const DeviceProfile prof = Profile();
  auto create_error = [&](void (*build)(Kernel&)) {
    Program p;
    p.name = "broken";
    Dispatch d;
    d.kernel.name = "k";
    build(d.kernel);
    p.dispatches.push_back(std::move(d));
    auto sim = Simulator::Create(p, prof);
    return sim.ok() ? absl::OkStatus() : sim.status();
  };
  absl::Status s = create_error([](Kernel& k) {
    AddDma(k, 128, 1000);
    AddDma(k, 128, 1000, {2});  // a dependency on a later instruction
    AddDma(k, 128, 1000);
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("instruction 1 depends on a later instruction 2"),
            std::string::npos)
      << s;
  // Negative bytes in a form first used by instruction 2 (0 and 1 share a
  // good form).
  s = create_error([](Kernel& k) {
    AddDma(k, 128, 1000);
    AddDma(k, 128, 1000, {0});
    AddDma(k, 128, 1000, {1}, [](Instruction& in) { in.work = -1; });
    AddDma(k, 128, 1000, {1}, [](Instruction& in) { in.work = -1; });
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("DMA instruction 2 has negative bytes"),
            std::string::npos)
      << s;
  s = create_error([](Kernel& k) {
    AddCompute(k, Engine::kVector, CostRule::kStream2, 100);
    AddCompute(k, Engine::kVector, CostRule::kStream2, 100);
    Instruction in = Compute(Engine::kVector, CostRule::kStream2, 100);
    in.opcode = 99;  // no such string
    k.Add(in, {1});
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("instruction 2 names a missing string"),
            std::string::npos)
      << s;
  EXPECT_TRUE(create_error([](Kernel& k) {
                AddDma(k, 128, 1000);
                AddDma(k, 128, 1000, {0});
              }).ok());
}

// Simulator::Create checks every dependency in one pass and walks the
// instructions in order only for a kernel that pass flags: a bad edge of
// the first or the last instruction (the ends of that pass), or of a
// second kernel, is still found and named.
TEST(SimulatorTest, CreateFindsABadEdgeAtEitherEndAndInALaterKernel) {
  const DeviceProfile prof = Profile();
  auto create_error = [&](std::vector<void (*)(Kernel&)> builds) {
    Program p;
    p.name = "broken";
    for (auto build : builds) {
      Dispatch d;
      d.kernel.name = "k" + std::to_string(p.dispatches.size());
      build(d.kernel);
      p.dispatches.push_back(std::move(d));
    }
    auto sim = Simulator::Create(p, prof);
    return sim.ok() ? absl::OkStatus() : sim.status();
  };
  auto good = [](Kernel& k) {
    AddDma(k, 128, 1000);
    AddDma(k, 128, 1000, {0});
    AddDma(k, 128, 1000, {0, 1});
  };
  absl::Status s = create_error({[](Kernel& k) {
    AddDma(k, 128, 1000, {0});  // on itself
    AddDma(k, 128, 1000, {0});
  }});
  EXPECT_NE(s.message().find("kernel k0 instruction 0 depends on a later "
                             "instruction 0"),
            std::string::npos)
      << s;
  s = create_error({[](Kernel& k) {
    AddDma(k, 128, 1000);
    AddDma(k, 128, 1000, {0});
    AddDma(k, 128, 1000, {0, 2});  // the last, on itself
  }});
  EXPECT_NE(s.message().find("kernel k0 instruction 2 depends on a later "
                             "instruction 2"),
            std::string::npos)
      << s;
  s = create_error({good, [](Kernel& k) {
                      AddDma(k, 128, 1000);
                      AddDma(k, 128, 1000, {1, 0});
                      AddDma(k, 128, 1000, {1});
                    }});
  EXPECT_NE(s.message().find("kernel k1 instruction 1 depends on a later "
                             "instruction 1"),
            std::string::npos)
      << s;
  // A bad form only a later kernel uses.
  s = create_error({good, [](Kernel& k) {
                      AddDma(k, 128, 1000);
                      AddDma(k, 128, 1000, {0},
                             [](Instruction& in) { in.aux = -1; });
                    }});
  EXPECT_NE(s.message().find("DMA instruction 1 has negative bytes"),
            std::string::npos)
      << s;
  EXPECT_TRUE(create_error({good, good}).ok());
}

// The same check split over threads (SimOptions::threads): a bad edge in
// any chunk is found, and named as one thread names it.
TEST(SimulatorTest, CreateOnThreadsFindsABadEdgeInAnyChunk) {
  const DeviceProfile prof = Profile();
  for (uint32_t bad = 0; bad < 40; bad += 3) {
    SCOPED_TRACE(::testing::Message() << "bad " << bad);
    Program p;
    p.name = "broken";
    Dispatch d;
    d.kernel.name = "k";
    for (uint32_t i = 0; i < 40; ++i) {
      std::vector<uint32_t> deps;
      if (i > 0) deps.push_back(i - 1);
      if (i == bad) deps.push_back(i + 1 < 40 ? i + 1 : i);
      AddDma(d.kernel, 128, 1000, deps);
    }
    p.dispatches.push_back(std::move(d));
    auto one = Simulator::Create(p, prof);
    auto split = Simulator::Create(p, prof, {.threads = 3, .min_chunk = 4});
    ASSERT_FALSE(one.ok());
    ASSERT_FALSE(split.ok());
    EXPECT_EQ(one.status(), split.status());
    EXPECT_NE(split.status().message().find(
                  "instruction " + std::to_string(bad) + " depends on a later"),
              std::string::npos)
        << split.status();
  }
  Program p;
  p.name = "good";
  Dispatch d;
  d.kernel.name = "k";
  for (uint32_t i = 0; i < 40; ++i) {
    AddDma(d.kernel, 128, 1000,
           i > 0 ? std::vector<uint32_t>{i - 1} : std::vector<uint32_t>{});
  }
  p.dispatches.push_back(std::move(d));
  EXPECT_TRUE(Simulator::Create(p, prof, {.threads = 3, .min_chunk = 4}).ok());
}

TEST(SimulatorTest, AccumulatedMetricsEqualThoseOfTheRecordedTimeline) {
  const DeviceProfile prof = Profile();
  const Program p = NkiProgram();
  auto sim = Simulator::Create(p, prof);
  ASSERT_TRUE(sim.ok()) << sim.status();
  MetricsAccumulator acc;
  sim->Run(7, 3, acc);
  const Timeline tl = sim->Run(7, 3);
  const auto live = acc.Metrics();
  const auto replayed = ComputeMetrics(tl);
  ASSERT_EQ(live.size(), replayed.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(live[i].name, replayed[i].name);
    EXPECT_DOUBLE_EQ(live[i].value, replayed[i].value) << live[i].name;
  }
  // Something happened on both sides of the overlap metric.
  const auto find = [&](const char* n) {
    for (const auto& m : live) {
      if (m.name == n) return m.value;
    }
    return -1.0;
  };
  EXPECT_GT(find("dma_active_us"), 0);
  EXPECT_GT(find("scalar_busy_us"), 0);
}

// KernelSim::Run calls an exact MetricsAccumulator directly (not through
// the vtable) and every other listener virtually; a subclass that
// overrides nothing takes the virtual path. Both give the same metrics to
// the bit, on a kernel with what the loop handles specially: matmuls that
// accumulate (an issue's follow-up events as one), both engines of the
// SBUF port, and transfers, with draws that differ by run.
class VirtualMetrics : public MetricsAccumulator {};

TEST(SimulatorTest, DirectAndVirtualMetricsAgreeToTheBit) {
  const DeviceProfile prof = Profile();
  Program p;
  p.name = "mm";
  p.mode = ExecMode::kNki;
  Dispatch d;
  d.name = "kernel";
  Kernel& k = d.kernel;
  for (int tile = 0; tile < 6; ++tile) {
    const uint32_t a = AddDma(k, 128, 512);
    const uint32_t b = AddDma(k, 128, 1024);
    uint32_t acc = AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512, {a});
    for (int j = 0; j < 3; ++j) {
      acc = AddCompute(k, Engine::kTensor, CostRule::kMatmul, 512, {acc, b});
    }
    const uint32_t v =
        AddCompute(k, Engine::kVector, CostRule::kStream2, 256, {acc});
    AddCompute(k, Engine::kGpSimd, CostRule::kStream2, 256, {b});
    AddDma(k, 64, 2048, {v});
  }
  p.dispatches.push_back(std::move(d));
  auto sim = Simulator::Create(p, prof);
  ASSERT_TRUE(sim.ok()) << sim.status();
  for (uint64_t run = 0; run < 4; ++run) {
    MetricsAccumulator direct;
    VirtualMetrics virt;
    sim->Run(3, run, direct);
    sim->Run(3, run, virt);
    const auto a = direct.Metrics();
    const auto b = virt.Metrics();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(std::bit_cast<uint64_t>(a[i].value),
                std::bit_cast<uint64_t>(b[i].value))
          << a[i].name << ": " << a[i].value << " vs " << b[i].value;
      if (a[i].name == "tensor_busy_us" || a[i].name == "dma_active_us" ||
          a[i].name == "gpsimd_busy_us") {
        EXPECT_GT(a[i].value, 0) << a[i].name;
      }
    }
  }
}

// The runner frees the instructions once the simulator is built: its runs
// keep what they need, so a metrics run gives the same figures to the bit,
// and the transfers' pieces are still there. Reading a released
// instruction is an internal error, not a silent wrong value.
TEST(SimulatorTest, RunsWithTheProgramsInstructionsReleased) {
  const DeviceProfile prof = Profile();
  Program p = NkiProgram();
  auto sim = Simulator::Create(p, prof);
  ASSERT_TRUE(sim.ok()) << sim.status();
  MetricsAccumulator before;
  sim->Run(7, 3, before);
  const std::vector<DmaPiece> pieces = sim->kernel(0).Pieces(0);
  p.ReleaseInstructions();
  EXPECT_EQ(p.InstructionCount(), 0);
  EXPECT_TRUE(p.dispatches[0].kernel.deps.empty());
  EXPECT_EQ(p.dispatches[0].name, "kernel");
  MetricsAccumulator after;
  sim->Run(7, 3, after);
  const auto a = before.Metrics();
  const auto b = after.Metrics();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].value, b[i].value) << a[i].name;
  }
  EXPECT_EQ(before.OpRows().size(), after.OpRows().size());
  ASSERT_EQ(sim->kernel(0).Pieces(0).size(), pieces.size());
  EXPECT_EQ(sim->kernel(0).Pieces(0)[0].bytes, pieces[0].bytes);
  EXPECT_TRUE(sim->kernel(0).Pieces(1).empty());  // a compute instruction
  EXPECT_DEATH(p.dispatches[0].kernel.instrs[0], "released");
}

TEST(SimulatorTest, SameKeySameTimelineAndTheHostDriverFollowsTheMode) {
  const DeviceProfile prof = Profile();
  const Program p = NkiProgram();
  auto sim = Simulator::Create(p, prof);
  ASSERT_TRUE(sim.ok());
  const Timeline a = sim->Run(1, 2);
  const Timeline b = sim->Run(1, 2);
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(a.events[i].start_us, b.events[i].start_us);
    EXPECT_EQ(a.events[i].end_us, b.events[i].end_us);
  }
  // The NKI driver: host latency 30 us before the kernel, a 100 us gap
  // after it.
  double hw_start = -1;
  for (const Event& e : a.events) {
    if (e.lane == kHardwareLane) hw_start = e.start_us;
  }
  EXPECT_NEAR(hw_start, 30.0, kTol);
}

TEST(SimulatorTest, RefusesAForwardDependency) {
  Program p;
  p.name = "bad";
  Dispatch d;
  d.kernel.strings = {"x"};
  d.kernel.Add(Instruction{}, {0});  // its own dependency
  p.dispatches.push_back(d);
  const DeviceProfile prof = Profile();
  EXPECT_FALSE(Simulator::Create(p, prof).ok());
}

// ------------------------------------------------------ host drivers

void ExpectEvent(const Event& e, double start, double end) {
  EXPECT_NEAR(e.start_us, start, kTol);
  EXPECT_NEAR(e.end_us, end, kTol);
}

Dispatch VectorDispatch(const std::string& name) {
  Dispatch d;
  d.name = name;
  d.kernel.name = name;
  // One vector instruction of 2 us: 3800 elements at 2 per cycle is
  // 1900 cycles, plus the 100-cycle static overhead, at 1 GHz.
  AddCompute(d.kernel, Engine::kVector, CostRule::kStream, 3800);
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

// ---------------------------------------------------------- determinism

// Every run is keyed by (seed, program, index): replaying one index alone
// gives the same events as running it in sequence, and another index (or
// seed) draws other latencies.
TEST(SimulatorTest, RunsAreKeyedAndReplayable) {
  auto j = TestProfile();
  auto& lat = j["parameters"]["dma_latency_us"];
  lat.erase("value");
  lat["quantiles"] = {{0, 1}, {0.5, 2}, {1, 3}};
  const DeviceProfile prof = Parse(j);
  const Program p = NkiProgram();
  auto sim = Simulator::Create(p, prof);
  ASSERT_TRUE(sim.ok());
  std::vector<Timeline> seq;
  for (uint64_t i = 0; i < 3; ++i) seq.push_back(sim->Run(5, i));
  const Timeline alone = sim->Run(5, 2);
  ASSERT_EQ(alone.events.size(), seq[2].events.size());
  for (size_t e = 0; e < alone.events.size(); ++e) {
    EXPECT_EQ(alone.events[e].start_us, seq[2].events[e].start_us);
    EXPECT_EQ(alone.events[e].end_us, seq[2].events[e].end_us);
  }
  const auto end = [](const Timeline& tl) {
    double t = 0;
    for (const Event& e : tl.events) t = std::max(t, e.end_us);
    return t;
  };
  EXPECT_NE(end(seq[0]), end(seq[1]));
  EXPECT_NE(end(sim->Run(6, 2)), end(seq[2]));
}

// --------------------------------------------- the published small figures

DeviceProfile Trn1() {
  auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                             "/device_model/profiles/trn1.json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

// NKI performance guide: back-to-back dependent ScalarE ACTIVATEs of one
// element per partition last 159 ns and start 189 ns apart on NC-v2.
TEST(PublishedFiguresTest, DependentOneElementActivationsOnTrn1) {
  const DeviceProfile p = Trn1();
  Kernel k;
  uint32_t prev = AddCompute(k, Engine::kScalar, CostRule::kActivation, 1);
  std::vector<uint32_t> chain = {prev};
  for (int i = 0; i < 4; ++i) {
    prev = AddCompute(k, Engine::kScalar, CostRule::kActivation, 1, {prev});
    chain.push_back(prev);
  }
  const KernelRun r = RunKernel(k, p);
  const double dur = r.rec.Of(chain[0]).end_us - r.rec.Of(chain[0]).start_us;
  const double ii = r.rec.Of(chain[1]).start_us - r.rec.Of(chain[0]).start_us;
  EXPECT_NEAR(dur * 1e3, 159, 159 * 0.05);
  EXPECT_NEAR(ii * 1e3, 189, 189 * 0.05);
}

// NKI performance guide (fig30): streaming with all 16 engines busy, each
// engine moves 8 partitions x 4 KiB in about 1810 ns on trn1.
TEST(PublishedFiguresTest, StreamingEngineTransferOnTrn1) {
  const DeviceProfile p = Trn1();
  Kernel k;
  for (int i = 0; i < 4; ++i) AddDma(k, 128, 4096);
  const KernelRun r = RunKernel(k, p);
  const BusySpan& s = r.rec.Of(1);
  EXPECT_NEAR((s.end_us - s.start_us) * 1e3, 1810, 1810 * 0.05);
}

}  // namespace
}  // namespace trn
