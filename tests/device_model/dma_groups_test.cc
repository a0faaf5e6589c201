// Grouped DMA shares: the group bookkeeping, the bandwidth policy on groups,
// and the simulator with grouping against the simulator without it, event
// for event and bit for bit.
#include "device_model/dma_groups.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "device_model/bandwidth_policy.h"
#include "device_model/device_profile.h"
#include "device_model/kernel_sim.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/program.h"
#include "device_model/sim_events.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"
#include "tests/device_model/sim_test_util.h"
#include "tests/device_model/test_profile.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using testing::TestProfileWith;

std::vector<uint32_t> Visit(DmaGroups& g) {
  std::vector<uint32_t> los;
  g.ForEach([&](uint32_t s) { los.push_back(g[s].lo); });
  return los;
}

TEST(DmaGroupsTest, AlikeSharesStartedTogetherOnAdjacentEnginesMerge) {
  DmaGroups g(16, true);
  const uint32_t a = g.Begin(0, 4, 7, 0, 100, 100.0, 1.0);
  EXPECT_EQ(g.Begin(4, 2, 7, 0, 100, 100.0, 1.0), a);
  EXPECT_EQ(g[a].count, 6u);
  // Another transfer, other bytes, another start, or shares that have
  // moved: a group of their own.
  EXPECT_NE(g.Begin(6, 1, 8, 0, 100, 100.0, 1.0), a);
  const uint32_t b = g.Begin(8, 1, 7, 0, 100, 100.0, 1.0);
  EXPECT_NE(g.Begin(9, 1, 7, 0, 50, 50.0, 1.0), b);
  const uint32_t c = g.Begin(11, 1, 7, 0, 100, 100.0, 1.0);
  g[c].remaining = 40;
  const uint32_t d = g.Begin(12, 1, 7, 0, 100, 100.0, 1.0);
  EXPECT_NE(d, c);
  EXPECT_NE(g.Begin(13, 1, 7, 0, 100, 100.0, 2.0), d);
  EXPECT_EQ(Visit(g), (std::vector<uint32_t>{0, 6, 8, 9, 11, 12, 13}));
}

TEST(DmaGroupsTest, WithoutMergingEveryShareIsAlone) {
  DmaGroups g(8, false);
  const uint32_t a = g.Begin(0, 1, 7, 0, 100, 100.0, 1.0);
  EXPECT_NE(g.Begin(1, 1, 7, 0, 100, 100.0, 1.0), a);
  EXPECT_EQ(Visit(g), (std::vector<uint32_t>{0, 1}));
}

// Restart leaves what End and Begin would: the same slot, state, busy
// engines and visiting order; it refuses other engines and a start that
// Begin would merge into the group on the left.
TEST(DmaGroupsTest, RestartIsEndThenBegin) {
  auto state = [](DmaGroups& g) {
    std::vector<std::vector<double>> out;
    g.ForEach([&](uint32_t s) {
      const DmaGroup& x = g[s];
      out.push_back({static_cast<double>(s), static_cast<double>(x.lo),
                     static_cast<double>(x.count), static_cast<double>(x.owner),
                     static_cast<double>(x.piece), static_cast<double>(x.bytes),
                     x.work, x.start, x.remaining, x.rate});
    });
    return out;
  };
  for (const bool merge : {true, false}) {
    DmaGroups a(70, merge);
    DmaGroups b(70, merge);
    for (DmaGroups* g : {&a, &b}) {
      g->Begin(0, 3, 1, 0, 100, 100.0, 0.0);
      g->Begin(3, 5, 2, 0, 100, 100.0, 0.0);
      g->Begin(60, 8, 3, 0, 50, 50.0, 0.0);  // across two words
    }
    // The group on engines 3..7 starts transfer 9's shares, then the one
    // on 60..67 does.
    for (const uint32_t lo : {3u, 60u}) {
      uint32_t slot = DmaGroups::kNone;
      a.ForEach([&](uint32_t s) {
        if (a[s].lo == lo) slot = s;
      });
      ASSERT_NE(slot, DmaGroups::kNone);
      const uint32_t count = a[slot].count;
      ASSERT_TRUE(a.Restart(slot, lo, count, 9, 2, 70, 80.0, 1.5));
      b.End(slot);
      EXPECT_EQ(b.Begin(lo, count, 9, 2, 70, 80.0, 1.5), slot);
      EXPECT_EQ(state(a), state(b));
      for (size_t e = 0; e < 70; ++e) EXPECT_EQ(a.Idle(e), b.Idle(e)) << e;
    }
    uint32_t slot = DmaGroups::kNone;
    a.ForEach([&](uint32_t s) {
      if (a[s].lo == 3) slot = s;
    });
    // Not exactly its engines.
    EXPECT_FALSE(a.Restart(slot, 3, 2, 9, 2, 70, 80.0, 1.5));
    EXPECT_FALSE(a.Restart(slot, 4, 4, 9, 2, 70, 80.0, 1.5));
    // Engines 0..2 start transfer 5 at 2.0; 3..7, starting the same shares
    // at the same time, would join them when merging.
    a.End(0);
    a.Begin(0, 3, 5, 1, 30, 30.0, 2.0);
    EXPECT_EQ(a.Restart(slot, 3, 5, 5, 1, 30, 30.0, 2.0), !merge);
  }
}

