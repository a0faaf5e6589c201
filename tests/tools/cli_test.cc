// End-to-end tests of the trnbench binary: exit codes, messages, JSON
// contract, determinism and replay, and golden table output.
#include <algorithm>
#include <cstdio>
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

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

using test::Outcome;
using test::RunTrnbench;
using test::Slurp;

TEST(CliTest, HeadlineCommandShowsTheThreeVariants) {
  Outcome o = RunTrnbench("--workload rmsnorm --repeat 30");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, IsEmpty());
  for (const char* s :
       {"rmsnorm_naive", "rmsnorm_fused", "rmsnorm_compiled", "aten::mul",
        "aten::rsqrt", "aten::copy_", "Torch-Compiled Region", "aten::rms_norm",
        "speed-up", "Self device", "# of Calls"}) {
    EXPECT_THAT(o.out, HasSubstr(s));
  }
}

TEST(CliTest, JsonFollowsTheDocumentedSchema) {
  Outcome o = RunTrnbench("--workload all --repeat 12 --format json --seed 5");
  ASSERT_EQ(o.code, 0) << o.err;
  auto j = nlohmann::json::parse(o.out);
  EXPECT_EQ(j["schema"], "trnbench.results");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["seed"], 5);
  EXPECT_EQ(j["schedule"]["repeat"], 12);
  EXPECT_EQ(j["schedule"]["warmup"], 1);
  EXPECT_EQ(j["schedule"]["wait"], 0);
  ASSERT_GE(j["workloads"].size(), 4u);
  for (const auto& w : j["workloads"]) {
    for (const char* k : {"name", "family", "mode", "metrics", "ops"}) {
      EXPECT_TRUE(w.contains(k)) << k;
    }
    const auto& m = w["metrics"]["device_time_us"];
    for (const char* k : {"n", "mean", "median", "ci_low", "ci_high", "p01",
                          "p50", "p99", "samples"}) {
      EXPECT_TRUE(m.contains(k)) << k;
    }
    EXPECT_EQ(m["n"], 12);
    EXPECT_EQ(m["samples"].size(), 12u);
    EXPECT_LE(m["ci_low"].get<double>(), m["median"].get<double>());
    EXPECT_GE(m["ci_high"].get<double>(), m["median"].get<double>());
  }
}

TEST(CliTest, SameSeedIsByteIdenticalAndOtherSeedsDiffer) {
  Outcome a = RunTrnbench("--workload all --repeat 10 --format json --seed 9");
  Outcome b = RunTrnbench("--workload all --repeat 10 --format json --seed 9");
  Outcome c = RunTrnbench("--workload all --repeat 10 --format json --seed 10");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  auto ja = nlohmann::json::parse(a.out);
  auto jc = nlohmann::json::parse(c.out);
  EXPECT_NE(ja["workloads"][0]["metrics"]["device_time_us"]["samples"],
            jc["workloads"][0]["metrics"]["device_time_us"]["samples"]);
}

TEST(CliTest, AnyRepeatReplaysAlone) {
  Outcome all =
      RunTrnbench("--workload exp_tiled --repeat 8 --format json --seed 3");
  ASSERT_EQ(all.code, 0) << all.err;
  auto ja = nlohmann::json::parse(all.out);
  const auto& samples = ja["workloads"][0]["metrics"]["ncl_us"]["samples"];
  const int first = ja["schedule"]["first_active_index"];
  for (int k : {0, 5, 7}) {
    Outcome one =
        RunTrnbench("--workload exp_tiled --repeat 1 --warmup 0 --wait " +
                    std::to_string(first + k) + " --format json --seed 3");
    ASSERT_EQ(one.code, 0) << one.err;
    auto j1 = nlohmann::json::parse(one.out);
    EXPECT_EQ(j1["workloads"][0]["metrics"]["ncl_us"]["samples"][0],
              samples[static_cast<size_t>(k)])
        << "repeat " << k;
  }
}

