#include "harness/gate/baseline_store.h"

#include <grp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/gate/samples_checksum.h"
#include "nlohmann/json.hpp"

namespace trn {
namespace {

using ::testing::HasSubstr;

RunResult SmallRun(uint64_t seed = 3) {
  RunResult run;
  run.trnbench_version = "test";
  run.device = "trn1";
  run.device_hash = "abc";
  run.seed = seed;
  run.schedule.repeat = 4;
  WorkloadResult w;
  w.name = "wl";
  w.family = "fam";
  w.mode = "eager";
  w.spec_file = "wl.json";
  w.spec_hash = "h1";
  MetricResult m;
  m.name = "device_time_us";
  m.unit = "us";
  m.samples = {10.0, 11.0, 10.5, 12.25};
  m.summary = stats::Summarize(m.samples, 0.95);
  w.metrics.push_back(m);
  run.workloads.push_back(w);
  return run;
}

std::string Text(const RunResult& run) {
  return BaselineToJsonText(
      BaselinesFromRun(run, "2026-01-01T00:00:00Z", "")[0]);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(BaselineStoreTest, RoundTripKeepsSamplesAndProvenance) {
  auto parsed = ParseBaselineOrResults(Text(SmallRun()), "b.json", 0.95);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 1u);
  const Baseline& b = parsed->front();
  EXPECT_EQ(b.workload, "wl");
  EXPECT_EQ(b.device, "trn1");
  EXPECT_EQ(b.device_hash, "abc");
  EXPECT_EQ(b.spec_hash, "h1");
  EXPECT_EQ(b.seed, 3u);
  EXPECT_EQ(b.schedule.repeat, 4);
  EXPECT_EQ(b.created, "2026-01-01T00:00:00Z");
  EXPECT_EQ(b.git_commit, "");
  ASSERT_NE(b.Find("device_time_us"), nullptr);
  EXPECT_EQ(b.Find("device_time_us")->samples,
            (std::vector<double>{10.0, 11.0, 10.5, 12.25}));
  // Summaries are recomputed from the samples, not trusted.
  EXPECT_DOUBLE_EQ(b.Find("device_time_us")->summary.median, 10.75);
}

// Each corruption must be refused with the file, the JSON path and what was
// expected, never read as something else.
struct Corruption {
  const char* name;
  const char* pointer;  // JSON pointer to change ("" = whole text)
  const char* value;    // JSON to put there, or text for the whole file
  const char* message;
};

class BaselineCorruptionTest : public ::testing::TestWithParam<Corruption> {};

TEST_P(BaselineCorruptionTest, IsRefusedWithPathAndExpectation) {
  const Corruption& c = GetParam();
  std::string text;
  if (std::string(c.pointer).empty()) {
    text = c.value;
  } else {
    auto j = nlohmann::json::parse(Text(SmallRun()));
    j[nlohmann::json::json_pointer(c.pointer)] = nlohmann::json::parse(c.value);
    text = j.dump();
  }
  auto r = ParseBaselineOrResults(text, "bad.json", 0.95);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(r.status().message());
  EXPECT_THAT(msg, HasSubstr("bad.json: "));
  EXPECT_THAT(msg, HasSubstr(c.message));
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, BaselineCorruptionTest,
    ::testing::Values(
        Corruption{"Empty", "", "", "malformed JSON"},
        Corruption{"Truncated", "", "{\"schema\": \"trnbench.baseline\", \"sch",
                   "malformed JSON: parse error at line"},
        Corruption{"NotAnObject", "", "[1, 2]",
                   "bad.json: /: expected an object, got an array"},
        Corruption{"WrongSchema", "/schema", "\"something.else\"",
                   "/schema: unknown schema \"something.else\"; expected one "
                   "of trnbench.baseline, trnbench.results"},
        Corruption{"FutureVersion", "/schema_version", "2",
                   "/schema_version: unsupported schema_version 2; this "
                   "trnbench reads 1"},
        Corruption{"VersionAsString", "/schema_version", "\"1\"",
                   "/schema_version: expected an integer, got string \"1\""},
        Corruption{"MissingWorkload", "/workload", "null",
                   "/workload: expected a string, got null"},
        Corruption{"DeviceNotObject", "/device", "7",
                   "/device: expected an object, got number 7"},
        Corruption{"SeedNegative", "/provenance/seed", "-1",
                   "/provenance/seed: expected a non-negative integer, got "
                   "number -1"},
        Corruption{"SeedFraction", "/provenance/seed", "1.5",
                   "/provenance/seed: expected a non-negative integer, got a "
                   "fractional number 1.5"},
        Corruption{"RepeatZero", "/provenance/schedule/repeat", "0",
                   "/provenance/schedule/repeat: expected an integer from 1 "
                   "to 1099511627776, got number 0"},
        Corruption{"RepeatString", "/provenance/schedule/repeat", "\"4\"",
                   "/provenance/schedule/repeat: expected an integer from 1 "
                   "to 1099511627776, got string \"4\""},
        Corruption{"FewerSamples", "/metrics/device_time_us/samples",
                   "[1.0, 2.0]",
                   "expected 4 samples (schedule.repeat), found 2"},
        Corruption{
            "NullSample", "/metrics/device_time_us/samples",
            "[1.0, null, 2.0, 3.0]",
            "/metrics/device_time_us/samples/1: expected a number > 0 (a "
            "time or rate), got null"},
        Corruption{"StringSample", "/metrics/device_time_us/samples",
                   "[1.0, \"x\", 2.0, 3.0]",
                   "/metrics/device_time_us/samples/1: expected a number > 0 "
                   "(a time or rate), got string \"x\""},
        Corruption{"UnknownMetric", "/metrics/made_up_metric",
                   "{\"samples\": [1, 2, 3, 4]}", "unknown metric"},
        Corruption{"NoMetrics", "/metrics", "{}",
                   "/metrics: expected a non-empty object of metrics, got an "
                   "empty object"},
        Corruption{"MetricsArray", "/metrics", "[]",
                   "/metrics: expected a non-empty object of metrics, got an "
                   "empty array"},
        Corruption{"CommitNumber", "/provenance/git_commit", "42",
                   "/provenance/git_commit: expected a string or null, got "
                   "number 42"},
        Corruption{"NegativeTime", "/metrics/device_time_us/samples/1",
                   "-4969.27",
                   "/metrics/device_time_us/samples/1: expected a number > 0 "
                   "(a time or rate), got number -4969.27"},
        Corruption{"ZeroTime", "/metrics/device_time_us/samples/0", "0",
                   "/metrics/device_time_us/samples/0: expected a number > 0 "
                   "(a time or rate), got number 0"},
        Corruption{"NegativeZeroTime", "/metrics/device_time_us/samples/0",
                   "-0.0",
                   "/metrics/device_time_us/samples/0: expected a number > 0 "
                   "(a time or rate), got number -0.0"},
        Corruption{"SmallestNegativeTime", "/metrics/device_time_us/samples/2",
                   "-5e-324",
                   "/metrics/device_time_us/samples/2: expected a number > 0 "
                   "(a time or rate), got number -5e-324"},
        Corruption{"NegativeBytes", "/metrics/dma_bytes",
                   "{\"unit\": \"B\", \"samples\": [1, 2, -3, 4]}",
                   "/metrics/dma_bytes/samples/2: expected a number >= 0, got "
                   "number -3"},
        Corruption{"UnitMs", "/metrics/device_time_us/unit", "\"ms\"",
                   "/metrics/device_time_us/unit: expected \"us\" (the unit "
                   "of device_time_us), found \"ms\""},
        Corruption{"UnitMissing", "/metrics/device_time_us/unit", "null",
                   "/metrics/device_time_us/unit: expected \"us\""},
        Corruption{"ChangedSample", "/metrics/device_time_us/samples/3",
                   "12.35",
                   "/metrics/device_time_us/samples: the samples do not match "
                   "samples_checksum"},
        Corruption{"ChecksumNotAString",
                   "/metrics/device_time_us/samples_checksum", "7",
                   "the samples do not match samples_checksum (7 recorded"},
        Corruption{"HugeUnknownFieldUnderAScalar", "/provenance/created",
                   "[{}, {}, [[[]]]]",
                   "/provenance/created: expected a "
                   "string, got null"}),
    [](const ::testing::TestParamInfo<Corruption>& p) {
      return std::string(p.param.name);
    });

TEST(BaselineStoreTest, DeepNestingIsRefusedNotOverflowed) {
  std::string text(100000, '[');
  auto r = ParseBaselineOrResults(text, "deep.json", 0.95);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("nested deeper"));
}

TEST(BaselineStoreTest, ResultsFileReadsAsOneBaselinePerWorkload) {
  nlohmann::json j = {
      {"schema", "trnbench.results"},
      {"schema_version", 1},
      {"trnbench_version", "t"},
      {"model_version", "1"},
      {"device", {{"name", "trn1"}, {"content_hash", "x"}}},
      {"seed", 5},
      {"schedule", {{"wait", 0}, {"warmup", 1}, {"repeat", 2}}},
      {"workloads",
       {{{"name", "a"},
         {"family", "f"},
         {"mode", "nki"},
         {"spec_file", "a.json"},
         {"spec_hash", "1"},
         {"metrics", {{"ncl_us", {{"unit", "us"}, {"samples", {1.0, 2.0}}}}}}},
        {{"name", "b"},
         {"family", "f"},
         {"mode", "nki"},
         {"spec_file", "b.json"},
         {"spec_hash", "2"},
         {"metrics",
          {{"ncl_us", {{"unit", "us"}, {"samples", {3.0, 4.0}}}}}}}}}};
  auto r = ParseBaselineOrResults(j.dump(), "r.json", 0.95);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[1].workload, "b");
  EXPECT_EQ((*r)[1].seed, 5u);
  EXPECT_EQ((*r)[1].Find("ncl_us")->samples, (std::vector<double>{3.0, 4.0}));
  EXPECT_EQ((*r)[1].pointer, "/workloads/1");
}

