// What the simulator's exactness tests share: a test profile with some
// parameters set, and a listener that logs every call it receives, so two
// runs can be compared call by call (implied edges, ready runs, grouped
// DMA shares all claim byte-identical runs with and without themselves).
#ifndef TRNBENCH_TESTS_DEVICE_MODEL_SIM_TEST_UTIL_H_
#define TRNBENCH_TESTS_DEVICE_MODEL_SIM_TEST_UTIL_H_

#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"
#include "tests/device_model/test_profile.h"

namespace trn::testing {

// TestProfile() with `values` set, parsed.
inline DeviceProfile TestProfileWith(
    const std::vector<std::pair<std::string, double>>& values) {
  auto j = TestProfile();
  for (const auto& [key, value] : values) {
    j["parameters"][key]["value"] = value;
  }
  auto p = ParseDeviceProfile(j.dump(), "test.json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

// Every call a listener receives, as (kind, lane, instruction, count,
// times as bits, bytes), in the order received.
class CallLog : public SimListener {
 public:
  using Call = std::tuple<int, uint32_t, uint32_t, int, uint64_t, uint64_t,
                          uint64_t, int64_t>;
  void BusyStart(uint32_t lane, double t) override {
    Add(0, lane, 0, 1, t, 0, 0, 0);
  }
  void Busy(const BusySpan& s) override {
    Add(1, s.lane, s.instr, 1, s.start_us, s.end_us, 0, s.bytes);
  }
  void BusyStartGroup(uint32_t lane, int count, double t) override {
    Add(2, lane, 0, count, t, 0, 0, 0);
  }
  void BusyGroup(const BusySpan& s, int count) override {
    Add(3, s.lane, s.instr, count, s.start_us, s.end_us, 0, s.bytes);
  }
  void DmaDone(const DmaCompletion& d) override {
    Add(4, 0, d.instr, 1, d.issue_us, d.data_end_us, d.end_us, 0);
  }
  std::vector<Call> calls;

 private:
  void Add(int kind, uint32_t lane, uint32_t instr, int count, double a,
           double b, double c, int64_t bytes) {
    calls.emplace_back(kind, lane, instr, count, std::bit_cast<uint64_t>(a),
                       std::bit_cast<uint64_t>(b), std::bit_cast<uint64_t>(c),
                       bytes);
  }
};

// Runs of `x` and `y` from the same key and start: the same makespan
// and every listener call the same, in order and to the bit.
inline void ExpectSameCalls(const KernelSim& x, const KernelSim& y,
                            uint64_t key, double t0) {
  CallLog a, b;
  CounterRng ra(key), rb(key);
  EXPECT_EQ(std::bit_cast<uint64_t>(x.Run(ra, t0, 0, a)),
            std::bit_cast<uint64_t>(y.Run(rb, t0, 0, b)));
  ASSERT_EQ(a.calls.size(), b.calls.size());
  for (size_t c = 0; c < a.calls.size(); ++c) {
    ASSERT_EQ(a.calls[c], b.calls[c]) << "call " << c;
  }
}

// Runs after runs on one thread, for a mechanism that must leave the
// state a run starts from as it found it: `s1` twice from the same key
// gives the same calls, and then `s2` (another kernel, after s1's runs)
// the calls of `reference`, a simulator of s2's kernel without the
// mechanism.
inline void ExpectRunsAfterRunsAlike(const KernelSim& s1, const KernelSim& s2,
                                     const KernelSim& reference) {
  CallLog first, again;
  CounterRng r1(1), r2(1);
  s1.Run(r1, 0, 0, first);
  s1.Run(r2, 0, 0, again);
  EXPECT_EQ(first.calls, again.calls);
  CallLog a, b;
  CounterRng ra(2), rb(2);
  s2.Run(ra, 0, 0, a);
  reference.Run(rb, 0, 0, b);
  EXPECT_EQ(a.calls, b.calls);
}

// A random compute instruction of the exactness tests' kernels: a matmul
// on the tensor engine (its stationary columns lengthen its latency past its
// issue interval by different amounts, so a later matmul released early may
// complete before an earlier one), or a streaming instruction on any engine.
inline void SetRandomCompute(Kernel& k, CounterRng& rng, bool matmul,
                             Instruction& in) {
  in.kind = InstrKind::kCompute;
  in.opcode = k.Intern("op");
  in.dtype = DType::kBf16;
  in.work = 1 + static_cast<int64_t>(rng.NextBelow(20000));
  if (matmul) {
    in.engine = Engine::kTensor;
    in.rule = CostRule::kMatmul;
    in.partitions = 128;
    in.aux = 1 + static_cast<int64_t>(rng.NextBelow(128));
    in.work = 1 + static_cast<int64_t>(rng.NextBelow(600));
  } else {
    in.engine = static_cast<Engine>(rng.NextBelow(kNumEngines));
    in.rule = CostRule::kStream;
  }
}

// A load of a [128, bytes / 128] tile: 128 partitions, a row each.
inline Instruction TileLoad(Kernel& k, int64_t bytes) {
  Instruction load;
  load.kind = InstrKind::kDma;
  load.opcode = k.Intern("dma_load");
  load.label = k.Intern("tile");
  load.partitions = 128;
  load.aux = 128;
  load.work = bytes;
  return load;
}

}  // namespace trn::testing

#endif  // TRNBENCH_TESTS_DEVICE_MODEL_SIM_TEST_UTIL_H_
