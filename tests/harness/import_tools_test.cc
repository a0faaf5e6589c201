#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/import/importer.h"
#include "tests/harness/import_test_util.h"

namespace trn::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A file that is refused, and the whole message it is refused with.
struct Refusal {
  const char* json;
  const char* message;
};

void ExpectRefusals(const char* file, std::initializer_list<Refusal> cases) {
  for (const Refusal& c : cases) {
    auto run = ImportText(file, c.json);
    ASSERT_FALSE(run.ok()) << c.json;
    EXPECT_EQ(run.status().message(), c.message);
  }
}

TEST(ImportGoogleBenchmarkTest, AggregatesDroppedTimesInMicroseconds) {
  RunResult run = ImportFixtures({"gbench/test1_run2.json"});
  EXPECT_EQ(run.measurement.tool, "google-benchmark");
  EXPECT_EQ(run.device, "host");
  // 14 benchmarks; the BigO and RMS aggregates are not samples.
  ASSERT_EQ(run.workloads.size(), 14u);
  const WorkloadResult& first = run.workloads[0];
  EXPECT_EQ(first.name, "BM_SameTimes");
  EXPECT_THAT(first.Find("wall_time_us")->samples, ElementsAre(0.01));
  EXPECT_THAT(first.Find("cpu_time_us")->samples, ElementsAre(0.01));
  for (const WorkloadResult& w : run.workloads) {
    EXPECT_EQ(w.name.find("MyComplexityTest"), std::string::npos);
    if (w.name == "BM_NotBadTimeUnit") {
      // time_unit "s"
      EXPECT_THAT(w.Find("wall_time_us")->samples, ElementsAre(40000));
      EXPECT_THAT(w.Find("cpu_time_us")->samples, ElementsAre(600000));
    }
  }
}

TEST(ImportGoogleBenchmarkTest, RepetitionsAreSamplesAndNonFiniteIsTolerated) {
  const std::string json = R"({
    "context": {"library_version": "v1.7.1"},
    "benchmarks": [
      {"name": "BM_x/8", "run_name": "BM_x/8", "run_type": "iteration",
       "repetitions": 3, "repetition_index": 0, "iterations": 10,
       "real_time": 1.5, "cpu_time": 1.4, "time_unit": "ms", "bytes_per_second": NaN},
      {"name": "BM_x/8", "run_name": "BM_x/8", "run_type": "iteration",
       "repetition_index": 1, "real_time": 1.6, "cpu_time": 1.5, "time_unit": "ms",
       "items_per_second": Infinity},
      {"name": "BM_x/8", "run_name": "BM_x/8", "run_type": "iteration",
       "repetition_index": 2, "real_time": 1.7, "cpu_time": 1.6, "time_unit": "ms",
       "counter": -Infinity},
      {"name": "BM_x/8_mean", "run_name": "BM_x/8", "run_type": "aggregate",
       "aggregate_name": "mean", "real_time": 1.6, "cpu_time": 1.5, "time_unit": "ms"},
      {"name": "BM_err", "run_type": "iteration", "error_occurred": true,
       "error_message": "boom", "real_time": 0, "cpu_time": 0},
      {"name": "BM_skip", "run_type": "iteration", "skipped": "not today"}
    ]})";
  auto run = ImportText("bm.json", json);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->workloads.size(), 1u);
  EXPECT_EQ(run->workloads[0].name, "BM_x_8");
  EXPECT_EQ(run->workloads[0].description, "google-benchmark: BM_x/8");
  EXPECT_THAT(run->workloads[0].Find("wall_time_us")->samples,
              ElementsAre(1500, 1600, 1700));
  EXPECT_EQ(run->measurement.tool_version, "v1.7.1");
  EXPECT_EQ(run->schedule.repeat, 3);
}

TEST(ImportGoogleBenchmarkTest, AnEntryWithoutItsTimeIsRefused) {
  auto run = ImportText(
      "t.json", R"({"benchmarks": [{"name": "a", "run_type": "iteration"}]})");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "t.json: /benchmarks/0/real_time: required key \"real_time\" is "
            "missing");
}

TEST(ImportGoogleBenchmarkTest, WorkloadRenamesOnlyAFileOfOneBenchmark) {
  ImportRequest r;
  r.options.workload = "mine";
  auto f = ReadMeasuredFile(MeasuredPath("gbench/test1_run1.json"));
  ASSERT_TRUE(f.ok());
  auto run = ImportMeasured({*f}, r);
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("`workload` mine"));
  EXPECT_THAT(run.status().message(), HasSubstr("keep their own names"));
}

TEST(ImportHyperfineTest, TimesOfSuccessfulRunsInMicroseconds) {
  RunResult run = ImportFixtures({"hyperfine/two.json"});
  ASSERT_EQ(run.workloads.size(), 2u);
  EXPECT_EQ(run.workloads[0].name, "sleep_0.1");
  EXPECT_EQ(run.workloads[0].Find("wall_time_us")->samples.size(), 27u);
  EXPECT_EQ(run.workloads[1].Find("wall_time_us")->samples.size(), 13u);
  EXPECT_NEAR(run.workloads[0].Find("wall_time_us")->summary.median,
              106525.35172, 1e-6);
  EXPECT_EQ(run.schedule.repeat, 27);
  EXPECT_EQ(run.device, "host");
}

