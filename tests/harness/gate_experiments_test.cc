// The gate's statistical claims, measured on the model itself (the figures
// in docs/statistics.md come from this file's output):
// - A/A: fresh-seed runs of unchanged workloads against the checked-in
//   baselines raise a false alarm in at most 5% of gate runs, and no single
//   comparison's false-alarm rate exceeds alpha;
// - power: a 5% slowdown injected through a profile parameter is called a
//   regression in at least 95% of fresh-seed runs at --repeat 100;
// - coverage: the 95% interval on the change covers a known true ratio in
//   93-97% of 1000 trials.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/runner/runner.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

constexpr int kRuns = 200;  // fresh seeds per experiment
constexpr int64_t kRepeat = 100;

struct Fixture {
  DeviceProfile profile;
  std::vector<WorkloadSpec> specs;
  std::vector<Baseline> baselines;
};

const Fixture& Get() {
  static const Fixture* f = [] {
    auto* fx = new Fixture;
    const std::string root = TRNBENCH_SOURCE_DIR;
    fx->profile = *LoadDeviceProfile(root + "/device_model/profiles/trn1.json");
    fx->specs = *LoadSpecDir(root + "/workloads/specs", fx->profile.memory);
    for (const auto& s : fx->specs) {
      auto b = LoadBaselineOrResults(
          BaselinePath(root + "/baselines/trn1", s.name), 0.95);
      if (b.ok()) fx->baselines.push_back(b->front());
    }
    return fx;
  }();
  return *f;
}

RunResult RunAll(const DeviceProfile& profile,
                 const std::vector<const WorkloadSpec*>& specs, uint64_t seed) {
  RunOptions o;
  o.seed = seed;
  o.schedule.repeat = kRepeat;
  RunResult run;
  run.device = profile.name;
  run.device_hash = profile.content_hash;
  run.seed = seed;
  run.schedule = o.schedule;
  for (const WorkloadSpec* s : specs) {
    auto r = RunWorkload(*s, profile, o);
    EXPECT_TRUE(r.ok()) << r.status();
    run.workloads.push_back(*std::move(r));
  }
  return run;
}

std::vector<const WorkloadSpec*> AllSpecs() {
  std::vector<const WorkloadSpec*> v;
  for (const auto& s : Get().specs) v.push_back(&s);
  return v;
}

TEST(GateExperiments, BaselinesAreCheckedInForEveryShippedWorkload) {
  ASSERT_EQ(Get().baselines.size(), Get().specs.size())
      << "refresh with: ./build/trnbench --workload all --repeat 100 "
         "--save-baseline";
  for (const auto& b : Get().baselines) {
    EXPECT_EQ(b.schedule.repeat, kRepeat) << b.workload;
    EXPECT_EQ(b.device, "trn1");
    EXPECT_EQ(b.model_version, kModelVersion)
        << b.workload << ": baseline predates the model; refresh it";
  }
}

TEST(GateExperiments, AaFalseAlarmRateAndMinimumDetectableChange) {
  const Fixture& f = Get();
  ASSERT_FALSE(f.baselines.empty());
  int suite_alarms = 0;
  std::map<std::string, int> regressions;
  std::map<std::string, int> improvements;
  std::map<std::string, int> inconclusive;
  std::map<std::string, std::vector<double>> lower_half;  // change - ci_low
  int comparisons = 0;
  for (int k = 0; k < kRuns; ++k) {
    // Seeds 1000.. never equal the baselines' seed 1: independent samples.
    RunResult run =
        RunAll(f.profile, AllSpecs(), 1000 + static_cast<uint64_t>(k));
    auto report = CompareWithBaselines(run, f.baselines, CompareOptions{});
    ASSERT_TRUE(report.ok()) << report.status();
    comparisons = static_cast<int>(report->comparisons);
    suite_alarms += report->AnyRegression();
    for (const auto& c : report->rows) {
      const std::string key = c.workload + " " + c.metric;
      regressions[key] += c.verdict == Verdict::kRegression;
      improvements[key] += c.verdict == Verdict::kImprovement;
      inconclusive[key] += c.verdict == Verdict::kInconclusive;
      EXPECT_FALSE(c.paired);
      const double worse_low = c.lower_is_better
                                   ? c.change - c.change_interval.low
                                   : c.change_interval.high - c.change;
      lower_half[key].push_back(worse_low);
    }
  }
  const double rate = static_cast<double>(suite_alarms) / kRuns;
  std::printf(
      "A/A over %d fresh seeds, %d comparisons per gate run, repeat %lld:\n",
      kRuns, comparisons, static_cast<long long>(kRepeat));
  std::printf("  whole-suite false-alarm rate: %d/%d = %.3f\n", suite_alarms,
              kRuns, rate);
  std::printf("  %-34s %8s %8s %8s %10s\n", "comparison", "regr", "impr",
              "inconcl", "MDC");
  for (auto& [key, halves] : lower_half) {
    std::sort(halves.begin(), halves.end());
    // A true change is called once its interval clears the threshold:
    // change - half-width > threshold in 95% of runs.
    const double mdc =
        0.02 + halves[static_cast<size_t>(
                   0.95 * static_cast<double>(halves.size() - 1))];
    std::printf("  %-34s %8.3f %8.3f %8.3f %9.2f%%\n", key.c_str(),
                regressions[key] / double{kRuns},
                improvements[key] / double{kRuns},
                inconclusive[key] / double{kRuns}, mdc * 100);
    EXPECT_LE(regressions[key] / double{kRuns}, 0.05) << key;
    EXPECT_LE(improvements[key] / double{kRuns}, 0.05) << key;
  }
  EXPECT_LE(rate, 0.05);
}