TEST(BaselineStoreTest, WrittenFilesCarryTheirSamplesChecksum) {
  const auto j = nlohmann::json::parse(Text(SmallRun()));
  EXPECT_EQ(j["metrics"]["device_time_us"]["samples_checksum"],
            SamplesChecksum(std::vector<double>{10.0, 11.0, 10.5, 12.25}));
  // Any single changed byte of one sample changes it.
  std::vector<double> v = {10.0, 11.0, 10.5, 12.25};
  const std::string sum = SamplesChecksum(v);
  for (size_t byte = 0; byte < 8 * v.size(); ++byte) {
    std::vector<double> w = v;
    reinterpret_cast<unsigned char*>(w.data())[byte] ^= 0x10;
    EXPECT_NE(SamplesChecksum(w), sum) << byte;
  }
}

// Reads `text` in a child process that may map at most `multiple` times
// the file's size more than it has, plus `slack` bytes: beyond that an
// allocation fails. Returns the child's exit code (0 read, 2 refused, 3 no
// limit could be set) or -1 if it died.
int ReadWithinMultiple(const std::string& text, int multiple, rlim_t slack) {
  const pid_t pid = fork();
  if (pid < 0) return -2;
  if (pid == 0) {
    std::ifstream status("/proc/self/status");
    int64_t vm_kib = -1;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoll(line.substr(7));
    }
    const rlim_t limit = static_cast<rlim_t>(vm_kib * 1024) +
                         static_cast<rlim_t>(multiple) * text.size() + slack;
    const rlimit rl{limit, limit};
    if (vm_kib < 0 || setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
    auto r = ParseBaselineOrResults(text, "read.json", 0.95);
    _exit(r.ok() ? 0 : 2);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Memory a small multiple of the file: fields the reader does not use (a
// summary, an unknown field of millions of `{}`) are parsed, never stored.
// Measured: 2.5 to 3 times for this file, 3 to 4 times for one huge string,
// which nlohmann's lexer buffers while it reads it; building the whole tree
// took some 25 times.
TEST(BaselineStoreTest, MemoryIsASmallMultipleOfTheFileSize) {
  std::string text = Text(SmallRun());
  std::string bloat = "\"future_field\": [";
  for (int i = 0; i < 4'000'000; ++i) bloat += i == 0 ? "{}" : ",{}";
  bloat += "], ";
  text.insert(text.find("\"workload\""), bloat);
  const int code = ReadWithinMultiple(text, 4, 8 << 20);
  ASSERT_NE(code, -1) << "reading a " << text.size() / 1000000
                      << " MB file needed more than four times its size in "
                         "memory";
  ASSERT_NE(code, -2) << "fork failed";
  EXPECT_NE(code, 3) << "could not set the limit";
  EXPECT_EQ(code, 0) << "the bloated baseline was refused";
}

// A results file of `workloads` eager workloads with ten samples each, as
// trnbench writes them.
std::string ManyWorkloads(int workloads) {
  std::string out =
      R"({"schema": "trnbench.results", "schema_version": 1,)"
      R"( "trnbench_version": "0.1.0", "model_version": "3",)"
      R"( "device": {"name": "trn1", "content_hash": "abc"}, "seed": 1,)"
      R"( "schedule": {"wait": 0, "warmup": 1, "repeat": 10}, "workloads": [)";
  std::vector<double> samples(10);
  for (int w = 0; w < workloads; ++w) {
    for (size_t i = 0; i < samples.size(); ++i) {
      samples[i] = 100.0 + w % 97 + 0.37 * static_cast<double>(i);
    }
    out += absl::StrCat(
        w == 0 ? "" : ",", R"({"name": "wl)", w,
        R"(", "family": "f", "mode": "eager", "spec_file": "wl.json",)"
        R"( "spec_hash": "h", "metrics": {"device_time_us": {"unit": "us",)"
        R"( "lower_is_better": true, "samples": [)",
        absl::StrJoin(samples, ", ",
                      [](std::string* o, double v) {
                        absl::StrAppendFormat(o, "%.17g", v);
                      }),
        R"(], "samples_checksum": ")", SamplesChecksum(samples), R"("}}})");
  }
  return out + "]}\n";
}

// The other extreme: 20k workloads of ten samples, where every byte of the
// file is data the reader keeps. Measured: it reads within 4 times the
// file's size and not within 3 (a Baseline holds its provenance strings,
// summary and diagnostics per metric, about 1.5 KB per workload of ~340 B
// in the file); 8 leaves room for other allocators.
TEST(BaselineStoreTest, ManyWorkloadsReadWithinASmallMultipleOfTheFile) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's redzones and quarantine are not the "
                  "allocator this bound is about; the plain build checks it";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer's redzones and quarantine are not the "
                  "allocator this bound is about; the plain build checks it";
#endif
#endif
  const std::string text = ManyWorkloads(20'000);
  ASSERT_GT(text.size(), 6'000'000u);
  EXPECT_EQ(ReadWithinMultiple(text, 8, 16 << 20), 0)
      << "reading " << text.size() / 1000000
      << " MB of workloads needed more than eight times its size";
}

TEST(BaselineStoreTest, SaveWritesOneFilePerWorkloadAndLeavesNoTemporaries) {
  const std::string dir = ::testing::TempDir() + "/bl_save";
  std::filesystem::remove_all(dir);
  auto s = SaveBaselines(BaselinesFromRun(SmallRun(), "t", "c"), dir);
  ASSERT_TRUE(s.ok()) << s;
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "wl.json");
  }
  EXPECT_EQ(files, 1);
  auto loaded = LoadBaselineOrResults(BaselinePath(dir, "wl"), 0.95);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->front().git_commit, "c");
}

