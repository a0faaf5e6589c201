#include "device_model/device_profile.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/memory_limits.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "support/hash.h"
#include "tests/device_model/test_profile.h"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif

namespace trn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::trn::testing::TestProfile;

const char kLabel[] = "bad_profile.json";

std::string Trn1Path() {
  return std::string(TRNBENCH_SOURCE_DIR) + "/device_model/profiles/trn1.json";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parses `j` and expects an InvalidArgument error whose message names the
// label, the JSON path and `what`.
void ExpectError(const nlohmann::json& j, const std::string& path,
                 const std::string& what) {
  auto p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_FALSE(p.ok()) << "expected an error at " << path;
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()),
              AllOf(HasSubstr(kLabel), HasSubstr(path), HasSubstr(what)));
}

// ------------------------------------------------------------------ trn1

TEST(Trn1ProfileTest, LoadsWithThePublicFigures) {
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "trn1");
  EXPECT_TRUE(p->calibrated);
  // NKI architecture guide, NeuronCore-v2.
  EXPECT_EQ(p->memory.partitions, 128);
  EXPECT_EQ(p->memory.sbuf_bytes_per_partition, 192 * 1024);
  EXPECT_EQ(p->memory.psum_bytes_per_partition, 16 * 1024);
  EXPECT_EQ(p->memory.psum_banks, 8);
  const auto clock = [&](Engine e) {
    return p->engines[static_cast<int>(e)].clock_ghz;
  };
  EXPECT_EQ(clock(Engine::kTensor), 2.8);
  EXPECT_EQ(clock(Engine::kVector), 1.12);
  EXPECT_EQ(clock(Engine::kScalar), 1.4);
  EXPECT_EQ(clock(Engine::kGpSimd), 1.4);
  for (const auto& e : p->engines) EXPECT_EQ(e.elements_per_cycle, 1.0);
  // NKI architecture guide: ~100 cycles static overhead + ~60 cycles of
  // SBUF access; TensorE's pipeline latency is fitted to the performance
  // guide's MATMUL durations.
  EXPECT_EQ(
      p->engines[static_cast<int>(Engine::kVector)].static_overhead_cycles,
      160.0);
  EXPECT_EQ(
      p->engines[static_cast<int>(Engine::kTensor)].static_overhead_cycles,
      393.0);
  EXPECT_EQ(p->cost.min_ii_cycles, 64.0);
  // Fitted since model 13 on the NKIBench fp32 matmuls (the published
  // peak is a quarter of bf16; docs/calibration.md, model 13).
  EXPECT_EQ(p->tensor_fp32_rate, 0.2);
  EXPECT_EQ(p->dma_queues, 16);
  EXPECT_EQ(p->dma_queue_gbps, 27.2);
  EXPECT_EQ(p->hbm_gbps, 410.0);
  EXPECT_EQ(p->dma_descriptor_overhead_bytes, 2040.0);
  EXPECT_EQ(p->dma_issue_us, 0.0);
  EXPECT_EQ(p->h2d_gbps, 32.0);
  // Distributions keep their tables: dma_latency_us median is 3.25 us.
  EXPECT_FALSE(p->dma_latency_us.IsConstant());
  EXPECT_DOUBLE_EQ(p->dma_latency_us.Median(), 3.25);
  EXPECT_DOUBLE_EQ(p->op_exec_overhead_us.Median(), 387.4);
  EXPECT_DOUBLE_EQ(p->graph_exec_overhead_us.Median(), 364.0);
  EXPECT_DOUBLE_EQ(p->nki_host_latency_us.Median(), 60.0);
  EXPECT_DOUBLE_EQ(p->nki_iteration_gap_us.Median(), 113.6);
}