// IdleRun and BusyRun against engine-by-engine counts, across words.
TEST(DmaGroupsTest, IdleAndBusyRunsCountEngineByEngine) {
  CounterRng rng(5);
  DmaGroups g(150, false);
  for (uint32_t e = 0; e < 150; ++e) {
    if (rng.NextBelow(3) != 0) g.Begin(e, 1, e, 0, 1, 1.0, 0);
  }
  for (size_t lo = 0; lo < 150; ++lo) {
    for (size_t max : {size_t{1}, size_t{7}, size_t{64}, size_t{150 - lo}}) {
      if (lo + max > 150) continue;
      size_t idle = 0, busy = 0;
      while (idle < max && g.Idle(lo + idle)) ++idle;
      while (busy < max && !g.Idle(lo + busy)) ++busy;
      EXPECT_EQ(g.IdleRun(lo, max), idle) << lo << " " << max;
      EXPECT_EQ(g.BusyRun(lo, max), busy) << lo << " " << max;
    }
  }
}

TEST(DmaGroupsTest, SplitEndAndIdleAcrossWords) {
  DmaGroups g(130, true);
  const uint32_t a = g.Begin(60, 10, 1, 0, 8, 8.0, 0.0);  // spans two words
  EXPECT_FALSE(g.Idle(63));
  EXPECT_FALSE(g.Idle(64));
  EXPECT_EQ(g.IdleRun(50, 20), 10u);
  EXPECT_EQ(g.IdleRun(70, 100), 100u);
  g[a].remaining = 3;
  const uint32_t rest = g.SplitFirst(a);
  EXPECT_EQ(g[a].count, 1u);
  EXPECT_EQ(g[rest].lo, 61u);
  EXPECT_EQ(g[rest].count, 9u);
  EXPECT_EQ(g[rest].remaining, 3.0);
  EXPECT_EQ(Visit(g), (std::vector<uint32_t>{60, 61}));
  g.End(a);
  EXPECT_TRUE(g.Idle(60));
  EXPECT_FALSE(g.Idle(61));
  // A share started on the freed engine does not join the group after it.
  const uint32_t b = g.Begin(60, 1, 1, 0, 8, 8.0, 0.0);
  EXPECT_NE(b, rest);
  g.End(rest);
  EXPECT_EQ(g.IdleRun(59, 100), 1u);
  EXPECT_EQ(g.IdleRun(61, 69), 69u);
  EXPECT_FALSE(g.None());
  g.End(b);
  EXPECT_TRUE(g.None());
  EXPECT_EQ(Visit(g), std::vector<uint32_t>{});
}

TEST(DmaGroupsTest, ForEachSkipsWhatTheVisitedGroupStarts) {
  DmaGroups g(8, true);
  const uint32_t a = g.Begin(0, 4, 1, 0, 8, 8.0, 0.0);
  g.Begin(4, 4, 2, 0, 8, 8.0, 0.0);
  std::vector<uint32_t> seen;
  g.ForEach([&](uint32_t s) {
    seen.push_back(g[s].lo);
    if (s == a) {
      g.End(s);
      g.Begin(0, 2, 3, 0, 8, 8.0, 1.0);  // on the ended group's engines
      g.Begin(2, 2, 3, 0, 8, 8.0, 1.0);
    }
  });
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(Visit(g), (std::vector<uint32_t>{0, 4}));
}

// ---------------------------------------------------------- the policy

