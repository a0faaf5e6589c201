// End-to-end tests of `trnbench validate` (docs/validation.md) on small
// suites written here: exit codes, formats, known gaps and refusals.
#include <sys/stat.h>

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
using test::Outcome;
using test::RunTrnbench;
using test::Slurp;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A suite folder holding the seed spec rmsnorm_fused (one figure, within
// ±3% in the calibrated model), its published figure scaled by `scale`.
std::string Suite(const std::string& name, double scale = 1.0) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("suite_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto spec =
      nlohmann::json::parse(Slurp(std::string(TRNBENCH_SOURCE_DIR) +
                                  "/workloads/validation/rmsnorm_fused.json"));
  spec["published"][0]["figure"] =
      spec["published"][0]["figure"].get<double>() * scale;
  std::ofstream(dir / "rmsnorm_fused.json") << spec.dump(2);
  return dir.string();
}

std::string WriteFile(const std::string& name, const std::string& text) {
  const fs::path p = fs::path(::testing::TempDir()) / name;
  std::ofstream(p) << text;
  return p.string();
}

// A suite with a training figure file (docs/validation.md, "Training
// figures") whose kernel is not in the --training folder: listed as
// refused with the front end's reason, counted nowhere, not a failure.
TEST(CliValidateTest, ATrainingKernelThatCannotBeTracedIsListedAsRefused) {
  const std::string suite = Suite("training");
  fs::create_directories(fs::path(suite) / "training");
  std::ofstream(fs::path(suite) / "training" / "t.json") << R"({
    "schema_version": 1, "name": "train_k", "family": "train",
    "description": "test",
    "traced_from": {"file": "kernels/missing.py", "function": "kernel",
                    "args": "x=128x512:float32"},
    "published": [{"metric": "ncl_us", "statistic": "mean", "figure": 1,
      "unit": "ms", "tolerance": 0.15, "device": "trn1", "hardware": "h",
      "method": "m", "source": "s"}]})";
  const fs::path folder = fs::path(::testing::TempDir()) / "training_src";
  fs::create_directories(folder);
  Outcome o = RunTrnbench("validate --repeat 20 --specs-dir " + suite +
                          " --training " + folder.string());
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("Training figures"));
  EXPECT_THAT(o.out, HasSubstr("refused: "));
  EXPECT_THAT(o.out, HasSubstr("missing.py"));
  EXPECT_THAT(o.out, HasSubstr("1 not run (refused or skipped)"));
  Outcome j = RunTrnbench("validate --repeat 20 --format json --specs-dir " +
                          suite + " --training " + folder.string());
  ASSERT_EQ(j.code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  ASSERT_EQ(doc["training"]["figures"].size(), 1u);
  EXPECT_TRUE(doc["training"]["figures"][0]["model"].is_null());
  EXPECT_THAT(doc["training"]["figures"][0]["not_run"].get<std::string>(),
              HasSubstr("refused: "));
  // A --training folder that is not there is bad input.
  Outcome bad = RunTrnbench("validate --repeat 20 --specs-dir " + suite +
                            " --training /nonexistent/nkibench");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--training /nonexistent/nkibench"));
}

TEST(CliValidateTest, AFigureWithinToleranceExitsZero) {
  Outcome o = RunTrnbench("validate --repeat 50 --specs-dir " + Suite("ok"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, IsEmpty());
  for (const char* s : {"published hardware figures vs the timing model",
                        "workload", "published", "model", "error", "allowed",
                        "rmsnorm_fused", "device_time_us", "±3%", "within",
                        "mean |error|", "validation passed"}) {
    EXPECT_THAT(o.out, HasSubstr(s));
  }
}

TEST(CliValidateTest, AMissExitsOneUnlessItIsAListedGap) {
  const std::string suite = Suite("miss", 2.0);
  Outcome o = RunTrnbench("validate --repeat 50 --specs-dir " + suite);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_THAT(o.out, HasSubstr("OUT"));
  EXPECT_THAT(o.out, HasSubstr("validation FAILED"));
  const std::string gaps =
      WriteFile("gaps.txt", "# known\nrmsnorm_fused device_time_us p50 trn1\n");
  o = RunTrnbench("validate --repeat 50 --specs-dir " + suite +
                  " --known-gaps " + gaps);
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("OUT (known gap; fitted)"));
  // A listed gap that the model meets fails the run: the list is stale.
  o = RunTrnbench("validate --repeat 50 --specs-dir " + Suite("stale") +
                  " --known-gaps " + gaps);
  EXPECT_EQ(o.code, 1) << o.err;
  EXPECT_THAT(o.out, HasSubstr("listed as a known gap but now met: "
                               "rmsnorm_fused device_time_us p50 trn1"));
}

