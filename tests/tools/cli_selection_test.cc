// The command line as hyperfine users expect it (issue 24): "did you mean"
// for mistyped names, globs and --exclude, per-command help, and the
// compact summary of a gate (--summary, $GITHUB_STEP_SUMMARY).
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using test::RunTrnbench;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(DidYouMeanCli, MistypedNamesGetTheCloseOnes) {
  struct Case {
    std::string args;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {"--workload rmsnorm_fuse", "did you mean rmsnorm_fused"},
           {"--workload matmull", "did you mean matmul?"},
           {"--worklaod rmsnorm",
            "unknown flag --worklaod; did you mean "
            "--workload?"},
           {"gatee --baseline x",
            "unexpected argument 'gatee'; did you mean "
            "gate?"},
           {"--workload rmsnorm --device trn3", "did you mean trn1 or trn2?"},
           {"history detct --db x", "did you mean detect?"},
       }) {
    const auto r = RunTrnbench(c.args);
    EXPECT_EQ(r.code, 2) << c.args;
    EXPECT_THAT(r.err, HasSubstr(c.expected)) << c.args;
    // A near miss no longer dumps the whole list of 14 workloads.
    EXPECT_LT(r.err.size(), 200u) << r.err;
  }
}

TEST(SelectionCli, GlobsAndExclude) {
  auto names = [](const std::string& json) {
    std::vector<std::string> out;
    const nlohmann::json results = nlohmann::json::parse(json);
    for (const auto& w : results["workloads"]) {
      out.push_back(w["name"].get<std::string>());
    }
    return out;
  };
  auto r = RunTrnbench("--workload 'rmsnorm_*' --repeat 2 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(names(r.out).size(), 6u);
  r = RunTrnbench(
      "--workload 'rmsnorm_*' --exclude 'rmsnorm_llm*' --repeat 2 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(names(r.out),
              ::testing::UnorderedElementsAre("rmsnorm_naive", "rmsnorm_fused",
                                              "rmsnorm_compiled"));
  r = RunTrnbench(
      "--workload all --exclude exp_sizes,matmul --repeat 2 "
      "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(names(r.out).size(), 9u);
  // An exclusion that matches nothing is a typo, refused.
  r = RunTrnbench("--workload rmsnorm --exclude rmsnorm_fuse --repeat 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--exclude"));
  EXPECT_THAT(r.err, HasSubstr("did you mean rmsnorm_fused"));
  r = RunTrnbench("--workload rmsnorm --exclude 'rms*' --repeat 2");
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("leaves nothing"));
}

TEST(HelpCli, EachCommandHasItsOwn) {
  const auto whole = RunTrnbench("--help");
  ASSERT_EQ(whole.code, 0);
  for (const std::string cmd : {"gate", "history", "compare", "merge"}) {
    const auto r = RunTrnbench(cmd + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("trnbench " + cmd)) << cmd;
    EXPECT_LT(r.out.size(), whole.out.size() / 2) << cmd;
  }
  EXPECT_THAT(RunTrnbench("gate --help").out, HasSubstr("--fresh-seeds"));
  EXPECT_THAT(RunTrnbench("gate --help").out, Not(HasSubstr("--known-gaps")));
  EXPECT_THAT(RunTrnbench("history --help").out, HasSubstr("--nights N"));
  EXPECT_THAT(RunTrnbench("merge --help").out, Not(HasSubstr("--repeat")));
}

TEST(SummaryCli, AGateSaysWhatChangedCompactly) {
  const std::string dir = test::FreshDir("summary_cli");
  // Baselines under a faster eager-op overhead: the eager RMSNorms regress.
  ASSERT_EQ(RunTrnbench("--workload all --repeat 30 --set "
                        "op_exec_overhead_us=350 --save-baseline " +
                        dir + "/bl")
                .code,
            0);
  const std::string step = dir + "/step.md";
  const auto r = RunTrnbench("gate --baseline " + dir +
                                 "/bl --fresh-seeds --repeat 30 --summary " +
                                 dir + "/s.md",
                             "GITHUB_STEP_SUMMARY=" + step);
  ASSERT_EQ(r.code, 1) << r.err;
  const std::string summary = test::Slurp(dir + "/s.md");
  EXPECT_EQ(test::Slurp(step), summary);  // appended, without --report-dir
  EXPECT_THAT(summary, HasSubstr("### trnbench gate: "));
  EXPECT_THAT(summary, HasSubstr("| rmsnorm\\_naive | device\\_time\\_us | "
                                 "**regression** | +"));
  EXPECT_THAT(summary, HasSubstr("**Likely cause**"));
  EXPECT_THAT(summary, HasSubstr("device profile differs"));
  EXPECT_THAT(summary, Not(HasSubstr("| unchanged |")));
  EXPECT_LT(summary.size(), 8192u);
  // compare writes the same kind of summary; a run without a baseline
  // cannot.
  const auto bad = RunTrnbench("--workload rmsnorm --summary " + dir + "/x.md");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--summary"));
  EXPECT_FALSE(fs::exists(dir + "/x.md"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace trn