TEST(FairShareGroupsTest, AGroupGetsWhatItsFlowsApartWouldGet) {
  FairShareHbmPolicy policy;
  // 0.1 added six times is 0.6, but 0.1 * 6 rounds to 0.6000000000000001:
  // the test of whether the flows fit must add, not multiply.
  std::vector<Flow> apart(6, Flow{0.1, 1, 0});
  std::vector<Flow> grouped = {{0.1, 1, 0, 6}};
  ASSERT_TRUE(policy.Assign(apart, 0.6));
  ASSERT_TRUE(policy.Assign(grouped, 0.6));
  for (const Flow& f : apart) EXPECT_EQ(f.rate, grouped[0].rate);
  EXPECT_EQ(grouped[0].rate, 0.1);
  // And 0.1 added fifteen times is 1.5000000000000002 > 1.5 = 0.1 * 15:
  // the flows apart share HBM, so the group is refused.
  std::vector<Flow> over = {{0.1, 1, 0, 15}};
  EXPECT_FALSE(policy.Assign(over, 1.5));
  std::vector<Flow> over_apart(15, Flow{0.1, 1, 0});
  ASSERT_TRUE(policy.Assign(over_apart, 1.5));
  EXPECT_LT(over_apart.back().rate, 0.1);
}

TEST(FairShareGroupsTest, GroupsInFlowOrderMatchTheFlowsApart) {
  FairShareHbmPolicy policy;
  std::vector<Flow> grouped = {{3, 0.5, 0, 4}, {3, 1, 0, 1}, {2, 0.25, 0, 3}};
  std::vector<Flow> apart;
  for (const Flow& f : grouped) {
    for (int c = 0; c < f.count; ++c) apart.push_back({f.cap, f.hbm_weight, 0});
  }
  ASSERT_TRUE(policy.Assign(grouped, 100));
  ASSERT_TRUE(policy.Assign(apart, 100));
  size_t a = 0;
  for (const Flow& f : grouped) {
    for (int c = 0; c < f.count; ++c) EXPECT_EQ(apart[a++].rate, f.rate);
  }
}

// ------------------------------------- grouped against share by share

// Everything a kernel run delivers, in delivery order per kind.
struct Recorder : SimListener {
  std::vector<std::pair<uint32_t, double>> starts;
  std::vector<BusySpan> spans;
  std::vector<DmaCompletion> dma;
  void BusyStart(uint32_t lane, double t) override {
    starts.emplace_back(lane, t);
  }
  void Busy(const BusySpan& s) override { spans.push_back(s); }
  void DmaDone(const DmaCompletion& d) override { dma.push_back(d); }
};

// Hands a metrics accumulator one lane at a time (the default group calls),
// as it was fed before groups.
struct OneLaneAtATime : SimListener {
  explicit OneLaneAtATime(MetricsAccumulator& a) : acc(a) {}
  void BusyStart(uint32_t lane, double t) override { acc.BusyStart(lane, t); }
  void Busy(const BusySpan& s) override { acc.Busy(s); }
  MetricsAccumulator& acc;
};

