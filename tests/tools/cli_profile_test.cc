// End-to-end tests of `trnbench profile`, --shape sweeps, the uncalibrated
// trn2 profile, and the flags each command refuses.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

using test::Outcome;
using test::RunTrnbench;
using test::Slurp;

TEST(CliProfileTest, ProfilePrintsTheSummaryRooflineAndFindings) {
  Outcome o = RunTrnbench("profile --workload exp_tiled --repeat 20");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, IsEmpty());
  for (const char* s :
       {"device trn1 (calibrated)", "Device summary", "active %",
        "instructions", "instruction time", "transfers", "GB/s while active",
        "memory-bandwidth utilisation", "FLOP utilisation",
        "DMA/compute overlap", "Roofline", "memory-bound", "Findings",
        "DMA and compute never overlap (0.00% of DMA time)",
        "with 2 buffers the model predicts"}) {
    EXPECT_THAT(o.out, HasSubstr(s));
  }
}

TEST(CliProfileTest, ProfileJsonHasTheSameFiguresAndIsDeterministic) {
  Outcome a =
      RunTrnbench("profile --workload exp,matmul --repeat 10 --format json");
  ASSERT_EQ(a.code, 0) << a.err;
  Outcome b =
      RunTrnbench("profile --workload exp,matmul --repeat 10 --format json");
  EXPECT_EQ(a.out, b.out);
  auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["schema"], "trnbench.profile");
  EXPECT_EQ(j["device"]["calibrated"], true);
  ASSERT_EQ(j["workloads"].size(), 3u);
  for (const auto& w : j["workloads"]) {
    EXPECT_EQ(w["summary"]["engines"].size(), 4u);
    EXPECT_TRUE(w["roofline"]["bound"] == "memory" ||
                w["roofline"]["bound"] == "compute");
    EXPECT_FALSE(w["findings"].empty());
  }
  EXPECT_EQ(j["workloads"][0]["name"], "exp_tiled");
  EXPECT_EQ(j["workloads"][0]["what_ifs"][0]["id"], "double_buffering");
  EXPECT_EQ(j["workloads"][2]["name"], "matmul_bf16_2048");
  EXPECT_EQ(j["workloads"][2]["roofline"]["bound"], "compute");
}

// A flag a command would ignore is refused, naming the flag, and nothing is
// written: `profile --report-dir out` producing no folder must not pass
// for success.
TEST(CliProfileTest, CommandsRefuseFlagsTheyDoNotUse) {
  const std::string dir =
      ::testing::TempDir() + "/trnbench_unused_flag_never_written";
  struct Case {
    std::string args;
    std::string flag;
    std::string command;
  };
  const Case cases[] = {
      {"profile --workload exp_tiled --save-baseline " + dir, "--save-baseline",
       "profile"},
      {"profile --workload exp_tiled --baseline baselines/trn1", "--baseline",
       "profile"},
      {"profile --workload exp_tiled --report-dir " + dir, "--report-dir",
       "profile"},
      {"profile --workload exp_tiled --trace " + dir, "--trace", "profile"},
      {"profile --workload exp_tiled --junit=" + dir, "--junit", "profile"},
      {"profile --workload exp_tiled --fresh-seeds", "--fresh-seeds",
       "profile"},
      {"list --repeat 5", "--repeat", "list"},
      {"list --workload exp_tiled", "--workload", "list"},
      {"compare a.json b.json --report-dir " + dir, "--report-dir", "compare"},
      {"compare a.json b.json --fresh-seeds", "--fresh-seeds", "compare"},
      {"compare a.json b.json --trace " + dir, "--trace", "compare"},
  };
  for (const Case& c : cases) {
    Outcome o = RunTrnbench(c.args);
    EXPECT_EQ(o.code, 2) << c.args;
    EXPECT_THAT(o.err, HasSubstr("trnbench: error: " + c.flag + ": trnbench " +
                                 c.command +
                                 " does not use this flag; it "
                                 "takes "))
        << c.args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_TRUE(o.out.empty()) << c.args;
    EXPECT_FALSE(std::filesystem::exists(dir)) << c.args;
  }
  // What each command does take still works.
  EXPECT_EQ(RunTrnbench("list --device trn2 --specs-dir workloads/specs").code,
            0);
  EXPECT_EQ(RunTrnbench("profile --workload exp_tiled --repeat 5 --seed 3 "
                        "--format json --confidence 0.9")
                .code,
            0);
}

