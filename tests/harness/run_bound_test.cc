// The bound on a whole command's simulated work (harness/runner/runner.h,
// kMaxSimulatedInstructions and kRunOverheadInstructions; issue 26): each
// run counts its instructions and a fixed overhead, the whole command is
// bounded, and a refusal comes before any run is simulated.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "tests/harness/shipped_inputs.h"
#include "workloads/loading/shape_override.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

class RunBoundTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shipped_ = test::Shipped();
    ASSERT_NE(shipped_, nullptr);
    profile_ = &shipped_->profile;
  }

  static WorkloadSpec Spec(const std::string& name) {
    return shipped_->Spec(name);
  }

  static const test::ShippedInputs* shipped_;
  static const DeviceProfile* profile_;
};

const test::ShippedInputs* RunBoundTest::shipped_ = nullptr;
const DeviceProfile* RunBoundTest::profile_ = nullptr;

TEST(SimulatedWorkTest, EachRunCountsItsInstructionsAndTheOverhead) {
  EXPECT_EQ(SimulatedWork(10, 100), 100 * (10 + kRunOverheadInstructions));
  EXPECT_EQ(SimulatedWork(0, 3), 3 * kRunOverheadInstructions);
  EXPECT_EQ(SimulatedWork(10, 0), 0);
  // Saturates instead of wrapping.
  EXPECT_EQ(SimulatedWork(std::numeric_limits<int64_t>::max() / 2, 4),
            std::numeric_limits<int64_t>::max());
}

// The runs' overhead alone decides, before any spec is lowered: these
// specs are empty (no tensors, no kernel) and could not be lowered at all.
TEST(SimulatedWorkTest, TheOverheadAloneRefusesWithoutLowering) {
  Schedule s;
  s.warmup = 0;
  s.repeat = 1'000'000;
  const std::vector<WorkloadSpec> forty(40);
  const absl::Status refused = CheckRunOverhead(forty, s, "the run");
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(),
              HasSubstr("`repeat`=1000000: the run of 40 "
                        "workloads would simulate more than the 2000000000 "
                        "instructions one command may"));
  // Half as many fit: 20 x 1000000 x 64 < 2e9.
  const std::vector<WorkloadSpec> twenty(20);
  EXPECT_TRUE(CheckRunOverhead(twenty, s, "the run").ok());
  // Profile runs each workload twice (its what-if).
  EXPECT_FALSE(CheckRunOverhead(twenty, s, "profile", /*passes=*/2).ok());
}

// Warm-up runs are not simulated (Schedule::SimulatedRuns), so they count
// for nothing: a million of them before one recorded run fits any command.
TEST(SimulatedWorkTest, WarmUpRunsCountForNothing) {
  Schedule s;
  s.warmup = 1'000'000;
  s.wait = 1'000'000;
  s.repeat = 1;
  EXPECT_EQ(s.SimulatedRuns(), 1);
  const std::vector<WorkloadSpec> forty(40);
  EXPECT_TRUE(CheckRunOverhead(forty, s, "profile", /*passes=*/2).ok());
}

// Two workloads that each fit the per-workload bound but not together: the
// whole run is refused, and before a single run is simulated.
TEST_F(RunBoundTest, TheWholeRunIsBoundedBeforeAnythingRuns) {
  RunOptions o;
  o.jobs = 1;
  o.schedule.warmup = 0;
  o.schedule.repeat = 1'000'000;
  int runs = 0;
  o.on_run = [&runs] { ++runs; };
  const std::vector<WorkloadSpec> both = {Spec("exp_size4_32768x2048"),
                                          Spec("matmul_bf16_2048")};
  // 1280 and 1121 instructions a run: 1.34e9 and 1.19e9 work alone.
  for (const WorkloadSpec& one : both) {
    EXPECT_TRUE(
        CheckSimulatedWork({one}, *profile_, o.schedule, "the run").ok())
        << one.name;
  }
  auto run = RunAll(both, *profile_, o, "test");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(run.status().message(),
              HasSubstr("the run of 2 workloads would simulate more than"));
  EXPECT_EQ(runs, 0);
  // The same bound from the check that lowers (profile's).
  EXPECT_FALSE(CheckSimulatedWork(both, *profile_, o.schedule, "the run").ok());
  // The same at any number of jobs.
  o.jobs = 4;
  auto parallel = RunAll(both, *profile_, o, "test");
  ASSERT_FALSE(parallel.ok());
  EXPECT_EQ(parallel.status().message(), run.status().message());
  EXPECT_EQ(runs, 0);
}

// One workload past the bound alone is named by its file, as before: the
// largest shipped spec at twice its rows, 2560 instructions a run.
TEST_F(RunBoundTest, OneWorkloadPastTheBoundNamesItsFile) {
  RunOptions o;
  o.jobs = 1;
  o.schedule.repeat = 1'000'000;
  auto shape = ParseShapeOverride("in_tensor,out_tensor=65536x2048");
  ASSERT_TRUE(shape.ok()) << shape.status();
  auto large = ApplyShapeOverrides({Spec("exp_size4_32768x2048")}, {*shape},
                                   profile_->memory);
  ASSERT_TRUE(large.ok()) << large.status();
  auto run = RunAll(*large, *profile_, o, "test");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(),
              HasSubstr("exp_size4_32768x2048.json: `repeat`=1000000 runs of "
                        "its 2560-instruction program"));
}

// Below the bound nothing changes: a run of both at a small schedule runs
// every repeat, with the programs lowered once and kept for their runs.
TEST_F(RunBoundTest, BelowTheBoundEveryRunRuns) {
  RunOptions o;
  o.jobs = 2;
  o.schedule.warmup = 1;
  o.schedule.repeat = 3;
  int runs = 0;
  o.on_run = [&runs] { ++runs; };
  // Told once what the command will simulate, before its first run.
  int planned_calls = 0;
  int64_t planned = 0;
  int runs_when_planned = -1;
  o.on_planned = [&](int64_t simulated) {
    ++planned_calls;
    planned = simulated;
    runs_when_planned = runs;
  };
  auto run =
      RunAll({Spec("exp_tiled"), Spec("rmsnorm_naive")}, *profile_, o, "test");
  ASSERT_TRUE(run.ok()) << run.status();
  // The recorded runs only: the warm-up is not simulated.
  EXPECT_EQ(runs, 2 * 3);
  EXPECT_EQ(planned_calls, 1);
  EXPECT_EQ(runs_when_planned, 0);
  ASSERT_EQ(run->workloads.size(), 2u);
  // Each of the 3 recorded runs of each workload; nothing for the warm-up.
  EXPECT_EQ(planned, SimulatedWork(run->workloads[0].instructions, 3) +
                         SimulatedWork(run->workloads[1].instructions, 3));
  EXPECT_EQ(run->workloads[0].name, "exp_tiled");
  EXPECT_EQ(run->workloads[1].name, "rmsnorm_naive");
}

// The note a long command prints before it runs (issue 43): the bound's
// 2e9 instructions are minutes, said as such.
TEST(SimulatedWorkTest, TheEstimateIsInMinutesOrSeconds) {
  EXPECT_EQ(SimulatedTimeEstimate(kMaxSimulatedInstructions),
            "about 2e+09 instructions: 2.2 to 4.4 minutes on one core");
  EXPECT_EQ(SimulatedTimeEstimate(300'000'000),
            "about 3e+08 instructions: 20 to 40 seconds on one core");
  EXPECT_LT(kAnnouncedSimulatedInstructions, kMaxSimulatedInstructions);
}

}  // namespace
}  // namespace trn
