#include "support/output_transaction.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "txn" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Every entry below `dir` with its bytes ("<dir>" for folders).
std::map<std::string, std::string> Tree(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out[fs::relative(e.path(), dir).string()] =
        e.is_directory() ? "<dir>" : Slurp(e.path());
  }
  return out;
}

// Runs `body` in a child process; returns its exit status.
template <typename Body>
int InChild(Body body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(OutputTransactionTest, TemporaryNamesFollowOnePattern) {
  EXPECT_TRUE(IsTemporaryName(".exp_tiled.json.tmp.Ab12Zz"));
  EXPECT_TRUE(IsTemporaryName(".exp_tiled.json.tmp.Ab12Zz.old"));
  EXPECT_TRUE(IsTemporaryName(".report.tmp.000000"));
  EXPECT_FALSE(IsTemporaryName("exp_tiled.json.tmp.Ab12Zz"));
  EXPECT_FALSE(IsTemporaryName(".exp_tiled.json.tmp.Ab12"));
  EXPECT_FALSE(IsTemporaryName(".exp_tiled.json.tmp.Ab1-Zz"));
  EXPECT_FALSE(IsTemporaryName(".gitignore"));
  EXPECT_FALSE(IsTemporaryName("exp_tiled.json"));
}

TEST(OutputTransactionTest, TheTemporaryPatternIsIgnoredByGit) {
  const std::string ignore =
      Slurp(fs::path(TRNBENCH_SOURCE_DIR) / ".gitignore");
  EXPECT_THAT(ignore, HasSubstr(std::string("\n") + kTemporaryGlob + "\n"));
}

struct BadPlan {
  const char* name;
  const char* message;
};

TEST(OutputTransactionTest, CheckRefusesEveryBadPlanBeforeAnythingRuns) {
  const fs::path dir = FreshDir("check");
  fs::create_directories(dir / "a_folder");
  Write(dir / "a_file", "x");
  Write(dir / "input.json", "{}");
  fs::create_directories(dir / "rep/plots");
  const std::string d = dir.string();
  auto refused = [&](OutputTransaction& t, const std::string& fragment) {
    const absl::Status s = t.Check();
    EXPECT_FALSE(s.ok()) << fragment;
    EXPECT_THAT(std::string(s.message()), HasSubstr(fragment));
  };
  {
    OutputTransaction t;
    t.PlanFile("--output", "");
    refused(t, "--output: expected a file name, got an empty value");
  }
  {
    OutputTransaction t;
    t.PlanFile("--output", d + "/a_folder");
    refused(t, "--output " + d + "/a_folder: is a folder; expected a file");
  }
  {
    OutputTransaction t;
    t.PlanFolder("--report-dir", d + "/a_file", {"report.md"});
    refused(t, "--report-dir " + d + "/a_file: exists and is not a folder");
  }
  {
    OutputTransaction t;
    t.PlanFolder("--report-dir", d + "/a_file/below", {"report.md"});
    refused(t, "cannot create the folder: " + d + "/a_file is not a folder");
  }
  {
    OutputTransaction t;
    t.PlanFile("--trace", d + "/nope/t.json");
    refused(t, "cannot create a file in " + d + "/nope");
  }
  {
    OutputTransaction t;
    t.PlanFile("--output", d + "/x.json");
    t.PlanFile("--trace", d + "/./x.json");
    refused(t,
            "--trace " + d + "/./x.json: --output writes " + d + "/x.json too");
  }
  {
    OutputTransaction t;
    t.AddInput("--spec", d + "/input.json");
    t.PlanFile("--output", d + "/input.json");
    refused(t, "would overwrite " + d +
                   "/input.json, which is the input "
                   "--spec");
  }
  {
    // Through a symbolic link: the same file.
    fs::create_symlink(dir / "input.json", dir / "link.json");
    OutputTransaction t;
    t.AddInput("compare", d + "/link.json");
    t.PlanFile("--output", d + "/input.json");
    refused(t, "which is the input compare " + d + "/link.json");
  }
  {
    OutputTransaction t;
    t.PlanFolder("--report-dir", d + "/rep", {"results.json", "plots/"});
    t.PlanFile("--output", d + "/rep/results.json");
    refused(t, "--report-dir writes " + d + "/rep/results.json too");
  }
  {
    OutputTransaction t;
    t.PlanFolder("--report-dir", d + "/rep", {"results.json", "plots/"});
    t.PlanFile("--trace", d + "/rep/plots/t.json");
    refused(t, "--report-dir writes " + d + "/rep/plots");
  }
  {
    OutputTransaction t;
    t.PlanFolder("--report-dir", d + "/rep", {"report.md"});
    t.PlanFolder("--save-baseline", d + "/rep/", {"w.json"});
    refused(t, "expected a different place for each output");
  }
  {
    OutputTransaction t;
    t.PlanAppend("GITHUB_STEP_SUMMARY", d + "/a_folder");
    refused(t, "GITHUB_STEP_SUMMARY " + d + "/a_folder: is not a regular file");
  }
  // What is fine: a trace beside the report's files, and a save into the
  // folder of the baselines the run was compared with.
  OutputTransaction fine;
  fine.PlanFolder("--report-dir", d + "/rep", {"results.json", "plots/"});
  fine.PlanFile("--trace", d + "/rep/trace.json");
  fine.AddInput("--baseline", d + "/rep", /*replaceable=*/true);
  fine.PlanFolder("--save-baseline", d + "/bl", {"w.json"});
  fine.AddInput("--baseline", d + "/bl/w.json", /*replaceable=*/true);
  EXPECT_TRUE(fine.Check().ok()) << fine.Check();
  EXPECT_FALSE(fs::exists(dir / "bl")) << "Check() writes nothing";
}

TEST(OutputTransactionTest, CommitPutsEverythingInPlaceAndLeavesNoTemporary) {
  const fs::path dir = FreshDir("commit");
  Write(dir / "old.json", "old");
  fs::create_directories(dir / "existing");
  Write(dir / "existing/keep.txt", "mine");
  Write(dir / "summary.md", "previous\n");
  OutputTransaction t;
  t.PlanFile("--output", (dir / "old.json").string());
  t.PlanFile("--trace", (dir / "new.json").string());
  t.PlanFolder("--report-dir", (dir / "a/b/fresh").string(), {"r.md"});
  t.PlanFolder("--save-baseline", (dir / "existing").string(), {"w.json"});
  t.PlanAppend("GITHUB_STEP_SUMMARY", (dir / "summary.md").string());
  ASSERT_TRUE(t.Check().ok()) << t.Check();
  ASSERT_TRUE(t.StageFile((dir / "old.json").string(), "new").ok());
  ASSERT_TRUE(t.StageFile((dir / "new.json").string(), "trace").ok());
  ASSERT_TRUE(t.StageFolder((dir / "a/b/fresh").string(),
                            {{"r.md", "report"}, {"plots/p.svg", "svg"}})
                  .ok());
  ASSERT_TRUE(
      t.StageFolder((dir / "existing").string(), {{"w.json", "w"}}).ok());
  ASSERT_TRUE(t.StageAppend((dir / "summary.md").string(), "| row |\n").ok());
  // Staged, not yet visible.
  EXPECT_EQ(Slurp(dir / "old.json"), "old");
  EXPECT_FALSE(fs::exists(dir / "new.json"));
  EXPECT_FALSE(fs::exists(dir / "a/b/fresh"));
  EXPECT_EQ(Slurp(dir / "summary.md"), "previous\n");
  ASSERT_TRUE(t.Commit().ok());
  EXPECT_EQ(Tree(dir), (std::map<std::string, std::string>{
                           {"a", "<dir>"},
                           {"a/b", "<dir>"},
                           {"a/b/fresh", "<dir>"},
                           {"a/b/fresh/plots", "<dir>"},
                           {"a/b/fresh/plots/p.svg", "svg"},
                           {"a/b/fresh/r.md", "report"},
                           {"existing", "<dir>"},
                           {"existing/keep.txt", "mine"},
                           {"existing/w.json", "w"},
                           {"new.json", "trace"},
                           {"old.json", "new"},
                           {"summary.md", "previous\n| row |\n"}}));
}

// A rename that fails half-way through the commit: everything already put
// in place is rolled back, so the command wrote nothing.
TEST(OutputTransactionTest, AFailedRenameRollsBackWhatWasAlreadyInPlace) {
  const fs::path dir = FreshDir("rollback");
  Write(dir / "old.json", "old");
  fs::create_directories(dir / "bl");
  Write(dir / "bl/w0.json", "w0 old");
  Write(dir / "summary.md", "previous\n");
  const auto before = Tree(dir);
  for (int fail_at = 0; fail_at < 5; ++fail_at) {
    OutputTransaction t;
    t.PlanFile("--output", (dir / "old.json").string());
    t.PlanFolder("--report-dir", (dir / "rep").string(), {"r.md"});
    t.PlanFolder("--save-baseline", (dir / "bl").string(),
                 {"w0.json", "w1.json"});
    t.PlanAppend("GITHUB_STEP_SUMMARY", (dir / "summary.md").string());
    ASSERT_TRUE(t.Check().ok());
    ASSERT_TRUE(t.StageFile((dir / "old.json").string(), "new").ok());
    ASSERT_TRUE(t.StageFolder((dir / "rep").string(), {{"r.md", "r"}}).ok());
    ASSERT_TRUE(t.StageFolder((dir / "bl").string(),
                              {{"w0.json", "w0 new"}, {"w1.json", "w1"}})
                    .ok());
    ASSERT_TRUE(t.StageAppend((dir / "summary.md").string(), "row\n").ok());
    t.FailRenameForTesting(fail_at);
    const absl::Status s = t.Commit();
    if (fail_at == 4) {
      // Only four renames: nothing failed.
      ASSERT_TRUE(s.ok()) << s;
      continue;
    }
    ASSERT_FALSE(s.ok()) << fail_at;
    EXPECT_THAT(std::string(s.message()), HasSubstr("rename failed"));
    EXPECT_THAT(std::string(s.message()),
                HasSubstr("nothing was written: every output already put "
                          "in place was restored"));
    EXPECT_EQ(Tree(dir), before) << "failing rename " << fail_at;
  }
  EXPECT_EQ(Slurp(dir / "bl/w0.json"), "w0 new");
  EXPECT_EQ(Slurp(dir / "summary.md"), "previous\nrow\n");
}

// A full disk while appending to $GITHUB_STEP_SUMMARY: the file is cut back
// to its old length (no cut row) and the other outputs are rolled back.
TEST(OutputTransactionTest, AFullDiskNeverLeavesACutRowInTheStepSummary) {
  const fs::path dir = FreshDir("append_full");
  const std::string previous(3000, 'p');
  Write(dir / "summary.md", previous);
  Write(dir / "out.json", "old");
  const int code = InChild([&] {
    signal(SIGXFSZ, SIG_IGN);
    OutputTransaction t;
    t.PlanFile("--output", (dir / "out.json").string());
    t.PlanAppend("GITHUB_STEP_SUMMARY", (dir / "summary.md").string());
    if (!t.Check().ok()) return 3;
    if (!t.StageFile((dir / "out.json").string(), "new").ok()) return 4;
    rlimit rl{};
    getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = 4096;  // room for 1096 more bytes, not 5000
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 5;
    absl::Status s =
        t.StageAppend((dir / "summary.md").string(), std::string(5000, 'r'));
    if (s.ok()) s = t.Commit();
    if (s.ok()) return 0;
    return s.code() == absl::StatusCode::kResourceExhausted ? 1 : 6;
  });
  ASSERT_EQ(code, 1) << "the append should have failed as a full disk";
  EXPECT_EQ(Slurp(dir / "summary.md"), previous);
  EXPECT_EQ(Slurp(dir / "out.json"), "old");
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_FALSE(IsTemporaryName(e.path().filename().string())) << e.path();
  }
}