TEST(Trn1ProfileTest, TheCompilerSeesTheEngineFiguresPlacementWeighs) {
  // Model 12: placement weighs an accumulation on VectorE against GpSimd
  // in each engine's time, GpSimd's with GPSIMD_START; the compiler stage
  // reads them through MemoryLimits, from the same parameters the timing
  // uses.
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->memory.vector_clock_ghz, 1.12);
  EXPECT_EQ(p->memory.gpsimd_clock_ghz, 1.4);
  EXPECT_EQ(p->memory.gpsimd_start_cycles, p->cost.index_gen_fixed_cycles);
  EXPECT_EQ(p->memory.min_ii_cycles, p->cost.min_ii_cycles);
  // The defaults (specs parsed without a profile) are trn1's.
  const MemoryLimits defaults;
  EXPECT_EQ(defaults.vector_clock_ghz, p->memory.vector_clock_ghz);
  EXPECT_EQ(defaults.gpsimd_clock_ghz, p->memory.gpsimd_clock_ghz);
  EXPECT_EQ(defaults.gpsimd_start_cycles, p->memory.gpsimd_start_cycles);
  EXPECT_EQ(defaults.min_ii_cycles, p->memory.min_ii_cycles);
  // Model 12's fit: two-input VectorE ops with both operands in SBUF at
  // 1.8N, the reciprocal at 2N; trn2 keeps the reference's 2N.
  EXPECT_EQ(p->cost.two_input_factor, 1.8);
  EXPECT_EQ(p->cost.reciprocal_factor, 2.0);
  auto trn2 = LoadDeviceProfile(std::string(TRNBENCH_SOURCE_DIR) +
                                "/device_model/profiles/trn2.json");
  ASSERT_TRUE(trn2.ok()) << trn2.status();
  EXPECT_EQ(trn2->cost.two_input_factor, 2.0);
  EXPECT_EQ(trn2->memory.vector_clock_ghz, 0.96);
  EXPECT_EQ(trn2->memory.gpsimd_clock_ghz, 1.2);
}

TEST(Trn1ProfileTest, ElementsPerUs) {
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  // 2.8 GHz x 1 element/cycle = 2800 elements/us; fp32 at the fitted 0.2
  // of it (model 13): 560.
  EXPECT_DOUBLE_EQ(p->ElementsPerUs(Engine::kTensor, DType::kBf16), 2800.0);
  EXPECT_DOUBLE_EQ(p->ElementsPerUs(Engine::kTensor, DType::kFp32), 560.0);
  // The fp32 penalty is the TensorE's alone: VectorE fp32 = 1.12e3.
  EXPECT_DOUBLE_EQ(p->ElementsPerUs(Engine::kVector, DType::kFp32), 1120.0);
  EXPECT_DOUBLE_EQ(p->ElementsPerUs(Engine::kScalar, DType::kBf16), 1400.0);
}

TEST(Trn1ProfileTest, EveryParameterHasASource) {
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  // 43 parameters, as listed in device_profile.cc.
  EXPECT_EQ(p->params.size(), 43u);
  for (const auto& [key, param] : p->params) {
    EXPECT_FALSE(param.source.empty()) << key;
    EXPECT_FALSE(param.unit.empty()) << key;
  }
}

// A fitted value says which figures it was fitted on, so that validate
// counts them as fits, not predictions (docs/device-profile.md); the suite
// test checks that each names a figure of the suite.
TEST(Trn1ProfileTest, EveryFittedParameterNamesItsFigures) {
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  int fitted = 0;
  for (const auto& [name, param] : p->params) {
    if (!param.source.starts_with("fitted")) {
      EXPECT_TRUE(param.fitted_on.empty()) << name;
      continue;
    }
    ++fitted;
    EXPECT_FALSE(param.fitted_on.empty())
        << name << " is fitted but names no figure in fitted_on";
    for (const std::string& key : param.fitted_on) {
      EXPECT_TRUE(key.ends_with(" trn1")) << name << ": " << key;
    }
  }
  EXPECT_GT(fitted, 0);
}

TEST(Trn1ProfileTest, ContentHashIsFnvOfTheFile) {
  const std::string text = ReadFile(Trn1Path());
  ASSERT_FALSE(text.empty());
  auto p = LoadDeviceProfile(Trn1Path());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->content_hash, Fnv1a64Hex(text));
  EXPECT_EQ(p->content_hash.size(), 16u);
}

