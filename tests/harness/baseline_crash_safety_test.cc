// Baselines must survive whatever happens while they are saved: a SIGKILL at
// any moment, several processes saving into one folder, a full disk, a
// read-only folder. Afterwards every baseline is the old file or the new
// one, whole and readable, never a mix; a failed save changes nothing.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/statistics/statistics.h"
#include "support/output_transaction.h"

namespace trn {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// SplitMix64: a reproducible stream for kill times, the same everywhere.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// Workloads "wl0", "wl1", ...; workload i has i + 1 metrics of `samples`
// samples each, so the files differ in size.
std::vector<Baseline> MakeBaselines(int workloads, int samples, uint64_t seed) {
  RunResult run;
  run.trnbench_version = "test";
  run.device = "trn1";
  run.device_hash = "abc";
  run.seed = seed;
  run.schedule.repeat = samples;
  const char* kMetrics[] = {"device_time_us", "wall_time_us", "ncl_us",
                            "latency_us"};
  Random random(seed);
  for (int w = 0; w < workloads; ++w) {
    WorkloadResult wr;
    wr.name = "wl" + std::to_string(w);
    wr.family = "fam";
    wr.mode = "eager";
    wr.spec_file = wr.name + ".json";
    wr.spec_hash = "h";
    for (int m = 0; m <= w && m < 4; ++m) {
      MetricResult mr;
      mr.name = kMetrics[m];
      mr.unit = "us";
      for (int i = 0; i < samples; ++i) {
        mr.samples.push_back(
            100.0 + static_cast<double>(random.Next() % 100000) / 1000.0);
      }
      mr.summary = stats::Summarize(mr.samples, 0.95);
      wr.metrics.push_back(std::move(mr));
    }
    run.workloads.push_back(std::move(wr));
  }
  return BaselinesFromRun(run, "2026-01-01T00:00:00Z", "");
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every regular file of `dir` by name, with its bytes.
std::map<std::string, std::string> Files(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out[e.path().filename().string()] = Slurp(e.path());
  }
  return out;
}

bool IsTemporary(const std::string& name) {
  return !name.empty() && name[0] == '.' &&
         name.find(".tmp.") != std::string::npos;
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  if (fs::exists(dir)) {
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  }
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs `body` in a child process; returns its exit status (-signal if it
// was killed).
template <typename Body>
int InChild(Body body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(BaselineCrashSafetyTest, SigkillAtRandomMomentsLeavesOldOrNewNeverAMix) {
  const fs::path dir = FreshDir("crash_kill");
  // Two versions of three baselines, large enough that a save takes a while
  // and a kill can land in serialising, writing, flushing or renaming.
  const std::vector<Baseline> versions[2] = {MakeBaselines(3, 4000, 1),
                                             MakeBaselines(3, 4000, 2)};
  std::map<std::string, std::string> text[2];
  for (int v = 0; v < 2; ++v) {
    for (const Baseline& b : versions[v]) {
      text[v][b.workload + ".json"] = BaselineToJsonText(b);
    }
  }
  ASSERT_TRUE(SaveBaselines(versions[0], dir.string()).ok());

  // How long one whole save takes here (the median of three, so that one
  // slow start does not set the window), so that kills spread over it.
  std::vector<double> timed;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(InChild([&] {
                return SaveBaselines(versions[1], dir.string()).ok() ? 0 : 1;
              }),
              0);
    timed.push_back(SecondsSince(t0));
    ASSERT_TRUE(SaveBaselines(versions[0], dir.string()).ok());
  }
  std::sort(timed.begin(), timed.end());
  double save_seconds = timed[1];

  Random random(20261129);
  constexpr int kKills = 200;
  int kills_before_any_rename = 0;  // every file still old
  int kills_after_all_renames = 0;  // every file new
  int kills_between_renames = 0;    // some old, some new: each one whole
  int temporaries_left = 0;         // by savers killed while staging
  for (int k = 0; k < kKills; ++k) {
    // Uniform over 0.3 to 1.3 save times: the first part of a save only
    // builds the text in memory.
    const auto delay_us = static_cast<useconds_t>(
        (0.3 + static_cast<double>(random.Next() % 1000) / 1000.0) *
        save_seconds * 1e6);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      _exit(SaveBaselines(versions[1], dir.string()).ok() ? 0 : 1);
    }
    usleep(delay_us);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);

    int old_files = 0;
    int new_files = 0;
    for (const auto& [name, bytes] : Files(dir)) {
      if (IsTemporary(name)) {
        // What a saver killed while staging leaves: never read, removed
        // here so that they do not pile up.
        ++temporaries_left;
        fs::remove(dir / name);
        continue;
      }
      ASSERT_TRUE(text[0].count(name)) << "unexpected file " << name;
      const bool is_old = bytes == text[0][name];
      const bool is_new = bytes == text[1][name];
      ASSERT_TRUE(is_old || is_new)
          << name << " is neither the old nor the new baseline after a kill "
          << delay_us << " us into the save (" << bytes.size() << " bytes)";
      auto loaded = LoadBaselineOrResults((dir / name).string(), 0.95);
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      (is_new ? new_files : old_files)++;
    }
    ASSERT_EQ(old_files + new_files, 3);
    if (new_files == 0) {
      ++kills_before_any_rename;
    } else {
      (old_files == 0 ? kills_after_all_renames : kills_between_renames)++;
      ASSERT_TRUE(SaveBaselines(versions[0], dir.string()).ok());
    }
    // A machine's speed changes under load (parallel tests, sanitizers):
    // every 20 kills, a window that has not yet reached one side of the
    // renames moves toward it. The assertions below still demand both.
    if ((k + 1) % 20 == 0) {
      if (kills_after_all_renames == 0) {
        save_seconds *= 2;
      } else if (kills_before_any_rename == 0) {
        save_seconds *= 0.5;
      }
    }
  }
  // Kills landed on both sides of the renames; otherwise the test proved
  // nothing about saving.
  EXPECT_GT(kills_before_any_rename, 0);
  EXPECT_GT(temporaries_left, 0);
  EXPECT_GT(kills_after_all_renames, 0);
  RecordProperty("temporaries_left", temporaries_left);
  RecordProperty("kills_before_any_rename", kills_before_any_rename);
  RecordProperty("kills_between_renames", kills_between_renames);
  RecordProperty("kills_after_all_renames", kills_after_all_renames);
}

// Several processes save different baselines into one folder while another
// reads them: every read succeeds, and afterwards every file is one
// complete baseline that one saver wrote last.
TEST(BaselineCrashSafetyTest, ConcurrentSaversAndAReaderNeverSeeAPartialFile) {
  const fs::path dir = FreshDir("crash_concurrent");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(3, 300, 999), dir.string()).ok());
  constexpr int kSavers = 4;
  constexpr int kRounds = 15;
  std::vector<pid_t> savers;
  for (int p = 0; p < kSavers; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int round = 0; round < kRounds; ++round) {
        const uint64_t seed = static_cast<uint64_t>(100 * (p + 1) + round);
        if (!SaveBaselines(MakeBaselines(3, 300, seed), dir.string()).ok()) {
          _exit(1);
        }
      }
      _exit(0);
    }
    savers.push_back(pid);
  }
  // The reader: loads every baseline until the savers are done; exits 1 at
  // the first file that does not load.
  const pid_t reader = fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    for (int i = 0; i < 100000; ++i) {
      for (int w = 0; w < 3; ++w) {
        const std::string path =
            (dir / ("wl" + std::to_string(w) + ".json")).string();
        if (!LoadBaselineOrResults(path, 0.95).ok()) _exit(1);
      }
      if (fs::exists(dir / "done")) _exit(0);
    }
    _exit(0);
  }
  for (pid_t pid : savers) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::ofstream(dir / "done") << "";
  int status = 0;
  waitpid(reader, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "a reader saw a baseline that did not load";
  fs::remove(dir / "done");

  std::map<std::string, std::string> last_round;
  for (int p = 0; p < kSavers; ++p) {
    for (const Baseline& b : MakeBaselines(
             3, 300, static_cast<uint64_t>(100 * (p + 1) + kRounds - 1))) {
      last_round[b.workload + ".json"] += BaselineToJsonText(b) + "\n---\n";
    }
  }
  const auto files = Files(dir);
  ASSERT_EQ(files.size(), 3u) << "a temporary file was left behind";
  for (const auto& [name, bytes] : files) {
    auto loaded = LoadBaselineOrResults((dir / name).string(), 0.95);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->front().seed % 100, static_cast<uint64_t>(kRounds - 1))
        << name << " must be some saver's last write";
    EXPECT_THAT(last_round[name], HasSubstr(bytes + "\n---\n"))
        << name << " is not byte for byte what one saver wrote";
  }
}