// The slowdown is injected through the parameter that carries each
// workload's device time, scaled so the paired (same-seed) median change is
// 5.0%: the true effect is known before the fresh-seed trials start.
struct Injection {
  const char* workload;
  const char* metric;
  const char* param;
};

double PairedMedianChange(const WorkloadSpec& spec, const DeviceProfile& base,
                          const DeviceProfile& slow, const char* metric) {
  RunOptions o;
  o.schedule.repeat = 400;
  auto a = RunWorkload(spec, base, o);
  auto b = RunWorkload(spec, slow, o);
  return b->Find(metric)->summary.median / a->Find(metric)->summary.median - 1;
}

TEST(GateExperiments, PowerAgainstAFivePercentSlowdown) {
  const Fixture& f = Get();
  const Injection injections[] = {
      {"rmsnorm_naive", "device_time_us", "op_exec_overhead_us"},
      {"rmsnorm_fused", "device_time_us", "op_exec_overhead_us"},
      {"rmsnorm_compiled", "device_time_us", "graph_exec_overhead_us"},
      {"exp_tiled", "ncl_us", "dma_latency_us"},
  };
  for (const Injection& inj : injections) {
    const WorkloadSpec* spec = nullptr;
    for (const auto& s : f.specs) {
      if (s.name == inj.workload) spec = &s;
    }
    ASSERT_NE(spec, nullptr) << inj.workload;
    const double median =
        f.profile.params.find(inj.param)->second.dist.Median();
    // Bisect the parameter's scale until the true change is 5.0%.
    double lo = 1.0;
    double hi = 1.5;
    DeviceProfile slow = f.profile;
    for (int it = 0; it < 30; ++it) {
      double mid = (lo + hi) / 2;
      slow = f.profile;
      ASSERT_TRUE(
          OverrideParam(slow, inj.param, median * mid, "the experiment").ok());
      double change = PairedMedianChange(*spec, f.profile, slow, inj.metric);
      (change < 0.05 ? lo : hi) = mid;
    }
    slow = f.profile;
    ASSERT_TRUE(
        OverrideParam(slow, inj.param, median * hi, "the experiment").ok());
    const double true_change =
        PairedMedianChange(*spec, f.profile, slow, inj.metric);
    int caught = 0;
    for (int k = 0; k < kRuns; ++k) {
      RunResult run = RunAll(slow, {spec}, 5000 + static_cast<uint64_t>(k));
      auto report = CompareWithBaselines(run, f.baselines, CompareOptions{});
      ASSERT_TRUE(report.ok()) << report.status();
      for (const auto& c : report->rows) {
        if (c.metric == inj.metric) caught += c.verdict == Verdict::kRegression;
      }
    }
    const double power = caught / double{kRuns};
    std::printf(
        "power: %-17s %-15s --set %s=%.3f (x%.4f, true change %+.2f%%): "
        "%d/%d = %.3f\n",
        inj.workload, inj.metric, inj.param, median * hi, hi, true_change * 100,
        caught, kRuns, power);
    EXPECT_GE(power, 0.95) << inj.workload;
  }
}

TEST(GateExperiments, IntervalCoverageOfAKnownRatio) {
  const Fixture& f = Get();
  const int kTrials = std::getenv("TRN_COVERAGE_TRIALS")
                          ? std::atoi(std::getenv("TRN_COVERAGE_TRIALS"))
                          : 1000;
  constexpr double kRatio = 1.03;
  for (const char* name : {"rmsnorm_fused", "exp_tiled"}) {
    const WorkloadSpec* spec = nullptr;
    for (const auto& s : f.specs) {
      if (s.name == name) spec = &s;
    }
    ASSERT_NE(spec, nullptr);
    const char* metric =
        spec->mode == ExecMode::kNki ? "latency_us" : "device_time_us";
    int covered = 0;
    for (int t = 0; t < kTrials; ++t) {
      RunOptions o;
      o.schedule.repeat = kRepeat;
      o.seed = 20000 + 2 * static_cast<uint64_t>(t);
      auto a = RunWorkload(*spec, f.profile, o);
      o.seed += 1;
      auto b = RunWorkload(*spec, f.profile, o);
      // The current side is drawn from the same distribution scaled by a
      // known ratio, so the true ratio of medians is exactly kRatio.
      std::vector<double> cur = b->Find(metric)->samples;
      for (double& x : cur) x *= kRatio;
      MetricComparison c = CompareSamples(a->Find(metric)->samples, cur,
                                          /*paired=*/false, 0.95);
      covered += (1 + c.change_interval.low) <= kRatio &&
                 kRatio <= (1 + c.change_interval.high);
    }
    const double coverage = static_cast<double>(covered) / kTrials;
    std::printf(
        "coverage: %-14s %-15s 95%% interval covers x%.2f in %d/%d = %.3f\n",
        name, metric, kRatio, covered, kTrials, coverage);
    EXPECT_GE(coverage, 0.93) << name;
    EXPECT_LE(coverage, 0.97) << name;
  }
}

}  // namespace
}  // namespace trn