TEST(LoadDeviceProfileTest, MissingFileIsNotFound) {
  auto p = LoadDeviceProfile("/nonexistent/profile.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("/nonexistent/profile.json"));
}

// ------------------------------------------------------------ the parser

TEST(ParseDeviceProfileTest, AcceptsTheTestProfile) {
  auto p = ParseDeviceProfile(TestProfile().dump(), "test.json");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->name, "test");
  EXPECT_FALSE(p->calibrated);
  EXPECT_EQ(p->dma_queues, 4);
  // A zero descriptor overhead is accepted (every byte at full rate).
  EXPECT_EQ(p->dma_descriptor_overhead_bytes, 0.0);
  // `value` is accepted for a distribution parameter: a point mass.
  EXPECT_TRUE(p->dma_latency_us.IsConstant());
  EXPECT_EQ(p->dma_latency_us.Median(), 2.0);
  EXPECT_EQ(p->engines[static_cast<int>(Engine::kGpSimd)].clock_ghz, 0.5);
  EXPECT_EQ(p->engines[static_cast<int>(Engine::kGpSimd)].elements_per_cycle,
            4.0);
}

TEST(ParseDeviceProfileTest, MalformedJson) {
  auto p = ParseDeviceProfile("{\"schema_version\": 1,", kLabel);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(p.status().message()),
              AllOf(HasSubstr(kLabel), HasSubstr("malformed JSON")));
}

TEST(ParseDeviceProfileTest, NotAnObject) {
  ExpectError(nlohmann::json::array({1, 2}), "/",
              "expected an object, got an array");
}

TEST(ParseDeviceProfileTest, UnknownTopLevelKey) {
  auto j = TestProfile();
  j["colour"] = "blue";
  ExpectError(j, "/colour",
              "unknown key \"colour\" in a device profile; allowed keys: "
              "schema_version, name, description, calibrated, parameters");
}

TEST(ParseDeviceProfileTest, UnknownParameterListsKnownKeys) {
  auto j = TestProfile();
  j["parameters"]["tensor_clock_mhz"] = {
      {"value", 2800}, {"unit", "MHz"}, {"source", "typo"}};
  ExpectError(j, "/parameters/tensor_clock_mhz",
              "unknown key \"tensor_clock_mhz\" in the parameters; allowed "
              "keys: partitions, ");
  auto p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(
      std::string(p.status().message()),
      AllOf(HasSubstr("partitions"), HasSubstr("tensor_clock_ghz"),
            HasSubstr("dma_latency_us"), HasSubstr("nki_iteration_gap_us")));
}

TEST(ParseDeviceProfileTest, MissingParameter) {
  auto j = TestProfile();
  j["parameters"].erase("hbm_gbps");
  ExpectError(j, "/parameters/hbm_gbps",
              "required key \"hbm_gbps\" is missing");
}

// Added after schema version 2 was fixed: a profile written before it
// keeps its meaning (every row its own descriptor); given, it is held to
// the bounds of a count.
TEST(ParseDeviceProfileTest, RowsPerDescriptorMayBeAbsent) {
  auto j = TestProfile();
  j["parameters"].erase("dma_rows_per_descriptor");
  auto p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->dma_rows_per_descriptor, 1);
  const ProfileParam& param = p->params.at("dma_rows_per_descriptor");
  EXPECT_EQ(param.unit, "rows");
  EXPECT_NE(param.source.find("absent from the profile"), std::string::npos);
  j["parameters"]["dma_rows_per_descriptor"] = {
      {"value", 8}, {"unit", "rows"}, {"source", "test"}};
  p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->dma_rows_per_descriptor, 8);
  j["parameters"]["dma_rows_per_descriptor"]["value"] = 0.5;
  ExpectError(j, "/parameters/dma_rows_per_descriptor/value",
              "a positive integer");
  j["parameters"]["dma_rows_per_descriptor"]["value"] = 2000;
  ExpectError(j, "/parameters/dma_rows_per_descriptor",
              "expected values from 0 to 1024");
}

TEST(ParseDeviceProfileTest, QuantilesOnAFixedFigure) {
  auto j = TestProfile();
  j["parameters"]["hbm_gbps"] = {
      {"quantiles", {{0, 10}, {1, 20}}}, {"unit", "GB/s"}, {"source", "test"}};
  ExpectError(j, "/parameters/hbm_gbps/quantiles", "fixed hardware figure");
}