TEST(CliValidateTest, JsonIsDeterministicAndWrittenByOutput) {
  const std::string suite = Suite("json");
  const std::string file = (fs::path(::testing::TempDir()) / "v.json").string();
  Outcome a = RunTrnbench("validate --repeat 20 --format json --specs-dir " +
                          suite + " --output " + file);
  ASSERT_EQ(a.code, 0) << a.err;
  Outcome b =
      RunTrnbench("validate --repeat 20 --format json --specs-dir " + suite);
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(Slurp(file), a.out);
  auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["schema"], "trnbench.validation");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["repeat"], 20);
  ASSERT_EQ(j["figures"].size(), 1u);
  const auto& f = j["figures"][0];
  EXPECT_EQ(f["key"], "rmsnorm_fused device_time_us p50 trn1");
  EXPECT_EQ(f["published"], 403.3);
  EXPECT_EQ(f["tolerance"], 0.03);
  EXPECT_EQ(f["within"], true);
  EXPECT_NEAR(f["error"].get<double>(), f["model"].get<double>() / 403.3 - 1,
              1e-12);
  EXPECT_EQ(j["summary"]["passed"], true);
}

// The seed figure is one trn1's op_exec_overhead_us was fitted on (its
// fitted_on): marked so in every format and left out of the predictions;
// with the parameter set by hand it is a prediction of that value.
TEST(CliValidateTest, AFigureAParameterWasFittedOnIsMarkedFitted) {
  const std::string suite = Suite("fitted");
  Outcome o =
      RunTrnbench("validate --repeat 20 --format json --specs-dir " + suite);
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["figures"][0]["fitted_by"],
            nlohmann::json::array({"op_exec_overhead_us"}));
  EXPECT_EQ(j["summary"]["fitted"], 1);
  EXPECT_EQ(j["summary"]["predictions"]["figures"], 0);
  Outcome table = RunTrnbench("validate --repeat 20 --specs-dir " + suite);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("within (fitted)"));
  EXPECT_THAT(table.out, HasSubstr("1 of them fitted"));

  Outcome set = RunTrnbench(
      "validate --repeat 20 --format json --set op_exec_overhead_us=95 "
      "--specs-dir " +
      suite);
  ASSERT_NE(set.code, 2) << set.err;
  j = nlohmann::json::parse(set.out);
  EXPECT_EQ(j["figures"][0]["fitted_by"], nlohmann::json::array());
  EXPECT_EQ(j["summary"]["fitted"], 0);
  EXPECT_EQ(j["summary"]["predictions"]["figures"], 1);
}

TEST(CliValidateTest, MarkdownCarriesTheSources) {
  Outcome o = RunTrnbench(
      "validate --repeat 20 --format markdown --specs-dir " + Suite("md"));
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("| workload | device | figure | published | "
                               "model | error | allowed | verdict | hardware "
                               "| method | source |"));
  EXPECT_THAT(o.out, HasSubstr("Profiling TorchNeuron (Part 1)"));
  EXPECT_THAT(o.out, HasSubstr("- validation passed"));
}

TEST(CliValidateTest, TheShippedSuiteListsBothDevices) {
  // Only the JSON's shape, on the cheapest device filter: the suite test
  // (tests/harness/validation_test.cc) asserts every figure.
  Outcome o = RunTrnbench(
      "validate --device trn2 --repeat 3 --format json "
      "--known-gaps workloads/validation/known_gaps.txt");
  ASSERT_NE(o.code, 2) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["device"], "trn2");
  ASSERT_FALSE(j["figures"].empty());
  for (const auto& f : j["figures"]) EXPECT_EQ(f["device"], "trn2");
}

TEST(CliValidateTest, RefusesBadInputWithOneLine) {
  const std::string suite = Suite("bad");
  auto spec = nlohmann::json::parse(Slurp(suite + "/rmsnorm_fused.json"));
  spec["published"][0]["metric"] = "speed";
  std::ofstream(suite + "/rmsnorm_fused.json") << spec.dump(2);
  const std::string ok = Suite("ok2");
  // A named pipe nobody writes: refused, not waited for.
  const std::string fifo =
      (fs::path(::testing::TempDir()) / "gaps.fifo").string();
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string gaps = WriteFile("gaps.txt", "");
  struct Case {
    std::string args;
    std::string message;
  } cases[] = {
      {"validate --specs-dir " + suite,
       "rmsnorm_fused.json: /published/0/metric: unknown metric \"speed\""},
      {"validate --format gbench-json --specs-dir " + ok,
       "--format=gbench-json: validate writes --format table, json or "
       "markdown"},
      {"validate --known-gaps /nonexistent/gaps.txt --specs-dir " + ok,
       "/nonexistent/gaps.txt: no such file for --known-gaps"},
      {"validate --known-gaps " + fifo + " --specs-dir " + ok, "gaps.fifo: "},
      {"validate --known-gaps " + gaps + " --output " + gaps + " --specs-dir " +
           ok,
       "--output"},
      {"validate --known-gaps " +
           WriteFile("typo.txt", "rmsnorm ncl_us p50 trn1\n") +
           " --specs-dir " + ok,
       "known gap \"rmsnorm ncl_us p50 trn1\" names no figure of the suite"},
      {"validate --workload all",
       "--workload: trnbench validate does not use "
       "this flag"},
      {"validate --device trn2 --specs-dir " + ok,
       "--device trn2: no figure of the suite"},
  };
  for (const Case& c : cases) {
    Outcome o = RunTrnbench(c.args);
    EXPECT_EQ(o.code, 2) << c.args;
    EXPECT_THAT(o.out, IsEmpty()) << c.args;
    EXPECT_THAT(o.err, HasSubstr(c.message)) << c.args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  }
}

}  // namespace
}  // namespace trn