// A full disk, simulated as root too: RLIMIT_FSIZE makes every write past
// the limit fail with EFBIG once SIGXFSZ is ignored. The limit lets the
// first baseline be written but not the second, so a save that is not all
// or none would replace the first.
TEST(BaselineCrashSafetyTest, FullDiskIsAClearErrorAndChangesNothing) {
  const fs::path dir = FreshDir("crash_full_disk");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(3, 200, 1), dir.string()).ok());
  const auto before = Files(dir);
  const std::vector<Baseline> next = MakeBaselines(3, 200, 2);
  const size_t first = BaselineToJsonText(next[0]).size();
  const size_t second = BaselineToJsonText(next[1]).size();
  ASSERT_LT(first, second);
  const fs::path message = fs::path(::testing::TempDir()) / "full_disk_msg";
  const int code = InChild([&] {
    signal(SIGXFSZ, SIG_IGN);
    rlimit rl{};
    getrlimit(RLIMIT_FSIZE, &rl);
    const rlim_t hard = rl.rlim_max;
    rl.rlim_cur = static_cast<rlim_t>((first + second) / 2);
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) return 3;
    const absl::Status s = SaveBaselines(next, dir.string());
    rl.rlim_cur = hard;  // back up to the hard limit, to write the message
    setrlimit(RLIMIT_FSIZE, &rl);
    std::ofstream(message) << s.message();
    return s.ok() ? 0 : 1;
  });
  ASSERT_EQ(code, 1) << "the save should have failed";
  const std::string msg = Slurp(message);
  EXPECT_THAT(msg, HasSubstr((dir / "wl1.json").string()));
  EXPECT_THAT(msg, HasSubstr("write failed (is the disk full?)"));
  EXPECT_THAT(msg, HasSubstr("File too large"));
  EXPECT_EQ(Files(dir), before)
      << "a failed save must leave every old baseline and no temporary";
}