TEST(ImportHyperfineTest, FailedRunsAreNotSamples) {
  const std::string json = R"({"results": [{"command": "make",
      "times": [1.0, 2.0, 3.0], "exit_codes": [0, 1, 0]}]})";
  auto run = ImportText("h.json", json);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->workloads[0].Find("wall_time_us")->samples,
              ElementsAre(1e6, 3e6));
}

TEST(ImportHyperfineTest, ExitCodesOfAnotherLengthAreRefused) {
  auto run = ImportText("h.json", R"({"results": [{"command": "x",
      "times": [1.0, 2.0], "exit_codes": [0]}]})");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "h.json: /results/0/exit_codes: expected an array of 2 exit "
            "codes, one per time, got 1");
}

TEST(ImportHyperfineTest, RefusalsNameTheValueAndWhatWasExpected) {
  ExpectRefusals(
      "h.json",
      {
          {R"({"results": [{"command": "x", "mean": 1.0}]})",
           "h.json: /results/0/times: required key \"times\" is missing: "
           "hyperfine writes the run times from version 1.9 on"},
          {R"({"results": [{"command": "x", "times": 1.0}]})",
           "h.json: /results/0/times: expected an array of run times in "
           "seconds, got number 1.0"},
          {R"({"results": [{"command": "x", "times": [1.0, -2.0]}]})",
           "h.json: /results/0/times/1: expected a time in seconds > 0, got "
           "number -2.0"},
          {R"({"results": [{"command": "x", "times": [1.0], "exit_codes": ["0"]}]})",
           "h.json: /results/0/exit_codes/0: expected an integer exit code or "
           "null, got string \"0\""},
          {R"({"results": [{"command": 7, "times": [1.0]}]})",
           "h.json: /results/0/command: expected a string, got number 7"},
      });
}

TEST(ImportGoogleBenchmarkTest, RefusalsNameTheValueAndWhatWasExpected) {
  ExpectRefusals(
      "t.json",
      {
          {R"({"benchmarks": [{"name": "a", "real_time": 1, "cpu_time": 1,
          "time_unit": "min"}]})",
           "t.json: /benchmarks/0/time_unit: unknown time_unit \"min\"; "
           "expected one of ns, us, ms, s"},
          {R"({"benchmarks": [{"name": "a", "real_time": -1, "cpu_time": 1}]})",
           "t.json: /benchmarks/0/real_time: expected a time > 0, got number "
           "-1"},
          {R"({"benchmarks": [3]})",
           "t.json: /benchmarks/0: expected an object, got number 3"},
      });
}

TEST(ImportDetectTest, EachFixtureIsDetectedFromItsContent) {
  const std::pair<const char*, MeasuredFormat> cases[] = {
      {"kineto/base.json.gz", MeasuredFormat::kKineto},
      {"gbench/test1_run1.json", MeasuredFormat::kGoogleBenchmark},
      {"hyperfine/one.json", MeasuredFormat::kHyperfine},
      {"neuron_bench/exp_tiled/info.json", MeasuredFormat::kNeuronBench},
      {"neuron_bench/exp_tiled/nc_latency_data.json",
       MeasuredFormat::kNeuronBench},
      {"neuron_profile/rmsnorm_compiled_0.json",
       MeasuredFormat::kNeuronProfile},
      {"nki_benchmark/exp_tiled.txt", MeasuredFormat::kNkiBenchmark},
  };
  for (const auto& [rel, format] : cases) {
    auto f = ReadMeasuredFile(MeasuredPath(rel));
    ASSERT_TRUE(f.ok()) << f.status();
    auto detected = DetectFormat(*f);
    ASSERT_TRUE(detected.ok()) << rel << ": " << detected.status();
    EXPECT_EQ(*detected, format) << rel;
  }
}

TEST(ImportDetectTest, UnknownContentNamesTheFormats) {
  auto run = ImportText("x.json", R"({"hello": 1})");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(),
              HasSubstr("x.json: /: expected a measured file"));
  EXPECT_THAT(run.status().message(), HasSubstr("kineto, neuron-bench"));
}

TEST(ImportDetectTest, MixedFormatsAreRefused) {
  auto a = ReadMeasuredFile(MeasuredPath("gbench/test1_run1.json"));
  auto b = ReadMeasuredFile(MeasuredPath("hyperfine/one.json"));
  ASSERT_TRUE(a.ok() && b.ok());
  auto run = ImportMeasured({*a, *b}, {});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("import one format at a time"));
}

TEST(ImportDetectTest, ATruncatedGzipIsRefused) {
  std::ifstream in(MeasuredPath("kineto/base.json.gz"), std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), {});
  auto cut =
      MeasuredFileFromBytes("cut.json.gz", raw.substr(0, raw.size() / 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_THAT(cut.status().message(), HasSubstr("cut.json.gz: /: expected"));
  EXPECT_THAT(cut.status().message(), HasSubstr("gzip"));
}

TEST(ImportDetectTest, SafeNamesAndCollisions) {
  EXPECT_EQ(SafeWorkloadName("BM_foo/8/real_time"), "BM_foo_8_real_time");
  EXPECT_EQ(SafeWorkloadName("../x"), "_.._x");
  EXPECT_EQ(SafeWorkloadName(""), "_");
  auto run = ImportText("h.json", R"({"results": [
      {"command": "a b", "times": [1.0]}, {"command": "a/b", "times": [1.0]}]})");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("become the name a_b"));
}

}  // namespace
}  // namespace trn::import