// A kernel of random transfers (every partition count, rows fewer or more
// than partitions, transposes, empty ones) and compute instructions, with
// random dependencies, so transfers overlap, queue and share HBM.
Kernel RandomKernel(uint64_t key, int n) {
  CounterRng rng(key);
  Kernel k;
  const int64_t parts[] = {1, 3, 4, 8, 31, 32, 33, 40, 64, 100, 127, 128};
  const int64_t row_bytes[] = {0, 100, 1000, 2048, 4097};
  for (int i = 0; i < n; ++i) {
    std::vector<uint32_t> deps;
    for (int d = 0; d < 2 && i > 0; ++d) {
      if (rng.NextBelow(3) == 0) {
        deps.push_back(static_cast<uint32_t>(rng.NextBelow(i)));
      }
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    Instruction in;
    in.label = k.Intern("tile");
    if (rng.NextBelow(3) != 0) {
      in.kind = InstrKind::kDma;
      in.opcode = k.Intern("dma");
      in.partitions = static_cast<int32_t>(parts[rng.NextBelow(12)]);
      const uint64_t shape = rng.NextBelow(3);
      in.aux = shape == 0   ? in.partitions
               : shape == 1 ? 1 + static_cast<int64_t>(rng.NextBelow(200))
                            : in.partitions * 3;
      in.work = in.aux * row_bytes[rng.NextBelow(5)];
      in.transpose = rng.NextBelow(4) == 0;
      // Three DMA statements, so that queues alternate and repeat (model
      // 12's gap); drawn from nothing, so other profiles see the same runs.
      in.source_line = i % 3;
    } else {
      in.kind = InstrKind::kCompute;
      in.opcode = k.Intern("op");
      in.engine = static_cast<Engine>(rng.NextBelow(kNumEngines));
      in.rule =
          rng.NextBelow(2) == 0 ? CostRule::kStream : CostRule::kActivation;
      in.dtype = DType::kBf16;
      in.work = 1 + static_cast<int64_t>(rng.NextBelow(4000));
    }
    k.Add(in, deps);
  }
  return k;
}

void ExpectSameRun(const Kernel& k, const DeviceProfile& p, double t0,
                   uint64_t seed) {
  FairShareHbmPolicy policy;
  const KernelSim grouped(k, p, policy);
  const KernelSim apart(k, p, policy, {.group_shares = false});
  Recorder g, a;
  CounterRng rg(seed), ra(seed);
  EXPECT_EQ(grouped.Run(rg, t0, 0, g), apart.Run(ra, t0, 0, a));
  ASSERT_EQ(g.starts, a.starts);
  ASSERT_EQ(g.spans.size(), a.spans.size());
  for (size_t i = 0; i < g.spans.size(); ++i) {
    const BusySpan& x = g.spans[i];
    const BusySpan& y = a.spans[i];
    ASSERT_EQ(x.lane, y.lane) << i;
    ASSERT_EQ(x.instr, y.instr) << i;
    ASSERT_EQ(x.start_us, y.start_us) << i;
    ASSERT_EQ(x.end_us, y.end_us) << i;
    ASSERT_EQ(x.bytes, y.bytes) << i;
  }
  ASSERT_EQ(g.dma.size(), a.dma.size());
  for (size_t i = 0; i < g.dma.size(); ++i) {
    ASSERT_EQ(g.dma[i].instr, a.dma[i].instr) << i;
    ASSERT_EQ(g.dma[i].issue_us, a.dma[i].issue_us) << i;
    ASSERT_EQ(g.dma[i].data_end_us, a.dma[i].data_end_us) << i;
    ASSERT_EQ(g.dma[i].end_us, a.dma[i].end_us) << i;
  }
  // The accumulator takes groups whole; fed lane by lane from the run
  // without groups, it must reach the same bits.
  MetricsAccumulator whole, lanes;
  whole.Begin(ExecMode::kNki, {"k"});
  lanes.Begin(ExecMode::kNki, {"k"});
  OneLaneAtATime relay(lanes);
  CounterRng rw(seed), rl(seed);
  grouped.Run(rw, t0, 0, whole);
  apart.Run(rl, t0, 0, relay);
  const auto mw = whole.Metrics();
  const auto ml = lanes.Metrics();
  ASSERT_EQ(mw.size(), ml.size());
  for (size_t i = 0; i < mw.size(); ++i) {
    EXPECT_EQ(mw[i].value, ml[i].value) << mw[i].name;
  }
}

TEST(GroupedSharesTest, SameEventsAndMetricsAsShareByShare) {
  std::vector<DeviceProfile> profiles = {
      // 4 engines, HBM for two: shares contend, groups are refused.
      TestProfileWith({}),
      TestProfileWith(
          {{"hbm_gbps", 1000}, {"dma_descriptor_overhead_bytes", 300}}),
      TestProfileWith({{"dma_queues", 16},
                       {"hbm_gbps", 150},
                       {"dma_descriptor_overhead_bytes", 2040}}),
      // One partition per engine: groups span two words of engine bits.
      TestProfileWith({{"dma_queues", 128}, {"hbm_gbps", 5000}}),
      TestProfileWith({{"dma_queues", 100}, {"hbm_gbps", 600}}),
      TestProfileWith({{"dma_issue_us", 0.3}, {"dma_issuers", 2}}),
      // Model 12: engines pause between transfers of one queue, and each
      // engine's wait differs with what it served last.
      TestProfileWith({{"dma_queue_gap_us", 0.7}}),
      TestProfileWith({{"dma_queue_gap_us", 0.05}, {"hbm_gbps", 1000}}),
      // HBM below one engine's rate: even a share alone is held back.
      TestProfileWith({{"hbm_gbps", 5}}),
  };
  auto trn1 = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                                "/device_model/profiles/trn1.json");
  ASSERT_TRUE(trn1.ok()) << trn1.status();
  profiles.push_back(*trn1);
  for (size_t p = 0; p < profiles.size(); ++p) {
    for (uint64_t key = 1; key <= 12; ++key) {
      SCOPED_TRACE(::testing::Message()
                   << "profile " << p << " kernel " << key);
      const Kernel k = RandomKernel(key * 1000 + p, 80);
      // Late starts make times large, so a share's end is rounded more
      // coarsely than the tolerance that ends the shares with it.
      for (double t0 : {0.0, 12345.678, 3.0e8}) {
        ExpectSameRun(k, profiles[p], t0, key);
      }
    }
  }
}

