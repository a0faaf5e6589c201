// Terminal presentation: colour only on a terminal and never with NO_COLOR;
// a progress bar only on a terminal stderr and only for runs past about a
// second; neither ever changes stdout or a file.
#include "reports/terminal.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/text_table.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(ColorTest, OnlyOnATerminalAndNeverWithNoColor) {
  constexpr ColorChoice kAuto = ColorChoice::kAuto;
  EXPECT_TRUE(ShouldUseColor(kAuto, true, nullptr, nullptr, "xterm-256color"));
  EXPECT_TRUE(ShouldUseColor(kAuto, true, nullptr, nullptr, nullptr));
  EXPECT_FALSE(ShouldUseColor(kAuto, false, nullptr, nullptr, "xterm"));
  EXPECT_FALSE(ShouldUseColor(kAuto, true, "1", nullptr, "xterm"));
  // no-color.org: an empty NO_COLOR does not count.
  EXPECT_TRUE(ShouldUseColor(kAuto, true, "", nullptr, "xterm"));
  EXPECT_FALSE(ShouldUseColor(kAuto, true, nullptr, nullptr, "dumb"));
  // FORCE_COLOR: colour in a CI log that is not a terminal; NO_COLOR wins.
  EXPECT_TRUE(ShouldUseColor(kAuto, false, nullptr, "1", nullptr));
  EXPECT_FALSE(ShouldUseColor(kAuto, false, nullptr, "0", nullptr));
  EXPECT_FALSE(ShouldUseColor(kAuto, false, nullptr, "", nullptr));
  EXPECT_FALSE(ShouldUseColor(kAuto, false, "1", "1", nullptr));
  // --color always / never decide alone.
  EXPECT_TRUE(
      ShouldUseColor(ColorChoice::kAlways, false, "1", nullptr, "dumb"));
  EXPECT_FALSE(
      ShouldUseColor(ColorChoice::kNever, true, nullptr, "1", "xterm"));
  std::ostringstream not_a_terminal;
  EXPECT_FALSE(IsTerminal(not_a_terminal));
  EXPECT_EQ(Colorize("x", Color::kRed, false), "x");
  EXPECT_EQ(Colorize("x", Color::kRed, true), "\x1b[1;31mx\x1b[0m");
}

TEST(ColorTest, TablesAlignWithColouredCells) {
  TextTable plain({"a", "verdict"});
  plain.AddRow({"w", "regression"});
  TextTable colored({"a", "verdict"});
  colored.AddRow({"w", Colorize("regression", Color::kRed, true)});
  std::string c = colored.Render();
  for (const char* seq : {"\x1b[1;31m", "\x1b[0m"}) {
    c.erase(c.find(seq), std::string(seq).size());
  }
  EXPECT_EQ(c, plain.Render());
}

TEST(ProgressBarTest, QuietWhenDisabledOrShort) {
  std::ostringstream err;
  {
    ProgressBar off(err, false, 10);
    off.StartedAgo(std::chrono::seconds(5));
    for (int i = 0; i < 10; ++i) off.Advance();
  }
  EXPECT_THAT(err.str(), IsEmpty());
  {
    ProgressBar quick(err, true, 10);
    for (int i = 0; i < 10; ++i) quick.Advance();
    EXPECT_FALSE(quick.drawn());
  }
  EXPECT_THAT(err.str(), IsEmpty()) << "runs under a second show nothing";
}

TEST(ProgressBarTest, DrawsInPlaceAfterASecondAndErasesItself) {
  std::ostringstream err;
  ProgressBar bar(err, true, 200);
  bar.SetLabel("rmsnorm_naive");
  bar.StartedAgo(std::chrono::milliseconds(1500));
  for (int i = 0; i < 100; ++i) bar.Advance();
  EXPECT_TRUE(bar.drawn());
  EXPECT_THAT(err.str(), HasSubstr("\r"));
  EXPECT_THAT(err.str(), HasSubstr(" elapsed, ETA "));
  EXPECT_THAT(err.str(), HasSubstr(" rmsnorm_naive\x1b[K"));
  EXPECT_THAT(err.str(), Not(HasSubstr("\n")));
  // Half done in 1.5 s: 0:02 elapsed (rounded), the other half as long.
  EXPECT_THAT(bar.Line(),
              ::testing::MatchesRegex(
                  "trnbench \\[###############\\.{15}\\]  50% 0:0[12] "
                  "elapsed, ETA 0:0[12] rmsnorm_naive"));
  bar.Finish();
  EXPECT_EQ(err.str().substr(err.str().size() - 4), "\r\x1b[K");
  const std::string after = err.str();
  bar.Finish();
  EXPECT_EQ(err.str(), after);
}

// A total known only once the work is planned (calibrate's most runs).
TEST(ProgressBarTest, TotalSetLaterScalesTheBar) {
  std::ostringstream err;
  ProgressBar bar(err, true, 0);
  bar.StartedAgo(std::chrono::seconds(2));
  EXPECT_THAT(bar.Line(), HasSubstr("   0% ")) << bar.Line();
  bar.SetTotal(40);
  for (int i = 0; i < 5; ++i) bar.Advance();
  EXPECT_THAT(bar.Line(), HasSubstr("  12% ")) << bar.Line();
  for (int i = 0; i < 15; ++i) bar.Advance();
  EXPECT_THAT(bar.Line(), HasSubstr("  50% ")) << bar.Line();
  bar.SetTotal(10);
  EXPECT_THAT(bar.Line(), HasSubstr(" 100% ")) << "never past the total";
}