TEST(CliProfileTest, ShapeSweepGivesOneRowPerSizeInEveryFormat) {
  const std::string sweep =
      "--workload exp_tiled --shape in_tensor,out_tensor=250x512,1024x512 "
      "--repeat 10";
  Outcome table = RunTrnbench(sweep);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("exp_tiled[in_tensor,out_tensor=250x512]"));
  EXPECT_THAT(table.out, HasSubstr("exp_tiled[in_tensor,out_tensor=1024x512]"));
  Outcome json = RunTrnbench(sweep + " --format json");
  ASSERT_EQ(json.code, 0) << json.err;
  auto j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["workloads"].size(), 2u);
  EXPECT_EQ(j["workloads"][1]["name"],
            "exp_tiled[in_tensor,out_tensor=1024x512]");
  // Each point runs at its own size: the larger moves 1024 / 250 times
  // the bytes (its time need not grow as much, since the compiler stage
  // pipelines a loop of whole tiles and keeps one ending on a partial
  // tile at depth 1).
  EXPECT_NEAR(
      j["workloads"][1]["metrics"]["dma_bytes"]["median"].get<double>() /
          j["workloads"][0]["metrics"]["dma_bytes"]["median"].get<double>(),
      1024.0 / 250.0, 1e-9);
  EXPECT_GT(j["workloads"][1]["metrics"]["ncl_us"]["median"].get<double>(),
            j["workloads"][0]["metrics"]["ncl_us"]["median"].get<double>());
  Outcome profile = RunTrnbench("profile " + sweep);
  ASSERT_EQ(profile.code, 0) << profile.err;
  EXPECT_THAT(profile.out, HasSubstr("Roofline, one row per workload"));
}

TEST(CliProfileTest, ShapeAndSetWorkTogether) {
  const std::string run =
      "--workload exp_tiled --shape in_tensor,out_tensor=500x512 --repeat 5 "
      "--format json";
  Outcome o = RunTrnbench(run + " --set dma_latency_us=1");
  Outcome base = RunTrnbench(run);
  ASSERT_EQ(o.code, 0) << o.err;
  ASSERT_EQ(base.code, 0) << base.err;
  const auto ncl = [](const Outcome& out) {
    return nlohmann::json::parse(
               out.out)["workloads"][0]["metrics"]["ncl_us"]["median"]
        .get<double>();
  };
  // Eight dependent transfers (four tiles, the last partial, so the
  // compiler stage keeps the loop at depth 1; load and store), each
  // 2.25 us shorter in latency than the profile's median of 3.25 us.
  EXPECT_NEAR(ncl(base) - ncl(o), 8 * 2.25, 0.5);
}

TEST(CliProfileTest, BadShapesAreBadInput) {
  Outcome o = RunTrnbench("--workload exp_tiled --shape in_tensor=1024x512");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--shape in_tensor=1024x512: "));
  o = RunTrnbench("--workload exp_tiled --shape nonsense");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("expected TENSOR[,TENSOR...]=DIMS"));
  EXPECT_THAT(o.out, IsEmpty());
}

TEST(CliProfileTest, Trn2RunsTheSameSpecsAndSaysItIsUncalibrated) {
  Outcome o =
      RunTrnbench("--workload matmul,exp_tiled --device trn2 --repeat 5");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("device profile trn2 is NOT calibrated"));
  EXPECT_THAT(o.out, HasSubstr("WARNING: device profile trn2 is NOT "
                               "calibrated"));
  Outcome json = RunTrnbench(
      "--workload exp_tiled --device trn2 --repeat 5 "
      "--format json");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["device"]["calibrated"], false);
  Outcome profile =
      RunTrnbench("profile --workload matmul --device trn2 --repeat 5");
  ASSERT_EQ(profile.code, 0) << profile.err;
  EXPECT_THAT(profile.out, HasSubstr("device trn2 (UNCALIBRATED)"));
  EXPECT_THAT(profile.out, HasSubstr("compute-bound"));
}

}  // namespace
}  // namespace trn