TEST(ParseDeviceProfileTest, MissingOrEmptySource) {
  auto j = TestProfile();
  j["parameters"]["dma_queues"].erase("source");
  ExpectError(j, "/parameters/dma_queues/source", "where its value comes from");
  j["parameters"]["dma_queues"]["source"] = "";
  ExpectError(j, "/parameters/dma_queues/source", "where its value comes from");
}

TEST(ParseDeviceProfileTest, WrongOrMissingSchemaVersion) {
  auto j = TestProfile();
  j["schema_version"] = 1;
  ExpectError(j, "/schema_version",
              "unsupported schema_version 1; this trnbench reads 2");
  j["schema_version"] = "2";
  ExpectError(j, "/schema_version", "expected an integer, got string \"2\"");
  j.erase("schema_version");
  ExpectError(j, "/schema_version",
              "required key \"schema_version\" is missing");
}

TEST(ParseDeviceProfileTest, MissingParametersOrName) {
  auto j = TestProfile();
  j.erase("parameters");
  ExpectError(j, "/parameters", "required key \"parameters\" is missing");
  j = TestProfile();
  j.erase("name");
  ExpectError(j, "/name", "required key \"name\" is missing");
  j["name"] = "";
  ExpectError(j, "/name", "expected a non-empty string, got string \"\"");
  j = TestProfile();
  j["calibrated"] = "yes";
  ExpectError(j, "/calibrated", "expected true or false, got string \"yes\"");
}

TEST(ParseDeviceProfileTest, BadParameterEntries) {
  auto j = TestProfile();
  j["parameters"]["dma_latency_us"] = {{"value", 2},
                                       {"quantiles", {{0, 1}, {1, 3}}},
                                       {"unit", "us"},
                                       {"source", "test"}};
  ExpectError(j, "/parameters/dma_latency_us", "exactly one of");

  j = TestProfile();
  j["parameters"]["dma_latency_us"].erase("value");
  ExpectError(j, "/parameters/dma_latency_us", "exactly one of");

  j = TestProfile();
  j["parameters"]["hbm_gbps"]["value"] = -1;
  ExpectError(j, "/parameters/hbm_gbps/value",
              "expected a finite number >= 0, got number -1");

  j = TestProfile();
  j["parameters"]["hbm_gbps"]["value"] = "20";
  ExpectError(j, "/parameters/hbm_gbps/value",
              "expected a finite number >= 0, got string \"20\"");

  j = TestProfile();
  j["parameters"]["partitions"]["value"] = 127.5;
  ExpectError(j, "/parameters/partitions/value",
              "expected a positive integer (at most 1e9), got a fractional "
              "number 127.5");

  j = TestProfile();
  j["parameters"]["dma_queues"]["value"] = 0;
  ExpectError(j, "/parameters/dma_queues/value",
              "expected a positive integer (at most 1e9), got number 0");

  j = TestProfile();
  j["parameters"]["hbm_gbps"]["colour"] = "blue";
  ExpectError(j, "/parameters/hbm_gbps/colour",
              "unknown key \"colour\" in a parameter; allowed keys: value, "
              "quantiles, unit, source, fitted_on");

  j = TestProfile();
  j["parameters"]["hbm_gbps"]["unit"] = 3;
  ExpectError(j, "/parameters/hbm_gbps/unit",
              "expected a string, got number 3");

  j = TestProfile();
  j["parameters"]["hbm_gbps"] = 20;
  ExpectError(j, "/parameters/hbm_gbps", "expected an object, got number 20");
}

TEST(ParseDeviceProfileTest, AFittedParameterNamesTheFiguresItWasFittedOn) {
  auto j = TestProfile();
  j["parameters"]["hbm_gbps"]["source"] = "fitted: to two figures";
  j["parameters"]["hbm_gbps"]["fitted_on"] = {"a ncl_us p50 trn1",
                                              "b[x=1x2] ncl_us p99 trn1"};
  auto p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_THAT(
      p->params.at("hbm_gbps").fitted_on,
      ::testing::ElementsAre("a ncl_us p50 trn1", "b[x=1x2] ncl_us p99 trn1"));
  EXPECT_TRUE(p->params.at("dma_queues").fitted_on.empty());
}

