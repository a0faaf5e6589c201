// End-to-end: `trnbench import` and everything downstream of it (compare,
// the gate, saved baselines, report folder, JUnit) on measured fixtures.
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

namespace fs = std::filesystem;
using test::RunTrnbench;
using test::Slurp;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Data(const std::string& rel) {
  return std::string(TRNBENCH_SOURCE_DIR) + "/tests/data/measured/" + rel;
}

std::string Fresh(const std::string& name) {
  return test::FreshDir("import_" + name);
}

TEST(ImportCommandTest, WritesAMeasuredResultsFile) {
  const std::string dir = Fresh("results");
  const auto o = RunTrnbench("import " + Data("hyperfine/two.json") +
                             " --format json --output " + dir + "/r.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Slurp(dir + "/r.json"), o.out);
  const auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema"], "trnbench.results");
  EXPECT_EQ(j["source"], "measured");
  EXPECT_EQ(j["measurement"]["tool"], "hyperfine");
  EXPECT_EQ(j["measurement"]["format"], "hyperfine");
  EXPECT_EQ(j["measurement"]["inputs"][0]["bytes"], 2210);
  EXPECT_EQ(j["device"]["name"], "host");
  ASSERT_EQ(j["workloads"].size(), 2u);
  EXPECT_EQ(j["workloads"][0]["name"], "sleep_0.1");
  EXPECT_EQ(j["workloads"][0]["metrics"]["wall_time_us"]["n"], 27);
  EXPECT_EQ(j["workloads"][1]["metrics"]["wall_time_us"]["samples"].size(),
            13u);
}

TEST(ImportCommandTest, TheTableSaysMeasuredNotModelled) {
  const auto o = RunTrnbench(
      "import " + Data("neuron_bench/exp_tiled/nc_latency_data.json") + " " +
      Data("neuron_bench/exp_tiled/info.json") + " --workload exp_tiled");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("measured by neuron-bench"));
  EXPECT_THAT(o.out, HasSubstr("on trn1.2xlarge"));
  EXPECT_THAT(o.out, HasSubstr("exp_tiled"));
  EXPECT_THAT(o.out, Not(HasSubstr("seed")));
}

TEST(ImportCommandTest, CompareAndGateWorkOnImportedResults) {
  const std::string dir = Fresh("gate");
  // Night 1: saved as the baseline; night 2: the same measurement.
  auto o = RunTrnbench("import " + Data("kineto/base.json.gz") +
                       " --workload train_step --save-baseline " + dir +
                       "/bl --output " + dir + "/night1.json");
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_TRUE(fs::exists(dir + "/bl/train_step.json"));
  const auto bl = nlohmann::json::parse(Slurp(dir + "/bl/train_step.json"));
  EXPECT_EQ(bl["source"], "measured");
  EXPECT_EQ(bl["schema"], "trnbench.baseline");

  // Two samples per side give no interval: the gate refuses to call that
  // "no regression" unless told it may leave it unchecked (issue 14).
  o = RunTrnbench("import " + Data("kineto/base.json.gz") +
                  " --workload train_step --baseline " + dir + "/bl");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--allow-unchecked"));
  o = RunTrnbench("import " + Data("kineto/base.json.gz") +
                  " --workload train_step --baseline " + dir + "/bl --junit " +
                  dir + "/junit.xml --report-dir " + dir +
                  "/report --format json --allow-unchecked");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.contains("comparison"));
  const auto& rows = j["comparison"]["rows"];
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0]["metric"], "device_time_us");
  // Two samples per side: no interval at this n, never "regression".
  EXPECT_NE(rows[0]["verdict"], "regression");
  EXPECT_THAT(Slurp(dir + "/junit.xml"), HasSubstr("train_step"));
  EXPECT_THAT(Slurp(dir + "/report/report.md"), HasSubstr("measured by"));
  EXPECT_TRUE(fs::exists(dir + "/report/results.json"));

  o = RunTrnbench("compare " + dir + "/night1.json " + dir +
                  "/bl/train_step.json --format json --allow-unchecked");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto c = nlohmann::json::parse(o.out);
  ASSERT_FALSE(c["rows"].empty());
  EXPECT_EQ(c["rows"][0]["paired"], false)
      << "measurements share no random streams";
}

TEST(ImportCommandTest, TheGateFindsARealRegressionInMeasurements) {
  // hyperfine: `sleep 0.1` as the baseline of a workload named x, then
  // `sleep 0.2` measured under the same name: twice as slow.
  const std::string dir = Fresh("regression");
  std::string fast = Slurp(Data("hyperfine/two.json"));
  nlohmann::json j = nlohmann::json::parse(fast);
  nlohmann::json only_fast = j;
  only_fast["results"].erase(1);
  nlohmann::json only_slow = j;
  only_slow["results"].erase(0);
  only_slow["results"][0]["command"] = "sleep 0.1";
  std::ofstream(dir + "/fast.json") << only_fast.dump();
  std::ofstream(dir + "/slow.json") << only_slow.dump();
  auto o = RunTrnbench("import " + dir + "/fast.json --save-baseline " + dir +
                       "/bl");
  ASSERT_EQ(o.code, 0) << o.err;
  o = RunTrnbench("import " + dir + "/slow.json --baseline " + dir +
                  "/bl --format json");
  EXPECT_EQ(o.code, 1) << o.err;
  const auto r = nlohmann::json::parse(o.out);
  const auto& row = r["comparison"]["rows"][0];
  EXPECT_EQ(row["metric"], "wall_time_us");
  EXPECT_EQ(row["verdict"], "regression");
  EXPECT_GT(row["change"].get<double>(), 0.9);
}