// Runs `args` under a pseudo-terminal (util-linux `script`), so stdout and
// stderr are both a terminal; returns what the terminal showed.
std::string OnATerminal(const std::string& args, const std::string& env) {
  static int counter = 0;
  const std::string log = ::testing::TempDir() + "/pty_out_" +
                          std::to_string(getpid()) + "_" +
                          std::to_string(counter++);
  // Only the variables a test names: a NO_COLOR set for the whole CI job
  // must not decide the colour test.
  const std::string cmd = "env -u NO_COLOR -u GITHUB_STEP_SUMMARY " + env +
                          " script -qefc \"" + std::string(TRNBENCH_BINARY) +
                          " " + args + "\" /dev/null </dev/null >" + log +
                          " 2>&1";
  (void)std::system(cmd.c_str());
  return report_test::Slurp(log);
}

bool HaveScript() { return std::system("command -v script >/dev/null") == 0; }

TEST(TerminalCliTest, ColourOnATerminalOnly) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux `script` is not installed";
  const std::string gate = "gate --baseline " + report_test::SourceDir() +
                           "/baselines/trn1 --workload rmsnorm"
                           " --set op_exec_overhead_us=410";
  const std::string tty = OnATerminal(gate, "TERM=xterm");
  EXPECT_THAT(tty, HasSubstr("\x1b[1;31mregression\x1b[0m"));
  EXPECT_THAT(OnATerminal(gate, "TERM=xterm NO_COLOR=1"),
              Not(HasSubstr("\x1b[")));
  auto piped = report_test::RunTrnbench(gate, "TERM=xterm");
  EXPECT_EQ(piped.code, 1);
  EXPECT_THAT(piped.out, Not(HasSubstr("\x1b[")));
  // CI logs: --color always, or FORCE_COLOR, colour a pipe; --color never
  // keeps a terminal plain.
  EXPECT_THAT(report_test::RunTrnbench(gate + " --color always").out,
              HasSubstr("\x1b[1;31mregression\x1b[0m"));
  EXPECT_THAT(report_test::RunTrnbench(gate, "FORCE_COLOR=1").out,
              HasSubstr("\x1b[1;31mregression"));
  EXPECT_THAT(OnATerminal(gate + " --color never", "TERM=xterm"),
              Not(HasSubstr("\x1b[1;31m")));
  EXPECT_THAT(OnATerminal(gate, "TERM=xterm NO_COLOR="),
              HasSubstr("\x1b[1;31mregression"));
  const auto bad = report_test::RunTrnbench(gate + " --color sometimes");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--color=sometimes: expected auto, always "
                                 "or never"));
}

// Runs `command` (a trnbench command line before --repeat) on the test
// spec of 256 tiles a run, piped and then on a terminal, and checks the bar
// shows only on the terminal and never changes the written file. The bar
// shows only after about a second, so --repeat is sized from a timed piped
// run to take some `seconds` on this machine, fast or under a sanitizer.
void ExpectProgressOnATerminalOnly(const std::string& command,
                                   const std::string& dir_name, double seconds,
                                   int64_t max_repeat) {
  const std::string dir = report_test::FreshDir(dir_name);
  auto args = [&](int64_t repeat, const std::string& file) {
    return command + " --spec " + report_test::SourceDir() +
           "/tests/reports/data/progress_heavy.json --repeat " +
           std::to_string(repeat) + " --output " + dir + "/" + file;
  };
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  int64_t repeat = 3000;
  Clock::time_point start = Clock::now();
  auto piped = report_test::RunTrnbench(args(repeat, "pipe.json"));
  ASSERT_EQ(piped.code, 0) << piped.err;
  if (const double t = seconds_since(start); t < seconds) {
    repeat = std::min<int64_t>(
        max_repeat, static_cast<int64_t>(3000 * seconds / std::max(t, 0.05)));
    piped = report_test::RunTrnbench(args(repeat, "pipe.json"));
    ASSERT_EQ(piped.code, 0) << piped.err;
  }
  EXPECT_THAT(piped.err, IsEmpty()) << "stderr is not a terminal: no bar";
  start = Clock::now();
  const std::string tty =
      OnATerminal(args(repeat, "tty.json"), "TERM=xterm NO_COLOR=1");
  const double took = seconds_since(start);
  EXPECT_EQ(report_test::Slurp(dir + "/tty.json"),
            report_test::Slurp(dir + "/pipe.json"))
      << "the bar never changes a file";
  if (took < 1.5) {
    GTEST_SKIP() << command << " took " << took << " s with --repeat " << repeat
                 << ", too short to show the bar";
  }
  EXPECT_THAT(tty, HasSubstr("trnbench ["));
  EXPECT_THAT(tty, HasSubstr(" progress_heavy\x1b[K"));
  EXPECT_THAT(tty, HasSubstr("\r\x1b[K")) << "erased when done";
}

TEST(TerminalCliTest, ProgressOnlyOnATerminalAndNeverInOutputs) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux `script` is not installed";
  // 80000 repeats stay under the samples-per-run limit (1.5 M).
  ExpectProgressOnATerminalOnly("", "progress", 3.0, 80000);
}

// trnbench profile shows the same bar (it ran minutes at a large --repeat
// with no sign of progress); its what-if's runs count too.
TEST(TerminalCliTest, ProfileShowsProgressOnATerminal) {
  if (!HaveScript()) GTEST_SKIP() << "util-linux `script` is not installed";
  ExpectProgressOnATerminalOnly("profile", "profile_progress", 2.5, 40000);
}

}  // namespace
}  // namespace trn