TEST(ParseDeviceProfileTest, BadFittedOn) {
  auto j = TestProfile();
  j["parameters"]["hbm_gbps"]["source"] = "public: a datasheet";
  j["parameters"]["hbm_gbps"]["fitted_on"] = {"a ncl_us p50 trn1"};
  ExpectError(j, "/parameters/hbm_gbps/fitted_on",
              "only a fitted parameter names the figures it was fitted on");

  j = TestProfile();
  j["parameters"]["hbm_gbps"]["source"] = "fitted: x";
  j["parameters"]["hbm_gbps"]["fitted_on"] = "a ncl_us p50 trn1";
  ExpectError(j, "/parameters/hbm_gbps/fitted_on",
              "expected an array of validation keys");

  j["parameters"]["hbm_gbps"]["fitted_on"] = {"a ncl_us p50"};
  ExpectError(j, "/parameters/hbm_gbps/fitted_on/0",
              "\"a ncl_us p50\" is not a validation key; expected "
              "\"<workload> <metric> <statistic> <device>\"");

  j["parameters"]["hbm_gbps"]["fitted_on"] = {"a ncl_us p50 trn1",
                                              "a ncl_us p50 trn1"};
  ExpectError(j, "/parameters/hbm_gbps/fitted_on/1",
              "\"a ncl_us p50 trn1\" listed twice");
}

TEST(ParseDeviceProfileTest, BadQuantileTables) {
  auto j = TestProfile();
  auto& lat = j["parameters"]["dma_latency_us"];
  lat.erase("value");
  lat["quantiles"] = {{0, 3}, {0.5, 2}, {1, 4}};  // decreasing
  ExpectError(j, "/parameters/dma_latency_us/quantiles", "non-decreasing");
  lat["quantiles"] = {{0, 1}, {0.5, 2}};  // no p = 1
  ExpectError(j, "/parameters/dma_latency_us/quantiles", "p = 1");
  lat["quantiles"] = {{0, 1}, {0.5}, {1, 2}};  // not a pair
  ExpectError(j, "/parameters/dma_latency_us/quantiles/1",
              "expected a [probability, value] pair of numbers, got an array");
  lat["quantiles"] = 3;
  ExpectError(j, "/parameters/dma_latency_us/quantiles",
              "expected an array of [probability, value] pairs, got number 3");
}

TEST(ParseDeviceProfileTest, QuantilesAreKept) {
  auto j = TestProfile();
  auto& lat = j["parameters"]["dma_latency_us"];
  lat.erase("value");
  lat["quantiles"] = {{0, 1}, {0.5, 2}, {1, 4}};
  auto p = ParseDeviceProfile(j.dump(), "test.json");
  ASSERT_TRUE(p.ok()) << p.status();
  const std::vector<std::pair<double, double>> expected = {
      {0, 1}, {0.5, 2}, {1, 4}};
  EXPECT_EQ(p->dma_latency_us.points(), expected);
  EXPECT_EQ(p->params.at("dma_latency_us").dist.points(), expected);
}

TEST(ParseDeviceProfileTest, ZeroClockIsRejected) {
  auto j = TestProfile();
  j["parameters"]["vector_clock_ghz"]["value"] = 0;
  auto p = ParseDeviceProfile(j.dump(), kLabel);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("vector"));
}

// ------------------------------------------------------------ overrides

class OverrideParamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto p = LoadDeviceProfile(Trn1Path());
    ASSERT_TRUE(p.ok()) << p.status();
    profile_ = *std::move(p);
  }
  DeviceProfile profile_;
};

