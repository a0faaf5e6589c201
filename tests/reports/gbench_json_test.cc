// --format gbench-json: Google Benchmark 1.7.1's JSON output, field for
// field, so tools/compare.py reads it unchanged, and never a bare NaN or
// Infinity.
#include "reports/gbench_json.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::set<std::string> Keys(const json& o) {
  std::set<std::string> k;
  for (auto it = o.begin(); it != o.end(); ++it) k.insert(it.key());
  return k;
}

// What Google Benchmark 1.7.1 writes for each kind of run (observed with
// --benchmark_format=json --benchmark_repetitions=3).
const std::set<std::string> kIterationKeys = {"name",
                                              "family_index",
                                              "per_family_instance_index",
                                              "run_name",
                                              "run_type",
                                              "repetitions",
                                              "repetition_index",
                                              "threads",
                                              "iterations",
                                              "real_time",
                                              "cpu_time",
                                              "time_unit"};
const std::set<std::string> kAggregateKeys = {
    "name",       "family_index",   "per_family_instance_index",
    "run_name",   "run_type",       "repetitions",
    "threads",    "aggregate_name", "aggregate_unit",
    "iterations", "real_time",      "cpu_time",
    "time_unit"};

TEST(GbenchJsonTest, MirrorsGoogleBenchmarkFields) {
  const RunResult run = report_test::MakeRun(report_test::kSeeds, 7);
  // Every time metric, to check each one's fields.
  const std::string text = GbenchJson(run, {"all"});
  const json doc = json::parse(text);
  ASSERT_TRUE(doc["context"].is_object());
  for (const char* k :
       {"executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
        "caches", "load_avg", "library_build_type"}) {
    EXPECT_TRUE(doc["context"].contains(k)) << k;
  }
  // Nothing that differs between identical runs.
  EXPECT_FALSE(doc["context"].contains("date"));
  EXPECT_FALSE(doc["context"].contains("host_name"));
  ASSERT_TRUE(doc["benchmarks"].is_array());

  int iterations = 0;
  std::set<std::string> aggregates;
  for (const json& b : doc["benchmarks"]) {
    std::set<std::string> keys = Keys(b);
    const std::string run_name = b["run_name"];
    const std::string workload = run_name.substr(0, run_name.find('/'));
    const WorkloadResult* w = nullptr;
    for (const auto& r : run.workloads) {
      if (r.name == workload) w = &r;
    }
    ASSERT_NE(w, nullptr) << run_name;
    const bool device = run_name == workload + "/device_time_us";
    if (device) {
      // The workload's other metrics are counters: on every run, and on an
      // aggregate whenever that statistic is defined for them.
      for (const auto& m : w->metrics) {
        if (m.unit == "us") continue;
        bool expected = true;
        if (b["run_type"] == "aggregate") {
          const auto& s = m.summary;
          const std::string agg = b["aggregate_name"];
          const double v = agg == "mean"     ? s.mean
                           : agg == "median" ? s.median
                           : agg == "stddev" ? s.stddev
                                             : s.cv;
          expected = std::isfinite(v);
        }
        EXPECT_EQ(keys.count(m.name), expected ? 1u : 0u)
            << m.name << " on " << b["name"];
        keys.erase(m.name);
      }
    }
    EXPECT_EQ(b["time_unit"], "ns");
    EXPECT_EQ(b["threads"], 1);
    EXPECT_EQ(b["repetitions"], 7);
    if (b["run_type"] == "iteration") {
      EXPECT_EQ(keys, kIterationKeys) << b.dump();
      EXPECT_EQ(b["name"], b["run_name"]);
      EXPECT_EQ(b["iterations"], 1);
      if (device) {
        const int k = b["repetition_index"];
        EXPECT_EQ(b["real_time"].get<double>(),
                  w->Find("device_time_us")->samples[k] * 1000.0);
        EXPECT_EQ(b["real_time"], b["cpu_time"]);
      }
      ++iterations;
    } else {
      ASSERT_EQ(b["run_type"], "aggregate");
      EXPECT_EQ(keys, kAggregateKeys) << b.dump();
      const std::string agg = b["aggregate_name"];
      EXPECT_EQ(b["name"], b["run_name"].get<std::string>() + "_" + agg);
      EXPECT_EQ(b["aggregate_unit"], agg == "cv" ? "percentage" : "time");
      EXPECT_EQ(b["iterations"], 7);
      if (device) {
        aggregates.insert(agg);
        const auto& s = w->Find("device_time_us")->summary;
        const double v = b["real_time"];
        const double want = agg == "mean"     ? s.mean
                            : agg == "median" ? s.median
                            : agg == "stddev" ? s.stddev
                                              : s.cv;
        EXPECT_EQ(v, agg == "cv" ? want : want * 1000.0) << agg;
      }
    }
  }
  EXPECT_EQ(aggregates,
            (std::set<std::string>{"mean", "median", "stddev", "cv"}));
  // Time metrics that are zero in every run (engines the workload never
  // uses) are no benchmarks and are left out.
  int time_metrics = 0;
  for (const auto& w : run.workloads) {
    for (const auto& m : w.metrics) {
      time_metrics += m.unit == "us" && m.summary.max > 0;
    }
  }
  EXPECT_EQ(iterations, 7 * time_metrics);
  // Families and instances index like Google Benchmark's: per workload, per
  // metric within it.
  EXPECT_EQ(doc["benchmarks"][0]["family_index"], 0);
  EXPECT_EQ(doc["benchmarks"][0]["per_family_instance_index"], 0);
}