// A read-only folder, also as root: the saver drops to user nobody, for
// whom the folder's permission bits apply.
TEST(BaselineCrashSafetyTest, ReadOnlyFolderIsAClearErrorAndChangesNothing) {
  const fs::path dir = FreshDir("crash_read_only");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(2, 50, 1), dir.string()).ok());
  const auto before = Files(dir);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec |
                           fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  const fs::path message = fs::path(::testing::TempDir()) / "read_only_msg";
  fs::remove(message);
  std::ofstream(message) << "";
  fs::permissions(message, fs::perms::all);
  const int code = InChild([&] {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) {
      return 3;  // no CAP_SETUID: cannot drop to nobody here
    }
    const absl::Status s = SaveBaselines(MakeBaselines(2, 50, 2), dir.string());
    std::ofstream(message) << s.message();
    return s.ok() ? 0 : 1;
  });
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  if (code == 3) GTEST_SKIP() << "cannot drop root privileges here";
  ASSERT_EQ(code, 1) << "the save should have failed";
  const std::string msg = Slurp(message);
  EXPECT_THAT(msg, HasSubstr((dir / "wl0.json").string()));
  EXPECT_THAT(msg,
              HasSubstr("expected an existing folder that can be written"));
  EXPECT_THAT(msg, HasSubstr("Permission denied"));
  EXPECT_EQ(Files(dir), before);
}

// A folder where the second baseline should go: the save is refused before
// the first baseline is replaced.
TEST(BaselineCrashSafetyTest, FolderInTheWayIsFoundBeforeAnyRename) {
  const fs::path dir = FreshDir("crash_folder_in_the_way");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(1, 20, 1), dir.string()).ok());
  fs::create_directories(dir / "wl1.json");
  const auto before = Files(dir);
  const absl::Status s = SaveBaselines(MakeBaselines(2, 20, 2), dir.string());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr((dir / "wl1.json").string() +
                        ": is a folder; expected a file name"));
  EXPECT_EQ(Slurp(dir / "wl0.json"), before.at("wl0.json"));
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_FALSE(IsTemporary(e.path().filename().string())) << e.path();
  }
}

// A shared sticky folder (like /tmp) where one baseline belongs to another
// user: the save is refused before anything is renamed, naming that file;
// before, it replaced the first baseline and then failed on the second.
TEST(BaselineCrashSafetyTest,
     AnotherUsersBaselineInAStickyFolderChangesNothing) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to make a second user's file";
  const fs::path dir = FreshDir("crash_sticky");
  fs::permissions(dir, fs::perms::all | fs::perms::sticky_bit);
  ASSERT_TRUE(SaveBaselines(MakeBaselines(2, 20, 1), dir.string()).ok());
  ASSERT_EQ(chown((dir / "wl0.json").c_str(), 65534, 65534), 0);
  for (fs::path p = dir; p != p.parent_path(); p = p.parent_path()) {
    fs::permissions(p, fs::perms::others_exec, fs::perm_options::add);
  }
  const auto before = Files(dir);
  const fs::path message = fs::path(::testing::TempDir()) / "sticky_msg";
  std::ofstream(message) << "";
  fs::permissions(message, fs::perms::all);
  const int code = InChild([&] {
    if (setgid(65534) != 0 || setuid(65534) != 0) return 3;
    const absl::Status s = SaveBaselines(MakeBaselines(2, 20, 2), dir.string());
    std::ofstream(message) << s.message();
    return s.ok() ? 0 : 1;
  });
  ASSERT_NE(code, 3) << "could not become user nobody";
  ASSERT_EQ(code, 1) << "the save should have been refused";
  EXPECT_THAT(Slurp(message),
              HasSubstr((dir / "wl1.json").string() +
                        ": belongs to another user in the sticky folder"));
  EXPECT_EQ(Files(dir), before) << "not one baseline may be replaced";
}