TEST_F(OverrideParamTest, SetsAConstant) {
  ASSERT_TRUE(OverrideParam(profile_, "hbm_gbps", 205, "--set").ok());
  EXPECT_EQ(profile_.hbm_gbps, 205.0);
  const ProfileParam& param = profile_.params.at("hbm_gbps");
  EXPECT_TRUE(param.dist.IsConstant());
  EXPECT_EQ(param.dist.Median(), 205.0);
  EXPECT_THAT(param.source, HasSubstr("--set"));
  EXPECT_THAT(param.source, HasSubstr("820 GB/s HBM"));  // the old source
  // Parentheses balance in the new source text.
  EXPECT_EQ(std::count(param.source.begin(), param.source.end(), '('),
            std::count(param.source.begin(), param.source.end(), ')'));

  // A clock override reaches the derived engine table.
  ASSERT_TRUE(OverrideParam(profile_, "vector_clock_ghz", 2.24, "--set").ok());
  EXPECT_EQ(profile_.engines[static_cast<int>(Engine::kVector)].clock_ghz,
            2.24);
  EXPECT_DOUBLE_EQ(profile_.ElementsPerUs(Engine::kVector, DType::kBf16),
                   2240.0);
  // An integer parameter.
  ASSERT_TRUE(OverrideParam(profile_, "dma_queues", 4, "--set").ok());
  EXPECT_EQ(profile_.dma_queues, 4);
}

TEST_F(OverrideParamTest, RescalesADistributionToTheNewMedian) {
  // dma_latency_us: {0: 3.15, 0.01: 3.19, 0.5: 3.25, 0.9: 3.35,
  // 0.99: 3.95, 1: 4.25}. Setting 6.5 doubles every value.
  ASSERT_TRUE(OverrideParam(profile_, "dma_latency_us", 6.5, "--set").ok());
  EXPECT_FALSE(profile_.dma_latency_us.IsConstant());
  EXPECT_NEAR(profile_.dma_latency_us.Median(), 6.5, 1e-12);
  const auto& pts = profile_.dma_latency_us.points();
  const std::vector<std::pair<double, double>> expected = {
      {0, 6.3}, {0.01, 6.38}, {0.5, 6.5}, {0.9, 6.7}, {0.99, 7.9}, {1, 8.5}};
  ASSERT_EQ(pts.size(), expected.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].first, expected[i].first);
    EXPECT_NEAR(pts[i].second, expected[i].second, 1e-12) << i;
  }
  EXPECT_NEAR(profile_.params.at("dma_latency_us").dist.Median(), 6.5, 1e-12);
}

// An overridden value is no longer the one its figures were fitted to.
TEST_F(OverrideParamTest, ForgetsTheFiguresTheOldValueWasFittedOn) {
  profile_.params.at("hbm_gbps").fitted_on = {"a ncl_us p50 trn1"};
  ASSERT_TRUE(OverrideParam(profile_, "hbm_gbps", 205, "--set").ok());
  EXPECT_TRUE(profile_.params.at("hbm_gbps").fitted_on.empty());
}

TEST_F(OverrideParamTest, UnknownKeyListsKnownKeys) {
  absl::Status s = OverrideParam(profile_, "hbm_bandwidth", 1, "--set");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("hbm_bandwidth"), HasSubstr("unknown parameter"),
                    HasSubstr("hbm_gbps")));
}

TEST_F(OverrideParamTest, RejectsBadValues) {
  absl::Status s = OverrideParam(profile_, "hbm_gbps", -1, "--set");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("hbm_gbps"));
  EXPECT_FALSE(OverrideParam(profile_, "dma_latency_us", -0.5, "--set").ok());
  EXPECT_FALSE(OverrideParam(profile_, "hbm_gbps",
                             std::numeric_limits<double>::quiet_NaN(), "--set")
                   .ok());
  EXPECT_FALSE(OverrideParam(profile_, "partitions", 1.5, "--set").ok());
  EXPECT_FALSE(OverrideParam(profile_, "partitions", 0, "--set").ok());
  // A rejected value leaves the profile as it was.
  EXPECT_EQ(profile_.hbm_gbps, 410.0);
  EXPECT_EQ(profile_.memory.partitions, 128);
}

TEST_F(OverrideParamTest, FailedRebuildLeavesProfileUnchanged) {
  // 0 passes the ">= 0" check but not the positive-clock check of the
  // rebuild; the profile must not be left half-updated.
  absl::Status s = OverrideParam(profile_, "vector_clock_ghz", 0, "--set");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(profile_.engines[static_cast<int>(Engine::kVector)].clock_ghz,
            1.12);
  EXPECT_EQ(profile_.params.at("vector_clock_ghz").dist.Median(), 1.12);
}

}  // namespace
}  // namespace trn