TEST(GbenchJsonTest, NeverNanOrInfinity) {
  // One sample: no stddev, no cv; a zero mean: no cv either.
  RunResult run;
  WorkloadResult w;
  w.name = "w";
  MetricResult zero;
  zero.name = "tensor_busy_us";
  zero.unit = "us";
  zero.samples = {0, 0, 0};
  zero.summary = stats::Summarize(zero.samples, 0.95);
  MetricResult util;
  util.name = "tensor_util";
  util.unit = "fraction";
  util.samples = {0, 0, 0};
  util.summary = stats::Summarize(util.samples, 0.95);
  MetricResult dev;
  dev.name = "device_time_us";
  dev.unit = "us";
  dev.samples = {1, 2, 3};
  dev.summary = stats::Summarize(dev.samples, 0.95);
  w.metrics = {dev, zero, util};
  run.workloads.push_back(w);
  std::string text = GbenchJson(run);
  for (const char* bad : {"NaN", "nan", "Infinity", "inf", "null"}) {
    EXPECT_THAT(text, Not(HasSubstr(bad))) << bad;
  }
  json doc = json::parse(text);
  bool zero_cv = false;
  for (const json& b : doc["benchmarks"]) {
    zero_cv = zero_cv || b["name"] == "w/tensor_busy_us_cv";
  }
  EXPECT_FALSE(zero_cv) << "an undefined aggregate is left out";

  run.workloads[0].metrics = {dev};
  run.workloads[0].metrics[0].samples = {5};
  const std::vector<double> five = {5.0};
  run.workloads[0].metrics[0].summary = stats::Summarize(five, 0.95);
  doc = json::parse(GbenchJson(run));
  ASSERT_EQ(doc["benchmarks"].size(), 1u) << "no aggregates of one run";
  EXPECT_EQ(doc["benchmarks"][0]["run_type"], "iteration");
}

