#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/import/importer.h"
#include "tests/harness/import_test_util.h"

namespace trn::import {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(ImportNeuronBenchTest, PerIterationNclWithTheSummaryOfTheRun) {
  ImportRequest r;
  r.options.workload = "exp_tiled";
  RunResult run = ImportFixtures({"neuron_bench/exp_tiled/nc_latency_data.json",
                                  "neuron_bench/exp_tiled/info.json"},
                                 r);
  ASSERT_EQ(run.workloads.size(), 1u);
  const WorkloadResult& w = run.workloads[0];
  EXPECT_EQ(w.name, "exp_tiled");
  EXPECT_EQ(run.measurement.tool, "neuron-bench");
  EXPECT_EQ(run.measurement.instance_type, "trn1.2xlarge");
  EXPECT_EQ(run.device, "trn1");
  const MetricResult* ncl = w.Find("ncl_us");
  ASSERT_NE(ncl, nullptr);
  EXPECT_EQ(ncl->samples.size(), 100u);
  EXPECT_TRUE(ncl->percentiles.empty()) << "samples say more";
  EXPECT_NEAR(ncl->summary.median, 20, 0.1);
  // End-to-end latency has no samples: the summary's percentiles.
  const MetricResult* lat = w.Find("latency_us");
  ASSERT_NE(lat, nullptr);
  EXPECT_TRUE(lat->samples.empty());
  EXPECT_THAT(lat->percentiles,
              ElementsAre(Pair(1, 53), Pair(50, 80), Pair(99, 93)));
  EXPECT_EQ(lat->summary.median, 80);
  EXPECT_EQ(lat->summary.n, 0);
  EXPECT_TRUE(std::isnan(lat->summary.mean));
  EXPECT_THAT(w.Find("throughput_per_s")->samples, ElementsAre(5123.60));
}

TEST(ImportNeuronBenchTest, InfoAloneGivesPercentilesOnly) {
  RunResult run = ImportFixtures({"neuron_bench/exp_tiled/info.json"});
  const MetricResult* ncl = run.workloads[0].Find("ncl_us");
  ASSERT_NE(ncl, nullptr);
  EXPECT_TRUE(ncl->samples.empty());
  EXPECT_EQ(ncl->percentiles.size(), 5u);
  EXPECT_EQ(ncl->summary.p99, 21);
  EXPECT_EQ(run.workloads[0].name, "info");
}

TEST(ImportNeuronBenchTest, PercentilesOfTwoRunsAreNotPooled) {
  auto f = ReadMeasuredFile(MeasuredPath("neuron_bench/exp_tiled/info.json"));
  ASSERT_TRUE(f.ok());
  auto run = ImportMeasured({*f, *f}, {});
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("cannot be pooled"));
}

TEST(ImportNeuronBenchTest, ALatencyThatIsNotANumberIsRefused) {
  auto run = ImportText("nc_latency_data.json",
                        R"({"latency_data": {"0": [20.1, "x"]}})");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "nc_latency_data.json: /latency_data/0/1: expected a latency in "
            "microseconds of at least 0");
}

TEST(ImportNeuronProfileTest, OneDeviceTimeSamplePerExecution) {
  ImportRequest r;
  r.options.workload = "rmsnorm_compiled";
  std::vector<std::string> files;
  for (int i = 0; i < 5; ++i) {
    files.push_back("neuron_profile/rmsnorm_compiled_" + std::to_string(i) +
                    ".json");
  }
  RunResult run = ImportFixtures(files, r);
  ASSERT_EQ(run.workloads.size(), 1u);
  const WorkloadResult& w = run.workloads[0];
  EXPECT_EQ(run.measurement.format, "neuron-profile");
  EXPECT_EQ(run.device, "trn1");
  const auto& dev = w.Find("device_time_us")->samples;
  ASSERT_EQ(dev.size(), 5u);
  EXPECT_NEAR(dev[0], 375.5, 1e-9);
  EXPECT_NEAR(w.Find("device_time_us")->summary.median, 375.5, 1e-9);
  // Shares are fractions in summary-json.
  const MetricResult* util = w.Find("vector_util");
  ASSERT_NE(util, nullptr);
  EXPECT_GT(util->samples[0], 0.2);
  EXPECT_LT(util->samples[0], 0.22);
  for (const char* m : {"vector_busy_us", "dma_active_us", "dma_bytes", "mfu",
                        "mbu", "hbm_read_bytes", "hbm_write_bytes"}) {
    EXPECT_NE(w.Find(m), nullptr) << m;
  }
}

TEST(ImportNeuronProfileTest, APercentAboveOneIsRefused) {
  ImportRequest r;
  r.format = MeasuredFormat::kNeuronProfile;
  auto run = ImportText(
      "summary.json",
      R"({"n1": {"total_time": 0.0004, "vector_engine_active_time_percent": 21.0}})",
      r);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "summary.json: /n1/vector_engine_active_time_percent: expected a "
            "fraction from 0 to 1 (summary-json writes percents as "
            "fractions), got number 21.0");
}

TEST(ImportNkiBenchmarkTest, PercentilesAndThroughputFromThePrintedTable) {
  RunResult run = ImportFixtures({"nki_benchmark/exp_tiled.txt"});
  ASSERT_EQ(run.workloads.size(), 1u);
  const WorkloadResult& w = run.workloads[0];
  EXPECT_EQ(w.name, "exp_tiled");
  EXPECT_EQ(run.measurement.format, "nki-benchmark");
  EXPECT_THAT(w.Find("ncl_us")->percentiles,
              ElementsAre(Pair(1, 20), Pair(50, 20), Pair(99, 21)));
  EXPECT_THAT(w.Find("latency_us")->percentiles,
              ElementsAre(Pair(1, 53), Pair(50, 80), Pair(99, 93)));
  EXPECT_THAT(w.Find("throughput_per_s")->samples, ElementsAre(5123.60));
  EXPECT_TRUE(w.Find("ncl_us")->samples.empty());
}

TEST(ImportNkiBenchmarkTest, ATableOfP0ToP100Columns) {
  const std::string table =
      "NCL(p0) NCL(p50) NCL(p100) L(p0) L(p50) L(p100)\n"
      "  19      20       24       50    80     120\n";
  ImportRequest r;
  r.options.workload = "k";
  auto run = ImportText("bench.log", table, r);
  ASSERT_TRUE(run.ok()) << run.status();
  const MetricResult* ncl = run->workloads[0].Find("ncl_us");
  EXPECT_EQ(ncl->summary.min, 19);
  EXPECT_EQ(ncl->summary.max, 24);
  EXPECT_EQ(ncl->summary.median, 20);
}

TEST(ImportNkiBenchmarkTest, AMissingFigureIsRefusedWithItsLine) {
  auto run = ImportText("out.txt",
                        "L(50) NCL(50)\n"
                        "80    N/A\n");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(),
            "out.txt: line 2: expected a number of at least 0 in column "
            "NCL(50), found \"N/A\"");
}

}  // namespace
}  // namespace trn::import
