// The kReady events that one completion pushes at one time are handled as
// one event (a kReadyRun, kernel_sim.cc). These hold that choice to the
// model as defined: every listener call, in order and to the bit, on random
// kernels where each completion makes many instructions ready at once, on
// every engine (Vector and GpSimd share the SBUF port and stay out of the
// runs; DMA too) and on profiles where the hand-off or other delays are
// zero.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"
#include "tests/device_model/sim_test_util.h"
#include "tests/device_model/test_profile.h"

namespace trn {
namespace {

using testing::ExpectRunsAfterRunsAlike;
using testing::ExpectSameCalls;
using testing::SetRandomCompute;
using testing::TestProfileWith;

// Every `hub`-th instruction is a hub; the others wait for the last hub
// (and sometimes the one before, or a recent instruction), so each hub's
// completion makes a stretch of them ready at one time. Instructions go to
// every engine, a fifth are transfers and a third of the compute ones are
// matmuls on the tensor engine (whose edges to matmuls are released early).
Kernel FanOutKernel(uint64_t key, int n, int hub) {
  CounterRng rng(key);
  Kernel k;
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> deps;
    const int last_hub = i / hub * hub == i ? i - hub : i / hub * hub;
    if (last_hub >= 0) deps.push_back(static_cast<uint32_t>(last_hub));
    if (last_hub >= hub && rng.NextBelow(3) == 0) {
      deps.push_back(static_cast<uint32_t>(last_hub - hub));
    }
    if (i > 1 && rng.NextBelow(4) == 0) {
      const auto back = static_cast<uint32_t>(1 + rng.NextBelow(2));
      if (i - back != static_cast<uint32_t>(last_hub)) deps.push_back(i - back);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Instruction in;
    in.label = k.Intern("tile");
    const uint64_t what = rng.NextBelow(15);
    if (what < 3) {
      in.kind = InstrKind::kDma;
      in.opcode = k.Intern("dma");
      in.partitions = 128;
      in.aux = 128;
      in.work = 128 * static_cast<int64_t>(1 + rng.NextBelow(3)) * 1024;
    } else {
      SetRandomCompute(k, rng, what < 7, in);
      in.partitions = 128;
    }
    k.Add(in, deps);
  }
  return k;
}

TEST(ReadyRunsTest, OneEventForManyReadyChangesNoCall) {
  const std::vector<DeviceProfile> profiles = {
      TestProfileWith({}),
      TestProfileWith({{"dependency_sync_us", 0}}),
      TestProfileWith({{"dependency_sync_us", 0}, {"dma_issue_us", 0.3}}),
      TestProfileWith({{"tensor_pipeline_latency_cycles", 0},
                       {"static_overhead_cycles", 0}}),
  };
  FairShareHbmPolicy policy;
  size_t compared = 0;
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (int hub : {3, 8, 24}) {
      for (uint64_t key = 1; key <= 6; ++key) {
        SCOPED_TRACE(::testing::Message()
                     << "profile " << p << " hub " << hub << " kernel " << key);
        const Kernel k = FanOutKernel(key * 100 + p * 10 + hub, 400, hub);
        const KernelSim runs(k, profiles[p], policy);
        const KernelSim each(k, profiles[p], policy, {.batch_ready = false});
        // The rule is exercised: many completions may make runs.
        EXPECT_GT(runs.FanOutCount(), static_cast<size_t>(400 / hub / 4));
        EXPECT_EQ(each.FanOutCount(), 0u);
        for (double t0 : {0.0, 4.5e7}) {
          ExpectSameCalls(runs, each, key, t0);
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, profiles.size() * 3 * 6 * 2);
}

// A run after a run on the same thread starts from the state the first
// left: the marks of a kReadyRun are zeroed as its instructions are
// handled, so a second run of the same kernel (and of another one) gives
// the same calls.
TEST(ReadyRunsTest, RunsAfterRunsAreAlike) {
  const DeviceProfile p = TestProfileWith({});
  FairShareHbmPolicy policy;
  const Kernel k1 = FanOutKernel(5, 300, 8);
  const Kernel k2 = FanOutKernel(6, 500, 5);
  const KernelSim s1(k1, p, policy);
  const KernelSim s2(k2, p, policy);
  const KernelSim e2(k2, p, policy, {.batch_ready = false});
  ExpectRunsAfterRunsAlike(s1, s2, e2);
}

}  // namespace
}  // namespace trn