// The field sets above against the library itself, when the project's own
// Google Benchmark binary has been built.
TEST(GbenchJsonTest, FieldSetsMatchTheInstalledLibrary) {
  const std::filesystem::path bin =
      std::filesystem::path(TRNBENCH_BINARY).parent_path();
  std::string bench;
  for (const auto& p :
       {bin / "bench" / "trnbench_bench", bin / "trnbench_bench"}) {
    if (std::filesystem::exists(p)) bench = p.string();
  }
  if (bench.empty()) GTEST_SKIP() << "trnbench_bench is not built";
  const std::string out = ::testing::TempDir() + "/gbench_live.json";
  const std::string cmd =
      bench +
      " --benchmark_filter=BM_SimulateExp --benchmark_repetitions=2"
      " --benchmark_min_time=0.001 --benchmark_format=json >" +
      out + " 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const json live = json::parse(report_test::Slurp(out));
  ASSERT_FALSE(live["benchmarks"].empty());
  bool saw_iteration = false;
  bool saw_aggregate = false;
  for (const json& b : live["benchmarks"]) {
    std::set<std::string> keys = Keys(b);
    // User counters are extra keys, as ours are.
    std::set<std::string> core;
    for (const auto& k : keys) {
      if (kIterationKeys.count(k) || kAggregateKeys.count(k)) core.insert(k);
    }
    if (b["run_type"] == "iteration") {
      saw_iteration = true;
      EXPECT_EQ(core, kIterationKeys);
    } else {
      saw_aggregate = true;
      EXPECT_EQ(core, kAggregateKeys);
    }
  }
  EXPECT_TRUE(saw_iteration);
  EXPECT_TRUE(saw_aggregate);
}

TEST(GbenchJsonTest, CommandLinePrintsItAndIsDeterministic) {
  auto a = report_test::RunTrnbench(
      "--workload exp_tiled --repeat 5 "
      "--format gbench-json");
  auto b = report_test::RunTrnbench(
      "--workload exp_tiled --repeat 5 "
      "--format gbench-json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const json doc = json::parse(a.out);
  EXPECT_EQ(doc["benchmarks"][0]["name"], "exp_tiled/device_time_us");
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

// Google Benchmark's compare.py prints an OVERALL_GEOMEAN row only when the
// geometric mean of every iteration's real_time (and cpu_time) is above 0:
// a single 0 (an engine a workload never runs) drops the row. Every
// workload together, the way CI runs it.
TEST(GbenchJsonTest, EveryIterationCountsTowardsCompareGeomean) {
  const auto o = report_test::RunTrnbench(
      "--workload all --repeat 3 --format gbench-json");
  ASSERT_EQ(o.code, 0) << o.err;
  const json doc = json::parse(o.out);
  double log_sum = 0;
  int iterations = 0;
  std::set<std::string> names;
  for (const json& b : doc["benchmarks"]) {
    names.insert(b["run_name"].get<std::string>());
    if (b["run_type"] != "iteration") continue;
    ++iterations;
    EXPECT_GT(b["real_time"].get<double>(), 0) << b["name"];
    EXPECT_GT(b["cpu_time"].get<double>(), 0) << b["name"];
    log_sum += std::log(b["real_time"].get<double>());
  }
  ASSERT_GT(iterations, 0);
  EXPECT_GT(std::exp(log_sum / iterations), 0);
  // One benchmark per workload by default: its primary metric.
  EXPECT_EQ(names.count("rmsnorm_naive/device_time_us"), 1u);
  EXPECT_EQ(names.count("matmul_bf16_2048/tensor_busy_us"), 0u);
  std::set<std::string> workloads;
  for (const std::string& n : names) workloads.insert(n.substr(0, n.find('/')));
  EXPECT_EQ(names.size(), workloads.size());
  // --gbench-metrics adds more; an engine a workload never runs is still
  // left out.
  const auto all = report_test::RunTrnbench(
      "--workload all --repeat 3 --format gbench-json --gbench-metrics all");
  ASSERT_EQ(all.code, 0) << all.err;
  std::set<std::string> more;
  const json all_doc = json::parse(all.out);
  for (const json& b : all_doc["benchmarks"]) {
    more.insert(b["run_name"].get<std::string>());
  }
  EXPECT_EQ(more.count("matmul_bf16_2048/tensor_busy_us"), 1u);
  EXPECT_EQ(more.count("rmsnorm_naive/tensor_busy_us"), 0u);
  const auto typo = report_test::RunTrnbench(
      "--workload all --repeat 3 --format gbench-json --gbench-metrics "
      "tensor_busy");
  EXPECT_EQ(typo.code, 2);
  EXPECT_THAT(typo.err, HasSubstr("did you mean tensor_busy_us"));
}

}  // namespace
}  // namespace trn
