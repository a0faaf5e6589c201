// Shared helpers of the report writer tests: a real run of the shipped
// specs, a comparison with the shipped baselines, and running the binary.
#ifndef TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_
#define TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/runner/runner.h"
#include "tests/run_trnbench.h"
#include "workloads/loading/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn::report_test {

inline std::string SourceDir() { return TRNBENCH_SOURCE_DIR; }

// The workloads of the two published walkthroughs, which have checked-in
// baselines; tests name them rather than "all", which grows.
inline constexpr char kSeeds[] = "rmsnorm,exp_tiled";

// A fresh, empty folder for one test.
inline std::string FreshDir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/trn_reports_" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

using test::Outcome;
using test::RunTrnbench;
using test::Slurp;

// Non-overlapping occurrences of `what` in `s`.
inline int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos;
       p = s.find(what, p + what.size())) {
    ++n;
  }
  return n;
}

inline DeviceProfile Trn1() {
  auto p = LoadDeviceProfile(SourceDir() + "/device_model/profiles/trn1.json");
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

// The shipped specs matching `selector`, ordered as the command line orders
// them: by family (first appearance), then execution mode, then name.
inline std::vector<WorkloadSpec> Specs(const std::string& selector,
                                       const DeviceProfile& profile) {
  auto all = LoadSpecDir(SourceDir() + "/workloads/specs", profile.memory);
  EXPECT_TRUE(all.ok()) << all.status();
  auto chosen = SelectWorkloads(*all, selector);
  EXPECT_TRUE(chosen.ok()) << chosen.status();
  std::vector<WorkloadSpec> specs = *chosen;
  std::vector<std::string> families;
  for (const auto& s : specs) {
    if (std::find(families.begin(), families.end(), s.family) ==
        families.end()) {
      families.push_back(s.family);
    }
  }
  auto rank = [&](const std::string& f) {
    return std::find(families.begin(), families.end(), f) - families.begin();
  };
  std::stable_sort(specs.begin(), specs.end(),
                   [&](const WorkloadSpec& a, const WorkloadSpec& b) {
                     if (rank(a.family) != rank(b.family)) {
                       return rank(a.family) < rank(b.family);
                     }
                     if (a.mode != b.mode) return a.mode < b.mode;
                     return a.name < b.name;
                   });
  return specs;
}

inline RunResult MakeRun(const std::string& selector, int64_t repeat,
                         uint64_t seed = 1) {
  const DeviceProfile profile = Trn1();
  RunOptions opts;
  opts.seed = seed;
  opts.schedule.repeat = repeat;
  RunResult run;
  run.trnbench_version = "test";
  run.device = profile.name;
  run.device_hash = profile.content_hash;
  run.seed = seed;
  run.schedule = opts.schedule;
  run.confidence = opts.confidence;
  for (const auto& spec : Specs(selector, profile)) {
    auto r = RunWorkload(spec, profile, opts);
    EXPECT_TRUE(r.ok()) << r.status();
    run.workloads.push_back(*std::move(r));
  }
  ComputeSpeedups(run, "device_time_us");
  return run;
}

// The run compared with baselines made from `base` (another run, e.g. with
// another seed), as the gate would.
inline ComparisonReport MakeComparison(const RunResult& run,
                                       const RunResult& base,
                                       std::vector<Baseline>* baselines) {
  *baselines = BaselinesFromRun(base, "", "");
  CompareOptions o;
  o.source = "baselines/test";
  auto c = CompareWithBaselines(run, *baselines, o);
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

}  // namespace trn::report_test

#endif  // TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_
