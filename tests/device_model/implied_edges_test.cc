// The event loop leaves out dependencies that another dependency of the same
// instruction implies (KernelSim::TimingEdges). These hold that choice to
// the model as defined: every listener call, in order and to the bit, on
// random kernels dense in dependencies (matmul chains released early among
// them), and on profiles where the hand-off, latencies or issue costs are
// zero.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/chunks.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/counter_rng.h"
#include "tests/device_model/sim_test_util.h"
#include "tests/device_model/test_profile.h"

namespace trn {
namespace {

using testing::ExpectSameCalls;
using testing::SetRandomCompute;
using testing::TestProfileWith;

// How a kernel lists each instruction's dependencies.
enum class DepOrder { kAscending, kDescending, kShuffled };

// Each instruction waits for up to six earlier ones, most of them recent,
// so one dependency often waits for another (the pattern left out); a
// third of the compute instructions are matmuls on the tensor engine, so
// matmul-to-matmul edges (released when the operands have streamed) mix
// with the others. With `reach` above 6, one dependency in eight is up to
// `reach` instructions back: the implied-edge search's window of program
// order is sized by the longest edge, and edges longer than its widest
// window (4096) are checked another way.
Kernel DenseKernel(uint64_t key, int n, uint64_t reach = 6,
                   DepOrder order = DepOrder::kAscending) {
  CounterRng rng(key);
  // Its own draws, so every order lists the same kernel.
  CounterRng shuffle(key + 1000003);
  Kernel k;
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> deps;
    const uint64_t want = i > 0 ? rng.NextBelow(7) : 0;
    for (uint64_t d = 0; d < want; ++d) {
      const uint64_t far = reach > 6 && rng.NextBelow(8) == 0 ? reach : 6;
      const uint64_t back = 1 + rng.NextBelow(std::min<uint64_t>(i, far));
      deps.push_back(static_cast<uint32_t>(i - back));
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (order == DepOrder::kDescending) {
      std::reverse(deps.begin(), deps.end());
    } else if (order == DepOrder::kShuffled) {
      for (size_t j = deps.size(); j > 1; --j) {
        std::swap(deps[j - 1], deps[shuffle.NextBelow(j)]);
      }
    }
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
      SetRandomCompute(k, rng, what == 1, in);
    }
    k.Add(in, deps);
  }
  return k;
}

// Every listener call of a run of `k` with implied edges left out and of
// one with every edge, compared in order and to the bit.
void ExpectSameCallsBothWays(const Kernel& k, const DeviceProfile& p,
                             uint64_t key, double t0) {
  FairShareHbmPolicy policy;
  const KernelSim fast(k, p, policy);
  const KernelSim full(k, p, policy, {.skip_implied_edges = false});
  ExpectSameCalls(fast, full, key, t0);
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
        ExpectSameCalls(fast, full, key, t0);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 20);
}