// A failure while staging a new folder (a full disk) removes the folders it
// made on the way: no empty folder is left behind.
TEST(OutputTransactionTest, AFailedStageLeavesNoNewFolder) {
  const fs::path dir = FreshDir("stage_fail");
  const int code = InChild([&] {
    signal(SIGXFSZ, SIG_IGN);
    rlimit rl{};
    getrlimit(RLIMIT_FSIZE, &rl);
    rl.rlim_cur = 1024;
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 5;
    OutputTransaction t;
    t.PlanFolder("--save-baseline", (dir / "new/bl").string(), {"w.json"});
    if (!t.Check().ok()) return 3;
    const absl::Status s = t.StageFolder((dir / "new/bl").string(),
                                         {{"w.json", std::string(4096, 'w')}});
    return s.ok() ? 0 : 1;
  });
  ASSERT_EQ(code, 1);
  EXPECT_TRUE(Tree(dir).empty()) << "left: " << Tree(dir).begin()->first;
}

// In a sticky folder (/tmp, a shared CI folder) a file of another user
// cannot be replaced: found by Check(), not half-way through a commit.
TEST(OutputTransactionTest, AFileOfAnotherUserInAStickyFolderIsRefusedUpFront) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a second user's file";
  const fs::path dir = FreshDir("sticky");
  fs::permissions(dir, fs::perms::all | fs::perms::sticky_bit);
  Write(dir / "w0.json", "w0 nobody's");
  Write(dir / "w1.json", "w1 root's");
  ASSERT_EQ(chown((dir / "w0.json").c_str(), 65534, 65534), 0);
  for (fs::path p = dir; p != p.parent_path(); p = p.parent_path()) {
    fs::permissions(p, fs::perms::others_exec, fs::perm_options::add);
  }
  const fs::path message = dir.parent_path() / "sticky_message";
  Write(message, "");
  fs::permissions(message, fs::perms::all);
  const int code = InChild([&] {
    if (setgid(65534) != 0 || setuid(65534) != 0) return 3;
    OutputTransaction t;
    t.PlanFolder("--save-baseline", dir.string(), {"w0.json", "w1.json"});
    const absl::Status s = t.Check();
    std::ofstream(message) << s.message();
    return s.code() == absl::StatusCode::kPermissionDenied ? 1 : 0;
  });
  ASSERT_NE(code, 3) << "could not become user nobody";
  EXPECT_EQ(code, 1);
  EXPECT_THAT(Slurp(message),
              HasSubstr("--save-baseline " + (dir / "w1.json").string() +
                        ": belongs to another user in the sticky folder"));
  EXPECT_EQ(Slurp(dir / "w0.json"), "w0 nobody's");
  EXPECT_EQ(Slurp(dir / "w1.json"), "w1 root's");
}