TEST(CliTest, ListAndHelp) {
  Outcome l = RunTrnbench("list");
  ASSERT_EQ(l.code, 0) << l.err;
  EXPECT_THAT(l.out, HasSubstr("family rmsnorm"));
  EXPECT_THAT(l.out, HasSubstr("exp_tiled"));
  Outcome h = RunTrnbench("--help");
  ASSERT_EQ(h.code, 0);
  EXPECT_THAT(h.out, HasSubstr("Examples:"));
  EXPECT_THAT(h.out, HasSubstr("--repeat"));
}

TEST(CliTest, VersionNamesTheProgramAndTheModel) {
  Outcome v = RunTrnbench("--version");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_THAT(v.out, ::testing::StartsWith("trnbench "));
  EXPECT_THAT(v.out, HasSubstr("timing model "));
  EXPECT_THAT(v.err, IsEmpty());
}

// An unknown flag is named as unknown, whatever follows it; before, a flag
// without a value was reported as "needs a value".
TEST(CliTest, UnknownFlagIsUnknownNotMissingItsValue) {
  for (const char* args : {"--bogus --workload rmsnorm", "--bogus",
                           "--workload rmsnorm --bogus"}) {
    Outcome o = RunTrnbench(args);
    EXPECT_EQ(o.code, 2) << args;
    EXPECT_THAT(o.err, HasSubstr("unknown flag --bogus")) << args;
    EXPECT_THAT(o.err, Not(HasSubstr("needs a value"))) << args;
  }
}

TEST(CliTest, UserSpecFileRuns) {
  Outcome o = RunTrnbench(std::string("--spec ") + TRNBENCH_SOURCE_DIR +
                          "/workloads/specs/exp_tiled.json --repeat 5");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("exp_tiled"));
}

struct BadCase {
  const char* name;
  const char* args;
  const char* message;
};

class CliBadInputTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(CliBadInputTest, ExitsTwoWithOneClearMessageAndNoOutput) {
  const std::string out_file = ::testing::TempDir() + "/should_not_exist.json";
  std::filesystem::remove(out_file);
  Outcome o =
      RunTrnbench(std::string(GetParam().args) + " --output " + out_file);
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.out, IsEmpty());
  EXPECT_THAT(o.err, HasSubstr("trnbench: error: "));
  EXPECT_THAT(o.err, HasSubstr(GetParam().message));
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_FALSE(std::filesystem::exists(out_file));
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, CliBadInputTest,
    ::testing::Values(
        BadCase{"RepeatZero", "--workload rmsnorm --repeat 0",
                "--repeat=0: expected"},
        BadCase{"RepeatNegative", "--workload rmsnorm --repeat -1",
                "--repeat=-1: expected"},
        BadCase{"RepeatExponent", "--workload rmsnorm --repeat 1e12",
                "--repeat=1e12"},
        BadCase{"RepeatTooLarge", "--workload rmsnorm --repeat 2000000",
                "--repeat=2000000"},
        BadCase{"ConfidenceAboveOne", "--workload rmsnorm --confidence 1.5",
                "--confidence=1.5"},
        BadCase{"ConfidenceZero", "--workload rmsnorm --confidence 0",
                "--confidence=0"},
        BadCase{"UnknownFormat", "--workload rmsnorm --format xml",
                "--format=xml"},
        BadCase{"UnknownWorkload", "--workload nope", "nope"},
        BadCase{"UnknownDevice", "--workload rmsnorm --device trn9",
                "--device trn9"},
        BadCase{"UnknownFlag", "--workload rmsnorm --bogus 3",
                "unknown flag --bogus"},
        BadCase{"NegativeSeed", "--workload rmsnorm --seed -4", "--seed=-4"},
        BadCase{"MissingValue", "--workload", "--workload needs a value"},
        BadCase{"StrayArgument", "stray", "unexpected argument 'stray'"},
        BadCase{"NothingToRun", "--repeat 5", "nothing to run"},
        BadCase{"MissingSpecFile", "--spec /nonexistent/spec.json",
                "/nonexistent/spec.json"}),
    [](const ::testing::TestParamInfo<BadCase>& p) {
      return std::string(p.param.name);
    });