// A rate found for a group moving alone is reused only for the same piece
// and count: here a transfer's first share moves alone (the others went
// ahead while it queued behind another transfer), and then a
// transfer of the same shape moves alone with all four shares, which HBM
// must split four ways.
TEST(GroupedSharesTest, AGroupAloneGetsTheRateOfItsOwnCount) {
  const DeviceProfile p = TestProfileWith({{"hbm_gbps", 5}});
  Kernel k;
  auto dma = [&k](int32_t partitions, int64_t row_bytes,
                  std::vector<uint32_t> deps) {
    Instruction in;
    in.kind = InstrKind::kDma;
    in.opcode = k.Intern("dma");
    in.label = k.Intern("tile");
    in.partitions = partitions;
    in.aux = partitions;
    in.work = partitions * row_bytes;
    return k.Add(in, deps);
  };
  const uint32_t first = dma(32, 3000, {});   // engine 0, longest
  const uint32_t whole = dma(128, 1000, {});  // engine 0 queued
  dma(128, 1000, {first, whole});
  ExpectSameRun(k, p, 0.0, 1);
}

// The exp kernel's tiles: every transfer is sixteen alike shares on idle
// engines, the case grouping is for.
TEST(GroupedSharesTest, TiledTransfersOnTrn1) {
  auto trn1 = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                                "/device_model/profiles/trn1.json");
  ASSERT_TRUE(trn1.ok()) << trn1.status();
  Kernel k;
  uint32_t prev = 0;
  for (int tile = 0; tile < 50; ++tile) {
    const Instruction load = testing::TileLoad(k, 128 * 2048);
    const uint32_t l =
        tile == 0 ? k.Add(load, {}) : k.Add(load, std::vector<uint32_t>{prev});
    Instruction exp;
    exp.kind = InstrKind::kCompute;
    exp.engine = Engine::kScalar;
    exp.rule = CostRule::kActivation;
    exp.work = 512;
    exp.opcode = k.Intern("exp");
    exp.label = load.label;
    const uint32_t e = k.Add(exp, {l});
    Instruction store = load;
    store.opcode = k.Intern("dma_store");
    prev = k.Add(store, {e});
  }
  ExpectSameRun(k, *trn1, 0.0, 3);
  ExpectSameRun(k, *trn1, 3.0e8, 4);
}

// A tile loop's transfers queued behind one another on all sixteen engines,
// from one, two or three DMA statements in turn (the NKI matmul
// tutorial's): every engine takes the next run whole as its piece ends
// (DmaQueues::PopWhole, the simulator's finish without its callback), with
// and without model 12's gap, which the engines that go on at once wait out
// from the end of their last piece (ending_queue). Share by share, no run
// is whole. (Here and in SameEventsAndMetricsAsShareByShare, a lone group
// of sixteen takes the run loop's path for one group, which the sixteen
// shares apart never do: a remaining work stored 1e-12 off there fails
// both.)
TEST(GroupedSharesTest, QueuedTileLoopsOnTrn1) {
  auto trn1 = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                                "/device_model/profiles/trn1.json");
  ASSERT_TRUE(trn1.ok()) << trn1.status();
  DeviceProfile no_gap = *trn1;
  no_gap.dma_queue_gap_us = 0;
  for (int statements : {1, 2, 3}) {
    Kernel k;
    uint32_t last_load = 0;
    for (int tile = 0; tile < 40; ++tile) {
      Instruction load =
          testing::TileLoad(k, 128 * (tile % 5 == 4 ? 512 : 2048));
      load.source_line = tile % statements;
      // All ready at once, but every tenth after the one before: the
      // queues drain and fill again.
      last_load = tile % 10 == 9 ? k.Add(load, std::vector<uint32_t>{last_load})
                                 : k.Add(load, {});
    }
    SCOPED_TRACE(::testing::Message() << statements << " statements");
    ExpectSameRun(k, *trn1, 0.0, 5);
    ExpectSameRun(k, *trn1, 3.0e8, 6);
    ExpectSameRun(k, no_gap, 0.0, 7);
  }
}

}  // namespace
}  // namespace trn