// SaveBaselines into `dir` as user nobody, in a child process: root ignores
// permission bits, so only an unprivileged user can meet a read-only
// folder. Returns the exit code (0 saved, 1 refused) and the message.
std::pair<int, std::string> SaveAsNobody(const std::string& dir) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 ||
        setuid(65534) != 0) {
      _exit(3);
    }
    const absl::Status s =
        SaveBaselines(BaselinesFromRun(SmallRun(4), "t", ""), dir);
    const std::string m(s.message());
    (void)!write(fds[1], m.data(), m.size());
    _exit(s.ok() ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) {
    message.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, message};
}

TEST(BaselineStoreTest, UnwritableFolderIsAClearErrorAndKeepsTheOldFile) {
  const std::string dir = ::testing::TempDir() + "/bl_readonly";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(SaveBaselines(BaselinesFromRun(SmallRun(3), "t", ""), dir).ok());
  const std::string before = Slurp(BaselinePath(dir, "wl"));
  namespace fs = std::filesystem;
  // Readable and searchable by everyone, writable by no one but root.
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec |
                           fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  int code = 0;
  std::string message;
  if (geteuid() == 0) {
    std::tie(code, message) = SaveAsNobody(dir);
  } else {
    const absl::Status s =
        SaveBaselines(BaselinesFromRun(SmallRun(4), "t", ""), dir);
    code = s.ok() ? 0 : 1;
    message = std::string(s.message());
  }
  fs::permissions(dir, fs::perms::owner_all);
  ASSERT_NE(code, 3) << "could not become user nobody";
  EXPECT_EQ(code, 1) << "the save into a read-only folder succeeded";
  EXPECT_THAT(message, HasSubstr(dir));
  EXPECT_EQ(Slurp(BaselinePath(dir, "wl")), before);
  // Nothing was left behind: only the old baseline is in the folder.
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(BaselineStoreTest, MissingFolderParentIsCreatedButAFileInTheWayIsAnError) {
  const std::string base = ::testing::TempDir() + "/bl_blocked";
  std::filesystem::remove_all(base);
  std::ofstream(base) << "not a folder";
  auto s = SaveBaselines(BaselinesFromRun(SmallRun(), "t", ""), base + "/sub");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(
      std::string(s.message()),
      HasSubstr("cannot create the folder: " + base + " is not a folder"));
  std::filesystem::remove(base);
}

// Works as root too, where permission bits do not bind: a folder sitting
// where the file should go would make the final rename fail, so the save
// refuses it before renaming anything.
TEST(BaselineStoreTest, FailedRenameIsAClearErrorAndLeavesNoTemporary) {
  const std::string dir = ::testing::TempDir() + "/bl_rename";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(BaselinePath(dir, "wl"));
  auto s = SaveBaselines(BaselinesFromRun(SmallRun(), "t", ""), dir);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("is a folder; expected a file name"));
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++entries;
    EXPECT_TRUE(e.is_directory()) << e.path();
  }
  EXPECT_EQ(entries, 1);
}

// Several processes saving the same baselines at once: afterwards every file
// is one complete, valid baseline written by one of them.
TEST(BaselineStoreTest, ConcurrentSaversNeverCorruptAFile) {
  const std::string dir = ::testing::TempDir() + "/bl_concurrent";
  std::filesystem::remove_all(dir);
  constexpr int kProcs = 6;
  std::vector<pid_t> kids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int round = 0; round < 30; ++round) {
        RunResult run = SmallRun(static_cast<uint64_t>(100 * p + round));
        if (!SaveBaselines(BaselinesFromRun(run, "t", ""), dir).ok()) _exit(1);
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto loaded = LoadBaselineOrResults(BaselinePath(dir, "wl"), 0.95);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const uint64_t seed = loaded->front().seed;
  EXPECT_EQ(seed % 100, 29u) << "the file must be some process's last write";
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename(), "wl.json") << "temporary left behind";
  }
}

}  // namespace
}  // namespace trn