TEST(ImportCommandTest, PercentilesOnlyAreNeverAVerdict) {
  const std::string dir = Fresh("percentiles");
  auto o = RunTrnbench("import " + Data("nki_benchmark/exp_tiled.txt") +
                       " --output " + dir + "/a.json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto a = nlohmann::json::parse(Slurp(dir + "/a.json"));
  EXPECT_EQ(a["workloads"][0]["metrics"]["ncl_us"]["percentiles"]["p50"], 20);
  EXPECT_TRUE(a["workloads"][0]["metrics"]["ncl_us"]["samples"].empty());
  // Percentiles give no interval: never a pass unless explicitly allowed.
  o = RunTrnbench("compare " + dir + "/a.json " + dir + "/a.json");
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.err, HasSubstr("--allow-unchecked"));
  o = RunTrnbench("compare " + dir + "/a.json " + dir +
                  "/a.json --allow-unchecked");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("inconclusive"));
  EXPECT_THAT(o.out, HasSubstr("summary without samples"));
  // The summary says what was not checked instead of "no regression".
  EXPECT_THAT(o.out, Not(HasSubstr("result: no regression\n")));
  EXPECT_THAT(o.out, HasSubstr("not checked (--allow-unchecked)"));
  o = RunTrnbench("compare " + dir + "/a.json " + dir +
                  "/a.json --allow-unchecked --format json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_GE(nlohmann::json::parse(o.out)["unchecked"].get<int>(), 1);
}

