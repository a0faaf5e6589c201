// The schedule's runs (harness/runner/results.h, Schedule): skipped and
// warm-up runs are not simulated, and they move the recorded runs' keys
// exactly as they did when warm-up runs were simulated and discarded.
#include <cstdint>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

class ScheduleTest : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() {
    auto p = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                               "/device_model/profiles/trn1.json");
    ASSERT_TRUE(p.ok()) << p.status();
    profile_ = new DeviceProfile(*std::move(p));
    auto s = LoadSpecDir(std::string(TRNBENCH_SOURCE_DIR) + "/workloads/specs",
                         profile_->memory);
    ASSERT_TRUE(s.ok()) << s.status();
    for (const auto& spec : *s) {
      // DMA latencies drawn per run: every run's samples differ.
      if (spec.name == "exp_tiled") spec_ = new WorkloadSpec(spec);
    }
    ASSERT_NE(spec_, nullptr);
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
    auto r = RunWorkload(*spec_, *profile_, o);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return out;
    const MetricResult* m = r->Find("device_time_us");
    EXPECT_NE(m, nullptr);
    if (m != nullptr) out.samples = m->samples;
    return out;
  }

  static DeviceProfile* profile_;
  static WorkloadSpec* spec_;
};

DeviceProfile* ScheduleTest::profile_ = nullptr;
WorkloadSpec* ScheduleTest::spec_ = nullptr;

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
