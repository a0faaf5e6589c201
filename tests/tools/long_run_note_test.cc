// A command that will simulate for long says so, with an estimate of the
// time, before its first run (issue 43: `--workload matmul_bf16_2048
// --repeat 2 --warmup 1000000` ran for minutes with only the bar on
// screen; warm-up runs are no longer simulated, so a long command is now a
// large program run many times), and a short one says nothing.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/run_trnbench.h"

namespace trn {
namespace {

using test::FreshDir;
using test::Outcome;
using test::RunTrnbench;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(LongRunNoteTest, ALongCommandIsToldItsTimeBeforeItRuns) {
  const std::string dir = FreshDir("long_run_note");
  // The note comes after lowering, before the first of 2000 runs of a
  // 500k-instruction program (some 45 s at --jobs 1); the run itself is
  // cut short by SIGKILL (no output is written then).
  const Outcome o = RunTrnbench(
      "--workload exp_tiled --shape in_tensor,out_tensor=12800000x512 "
      "--repeat 2000 --jobs 1 --output " +
          dir + "/results.json",
      "timeout -s KILL 30");
  EXPECT_NE(o.code, 0) << "the run should still have been running";
  EXPECT_THAT(o.err, HasSubstr("trnbench: note: this command will simulate "
                               "about "));
  // 1e9 instructions here: "67 to 133 seconds on one core".
  EXPECT_THAT(o.err, ::testing::ContainsRegex(
                         "instructions: [0-9.]+ to [0-9.]+ (seconds|minutes) "
                         "on one core \\(--repeat 2000 runs of each "
                         "workload; lower it to shorten it\\)"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/results.json"));
}

TEST(LongRunNoteTest, AShortRunSaysNothing) {
  const std::string dir = FreshDir("short_run_note");
  const Outcome o = RunTrnbench("--workload exp_tiled --repeat 2 --output " +
                                dir + "/results.json");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, Not(HasSubstr("note:")));
}

}  // namespace
}  // namespace trn
