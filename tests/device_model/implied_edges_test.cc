// The event loop leaves out dependencies that another dependency of the same
// instruction implies (KernelSim::TimingEdges). These hold that choice to
// the model as defined: every listener call, in order and to the bit, on
// random kernels dense in dependencies (matmul chains released early among
// them), and on profiles where the hand-off, latencies or issue costs are
// zero.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"
#include "tests/device_model/test_profile.h"

namespace trn {
namespace {

DeviceProfile TestProfileWith(
    const std::vector<std::pair<std::string, double>>& values) {
  auto j = testing::TestProfile();
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

// Each instruction waits for up to six earlier ones, most of them recent,
// so one dependency often waits for another (the pattern left out); a
// third of the compute instructions are matmuls on the tensor engine, so
// matmul-to-matmul edges (released when the operands have streamed) mix
// with the others.
Kernel DenseKernel(uint64_t key, int n) {
  CounterRng rng(key);
  Kernel k;
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> deps;
    const uint64_t want = i > 0 ? rng.NextBelow(7) : 0;
    for (uint64_t d = 0; d < want; ++d) {
      const uint64_t back = 1 + rng.NextBelow(std::min<uint64_t>(i, 6));
      deps.push_back(static_cast<uint32_t>(i - back));
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Instruction in;
    in.label = k.Intern("tile");
    const uint64_t what = rng.NextBelow(3);
    if (what == 0) {
      in.kind = InstrKind::kDma;
      in.opcode = k.Intern("dma");
      in.partitions = 128;
      in.aux = 128;
      in.work = 128 * static_cast<int64_t>(rng.NextBelow(3)) * 1024;
    } else {
      in.kind = InstrKind::kCompute;
      in.opcode = k.Intern("op");
      in.dtype = DType::kBf16;
      in.work = 1 + static_cast<int64_t>(rng.NextBelow(20000));
      if (what == 1) {
        in.engine = Engine::kTensor;
        in.rule = CostRule::kMatmul;
        in.partitions = 128;
        // Stationary columns lengthen a matmul's latency past its issue
        // interval by different amounts, so a later matmul released early
        // may complete before an earlier one.
        in.aux = 1 + static_cast<int64_t>(rng.NextBelow(128));
        in.work = 1 + static_cast<int64_t>(rng.NextBelow(600));
      } else {
        in.engine = static_cast<Engine>(rng.NextBelow(kNumEngines));
        in.rule = CostRule::kStream;
      }
    }
    k.Add(in, deps);
  }
  return k;
}

TEST(ImpliedEdgesTest, LeavingThemOutChangesNoCall) {
  const std::vector<DeviceProfile> profiles = {
      TestProfileWith({}),
      TestProfileWith({{"dependency_sync_us", 0}}),
      TestProfileWith({{"dependency_sync_us", 0}, {"dma_issue_us", 0.3}}),
      TestProfileWith({{"dma_issue_us", 0.3}, {"dma_issuers", 2}}),
      TestProfileWith({{"tensor_pipeline_latency_cycles", 0},
                       {"static_overhead_cycles", 0}}),
  };
  FairShareHbmPolicy policy;
  size_t compared = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (uint64_t key = 1; key <= 10; ++key) {
      SCOPED_TRACE(::testing::Message()
                   << "profile " << p << " kernel " << key);
      const Kernel k = DenseKernel(key * 100 + p, 300);
      const KernelSim fast(k, profiles[p], policy);
      const KernelSim full(k, profiles[p], policy,
                           {.skip_implied_edges = false});
      for (double t0 : {0.0, 4.5e7}) {
        CallLog a, b;
        CounterRng ra(key), rb(key);
        EXPECT_EQ(std::bit_cast<uint64_t>(fast.Run(ra, t0, 0, a)),
                  std::bit_cast<uint64_t>(full.Run(rb, t0, 0, b)));
        ASSERT_EQ(a.calls.size(), b.calls.size());
        for (size_t c = 0; c < a.calls.size(); ++c) {
          ASSERT_EQ(a.calls[c], b.calls[c]) << "call " << c;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 20);
}

// The kernels above do exercise the rule: most of their instructions have
// an implied dependency, and a run handles fewer edges. A rule that left
// nothing out would pass the test above trivially.
TEST(ImpliedEdgesTest, DenseKernelsHaveImpliedEdges) {
  const Kernel k = DenseKernel(7, 300);
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  const KernelSim fast(k, p, policy);
  const KernelSim full(k, p, policy, {.skip_implied_edges = false});
  EXPECT_LT(fast.TimingEdgeCount(), full.TimingEdgeCount() * 3 / 4);
  EXPECT_EQ(full.TimingEdgeCount(), k.deps.size());
}

}  // namespace
}  // namespace trn
