// Shared helpers of the report writer tests: a real run of the shipped
// specs, a comparison with the shipped baselines, and running the binary.
#ifndef TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_
#define TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "device_model/device_profile.h"
#include "gtest/gtest.h"
#include "harness/baseline_store.h"
#include "harness/comparison.h"
#include "harness/runner.h"
#include "workloads/spec_catalog.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif
#ifndef TRNBENCH_BINARY
#define TRNBENCH_BINARY "trnbench"
#endif

namespace trn::report_test {

inline std::string SourceDir() { return TRNBENCH_SOURCE_DIR; }

// The workloads of the two published walkthroughs, which have checked-in
// baselines; tests name them rather than "all", which grows.
inline constexpr char kSeeds[] = "rmsnorm,exp_tiled";

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh, empty folder for one test.
inline std::string FreshDir(const std::string& name) {
  const std::string d = ::testing::TempDir() + "/trn_reports_" + name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs the binary with `args` through the shell; `prefix` goes before it
// (environment assignments, `ulimit -f`, `trap`), in that shell only.
inline Outcome RunTrnbench(const std::string& args,
                           const std::string& prefix = "") {
  static int counter = 0;
  const std::string dir = ::testing::TempDir();
  const std::string tag =
      std::to_string(getpid()) + "_" + std::to_string(counter++);
  const std::string out = dir + "/rep_out_" + tag;
  const std::string err = dir + "/rep_err_" + tag;
  // A CI job's own step summary must not collect the tests' reports.
  const std::string cmd = "unset GITHUB_STEP_SUMMARY; " + prefix + " " +
                          std::string(TRNBENCH_BINARY) + " " + args + " >" +
                          out + " 2>" + err + " </dev/null";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = Slurp(out);
  o.err = Slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return o;
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
  std::vector<double> thresholds(run.workloads.size(),
                                 std::numeric_limits<double>::quiet_NaN());
  auto c = CompareWithBaselines(run, *baselines, thresholds, o);
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

}  // namespace trn::report_test

#endif  // TRNBENCH_TESTS_REPORTS_REPORT_TEST_UTIL_H_