// KernelSim's constructor leaves the entries of several arrays unset when
// it sizes them (NoFillAllocator) and writes each later. One built where
// the heap held ones gives every call that one built where it held zeros
// does: an entry left unwritten would differ (dense kernels, with short
// edges and with long ones).
TEST(ImpliedEdgesTest, BuiltOverADirtyHeapChangesNoCall) {
  const DeviceProfile prof = TestProfileWith({});
  FairShareHbmPolicy policy;
  auto built_over = [&](const Kernel& k, unsigned char byte) {
    // Blocks of every size the constructor asks for, filled with `byte`
    // and freed, each between two kept ones so that they are not merged
    // back into the heap's top (which may go back to the system).
    std::vector<std::unique_ptr<unsigned char[]>> junk;
    std::vector<std::unique_ptr<unsigned char[]>> apart;
    for (size_t size = 16; size <= 16384; size += 16) {
      for (int copy = 0; copy < 2; ++copy) {
        junk.emplace_back(new unsigned char[size]);
        std::memset(junk.back().get(), byte, size);
        // Its address escapes, so that the fill is not optimized away.
        asm volatile("" : : "g"(junk.back().get()) : "memory");
        apart.emplace_back(new unsigned char[16]);
      }
    }
    junk.clear();
    return std::make_unique<KernelSim>(k, prof, policy);
  };
  for (uint64_t key = 1; key <= 6; ++key) {
    SCOPED_TRACE(::testing::Message() << "kernel " << key);
    const Kernel k = DenseKernel(key, 300, key % 2 == 0 ? 6 : 70);
    const auto clean = built_over(k, 0);
    const auto dirty = built_over(k, 0xff);
    ExpectSameCalls(*clean, *dirty, key, 0.0);
    EXPECT_EQ(clean->TimingEdgeCount(), dirty->TimingEdgeCount());
    EXPECT_EQ(clean->FanOutCount(), dirty->FanOutCount());
  }
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

namespace trn {
namespace {

// Dependencies listed in either order or none, and edges as long as the
// window (a few words of bits), longer than the widest window (those
// checked for the one-step path only) and in between.
TEST(ImpliedEdgesTest, LongEdgesAndAnyOrderChangeNoCall) {
  const std::vector<DeviceProfile> profiles = {
      TestProfileWith({}),
      TestProfileWith({{"dependency_sync_us", 0}}),
      TestProfileWith({{"tensor_pipeline_latency_cycles", 0},
                       {"static_overhead_cycles", 0}}),
  };
  const std::vector<std::pair<uint64_t, int>> shapes = {
      {60, 400}, {200, 700}, {3000, 3400}, {6000, 6600}};
  size_t compared = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (const auto& [reach, n] : shapes) {
      for (DepOrder order :
           {DepOrder::kAscending, DepOrder::kDescending, DepOrder::kShuffled}) {
        const uint64_t key = reach * 10 + p * 3 + static_cast<uint64_t>(order);
        SCOPED_TRACE(::testing::Message()
                     << "profile " << p << " reach " << reach << " order "
                     << static_cast<int>(order));
        const Kernel k = DenseKernel(key, n, reach, order);
        ExpectSameCallsBothWays(k, profiles[p], key, 4.5e7);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 4 * 3);
}

// The same kernels leave out as many edges whichever order their lists are
// in, and with long edges still most of the implied ones.
TEST(ImpliedEdgesTest, OrderDoesNotChangeWhatIsLeftOut) {
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  for (const auto& [reach, n] : std::vector<std::pair<uint64_t, int>>{
           {6, 300}, {200, 700}, {3000, 3400}}) {
    SCOPED_TRACE(::testing::Message() << "reach " << reach);
    std::vector<size_t> counts;
    for (DepOrder order :
         {DepOrder::kAscending, DepOrder::kDescending, DepOrder::kShuffled}) {
      const Kernel k = DenseKernel(11, n, reach, order);
      counts.push_back(KernelSim(k, p, policy).TimingEdgeCount());
      EXPECT_LT(counts.back(), k.deps.size() * 3 / 4);
    }
    EXPECT_EQ(counts[0], counts[1]);
    EXPECT_EQ(counts[0], counts[2]);
  }
}

Instruction Op(Kernel& k, Engine engine, CostRule rule) {
  Instruction in;
  in.kind = InstrKind::kCompute;
  in.label = k.Intern("t");
  in.opcode = k.Intern("op");
  in.dtype = DType::kBf16;
  in.engine = engine;
  in.rule = rule;
  in.partitions = 128;
  in.aux = 64;
  in.work = 512;
  return in;
}

// a -> x -> b and c waits for a and b: a's edge to c is implied through
// two steps (b does not wait for a directly), and left out.
TEST(ImpliedEdgesTest, TwoStepPathLeavesTheEdgeOut) {
  Kernel k;
  const Instruction vec = Op(k, Engine::kVector, CostRule::kStream);
  const uint32_t a = k.Add(vec, {});
  const uint32_t x = k.Add(vec, {a});
  const uint32_t b = k.Add(vec, {x});
  k.Add(vec, {a, b});
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  EXPECT_EQ(KernelSim(k, p, policy).TimingEdgeCount(), k.deps.size() - 1);
  ExpectSameCallsBothWays(k, p, 1, 0);
}

// The same shape through matmuls: m1 -> m2 is released early (when m1 has
// streamed, before it completes), so m2 and b after it may start before
// m1's edge to c is released, and that edge is kept.
TEST(ImpliedEdgesTest, EarlyFirstStepKeepsTheEdge) {
  Kernel k;
  const Instruction mm = Op(k, Engine::kTensor, CostRule::kMatmul);
  const Instruction vec = Op(k, Engine::kVector, CostRule::kStream);
  const uint32_t m1 = k.Add(mm, {});
  const uint32_t m2 = k.Add(mm, {m1});
  const uint32_t b = k.Add(vec, {m2});
  k.Add(vec, {m1, b});  // m1 -> c not early, but its path starts early
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  EXPECT_EQ(KernelSim(k, p, policy).TimingEdgeCount(), k.deps.size());
  ExpectSameCallsBothWays(k, p, 1, 0);
}

// An edge released early (between two matmuls, at the first one's
// streaming) is left out as any other when its source reaches another
// dependency through a path whose first edge is not early: that dependency
// starts after the source has completed, which is after it streamed. One
// whose paths all start early is kept (finding those would take a second
// set of bits). Not when a matmul's issue interval exceeds its latency (a
// negative overhead, which only a profile built in code can have): it may
// complete, and release a path, before it streams.
TEST(ImpliedEdgesTest, EarlyEdgeImpliedByALatePath) {
  Kernel k;
  const Instruction mm = Op(k, Engine::kTensor, CostRule::kMatmul);
  const Instruction vec = Op(k, Engine::kVector, CostRule::kStream);
  const uint32_t m1 = k.Add(mm, {});
  const uint32_t m2 = k.Add(mm, {m1});
  const uint32_t b = k.Add(vec, {m1});
  k.Add(mm, {m1, m2, b});  // m1 -> c early, implied through b: left out
  const uint32_t m3 = k.Add(mm, {});
  const uint32_t x = k.Add(vec, {m3});
  const uint32_t m4 = k.Add(mm, {x});
  k.Add(mm, {m3, m4});  // m3 -> c early, implied through x and m4
  const uint32_t m5 = k.Add(mm, {});
  const uint32_t m6 = k.Add(mm, {m5});
  k.Add(mm, {m5, m6});  // m5 -> c early, its path starts early: kept
  FairShareHbmPolicy policy;
  const DeviceProfile p = TestProfileWith({});
  EXPECT_EQ(KernelSim(k, p, policy).TimingEdgeCount(), k.deps.size() - 2);
  ExpectSameCallsBothWays(k, p, 1, 0);
  DeviceProfile unsplit = TestProfileWith({});
  unsplit.engines[static_cast<size_t>(Engine::kTensor)].static_overhead_cycles =
      -300;
  const KernelSim sim(k, unsplit, policy);
  ASSERT_GT(sim.Timing(m1).latency_us, 0);
  ASSERT_LT(sim.Timing(m1).latency_us, sim.Timing(m1).interval_us);
  EXPECT_EQ(sim.TimingEdgeCount(), k.deps.size());
  ExpectSameCallsBothWays(k, unsplit, 1, 0);
}

// A matmul whose every edge to a matmul is left out still streams (an
// event that releases nothing): with every edge kept it streams, and an
// event fewer would cut a transfer in flight into fewer steps, whose
// rounding then differs. m1's one early edge is implied through b, and a
// transfer moves while m1 streams, at rates whose steps round (HBM at
// 19.7 GB/s; at the test profile's 20 the steps happened to be exact).
TEST(ImpliedEdgesTest, AMatmulWhoseEarlyEdgesAreLeftOutStillStreams) {
  const DeviceProfile p = TestProfileWith({{"hbm_gbps", 19.7}});
  FairShareHbmPolicy policy;
  for (int64_t bytes = 100003; bytes < 100003 + 8 * 7919; bytes += 7919) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    Kernel k;
    k.Add(testing::TileLoad(k, bytes), {});
    const Instruction mm = Op(k, Engine::kTensor, CostRule::kMatmul);
    const uint32_t m1 = k.Add(mm, {});
    const uint32_t b = k.Add(Op(k, Engine::kVector, CostRule::kStream), {m1});
    k.Add(mm, {m1, b});
    EXPECT_EQ(KernelSim(k, p, policy).TimingEdgeCount(), k.deps.size() - 1);
    ExpectSameCallsBothWays(k, p, 1, 0);
  }
}

// An edge longer than the widest window (4096 instructions) gets the
// one-step check: c waits for a and for b, which waits for a, so a's edge
// to c is left out, unless a -> b is released early (both matmuls: then
// b may start before a completes). Each of a and b a matmul or not.
TEST(ImpliedEdgesTest, LongEdgeImpliedInOneStepUnlessTheStepIsEarly) {
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  for (const bool a_matmul : {false, true}) {
    for (const bool b_matmul : {false, true}) {
      SCOPED_TRACE(::testing::Message() << a_matmul << b_matmul);
      Kernel k;
      const Instruction mm = Op(k, Engine::kTensor, CostRule::kMatmul);
      const Instruction vec = Op(k, Engine::kVector, CostRule::kStream);
      const uint32_t a = k.Add(a_matmul ? mm : vec, {});
      for (int i = 0; i < 5000; ++i) k.Add(vec, {});
      const uint32_t b = k.Add(b_matmul ? mm : vec, {a});
      k.Add(vec, {a, b});
      const bool early = a_matmul && b_matmul;
      EXPECT_EQ(KernelSim(k, p, policy).TimingEdgeCount(),
                k.deps.size() - (early ? 0 : 1));
      ExpectSameCallsBothWays(k, p, 1, 0);
    }
  }
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

// A kernel and, for the reference below, each instruction's dependencies
// and whether it is a matmul.
struct ListedKernel {
  Kernel kernel;
  std::vector<std::vector<uint32_t>> deps;
  std::vector<char> matmul;
};

// Runs of 16 to 600 instructions, each waiting for up to four recent ones
// of its own run (a run's first waits for none), and one dependency in
// eight up to `reach` back, anywhere: so the instructions that reach one
// go back as far as its run's start or a long edge's, some a few words of
// bits back and some the whole window. Lists in ascending or descending
// order, so the window is as wide as the longest edge.
ListedKernel RunsKernel(uint64_t key, int n, uint64_t reach, bool descending) {
  CounterRng rng(key);
  ListedKernel out;
  Kernel& k = out.kernel;
  const Instruction mm = Op(k, Engine::kTensor, CostRule::kMatmul);
  const Instruction vec = Op(k, Engine::kVector, CostRule::kStream);
  uint64_t run_start = 0;
  uint64_t run_end = 0;
  for (uint64_t i = 0; i < static_cast<uint64_t>(n); ++i) {
    if (i == run_end) {
      run_start = i;
      run_end = i + 16 + rng.NextBelow(585);
    }
    std::vector<uint32_t> deps;
    const uint64_t want = i > run_start ? 1 + rng.NextBelow(4) : 0;
    for (uint64_t d = 0; d < want; ++d) {
      const uint64_t back =
          rng.NextBelow(8) == 0
              ? 1 + rng.NextBelow(std::min(i, reach))
              : 1 + rng.NextBelow(std::min<uint64_t>(i - run_start, 8));
      deps.push_back(static_cast<uint32_t>(i - back));
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (descending) std::reverse(deps.begin(), deps.end());
    const bool is_mm = rng.NextBelow(3) == 0;
    k.Add(is_mm ? mm : vec, deps);
    out.deps.push_back(deps);
    out.matmul.push_back(is_mm);
  }
  return out;
}

// The edges the event loop handles, worked out directly, for a kernel whose
// edges all fit the window and whose matmuls are all split: a -> c is left
// out when a reaches another dependency of c through a path whose first
// edge is not between two matmuls (bits over the whole kernel, no window).
size_t ReferenceTimingEdgeCount(const ListedKernel& lk) {
  const size_t n = lk.deps.size();
  const size_t words = (n + 63) / 64;
  // Row c: the instructions that reach c through a path whose first edge
  // is not between two matmuls.
  std::vector<uint64_t> reach(n * words, 0);
  std::vector<uint64_t> u(words);
  size_t kept = 0;
  for (size_t c = 0; c < n; ++c) {
    std::fill(u.begin(), u.end(), 0);
    for (const uint32_t b : lk.deps[c]) {
      for (size_t x = 0; x < words; ++x) u[x] |= reach[b * words + x];
    }
    uint64_t* row = &reach[c * words];
    for (const uint32_t a : lk.deps[c]) {
      const bool early = lk.matmul[a] && lk.matmul[c];
      const bool implied = ((u[a / 64] >> (a % 64)) & 1) != 0;
      if (!implied) ++kept;
      if (!early) row[a / 64] |= uint64_t{1} << (a % 64);
    }
    for (size_t x = 0; x < words; ++x) row[x] |= u[x];
  }
  return kept;
}

// The window's bits (WindowClosure) against the reference: windows of 2 to
// 64 words, kernels three times as long (every entry of the ring reused),
// each leaves out exactly the edges the reference does. A bit lost in
// moving R(b) into c's frame keeps an implied edge, a stale one leaves out
// an edge that is not: either changes the count. (The runs tests above
// would pass with bits lost: keeping an edge changes no call.)
TEST(ImpliedEdgesTest, WindowLeavesOutWhatFullReachabilityDoes) {
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  for (const uint64_t reach : {100, 250, 500, 1000, 2000, 4000}) {
    for (const bool descending : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "reach " << reach << " descending " << descending);
      const int n = static_cast<int>(3 * reach + 700);
      const ListedKernel lk =
          RunsKernel(reach + descending, n, reach, descending);
      const size_t want = ReferenceTimingEdgeCount(lk);
      EXPECT_EQ(KernelSim(lk.kernel, p, policy).TimingEdgeCount(), want);
      EXPECT_LT(want, lk.kernel.deps.size() * 7 / 8);
    }
  }
}

// Simulator::Create's passes split over threads in chunks of program order
// (SimOptions::threads, chunks.h) build the simulator one thread builds:
// every listener call the same, and as many edges and fan-outs. Chunks far
// shorter than the implied-edge window (each then built on the bits of the
// instructions before it) and longer; short edges, edges across several
// chunks and edges past the widest window; every order of the lists.
// The last profile draws each transfer's latency (so a transfer's rank,
// which picks its draw, shows in its completion) and keeps an engine
// active for less than the latency unless it drains for a reader on it.
TEST(ChunkedCreateTest, AnyThreadCountBuildsTheSameSimulator) {
  nlohmann::json drawn = testing::TestProfile();
  drawn["parameters"]["dma_latency_us"] = {
      {"quantiles", {{0, 1}, {1, 3}}}, {"unit", "us"}, {"source", "test"}};
  drawn["parameters"]["sbuf_access_overhead_cycles"]["value"] = 30;
  auto parsed = ParseDeviceProfile(drawn.dump(), "drawn.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  const std::vector<DeviceProfile> profiles = {
      TestProfileWith({}),
      TestProfileWith({{"dma_issue_us", 0.3}, {"dma_issuers", 2}}),
      *std::move(parsed),
  };
  FairShareHbmPolicy policy;
  const std::vector<std::pair<uint64_t, int>> shapes = {
      {6, 300}, {70, 500}, {600, 1500}, {6000, 6600}};
  size_t compared = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (const auto& [reach, n] : shapes) {
      for (DepOrder order : {DepOrder::kAscending, DepOrder::kShuffled}) {
        const uint64_t key = reach * 7 + p * 3 + static_cast<uint64_t>(order);
        const Kernel k = DenseKernel(key, n, reach, order);
        const KernelSim one(k, profiles[p], policy);
        for (const auto& [threads, min_chunk] :
             std::vector<std::pair<int, size_t>>{
                 {2, 1}, {3, 37}, {5, 100}, {4, 1000}}) {
          SCOPED_TRACE(::testing::Message()
                       << "profile " << p << " reach " << reach << " order "
                       << static_cast<int>(order) << " threads " << threads
                       << " min_chunk " << min_chunk);
          const KernelSim split(k, profiles[p], policy,
                                {.threads = threads, .min_chunk = min_chunk});
          EXPECT_EQ(one.TimingEdgeCount(), split.TimingEdgeCount());
          EXPECT_EQ(one.FanOutCount(), split.FanOutCount());
          ExpectSameCalls(one, split, key, 4.5e7);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 4 * 2 * 4);
}

// Chunks are contiguous, cover every instruction, number at most the
// threads and are no shorter than asked (one chunk when the kernel is).
TEST(ChunkedCreateTest, ChunkBounds) {
  EXPECT_EQ(ChunkBounds(10, 1, 1), (std::vector<size_t>{0, 10}));
  EXPECT_EQ(ChunkBounds(10, 3, 1), (std::vector<size_t>{0, 3, 6, 10}));
  EXPECT_EQ(ChunkBounds(10, 3, 4), (std::vector<size_t>{0, 5, 10}));
  EXPECT_EQ(ChunkBounds(10, 3, 11), (std::vector<size_t>{0, 10}));
  EXPECT_EQ(ChunkBounds(0, 4, 1), (std::vector<size_t>{0, 0}));
  EXPECT_EQ(ChunkBounds(5, 0, 1), (std::vector<size_t>{0, 5}));
  std::vector<int> seen(7, 0);
  ForEachChunk(ChunkBounds(7, 3, 1), [&](size_t, size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) ++seen[i];
  });
  EXPECT_EQ(seen, std::vector<int>(7, 1));
}

}  // namespace
}  // namespace trn
