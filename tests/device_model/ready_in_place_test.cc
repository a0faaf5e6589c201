// A matmul that another's streaming makes ready while the tensor engine is
// busy with instructions waiting joins the engine's ready queue at once,
// not through a kReady event (SimOptions::ready_in_place, kernel_sim.cc
// release_accumulation). These hold that choice to the model as defined:
// every listener call, in order and to the bit, on random kernels of
// interleaved accumulation chains that keep the tensor engine busy, their
// operands loaded by transfers and their results read on other engines, and
// on profiles where the hand-off or the matmul's latency past its interval
// is zero.
#include <cstdint>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"
#include "tests/device_model/sim_test_util.h"

namespace trn {
namespace {

using testing::ExpectRunsAfterRunsAlike;
using testing::ExpectSameCalls;
using testing::SetRandomCompute;
using testing::TestProfileWith;

// `chains` accumulation chains advance in turn, a matmul of each per round
// (each waits for its chain's last matmul, released early when it has
// streamed). Some matmuls also wait for a transfer of their own (an
// operand) or for an earlier matmul of another chain; a chain sometimes
// ends in a copy on another engine that reads it, which a later transfer
// waits for (a buffer reused), and a new chain starts. So matmuls become
// ready at their chain's streaming, with the tensor engine busy and other
// matmuls waiting, or not, or later than the streaming.
Kernel ChainKernel(uint64_t key, int rounds, int chains) {
  CounterRng rng(key);
  Kernel k;
  std::vector<int64_t> last(static_cast<size_t>(chains), -1);
  int64_t last_copy = -1;
  auto add = [&](const Instruction& in, std::vector<uint32_t> deps) {
    const auto at = static_cast<int64_t>(k.instrs.size());
    k.Add(in, deps);
    return at;
  };
  for (int r = 0; r < rounds; ++r) {
    for (int c = 0; c < chains; ++c) {
      std::vector<uint32_t> deps;
      int64_t& prev = last[static_cast<size_t>(c)];
      if (prev >= 0) deps.push_back(static_cast<uint32_t>(prev));
      if (rng.NextBelow(3) == 0) {
        std::vector<uint32_t> load_deps;
        if (last_copy >= 0 && rng.NextBelow(2) == 0) {
          load_deps.push_back(static_cast<uint32_t>(last_copy));
        }
        Instruction load = testing::TileLoad(
            k, 128 * static_cast<int64_t>(1 + rng.NextBelow(4)) * 256);
        deps.push_back(static_cast<uint32_t>(add(load, load_deps)));
      }
      const int other = static_cast<int>(rng.NextBelow(chains));
      if (other != c && last[static_cast<size_t>(other)] >= 0 &&
          rng.NextBelow(4) == 0) {
        deps.push_back(static_cast<uint32_t>(last[static_cast<size_t>(other)]));
      }
      Instruction mm;
      mm.label = k.Intern("tile");
      SetRandomCompute(k, rng, true, mm);
      prev = add(mm, deps);
      if (rng.NextBelow(12) == 0) {
        // The chain ends: a copy reads it, on any engine.
        Instruction copy;
        copy.label = k.Intern("tile");
        SetRandomCompute(k, rng, false, copy);
        copy.partitions = 128;
        last_copy = add(copy, {static_cast<uint32_t>(prev)});
        prev = -1;
      }
    }
  }
  return k;
}

TEST(ReadyInPlaceTest, JoiningTheQueueAtOnceChangesNoCall) {
  const std::vector<DeviceProfile> profiles = {
      TestProfileWith({}),
      TestProfileWith({{"dependency_sync_us", 0}}),
      TestProfileWith({{"dependency_sync_us", 0}, {"dma_issue_us", 0.3}}),
      // A matmul's latency its issue interval: its completion rides with
      // its streaming (kCompleteToo).
      TestProfileWith({{"tensor_pipeline_latency_cycles", 0},
                       {"static_overhead_cycles", 0}}),
  };
  FairShareHbmPolicy policy;
  size_t compared = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (int chains : {1, 2, 4, 8}) {
      for (uint64_t key = 1; key <= 5; ++key) {
        SCOPED_TRACE(::testing::Message() << "profile " << p << " chains "
                                          << chains << " kernel " << key);
        const Kernel k = ChainKernel(key * 100 + p * 10 + chains, 300, chains);
        const KernelSim fast(k, profiles[p], policy);
        const KernelSim each(k, profiles[p], policy, {.ready_in_place = false});
        for (double t0 : {0.0, 4.5e7}) {
          ExpectSameCalls(fast, each, key, t0);
          ++compared;
        }
        // Against every edge and every kReady on its own too (grouped DMA
        // shares make other calls: the same metrics, not the same calls).
        const KernelSim plain(k, profiles[p], policy,
                              {.skip_implied_edges = false,
                               .batch_ready = false,
                               .ready_in_place = false});
        ExpectSameCalls(fast, plain, key, 0.0);
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 4 * 5 * 2);
}

// An instruction that joins its queue at once has its state zeroed as its
// kReady would have (the next run on the thread finds the zeros): runs
// after runs, of the same kernel and of another, give the same calls.
TEST(ReadyInPlaceTest, RunsAfterRunsAreAlike) {
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  const Kernel k1 = ChainKernel(5, 200, 4);
  const Kernel k2 = ChainKernel(6, 300, 3);
  const KernelSim s1(k1, p, policy);
  const KernelSim s2(k2, p, policy);
  const KernelSim e2(k2, p, policy, {.ready_in_place = false});
  ExpectRunsAfterRunsAlike(s1, s2, e2);
}

}  // namespace
}  // namespace trn
