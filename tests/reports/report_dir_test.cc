// --report-dir: the folder's contents, byte-identical across runs with the
// same seed, the GitHub step summary, and atomicity: a failure leaves no
// partial folder and no half-written file.
#include "reports/report_dir.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "reports/json_results.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using report_test::RunTrnbench;
using report_test::Slurp;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Every file under `dir`, relative, with its bytes.
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(e.path(), dir).string();
    out[rel] = e.is_regular_file() ? Slurp(e.path().string()) : "<dir>";
  }
  return out;
}

bool AnyStaging(const std::string& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp.") != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(ReportDirTest, RendersTheDocumentedFiles) {
  const RunResult run = report_test::MakeRun(report_test::kSeeds, 6);
  ReportInputs in;
  in.run = &run;
  const ReportFiles files = RenderReportFiles(in);
  std::set<std::string> names;
  for (const auto& f : files.files) names.insert(f.path);
  for (const char* f :
       {"results.json", "report.md", "report.html", "summary.csv",
        "samples.csv", "plots/rmsnorm-device_time_us.svg",
        "plots/exp-latency_us.svg"}) {
    EXPECT_TRUE(names.count(f)) << f;
  }
  for (const auto& f : files.files) {
    if (f.path == "results.json") {
      EXPECT_EQ(f.content, ResultsToJsonText(run));
    }
  }
  EXPECT_THAT(files.step_summary, Not(HasSubstr("![")));
}

TEST(ReportDirTest, FreshFolderAppearsWhole) {
  const std::string root = report_test::FreshDir("fresh");
  const std::string dir = root + "/a/b/report";  // missing ancestors too
  const std::vector<OutputFile> files = {{"x.txt", "x"}, {"sub/y.txt", "y"}};
  ASSERT_TRUE(WriteFolderAtomic("--report-dir", dir, files).ok());
  EXPECT_EQ(Slurp(dir + "/x.txt"), "x");
  EXPECT_EQ(Slurp(dir + "/sub/y.txt"), "y");
  EXPECT_FALSE(AnyStaging(root));
  // Trailing slash names the same folder.
  ASSERT_TRUE(WriteFolderAtomic("--report-dir", root + "/c/", files).ok());
  EXPECT_EQ(Slurp(root + "/c/x.txt"), "x");
}

TEST(ReportDirTest, ExistingFolderKeepsOtherFiles) {
  const std::string dir = report_test::FreshDir("existing");
  std::ofstream(dir + "/notes.txt") << "mine";
  std::ofstream(dir + "/x.txt") << "old";
  ASSERT_TRUE(WriteFolderAtomic("--report-dir", dir,
                                {{"x.txt", "new"}, {"p/z.svg", "z"}})
                  .ok());
  EXPECT_EQ(Slurp(dir + "/notes.txt"), "mine");
  EXPECT_EQ(Slurp(dir + "/x.txt"), "new");
  EXPECT_EQ(Slurp(dir + "/p/z.svg"), "z");
  EXPECT_FALSE(AnyStaging(dir));
}

TEST(ReportDirTest, UnusablePathsAreRefusedAndNothingIsWritten) {
  const std::string root = report_test::FreshDir("unusable");
  const std::string file = root + "/plain_file";
  std::ofstream(file) << "keep";
  auto s = WriteFolderAtomic("--report-dir", file, {{"x.txt", "x"}});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr(file));
  EXPECT_EQ(Slurp(file), "keep");
  s = WriteFolderAtomic("--report-dir", file + "/below", {{"x.txt", "x"}});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr(file + "/below"));
  EXPECT_EQ(Tree(root).size(), 1u);
  // Even root cannot make folders in /proc.
  s = WriteFolderAtomic("--report-dir", "/proc/trnbench-report/x",
                        {{"x.txt", "x"}});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("--report-dir /proc/trnbench-report/x"));
  EXPECT_FALSE(fs::exists("/proc/trnbench-report"));
}