// Temporaries of killed runs are removed by the next run that stages in
// the folder, whatever their age, once no live run is staging there (a
// fresh one is a killed run's too: issue 43); other hidden files and other
// users' are left alone.
TEST(OutputTransactionTest, StagingRemovesTemporariesOfKilledRuns) {
  const fs::path dir = FreshDir("stale");
  Write(dir / ".w.json.tmp.AAAAAA", "stale");
  Write(dir / ".w.json.tmp.BBBBBB.old", "stale backup");
  fs::create_directories(dir / ".rep.tmp.CCCCCC/plots");
  Write(dir / ".w.json.tmp.DDDDDD", "fresh");
  Write(dir / ".hidden", "keep");
  Write(dir / ".w.json.tmp.short", "not the pattern: 5 characters");
  ASSERT_TRUE(WriteFileAtomic((dir / "w.json").string(), "new").ok());
  EXPECT_EQ(Tree(dir),
            (std::map<std::string, std::string>{
                {".hidden", "keep"},
                {".w.json.tmp.short", "not the pattern: 5 characters"},
                {"w.json", "new"}}));
}

// While another run stages in the folder (it holds the folder's lock,
// however old its temporaries are), nothing there is removed: its
// temporaries cannot be told from a killed run's, so none goes.
TEST(OutputTransactionTest, ALiveRunsTemporariesAreNeverRemoved) {
  const fs::path dir = FreshDir("live");
  {
    // A live transaction: staged, not yet committed. (Staging first, it
    // found the folder free and cleared it.)
    OutputTransaction live;
    live.PlanFile("--output", (dir / "x.json").string());
    ASSERT_TRUE(live.Check().ok());
    ASSERT_TRUE(live.StageFile((dir / "x.json").string(), "x").ok());
    // Another temporary of the pattern, an hour old: a third run's, live
    // or killed, which cannot be told while the folder is held.
    Write(dir / ".w.json.tmp.AAAAAA", "a live run's, or a killed one's");
    const std::time_t old = std::time(nullptr) - 3600;
    const utimbuf times{old, old};
    ASSERT_EQ(utime((dir / ".w.json.tmp.AAAAAA").c_str(), &times), 0);
    ASSERT_TRUE(WriteFileAtomic((dir / "w.json").string(), "new").ok());
    std::map<std::string, std::string> tree = Tree(dir);
    EXPECT_EQ(tree.count(".w.json.tmp.AAAAAA"), 1u);
    int staged = 0;
    for (const auto& [name, bytes] : tree) {
      staged += name.rfind(".x.json.tmp.", 0) == 0 && bytes == "x";
    }
    EXPECT_EQ(staged, 1) << "the live run's own temporary is kept";
    ASSERT_TRUE(live.Commit().ok());
  }
  // No run is live: the next one clears what is left.
  ASSERT_TRUE(WriteFileAtomic((dir / "w.json").string(), "newer").ok());
  EXPECT_EQ(Tree(dir), (std::map<std::string, std::string>{{"w.json", "newer"},
                                                           {"x.json", "x"}}));
}

}  // namespace
}  // namespace trn