// Temporaries left by killed savers are removed by the next save into the
// folder, at once and whatever their age (issue 43: judged by age, those of
// 200 kills piled up to 84 files), but only when no live saver is staging
// there: a live saver holds the folder's lock, and its files stay.
TEST(BaselineCrashSafetyTest, TemporariesOfKilledSavesAreCleanedByTheNextSave) {
  const fs::path dir = FreshDir("crash_cleanup");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(2, 20, 1), dir.string()).ok());
  // Savers killed while staging, with SIGKILL: no destructor runs, so their
  // temporaries and the backups (".old") of the files they replace stay,
  // until the next save: each saver here clears its predecessor's at once.
  auto temporaries = [&dir] {
    std::vector<std::string> names;
    for (const auto& [name, bytes] : Files(dir)) {
      if (IsTemporary(name)) names.push_back(name);
    }
    return names;
  };
  std::vector<std::string> left[2];
  for (uint64_t seed : {2, 3}) {
    const int code = InChild([&] {
      OutputTransaction out;
      const std::vector<Baseline> b = MakeBaselines(2, 20, seed);
      out.PlanFolder("baseline folder", dir.string(), BaselineFileNames(b));
      if (!out.Check().ok() || !StageBaselines(b, dir.string(), out).ok()) {
        return 1;
      }
      kill(getpid(), SIGKILL);
      return 2;
    });
    ASSERT_EQ(code, -SIGKILL);
    left[seed - 2] = temporaries();
    int backups = 0;
    for (const std::string& name : left[seed - 2]) {
      backups += name.ends_with(".old");
    }
    ASSERT_EQ(left[seed - 2].size(), 4u) << "2 files x (temporary + .old)";
    ASSERT_EQ(backups, 2);
  }
  for (const std::string& name : left[0]) {
    EXPECT_EQ(std::count(left[1].begin(), left[1].end(), name), 0)
        << name << ", a killed saver's, outlived the next save";
  }

  // A live saver: staged, holding the folder, not yet committed. Staging,
  // it found the folder free and cleared the second killed saver's files.
  const std::vector<Baseline> live_b = MakeBaselines(2, 20, 4);
  OutputTransaction live;
  live.PlanFolder("baseline folder", dir.string(), BaselineFileNames(live_b));
  ASSERT_TRUE(live.Check().ok());
  ASSERT_TRUE(StageBaselines(live_b, dir.string(), live).ok());
  const std::vector<std::string> live_files = temporaries();
  ASSERT_EQ(live_files.size(), 4u);
  // A save meanwhile leaves the live saver's temporaries alone.
  ASSERT_TRUE(SaveBaselines(MakeBaselines(2, 20, 5), dir.string()).ok());
  EXPECT_EQ(temporaries(), live_files);
  // And the live saver commits whole, leaving nothing behind.
  ASSERT_TRUE(live.Commit().ok());
  EXPECT_EQ(Slurp(dir / "wl0.json"), BaselineToJsonText(live_b[0]));
  std::vector<std::string> names;
  for (const auto& [name, bytes] : Files(dir)) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"wl0.json", "wl1.json"}));
}

// A baseline the gate could not read back (over kMaxBaselineBytes) is
// refused when saved, not discovered at the next gate run.
TEST(BaselineCrashSafetyTest, BaselineTooLargeToReadBackIsNotWritten) {
  const fs::path dir = FreshDir("crash_too_large");
  ASSERT_TRUE(SaveBaselines(MakeBaselines(1, 10, 1), dir.string()).ok());
  const auto before = Files(dir);
  // Some 19 bytes a sample: 4 million samples are over 64 MiB.
  const std::vector<Baseline> huge = MakeBaselines(1, 4'000'000, 2);
  ASSERT_GT(static_cast<int64_t>(BaselineToJsonText(huge[0]).size()),
            kMaxBaselineBytes);
  const absl::Status s = SaveBaselines(huge, dir.string());
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr((dir / "wl0.json").string() +
                                                  ": the baseline would be"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("expected at most 64 MiB"));
  EXPECT_EQ(Files(dir), before);
}

}  // namespace
}  // namespace trn