TEST(ReportDirCliTest, WritesEverythingDeterministically) {
  const std::string root = report_test::FreshDir("cli_det");
  const std::string base = report_test::SourceDir() + "/baselines/trn1";
  const std::string common = "gate --workload rmsnorm,exp_tiled --baseline " +
                             base + " --repeat 40 --seed 3 --fresh-seeds";
  auto a = RunTrnbench(common + " --report-dir " + root + "/a --junit " + root +
                       "/a.xml --trace " + root + "/a.trace.json");
  auto b = RunTrnbench(common + " --report-dir " + root + "/b --junit " + root +
                       "/b.xml --trace " + root + "/b.trace.json");
  ASSERT_LE(a.code, 1) << a.err;
  EXPECT_EQ(a.code, b.code);
  EXPECT_THAT(a.err, IsEmpty());
  const auto ta = Tree(root + "/a");
  const auto tb = Tree(root + "/b");
  EXPECT_EQ(ta, tb) << "same seed, same bytes, in every file";
  EXPECT_EQ(Slurp(root + "/a.xml"), Slurp(root + "/b.xml"));
  EXPECT_EQ(Slurp(root + "/a.trace.json"), Slurp(root + "/b.trace.json"));
  for (const char* f :
       {"results.json", "report.md", "report.html", "summary.csv",
        "samples.csv", "plots/rmsnorm-device_time_us.svg"}) {
    EXPECT_TRUE(ta.count(f)) << f;
  }
  // results.json is the --format json document, comparison included.
  const auto j = nlohmann::json::parse(ta.at("results.json"));
  EXPECT_EQ(j["schema"], "trnbench.results");
  EXPECT_TRUE(j.contains("comparison"));
  for (const char* k : {"change", "change_ci_low", "change_ci_high", "p_rank",
                        "p_t", "p_adjusted", "verdict", "reason"}) {
    EXPECT_TRUE(j["comparison"]["rows"][0].contains(k)) << k;
  }
  // With a baseline the plots show both sides.
  EXPECT_THAT(ta.at("plots/rmsnorm-device_time_us.svg"),
              HasSubstr(">current</text>"));
  EXPECT_THAT(ta.at("report.md"), HasSubstr("## Verdict"));
  // No timestamp or host-specific text sneaks in.
  EXPECT_THAT(ta.at("report.html"), Not(HasSubstr(root)));
}

TEST(ReportDirCliTest, AppendsToTheGithubStepSummary) {
  const std::string root = report_test::FreshDir("cli_summary");
  const std::string summary = root + "/step_summary.md";
  std::ofstream(summary) << "previous step\n";
  const std::string args =
      "--workload exp_tiled --repeat 5 --report-dir " + root + "/r";
  auto o = RunTrnbench(args, "GITHUB_STEP_SUMMARY=" + summary);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string text = Slurp(summary);
  EXPECT_EQ(text.rfind("previous step\n# trnbench report", 0), 0u);
  EXPECT_THAT(text, HasSubstr("## Family `exp`"));
  EXPECT_THAT(text, Not(HasSubstr("![")));
  // Without --report-dir nothing is appended.
  o = RunTrnbench("--workload exp_tiled --repeat 5",
                  "GITHUB_STEP_SUMMARY=" + summary);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(Slurp(summary), text);
}

TEST(ReportDirCliTest, UnwritableFolderExitsTwoAndWritesNothing) {
  const std::string root = report_test::FreshDir("cli_unwritable");
  std::ofstream(root + "/file") << "x";
  const std::string out = root + "/results.json";
  for (const std::string& dir :
       {root + "/file", root + "/file/sub", std::string("/proc/trnbench-x")}) {
    auto o = RunTrnbench("--workload exp_tiled --repeat 3 --output " + out +
                         " --report-dir " + dir);
    EXPECT_EQ(o.code, 2) << dir;
    EXPECT_THAT(o.out, IsEmpty());
    EXPECT_THAT(o.err, HasSubstr("trnbench: error: --report-dir " + dir));
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_FALSE(fs::exists(out)) << "no output before the check";
  }
  EXPECT_EQ(Tree(root).size(), 1u);
}

// A write that fails half-way (the file size limit stops report.html)
// leaves no folder at all, or the old folder exactly as it was, and no
// staging folder behind.
TEST(ReportDirCliTest, FailureHalfWayLeavesNoPartialContent) {
  const std::string root = report_test::FreshDir("cli_partial");
  // SIGXFSZ ignored, so write() fails with EFBIG instead of killing us.
  const std::string limit = "trap \"\" XFSZ; ulimit -f 48;";
  const std::string args =
      "--workload rmsnorm,exp_tiled --repeat 20 --report-dir ";
  auto o = RunTrnbench(args + root + "/fresh", limit);
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("--report-dir " + root + "/fresh"));
  EXPECT_FALSE(fs::exists(root + "/fresh"));

  const std::string old = root + "/old";
  o = RunTrnbench("--workload exp_tiled --repeat 3 --report-dir " + old);
  ASSERT_EQ(o.code, 0) << o.err;
  const auto before = Tree(old);
  o = RunTrnbench(args + old, limit);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(Tree(old), before) << "the old report is untouched";
  EXPECT_FALSE(AnyStaging(root));
}

}  // namespace
}  // namespace trn