// One registry of formats: every command refuses a format it does not
// write in the same words, naming what it writes, before it runs anything.
TEST(CliTest, EachCommandNamesTheFormatsItWrites) {
  const std::string exp =
      std::string(TRNBENCH_SOURCE_DIR) + "/baselines/trn1/exp_tiled.json";
  const struct {
    std::string args;
    std::string line;
  } cases[] = {
      {"--workload exp_tiled --format markdown",
       "--format=markdown: expected table, json or gbench-json"},
      {"profile --workload exp_tiled --format markdown",
       "--format=markdown: profile writes --format table or json"},
      {"compare " + exp + " " + exp + " --format gbench-json",
       "--format=gbench-json: compare writes --format table or json; "
       "gbench-json needs a run"},
      {"validate --format csv",
       "--format=csv: validate writes --format table, json or markdown"},
      {"history detect --db " + ::testing::TempDir() +
           "/never_made.sqlite --format csv",
       "--format=csv: history detect writes --format table, json or "
       "markdown"},
  };
  for (const auto& c : cases) {
    const Outcome o = RunTrnbench(c.args);
    EXPECT_EQ(o.code, 2) << c.args;
    EXPECT_THAT(o.err, HasSubstr(c.line)) << c.args;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_THAT(o.out, IsEmpty()) << c.args;
  }
  EXPECT_FALSE(
      std::filesystem::exists(::testing::TempDir() + "/never_made.sqlite"));
}

TEST(CliTest, UnwritableOutputIsRefused) {
  Outcome o = RunTrnbench(
      "--workload exp_tiled --repeat 2 --output "
      "/nonexistent-dir/results.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("/nonexistent-dir/results.json"));
  EXPECT_THAT(o.out, IsEmpty());
}

TEST(CliTest, OutputFileMatchesStdoutJson) {
  const std::string path = ::testing::TempDir() + "/results_out.json";
  Outcome o = RunTrnbench(
      "--workload exp_tiled --repeat 4 --format json --output " + path);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Slurp(path), o.out);
}

std::string Baselines() {
  return std::string(TRNBENCH_SOURCE_DIR) + "/baselines/trn1";
}

TEST(CliGateTest, UnchangedModelPassesWithAPairedExactZero) {
  Outcome o = RunTrnbench("gate --baseline " + Baselines());
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("paired analysis"));
  EXPECT_THAT(o.out, HasSubstr("result: no regression"));
  EXPECT_THAT(o.out, Not(HasSubstr("regression  ")));
}

TEST(CliGateTest, InjectedSlowdownFailsTheGateWithExitOne) {
  Outcome o = RunTrnbench("gate --baseline " + Baselines() +
                          " --fresh-seeds --set op_exec_overhead_us=420");
  ASSERT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_THAT(o.out, HasSubstr("regression"));
  EXPECT_THAT(o.out, HasSubstr("device profile differs"));
  EXPECT_THAT(o.out, Not(HasSubstr("paired analysis")));
}

TEST(CliGateTest, JsonCarriesTheComparison) {
  Outcome o = RunTrnbench("gate --baseline " + Baselines() +
                          " --format json --set graph_exec_overhead_us=400");
  ASSERT_EQ(o.code, 1) << o.err;
  auto j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.contains("comparison"));
  EXPECT_EQ(j["comparison"]["regression"], true);
  EXPECT_EQ(j["comparison"]["correction"], "holm");
  bool found = false;
  for (const auto& row : j["comparison"]["rows"]) {
    if (row["workload"] == "rmsnorm_compiled") {
      found = true;
      EXPECT_EQ(row["verdict"], "regression");
      EXPECT_GT(row["change_ci_low"].get<double>(), 0.02);
      EXPECT_LE(row["p_rank"].get<double>(), row["p_adjusted"].get<double>());
    }
  }
  EXPECT_TRUE(found);
}

TEST(CliGateTest, MissingBaselinesAreAnErrorOrNew) {
  const std::string dir = ::testing::TempDir() + "/gate_partial";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(Baselines() + "/exp_tiled.json",
                             dir + "/exp_tiled.json");
  Outcome refused = RunTrnbench("gate --baseline " + dir);
  EXPECT_EQ(refused.code, 2);
  // The first workload in catalog order that lacks one.
  EXPECT_THAT(refused.err, HasSubstr("no baseline for workload exp_size1"));
  Outcome allowed = RunTrnbench("gate --baseline " + dir + " --allow-missing");
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_THAT(allowed.out, HasSubstr("new"));
}