TEST(ImportCommandTest, BadInputIsOneLineAndWritesNothing) {
  const std::string dir = Fresh("bad");
  const auto o =
      RunTrnbench("import " + Data("gbench/test1_run1.json") + " " +
                  Data("hyperfine/one.json") + " --output " + dir + "/r.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_TRUE(o.out.empty());
  EXPECT_THAT(o.err, HasSubstr("import one format at a time"));
  EXPECT_FALSE(fs::exists(dir + "/r.json"));
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

TEST(ValidateMeasuredTest, ModelBesideMeasurementWithErrorAndParts) {
  const std::string dir = Fresh("validate");
  auto o = RunTrnbench("import " +
                       Data("neuron_bench/exp_tiled/nc_latency_data.json") +
                       " " + Data("neuron_bench/exp_tiled/info.json") +
                       " --workload exp_tiled --output " + dir + "/m.json");
  ASSERT_EQ(o.code, 0) << o.err;
  o = RunTrnbench("validate --measured " + dir +
                  "/m.json --repeat 30 --format json --output " + dir +
                  "/v.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Slurp(dir + "/v.json"), o.out);
  const auto j = nlohmann::json::parse(o.out);
  ASSERT_EQ(j["workloads"].size(), 1u);
  const auto& w = j["workloads"][0];
  EXPECT_EQ(w["workload"], "exp_tiled");
  EXPECT_THAT(w["spec_file"].get<std::string>(),
              ::testing::EndsWith("workloads/specs/exp_tiled.json"));
  bool saw_ncl = false;
  bool saw_latency = false;
  for (const auto& m : w["metrics"]) {
    if (m["metric"] == "ncl_us") {
      saw_ncl = true;
      ASSERT_TRUE(m["error"].is_number());
      ASSERT_TRUE(m["error_ci_low"].is_number());
      EXPECT_LE(m["error_ci_low"].get<double>(), m["error"].get<double>());
      EXPECT_GE(m["error_ci_high"].get<double>(), m["error"].get<double>());
      EXPECT_EQ(m["measured"]["n"], 100);
      EXPECT_EQ(m["model"]["n"], 30);
    }
    if (m["metric"] == "latency_us") {
      saw_latency = true;
      EXPECT_EQ(m["measured_has_samples"], false);
      EXPECT_TRUE(m["error_ci_low"].is_null()) << "percentiles: no interval";
      // The ratio of medians: model median / the published 80 us - 1.
      EXPECT_NEAR(m["error"].get<double>(),
                  m["model"]["median"].get<double>() / 80 - 1, 1e-12);
    }
  }
  EXPECT_TRUE(saw_ncl);
  EXPECT_TRUE(saw_latency);
  EXPECT_FALSE(w["model_parts"].empty());

  o = RunTrnbench("validate --measured " + dir + "/m.json --repeat 30");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("what dominates the model's device time"));
  EXPECT_THAT(o.out, HasSubstr("none: percentiles only"));
}

TEST(ValidateMeasuredTest, AModelResultsFileIsRefused) {
  const auto o =
      RunTrnbench("validate --measured " + std::string(TRNBENCH_SOURCE_DIR) +
                  "/baselines/trn1/exp_tiled.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("expected a measured results file"));
}

// A "measurement" of RMSNorm under torch.compile 20% slower than the
// published 375.5 us: calibrate must move the profile's compiled-graph
// overhead so the model reproduces it, and leave a loadable profile.
TEST(CalibrateTest, FitsTheFittedParametersToMeasurements) {
  const std::string dir = Fresh("calibrate");
  std::string files;
  for (int i = 0; i < 5; ++i) {
    const double us = 450.6 * (1 + 0.004 * (i - 2));
    const std::string f = dir + "/exec" + std::to_string(i) + ".json";
    std::ofstream(f) << "{\"node\": {\"total_time\": " << us * 1e-6
                     << ", \"instance_type\": \"trn1.2xlarge\"}}";
    files += " " + f;
  }
  auto o =
      RunTrnbench("import" + files + " --workload rmsnorm_compiled --output " +
                  dir + "/m.json");
  ASSERT_EQ(o.code, 0) << o.err;
  fs::create_directories(dir + "/profiles");
  o = RunTrnbench("calibrate " + dir + "/m.json --repeat 21 --output " + dir +
                  "/profiles/trn1.json --format json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto c = nlohmann::json::parse(o.out);
  EXPECT_LT(c["rms_log_error_after"].get<double>(),
            c["rms_log_error_before"].get<double>());
  ASSERT_EQ(c["residuals"].size(), 1u);
  const auto& r = c["residuals"][0];
  EXPECT_EQ(r["metric"], "device_time_us");
  EXPECT_NEAR(
      r["model_after"].get<double>() / r["measured_median"].get<double>(), 1.0,
      0.02);
  bool moved_graph = false;
  for (const auto& p : c["parameters"]) {
    if (p["name"] == "graph_exec_overhead_us") {
      moved_graph = p["pinned"] == true && p["after"] > p["before"];
    }
  }
  EXPECT_TRUE(moved_graph);
  const auto profile =
      nlohmann::json::parse(Slurp(dir + "/profiles/trn1.json"));
  EXPECT_THAT(profile["parameters"]["graph_exec_overhead_us"]["source"]
                  .get<std::string>(),
              HasSubstr("fitted by trnbench calibrate"));
  // Fitted to the measurement now, not to the seed figure it named; a
  // parameter calibrate did not move keeps its figures.
  EXPECT_FALSE(
      profile["parameters"]["graph_exec_overhead_us"].contains("fitted_on"));
  EXPECT_TRUE(
      profile["parameters"]["nki_iteration_gap_us"].contains("fitted_on"));
  EXPECT_THAT(profile["description"].get<std::string>(),
              HasSubstr("residuals: rmsnorm_compiled device_time_us"));
  // The new profile is a profile: the model runs on it.
  o = RunTrnbench("--workload rmsnorm_compiled --repeat 5 --profiles-dir " +
                  dir + "/profiles --device trn1 --format json");
  ASSERT_EQ(o.code, 0) << o.err;
  const auto run = nlohmann::json::parse(o.out);
  EXPECT_NEAR(
      run["workloads"][0]["metrics"]["device_time_us"]["median"].get<double>() /
          450.6,
      1.0, 0.03);
}

}  // namespace
// The fitted profile must not replace what it was fitted from: refused
// before anything runs, with the flag named and both files untouched.
TEST(CalibrateTest, RefusesAnOutputThatIsOneOfItsInputs) {
  const std::string dir = Fresh("calibrate_inputs");
  const std::string m = dir + "/m.json";
  std::ofstream(dir + "/exec.json") << "{\"node\": {\"total_time\": 0.00045, "
                                       "\"instance_type\": \"trn1.2xlarge\"}}";
  auto o = RunTrnbench("import " + dir +
                       "/exec.json --workload rmsnorm_compiled --output " + m);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string measured = Slurp(m);
  o = RunTrnbench("calibrate " + m + " --repeat 5 --output " + m);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--output"));
  EXPECT_EQ(Slurp(m), measured);
  // The profile it starts from, named by --profiles-dir and --device.
  fs::create_directories(dir + "/profiles");
  fs::copy_file(
      std::string(TRNBENCH_SOURCE_DIR) + "/device_model/profiles/trn1.json",
      dir + "/profiles/trn1.json");
  const std::string profile = Slurp(dir + "/profiles/trn1.json");
  o = RunTrnbench("calibrate " + m + " --repeat 5 --profiles-dir " + dir +
                  "/profiles --device trn1 --output " + dir +
                  "/profiles/trn1.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--output"));
  EXPECT_EQ(Slurp(dir + "/profiles/trn1.json"), profile);
}

}  // namespace trn
