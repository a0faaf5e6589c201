// The schedule's runs (harness/runner/results.h, Schedule): skipped and
// warm-up runs are not simulated, and they move the recorded runs' keys
// exactly as they did when warm-up runs were simulated and discarded.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "tests/harness/shipped_inputs.h"

namespace trn {
namespace {

class ScheduleTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    shipped_ = test::Shipped();
    ASSERT_NE(shipped_, nullptr);
  }

  // The recorded samples of `metric` for a schedule, and how many runs
  // were simulated (RunOptions::on_run is called after each).
  struct Recorded {
    std::vector<double> samples;
    int runs = 0;
  };
  static Recorded Run(int64_t wait, int64_t warmup, int64_t repeat, int jobs) {
    RunOptions o;
    o.seed = 11;
    o.jobs = jobs;
    o.schedule.wait = wait;
    o.schedule.warmup = warmup;
    o.schedule.repeat = repeat;
    Recorded out;
    o.on_run = [&out] { ++out.runs; };
    // DMA latencies drawn per run: every run's samples differ.
    auto r = RunWorkload(shipped_->Spec("exp_tiled"), shipped_->profile, o);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return out;
    const MetricResult* m = r->Find("device_time_us");
    EXPECT_NE(m, nullptr);
    if (m != nullptr) out.samples = m->samples;
    return out;
  }

  static const test::ShippedInputs* shipped_;
};

const test::ShippedInputs* ScheduleTest::shipped_ = nullptr;

TEST_P(ScheduleTest, OnlyTheRecordedRunsAreSimulated) {
  const Recorded r = Run(/*wait=*/2, /*warmup=*/5, /*repeat=*/4, GetParam());
  EXPECT_EQ(r.runs, 4);
  EXPECT_EQ(r.samples.size(), 4u);
}

// Recorded run k is keyed wait + warmup + k, whichever of the two moves it:
// the samples are the tail of a longer schedule's, and they differ from run
// to run (so a key that did not move would show).
TEST_P(ScheduleTest, WaitAndWarmupMoveTheKeysAlike) {
  const int jobs = GetParam();
  const Recorded all = Run(0, 0, 9, jobs);
  ASSERT_EQ(all.samples.size(), 9u);
  const std::vector<double> tail(all.samples.begin() + 3, all.samples.end());
  EXPECT_NE(all.samples[0], all.samples[1]);
  EXPECT_EQ(Run(0, 3, 6, jobs).samples, tail);
  EXPECT_EQ(Run(3, 0, 6, jobs).samples, tail);
  EXPECT_EQ(Run(1, 2, 6, jobs).samples, tail);
  EXPECT_NE(Run(0, 2, 6, jobs).samples, tail);
}

INSTANTIATE_TEST_SUITE_P(Jobs, ScheduleTest, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace trn