TEST(CliGateTest, SaveBaselineThenCompareOffline) {
  const std::string dir = ::testing::TempDir() + "/gate_saved";
  std::filesystem::remove_all(dir);
  Outcome saved =
      RunTrnbench("--workload exp_tiled --repeat 30 --save-baseline " + dir +
                  " --output " + dir + "_old.json");
  ASSERT_EQ(saved.code, 0) << saved.err;
  EXPECT_THAT(saved.err, HasSubstr("saved 1 baseline in " + dir));
  ASSERT_TRUE(std::filesystem::exists(dir + "/exp_tiled.json"));
  Outcome slow = RunTrnbench(
      "--workload exp_tiled --repeat 30 --seed 2 "
      "--set dma_latency_us=5 --output " +
      dir + "_new.json");
  ASSERT_EQ(slow.code, 0) << slow.err;
  Outcome cmp =
      RunTrnbench("compare " + dir + "/exp_tiled.json " + dir + "_new.json");
  EXPECT_EQ(cmp.code, 1) << cmp.out << cmp.err;
  EXPECT_THAT(cmp.out, HasSubstr("regression"));
  Outcome same =
      RunTrnbench("compare " + dir + "_old.json " + dir + "/exp_tiled.json");
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_THAT(same.out, HasSubstr("+0.00%"));
  // --output keeps what --format json prints, even on a regression.
  Outcome json =
      RunTrnbench("compare " + dir + "/exp_tiled.json " + dir +
                  "_new.json --format json --output " + dir + "_cmp.json");
  EXPECT_EQ(json.code, 1) << json.err;
  EXPECT_EQ(Slurp(dir + "_cmp.json"), json.out);
  const nlohmann::json c = nlohmann::json::parse(json.out);
  EXPECT_EQ(c["regression"], true);
  ASSERT_FALSE(c["rows"].empty()) << json.out;
  EXPECT_EQ(c["rows"][0]["workload"], "exp_tiled");
}

// A refresh that changes nothing but the date and the commit leaves the
// baseline file as it was (same bytes, same inode), while a refresh with a
// real change rewrites it.
TEST(CliGateTest, NoOpBaselineRefreshLeavesFilesAlone) {
  const std::string dir = ::testing::TempDir() + "/gate_noop_refresh";
  std::filesystem::remove_all(dir);
  const std::string file = dir + "/exp_tiled.json";
  Outcome first =
      RunTrnbench("--workload exp_tiled --repeat 20 --save-baseline " + dir);
  ASSERT_EQ(first.code, 0) << first.err;
  // Make the stored file look older, as a committed baseline would.
  std::string text = Slurp(file);
  const std::string key = "\"created\": \"";
  const size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at + key.size(), 4, "1999");
  std::ofstream(file, std::ios::binary) << text;
  const auto before = std::filesystem::last_write_time(file);
  Outcome again =
      RunTrnbench("--workload exp_tiled --repeat 20 --save-baseline " + dir);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_THAT(again.err, HasSubstr("1 unchanged"));
  EXPECT_EQ(Slurp(file), text);
  EXPECT_EQ(std::filesystem::last_write_time(file), before);
  Outcome changed = RunTrnbench(
      "--workload exp_tiled --repeat 20 --seed 3 --save-baseline " + dir);
  ASSERT_EQ(changed.code, 0) << changed.err;
  EXPECT_THAT(changed.err, Not(HasSubstr("unchanged")));
  EXPECT_NE(Slurp(file), text);
}

struct GateBadCase {
  const char* name;
  const char* args;
  const char* message;
};

class CliGateBadInputTest : public ::testing::TestWithParam<GateBadCase> {};

