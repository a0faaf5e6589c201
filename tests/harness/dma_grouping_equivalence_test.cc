// The simulator computes the alike DMA shares of a transfer once, as a
// group (device_model/dma_groups.h), and leaves out dependencies another
// one implies (KernelSim::TimingEdges); the model defines every share on
// its own and every dependency. This holds the two to the bit on every kernel
// the project ships and validates against, on both devices, at several seeds:
// every event a listener receives, lane by lane, and every metric.
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "device_model/metrics_accumulator.h"
#include "device_model/simulator.h"
#include "gtest/gtest.h"
#include "workloads/compiler/compiler.h"
#include "workloads/loading/spec_catalog.h"
#include "workloads/lowering/lowering.h"
#include "workloads/spec/spec_validator.h"

namespace trn {
namespace {

// A digest of every event delivered, with groups taken apart lane by lane
// (the SimListener defaults): the spans, completions and host spans in one
// sequence (what a timeline records), and the span starts in another. The
// two sequences are each the same on both paths; how a start and an end of
// one instant interleave is not (the metrics do not depend on it).
class Digest : public MetricsAccumulator {
 public:
  void BusyStart(uint32_t lane, double t_us) override {
    starts = Next(starts, 1, lane, t_us);
    MetricsAccumulator::BusyStart(lane, t_us);
  }
  void Busy(const BusySpan& s) override {
    Mix(2, s.lane, s.start_us);
    Mix(3, s.instr, s.end_us);
    Mix(4, static_cast<uint64_t>(s.bytes), 0);
    MetricsAccumulator::Busy(s);
  }
  void BusyStartGroup(uint32_t first_lane, int count, double t_us) override {
    SimListener::BusyStartGroup(first_lane, count, t_us);
  }
  void BusyGroup(const BusySpan& span, int count) override {
    SimListener::BusyGroup(span, count);
  }
  void DmaDone(const DmaCompletion& d) override {
    Mix(5, d.instr, d.issue_us);
    Mix(6, d.instr, d.data_end_us);
    Mix(7, d.instr, d.end_us);
    MetricsAccumulator::DmaDone(d);
  }
  void Host(const HostSpan& s) override {
    Mix(8, s.lane, s.start_us);
    Mix(9, s.lane, s.end_us);
    MetricsAccumulator::Host(s);
  }

  uint64_t hash = 0xcbf29ce484222325ULL;
  uint64_t starts = 0xcbf29ce484222325ULL;
  int64_t events = 0;

 private:
  uint64_t Next(uint64_t h, uint64_t tag, uint64_t a, double b) {
    for (uint64_t w : {tag, a, std::bit_cast<uint64_t>(b)}) {
      h = (h ^ w) * 0x100000001b3ULL;
      h ^= h >> 29;
    }
    ++events;
    return h;
  }
  void Mix(uint64_t tag, uint64_t a, double b) { hash = Next(hash, tag, a, b); }
};

DeviceProfile Load(const std::string& name) {
  auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                             "/device_model/profiles/" + name + ".json");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : DeviceProfile{};
}

TEST(DmaGroupingEquivalenceTest, GroupsGiveWhatSharesApartGiveOnEveryKernel) {
  int compared = 0;
  for (const std::string device : {"trn1", "trn2"}) {
    const DeviceProfile profile = Load(device);
    for (const std::string dir : {"workloads/specs", "workloads/validation"}) {
      auto specs = LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/" + dir,
                               profile.memory);
      ASSERT_TRUE(specs.ok()) << specs.status();
      for (WorkloadSpec& spec : *specs) {
        // A kernel that does not fit this device's memory is not run on it.
        if (!CompileSpec(spec, profile.memory).ok()) continue;
        auto program = Lower(spec, profile);
        if (!program.ok()) continue;
        auto grouped = Simulator::Create(*program, profile);
        // The model as defined: every share on its own, every dependency
        // handled (SimOptions).
        auto apart = Simulator::Create(
            *program, profile,
            {.group_shares = false, .skip_implied_edges = false});
        ASSERT_TRUE(grouped.ok() && apart.ok()) << spec.name;
        for (uint64_t seed : {1, 7, 20261201}) {
          Digest g, a;
          grouped->Run(seed, 3, g);
          apart->Run(seed, 3, a);
          const std::string what =
              spec.name + " on " + device + " seed " + std::to_string(seed);
          ASSERT_GT(g.events, 0) << what;
          EXPECT_EQ(g.events, a.events) << what;
          EXPECT_EQ(g.hash, a.hash) << what;
          EXPECT_EQ(g.starts, a.starts) << what;
          const auto mg = g.Metrics();
          const auto ma = a.Metrics();
          ASSERT_EQ(mg.size(), ma.size()) << what;
          for (size_t i = 0; i < mg.size(); ++i) {
            EXPECT_EQ(std::bit_cast<uint64_t>(mg[i].value),
                      std::bit_cast<uint64_t>(ma[i].value))
                << what << " " << mg[i].name;
          }
          ++compared;
        }
      }
    }
  }
  // 14 shipped and 23 validation specs on two devices, three seeds each;
  // a few do not fit one device.
  EXPECT_GE(compared, 150);
}

}  // namespace
}  // namespace trn