TEST_P(CliGateBadInputTest, ExitsTwo) {
  const std::string bad = ::testing::TempDir() + "/bad_baseline.json";
  std::ofstream(bad) << "{\"schema\": \"trnbench.baseline\", \"schema_ver";
  std::string args = GetParam().args;
  for (auto pos = args.find("BAD"); pos != std::string::npos;
       pos = args.find("BAD")) {
    args.replace(pos, 3, bad);
  }
  for (auto pos = args.find("BASE"); pos != std::string::npos;
       pos = args.find("BASE")) {
    args.replace(pos, 4, Baselines());
  }
  Outcome o = RunTrnbench(args);
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_THAT(o.out, IsEmpty());
  EXPECT_THAT(o.err, HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, CliGateBadInputTest,
    ::testing::Values(
        GateBadCase{"GateWithoutBaseline", "gate", "gate needs --baseline"},
        GateBadCase{"NoSuchBaseline", "gate --baseline /nonexistent/x",
                    "--baseline /nonexistent/x: no such folder or file"},
        GateBadCase{"TruncatedBaseline", "--workload exp_tiled --baseline BAD",
                    "malformed JSON"},
        GateBadCase{"UnknownSetKey", "gate --baseline BASE --set bogus=1",
                    "--set bogus: unknown parameter"},
        GateBadCase{"SetNotANumber",
                    "gate --baseline BASE --set dma_latency_us=x",
                    "expected KEY=VALUE with a number"},
        GateBadCase{"SetNegative",
                    "gate --baseline BASE --set dma_latency_us=-1",
                    "expected a finite number >= 0"},
        GateBadCase{"ThresholdTooBig", "gate --baseline BASE --threshold 2",
                    "--threshold=2"},
        GateBadCase{"AlphaZero", "gate --baseline BASE --alpha 0", "--alpha=0"},
        GateBadCase{"CompareOneFile", "compare BAD", "compare needs two files"},
        GateBadCase{"CompareBadFile", "compare BAD BAD", "malformed JSON"}),
    [](const ::testing::TestParamInfo<GateBadCase>& p) {
      return std::string(p.param.name);
    });

TEST(CliGateTest, BaselineOfAnotherDeviceIsRefused) {
  const std::string dir = ::testing::TempDir() + "/gate_trn2";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto j = nlohmann::json::parse(Slurp(Baselines() + "/exp_tiled.json"));
  j["device"]["name"] = "trn2";
  std::ofstream(dir + "/exp_tiled.json") << j.dump();
  Outcome o = RunTrnbench("--workload exp_tiled --baseline " + dir);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err,
              HasSubstr("/device/name: the baseline is for device trn2"));
  EXPECT_THAT(o.out, IsEmpty());
}

// The table layout is a contract with the people who read it; a change must
// be deliberate: regenerate with TRNBENCH_UPDATE_GOLDEN=1.
TEST(CliTest, TableMatchesGolden) {
  Outcome o = RunTrnbench("--workload all --repeat 20 --seed 1");
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string golden =
      std::string(TRNBENCH_SOURCE_DIR) + "/tests/harness/golden/all_table.txt";
  if (std::getenv("TRNBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(golden, std::ios::binary) << o.out;
  }
  EXPECT_EQ(o.out, Slurp(golden));
}

}  // namespace
}  // namespace trn

namespace trn {
namespace {

// The libraries name a parameter (`shard`, `repeat`); the program writes
// the flag that sets it.
TEST(CliTest, ParametersTheLibrariesNameAreSpelledAsFlags) {
  const Outcome shard =
      RunTrnbench("--workload rmsnorm --repeat 3 --shard 2/2");
  EXPECT_EQ(shard.code, 2);
  EXPECT_THAT(shard.err,
              ::testing::StartsWith("trnbench: error: --shard 2/2: "));
  const Outcome size = RunTrnbench("--workload all --repeat 1000000");
  EXPECT_EQ(size.code, 2);
  EXPECT_THAT(size.err,
              ::testing::StartsWith("trnbench: error: --repeat=1000000 with "));
  EXPECT_THAT(size.err, HasSubstr(", so --repeat at most "));
  for (const Outcome& o : {shard, size}) {
    EXPECT_THAT(o.err, ::testing::Not(HasSubstr("`"))) << o.err;
  }
}

}  // namespace
}  // namespace trn
