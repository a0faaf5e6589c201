// The catalogue of bad inputs (docs/errors.md). Every bad file and command
// line kept here goes through the real trnbench binary, which must refuse
// it the one documented way: exit status 2, nothing on stdout, exactly one
// line "trnbench: error: ..." on stderr that names the input and says what
// was expected, and no file written, replaced or left half-way.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#ifndef TRNBENCH_SOURCE_DIR
#define TRNBENCH_SOURCE_DIR "."
#endif
#ifndef TRNBENCH_BINARY
#define TRNBENCH_BINARY "trnbench"
#endif

namespace trn {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(text.data(), static_cast<long>(text.size()));
}

// Where a case may put its generated inputs ($IN) and where trnbench is
// asked to write ($OUT, which must look the same afterwards).
struct Sandbox {
  fs::path in;
  fs::path out;
};

using Prepare = void (*)(const Sandbox&);

// How trnbench is started. Both simulations work as root, where permission
// bits do not bind (CI runs as root).
enum class Start {
  kPlain,
  // RLIMIT_FSIZE of 4 KiB with SIGXFSZ ignored: every write past it fails
  // with EFBIG, as on a full disk.
  kFullDisk,
  // As user nobody when running as root, so that a folder's permission bits
  // apply; the case's folders are made read-only.
  kUnprivileged,
  // With TRNBENCH_TRACE_SECONDS=0.5: the NKI front end's bound on the CPU
  // time of a trace, short enough for a kernel that never ends.
  kShortTraceBound,
};

struct Case {
  const char* id;        // unique; the row in docs/errors.md
  const char* args;      // $SRC source tree, $ERR tests/errors,
                         // $BAD tests/workloads/bad_specs, $IN, $OUT sandbox
  const char* names;     // the message names the input with this
  const char* expected;  // and says this was expected
  Prepare prepare = nullptr;
  Start start = Start::kPlain;
  bool add_output = true;  // also pass --output $OUT/results.json
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.id; }

std::string ReplaceAll(std::string s, std::string_view from,
                       std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos;
       pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string Expand(std::string s, const Sandbox& box) {
  const std::string src = TRNBENCH_SOURCE_DIR;
  s = ReplaceAll(s, "$ERR", src + "/tests/errors");
  s = ReplaceAll(s, "$BAD", src + "/tests/workloads/bad_specs");
  s = ReplaceAll(s, "$SRC", src);
  s = ReplaceAll(s, "$IN", box.in.string());
  return ReplaceAll(s, "$OUT", box.out.string());
}

// ---- generated inputs: too big, too deep or too odd to keep as files ----

std::string SmallSpec(std::string_view name, std::string_view extra_key) {
  return std::string(R"({"schema_version": 1, "name": ")") + std::string(name) +
         R"(", "family": "gen", "description": "generated", "mode": "eager",)"
         R"( "tensors": [{"name": "x", "shape": [4, 8], "dtype": "fp32"},)"
         R"( {"name": "y", "shape": [4, 8], "dtype": "fp32"}],)"
         R"( "ops": [{"op": "aten::exp", "inputs": ["x"], "output": "y"}])" +
         std::string(extra_key) + "}\n";
}

void SpecOverOneMib(const Sandbox& box) {
  WriteFile(box.in / "big.json",
            SmallSpec("big", ", \"noise_threshold\": 0.01") +
                std::string(2 << 20, ' '));
}

void SpecMegabyteKey(const Sandbox& box) {
  WriteFile(box.in / "key.json",
            SmallSpec("key", ", \"" + std::string(900000, 'k') + "\": 1"));
}

void SpecMegabyteOpName(const Sandbox& box) {
  std::string spec = SmallSpec("op", "");
  spec.replace(spec.find("aten::exp"), 9, "aten::" + std::string(900000, 'e'));
  WriteFile(box.in / "op.json", spec);
}

void SpecDeepNesting(const Sandbox& box) {
  WriteFile(box.in / "deep.json",
            std::string(100000, '[') + std::string(100000, ']'));
}

void SpecDirWithOneBadFile(const Sandbox& box) {
  fs::create_directories(box.in / "specs");
  fs::copy_file(
      fs::path(TRNBENCH_SOURCE_DIR) / "workloads/specs/exp_tiled.json",
      box.in / "specs/exp_tiled.json");
  WriteFile(box.in / "specs/broken.json", "{\"schema_version\": 1,");
}

void EmptyFolder(const Sandbox& box) {
  fs::create_directories(box.in / "empty");
}

void AFolder(const Sandbox& box) {
  fs::create_directories(box.in / "a_folder");
}

void AFileInTheWay(const Sandbox& box) {
  WriteFile(box.in / "a_file", "not a folder\n");
}

void ProfileMegabyteKey(const Sandbox& box) {
  std::string p =
      Slurp(fs::path(TRNBENCH_SOURCE_DIR) / "device_model/profiles/trn1.json");
  p.replace(p.find("\"parameters\": {") + 15, 0,
            "\"" + std::string(900000, 'p') +
                "\": {\"value\": 1, \"source\": \"x\"},");
  WriteFile(box.in / "profiles/huge_key.json", p);
}

void ProfileDeepNesting(const Sandbox& box) {
  WriteFile(box.in / "profiles/deep.json",
            "{\"parameters\": " + std::string(100000, '[') +
                std::string(100000, ']') + "}");
}

void ProfileOverOneMib(const Sandbox& box) {
  std::string p =
      Slurp(fs::path(TRNBENCH_SOURCE_DIR) / "device_model/profiles/trn1.json");
  p.replace(p.find("\"description\": \"") + 16, 0, std::string(2 << 20, 'd'));
  WriteFile(box.in / "profiles/big.json", p);
}

std::string SmallBaseline() {
  return Slurp(fs::path(TRNBENCH_SOURCE_DIR) /
               "tests/fuzz/corpus/baseline/exp_tiled_repeat4.json");
}

void BaselineOver64Mib(const Sandbox& box) {
  std::string b = SmallBaseline();
  b.replace(b.find("\"created\": \"") + 12, 0, std::string(65 << 20, 'c'));
  WriteFile(box.in / "big.json", b);
}

void BaselineMegabyteMetricName(const Sandbox& box) {
  std::string b = SmallBaseline();
  b.replace(b.find("\"ncl_us\""), 8, "\"" + std::string(3000000, 'm') + "\"");
  WriteFile(box.in / "metric.json", b);
}

void BaselineDeepNesting(const Sandbox& box) {
  WriteFile(box.in / "deep.json",
            std::string(100000, '[') + std::string(100000, ']'));
}

// An old baseline that a failed save must leave exactly as it was.
void OldBaseline(const fs::path& dir) {
  WriteFile(dir / "exp_tiled.json", SmallBaseline());
}

void OldBaselineInOut(const Sandbox& box) { OldBaseline(box.out / "bl"); }

void OldResultsInOut(const Sandbox& box) {
  WriteFile(box.out / "results.json", "{\"old\": true}\n");
}

void ReadOnlyBaselineFolder(const Sandbox& box) {
  OldBaseline(box.out / "ro");
  fs::permissions(box.out / "ro",
                  fs::perms::owner_read | fs::perms::owner_exec |
                      fs::perms::group_read | fs::perms::group_exec |
                      fs::perms::others_read | fs::perms::others_exec);
}

void ReadOnlyReportFolder(const Sandbox& box) {
  fs::create_directories(box.out / "ro");
  fs::permissions(box.out / "ro",
                  fs::perms::owner_read | fs::perms::owner_exec |
                      fs::perms::others_read | fs::perms::others_exec);
}

// A folder where the baseline file should go: the final rename fails.
void FolderInPlaceOfBaseline(const Sandbox& box) {
  fs::create_directories(box.out / "bl/exp_tiled.json");
}

// A baseline folder the unprivileged run cannot read: refused as such, not
// reported as "no baseline for workload ...".
void UnreadableBaselineFolder(const Sandbox& box) {
  OldBaseline(box.in / "locked");
  fs::permissions(box.in / "locked", fs::perms::owner_all);
}

void ReportFolderInOut(const Sandbox& box) {
  fs::create_directories(box.out / "rep");
}

void AFifo(const Sandbox& box) { mkfifo((box.in / "fifo").c_str(), 0600); }

// Files this trnbench writes itself (with their samples' checksums), made
// by the binary under test: $IN/saved/exp_tiled.json (--repeat 4),
// $IN/saved2/exp_tiled.json (--repeat 2) and $IN/results.json.
void Saved(const std::string& flags) {
  const std::string cmd = std::string(TRNBENCH_BINARY) +
                          " --workload exp_tiled " + flags + " >/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}
nlohmann::json SavedBaseline(const Sandbox& box) {
  Saved("--repeat 4 --save-baseline " + (box.in / "saved").string());
  return nlohmann::json::parse(Slurp(box.in / "saved/exp_tiled.json"));
}
void WriteSaved(const Sandbox& box, const nlohmann::json& j) {
  WriteFile(box.in / "saved/exp_tiled.json", j.dump(2));
}

void BaselineWithoutGatedMetrics(const Sandbox& box) {
  nlohmann::json j = SavedBaseline(box);
  for (const char* m :
       {"device_time_us", "ncl_us", "latency_us", "throughput_per_s"}) {
    j["metrics"].erase(m);
  }
  WriteSaved(box, j);
}

void ResultsWithoutGatedMetrics(const Sandbox& box) {
  Saved("--repeat 4 --output " + (box.in / "results.json").string());
  nlohmann::json j = nlohmann::json::parse(Slurp(box.in / "results.json"));
  for (const char* m :
       {"device_time_us", "ncl_us", "latency_us", "throughput_per_s"}) {
    j["workloads"][0]["metrics"].erase(m);
  }
  WriteFile(box.in / "results.json", j.dump(2));
}

void BaselineNegativeThroughput(const Sandbox& box) {
  nlohmann::json j = SavedBaseline(box);
  j["metrics"]["throughput_per_s"]["samples"][1] = -4969.27;
  WriteSaved(box, j);
}

void BaselineZeroTime(const Sandbox& box) {
  nlohmann::json j = SavedBaseline(box);
  j["metrics"]["ncl_us"]["samples"][2] = 0;
  WriteSaved(box, j);
}

void BaselineUnitMs(const Sandbox& box) {
  nlohmann::json j = SavedBaseline(box);
  j["metrics"]["device_time_us"]["unit"] = "ms";
  WriteSaved(box, j);
}

// One flipped digit in a sample: still a plausible number, caught only by
// the checksum.
void BaselineFlippedDigit(const Sandbox& box) {
  nlohmann::json j = SavedBaseline(box);
  nlohmann::json& x = j["metrics"]["ncl_us"]["samples"][3];
  x = x.get<double>() + 1.0;
  WriteSaved(box, j);
}

void BaselineOfTwoRuns(const Sandbox& box) {
  Saved("--repeat 2 --save-baseline " + (box.in / "saved2").string());
}

void OldAndNewBaseline(const Sandbox& box) {
  SavedBaseline(box);
  fs::copy_file(box.in / "saved/exp_tiled.json", box.in / "old.json");
}

void SpecCopy(const Sandbox& box) {
  fs::copy_file(
      fs::path(TRNBENCH_SOURCE_DIR) / "workloads/specs/exp_tiled.json",
      box.in / "k.json");
}

// The digest of the selection "a", "b" of configuration "c", as shard
// version 2 carries it (history::SelectionDigest: the configuration, then
// each name after a newline).
std::string SelectionOfAB() {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : std::string_view("c\na\nb")) {
    h = (h ^ c) * 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// A shard of a split run of two, as `--shard K/2 --output` writes it
// (only what merge and ingest read before refusing).
std::string ShardDoc(int k, std::string_view commit, std::string_view name) {
  return std::string(
             R"({"schema": "trnbench.results", "schema_version": 1, )") +
         R"("device": {"name": "trn1", "content_hash": "h"}, "seed": 1, )" +
         R"("workloads": [{"name": ")" + std::string(name) + R"("}], )" +
         R"("shard": {"index": )" + std::to_string(k) +
         R"(, "count": 2, "commit": ")" + std::string(commit) +
         R"(", "configuration": "c", "selected": ["a", "b"], )" +
         R"("version": 2, "selection": "fnv1a64:)" + SelectionOfAB() +
         R"(", "workloads": [")" + std::string(name) + "\"]}}\n";
}

void ShardsOfTwoCommits(const Sandbox& box) {
  WriteFile(box.in / "shard-1.json", ShardDoc(1, "abc", "a"));
  WriteFile(box.in / "shard-2.json", ShardDoc(2, "def", "b"));
}

void OneShardOfTwo(const Sandbox& box) {
  WriteFile(box.in / "shard-1.json", ShardDoc(1, "abc", "a"));
}

// A history database written by a newer trnbench (schema version 4).
void NewerSchemaHistory(const Sandbox& box) {
  WriteFile(box.in / "history.sqlite",
            Slurp(fs::path(TRNBENCH_SOURCE_DIR) /
                  "tests/errors/history/newer_schema.sqlite"));
}

// A kernel whose helper module does not parse: the syntax error is the
// helper's, at its line, not the kernel file's.
void KernelWithBrokenHelper(const Sandbox& box) {
  WriteFile(box.in / "helper.py", "def scale(x):\n    return x *\n");
  WriteFile(box.in / "k.py",
            "from helper import scale\n\n\ndef k(x):\n    return scale(x)\n");
}

// clang-format off
const Case kCases[] = {
    {"merge/shard_of_another_commit", "merge $IN/shard-1.json $IN/shard-2.json", "$IN/shard-2.json: /shard/commit: def, but $IN/shard-1.json ran abc", "expected every shard from the same commit", ShardsOfTwoCommits},
    {"merge/missing_shard", "merge $IN/shard-1.json", "merge: shard 2/2 missing", "expected every shard of the split", OneShardOfTwo},
    {"merge/output_is_a_shard", "merge $IN/shard-1.json --output $IN/shard-1.json", "--output $IN/shard-1.json: would overwrite $IN/shard-1.json, which is the input merge $IN/shard-1.json", "expected an output that is not read by this command", OneShardOfTwo, Start::kPlain, false},
    {"history/newer_schema", "history detect --db $IN/history.sqlite", "$IN/history.sqlite: the history database has schema version 4", "newer than this trnbench's 3", NewerSchemaHistory, Start::kPlain, false},
    {"history/ingest_a_shard", "history ingest $IN/shard-1.json --db $OUT/history.sqlite", "$IN/shard-1.json: /shard: this is shard 1/2 of a split run", "expected the whole run", OneShardOfTwo, Start::kPlain, false},
    {"shard/more_shards_than_families", "--workload rmsnorm --repeat 3 --shard 2/2", "--shard 2/2", "expected at most 1 shards"},
    // ---- flags and their values ----
    {"flags/repeat_zero", "--workload exp_tiled --repeat 0", "--repeat=0", "expected an integer from 1 to 1000000"},
    {"flags/repeat_negative", "--workload exp_tiled --repeat -1", "--repeat=-1", "expected an integer from 1 to 1000000"},
    {"flags/repeat_exponent", "--workload exp_tiled --repeat 1e12", "--repeat=1e12", "expected an integer from 1 to 1000000"},
    {"flags/repeat_over_limit", "--workload exp_tiled --repeat 1000001", "--repeat=1000001", "expected an integer from 1 to 1000000"},
    {"flags/repeat_not_a_number", "--workload exp_tiled --repeat many", "--repeat=many", "expected an integer from 1 to 1000000"},
    {"flags/repeat_empty", "--workload exp_tiled --repeat=", "--repeat=", "expected an integer from 1 to 1000000"},
    {"flags/repeat_too_many_samples", "--workload all --repeat 100000", "--repeat=100000 with ", "expected at most 1500000 per run"},
    {"flags/warmup_negative", "--workload exp_tiled --warmup -1", "--warmup=-1", "expected an integer from 0 to 1000000"},
    {"flags/repeat_past_the_whole_run_bound", "--workload exp_tiled --shape in_tensor,out_tensor=12800000x512,25600000x512 --repeat 1500", "--repeat=1500: the run of 2 workloads", "would simulate more than the 2000000000 instructions one command may"},
    {"profile/repeat_past_the_whole_command_bound", "profile --workload exp_tiled --shape in_tensor,out_tensor=12800000x512 --repeat 2500", "--repeat=2500: profile of 1 workload", "would simulate more than the 2000000000 instructions one command may"},
    {"flags/wait_over_limit", "--workload exp_tiled --wait 1000001", "--wait=1000001", "expected an integer from 0 to 1000000"},
    {"flags/seed_negative", "--workload exp_tiled --seed -4", "--seed=-4", "expected an integer from 0 to 18446744073709551615"},
    {"flags/seed_over_uint64", "--workload exp_tiled --seed 18446744073709551616", "--seed=18446744073709551616", "expected an integer from 0 to"},
    {"flags/confidence_above_one", "--workload exp_tiled --confidence 1.5", "--confidence=1.5", "expected a level strictly between 0 and 1"},
    {"flags/confidence_zero", "--workload exp_tiled --confidence 0", "--confidence=0", "expected a level strictly between 0 and 1"},
    {"flags/confidence_one", "--workload exp_tiled --confidence 1", "--confidence=1", "expected a level strictly between 0 and 1"},
    {"flags/confidence_nan", "--workload exp_tiled --confidence nan", "--confidence=nan", "expected a level strictly between 0 and 1"},
    {"flags/confidence_not_a_number", "--workload exp_tiled --confidence high", "--confidence=high", "expected a level strictly between 0 and 1"},
    {"flags/threshold_one", "--workload exp_tiled --threshold 1", "--threshold=1", "expected a fraction in [0, 1)"},
    {"flags/threshold_negative", "--workload exp_tiled --threshold -0.1", "--threshold=-0.1", "expected a fraction in [0, 1)"},
    {"flags/alpha_zero", "--workload exp_tiled --alpha 0", "--alpha=0", "expected a level strictly between 0 and 1"},
    {"flags/alpha_infinite", "--workload exp_tiled --alpha inf", "--alpha=inf", "expected a level strictly between 0 and 1"},
    {"flags/format_unknown", "--workload exp_tiled --format xml", "--format=xml", "expected table, json"},
    {"flags/unknown_flag", "--workload exp_tiled --repeats 3", "--repeats", "unknown flag"},
    {"flags/missing_value", "--workload", "--workload", "needs a value"},
    {"flags/unknown_flag_without_value", "--bogus --workload exp_tiled", "unknown flag --bogus", "see trnbench --help"},
    {"flags/unknown_flag_version_typo", "--versoin", "unknown flag --versoin", "did you mean --version?"},
    {"flags/repeat_hexadecimal", "--workload exp_tiled --repeat 0x10", "--repeat=0x10", "expected an integer from 1 to 1000000"},
    {"flags/repeat_leading_space", "--workload exp_tiled '--repeat= 5'", "--repeat= 5", "expected an integer from 1 to 1000000"},
    {"flags/repeat_plus_sign", "--workload exp_tiled --repeat +5", "--repeat=+5", "expected an integer from 1 to 1000000"},
    {"flags/repeat_given_twice", "--workload exp_tiled --repeat 5 --repeat 6", "--repeat is given twice", "expected it once"},
    {"flags/workload_given_twice", "--workload exp_tiled --workload rmsnorm", "--workload is given twice", "expected it once"},
    {"flags/baseline_empty", "--workload exp_tiled --baseline=", "--baseline=", "expected a baseline folder or file, not an empty value"},
    {"flags/output_empty", "--workload exp_tiled --output=", "--output=", "expected a file name, not an empty value"},
    {"flags/report_dir_empty", "--workload exp_tiled --report-dir=", "--report-dir=", "expected a folder name, not an empty value"},
    {"flags/trace_empty", "--workload exp_tiled --trace=", "--trace=", "expected a file name, not an empty value"},
    {"flags/junit_empty", "--workload exp_tiled --junit=", "--junit=", "expected a file name, not an empty value"},
    {"flags/specs_dir_empty_value", "--workload exp_tiled --specs-dir=", "--specs-dir=", "expected a folder of workload specs, not an empty value"},
    {"flags/profiles_dir_empty_value", "--workload exp_tiled --profiles-dir=", "--profiles-dir=", "expected a folder of device profiles, not an empty value"},
    {"flags/newline_in_workload", "--workload \"$(printf 'exp\\ntiled')\"", "--workload=exp\\ntiled: no workload matches \"exp\\ntiled\"", "did you mean exp_tiled"},
    {"flags/newline_in_device", "--workload exp_tiled --device \"$(printf 'trn\\n1')\"", "--device trn\\n1", "available: trn1"},
    {"flags/stray_argument", "--workload exp_tiled stray", "'stray'", "expected a flag or one of the commands"},
    // ---- NKI kernels through the front end (docs/nki-source.md) ----
    {"kernel/args_not_a_shape", "--kernel $ERR/kernels/bad.py::copy --args x=12ax4:float32", "--kernel $ERR/kernels/bad.py::copy: --args x=12ax4:float32", "expected DIMSxDIMS:dtype (such as 8192x4096:bfloat16) or a number"},
    {"kernel/args_dim_of_30_digits", "--kernel $ERR/kernels/bad.py::copy --args x=999999999999999999999999999999x4:float32", "--args x=999999999999999999999999999999x4:float32", "expected at most 8 dims of at most 1099511627776 each"},
    {"kernel/args_too_many_elements", "--kernel $ERR/kernels/bad.py::copy --args x=1099511627776x2:float32", "--args x=1099511627776x2:float32", "a tensor has at most 2^40 (1099511627776) elements"},
    {"kernel/args_infinite_number", "--kernel $ERR/kernels/bad.py::copy --args x=128x512:float32,eps=1e999", "--args eps=1e999", "expected a finite number"},
    {"kernel/args_value_like_a_flag", "--kernel $ERR/kernels/bad.py::copy --args=-x", "--args -x", "expected NAME=DIMSxDIMS:dtype or NAME=NUMBER"},
    {"kernel/kwarg_not_taken", "--kernel $ERR/kernels/bad.py::copy --args x=128x512:float32 --kwarg 'ROWS=(1,[2,{3:'", "$ERR/kernels/bad.py:12: copy(x)", "got an unexpected keyword argument 'ROWS'"},
    {"kernel/argument_missing", "--kernel $ERR/kernels/bad.py::copy", "$ERR/kernels/bad.py:12: copy(x)", "missing a required argument: 'x'; give each argument with --args"},
    {"kernel/no_such_function", "--kernel $ERR/kernels/bad.py::nope --args x=128x512:float32", "$ERR/kernels/bad.py: no function nope", "it defines catches_the_time_bound, copy"},
    {"kernel/raises", "--kernel $ERR/kernels/bad.py::raises --args x=128x512:float32", "$ERR/kernels/bad.py:19: ", "running the kernel: ValueError: rows must be a multiple of 128"},
    {"kernel/recurses_without_end", "--kernel $ERR/kernels/bad.py::recurses --args x=128x512:float32", "$ERR/kernels/bad.py:23: ", "the kernel's code recurses without end"},
    {"kernel/loops_forever", "--kernel $ERR/kernels/bad.py::loops_forever --args x=128x512:float32", "$ERR/kernels/bad.py:28: ", "the trace took more than 0.5 s of CPU time (a loop that never ends?", nullptr, Start::kShortTraceBound},
    {"kernel/swallows_the_time_bound", "--kernel $ERR/kernels/bad.py::catches_the_time_bound --args x=128x512:float32", "$ERR/kernels/bad.py:3", "the trace took more than 0.5 s of CPU time", nullptr, Start::kShortTraceBound},
    {"kernel/huge_python_list", "--kernel $ERR/kernels/bad.py::huge_python_list --args x=128x512:float32", "$ERR/kernels/bad.py:49: ", "out of memory (MemoryError)"},
    {"kernel/huge_tensor_argument", "--kernel $ERR/kernels/bad.py::copy --args x=128x1099511627:float32", "$ERR/kernels/bad.py:14: ", "SBUF overflow"},
    {"kernel/prints_then_fails", "--kernel $ERR/kernels/bad.py::prints_then_fails --args x=128x512:float32", "$ERR/kernels/bad.py:56: ", "neuronxcc.nki.language.no_such_function is not supported by the NKI front end"},
    {"kernel/calls_sys_exit", "--kernel $ERR/kernels/bad.py::exits --args x=128x512:float32", "$ERR/kernels/bad.py:60: ", "the kernel's code called sys.exit(3); a kernel returns"},
    {"kernel/missing_nki_module_used", "--kernel $ERR/kernels/bad.py::uses_missing_nki_module --args x=128x512:float32", "$ERR/kernels/bad.py:66: ", "nki.isa.no_such_module.engine.vector is not supported by the NKI front end"},
    {"kernel/missing_nki_constant_used", "--kernel $ERR/kernels/bad.py::uses_missing_constant --args x=128x512:float32", "$ERR/kernels/bad.py:72: ", "neuronxcc.nki.language.tile_size.no_such_constant is not supported by the NKI front end"},
    {"kernel/absent_package_used", "--kernel $ERR/kernels/bad.py::uses_absent_package --args x=128x512:float32", "$ERR/kernels/bad.py:78: ", "the kernel uses not_an_installed_package.zeros, from a module that is not installed"},
    {"kernel/defined_after_the_top_level_runs_a_kernel", "--kernel $SRC/tests/nki_frontend/kernels/top_level_run.py::defined_after --args x=128x512:float32", "top_level_run.py: no function defined_after; it defines copy", "(its top level runs a kernel at "},
    {"kernel/syntax_error_in_imported_module", "--kernel $IN/k.py::k --args x=128x512:float32", "$IN/helper.py:2: ", "syntax error: invalid syntax", KernelWithBrokenHelper},
    {"flags/nothing_to_run", "--repeat 5", "nothing to run", "give --workload NAME|FAMILY|all or --spec FILE"},
    {"flags/unknown_workload", "--workload rmsnorm_fast", "--workload=rmsnorm_fast: no workload matches \"rmsnorm_fast\"", "did you mean rmsnorm_fused"},
    {"flags/workload_only_commas", "--workload ,", "--workload=,: empty workload selector", "choose a name, a family or \"all\""},
    {"flags/workload_empty", "--workload=", "--workload=", "expected a workload name, family name or all, not an empty value"},
    {"flags/exclude_only_commas", "--workload rmsnorm --exclude ' , '", "--exclude= , : empty workload selector", "choose a name, a family or \"all\""},
    {"flags/exclude_unknown", "--workload rmsnorm --exclude rmsnorm_fast", "--exclude=rmsnorm_fast: no workload matches \"rmsnorm_fast\"", "did you mean rmsnorm_fused"},
    {"flags/unknown_device", "--workload exp_tiled --device trn9", "--device trn9", "available: trn1"},
    {"flags/device_empty", "--workload exp_tiled --device=", "--device : expected the name of a profile, not a path", "available: trn1, trn2"},
    {"flags/device_a_path", "--workload exp_tiled --device ../profiles/trn1", "--device ../profiles/trn1: expected the name of a profile, not a path", "available: trn1, trn2"},
    {"flags/set_unknown_parameter", "--workload exp_tiled --set dma_latncy_us=4", "--set dma_latncy_us", "unknown parameter; expected one of"},
    {"flags/set_not_a_number", "--workload exp_tiled --set dma_latency_us=slow", "--set dma_latency_us=slow", "expected KEY=VALUE with a number"},
    {"flags/set_without_value", "--workload exp_tiled --set dma_latency_us", "--set dma_latency_us", "expected KEY=VALUE with a number"},
    {"flags/set_negative", "--workload exp_tiled --set dma_latency_us=-1", "--set dma_latency_us=-1", "expected a finite number >= 0"},
    {"flags/set_huge_latency", "--workload exp_tiled --set dma_latency_us=1e308", "--set dma_latency_us", "expected values from 0 to 1e+09"},
    {"flags/set_specs_do_not_fit", "--workload all --set partitions=1", "--set partitions=1: the selected specs fit the device as its profile has it, but not with this value", "expected a value the selected specs fit"},
    {"flags/set_zero_rate", "--workload exp_tiled --set hbm_gbps=0", "--set hbm_gbps", "expected a rate greater than 0"},
    {"flags/set_fractional_count", "--workload exp_tiled --set partitions=0.5", "--set partitions=0.5", "expected a finite positive integer"},
    {"flags/set_billion_dma_queues", "--workload exp_tiled --set dma_queues=1e9", "--set dma_queues", "expected values from 0 to 1024"},
    {"flags/spec_missing_file", "--spec $IN/nope.json", "$IN/nope.json", "no such spec file"},
    {"flags/spec_is_a_folder", "--spec $SRC/workloads/specs", "$SRC/workloads/specs", "is a directory, not a spec file"},
    {"flags/spec_empty_name", "--spec=", "--spec", "needs a file name"},
    {"flags/spec_twice", "--spec $SRC/workloads/specs/exp_tiled.json --spec $SRC/workloads/specs/exp_tiled.json", "exp_tiled", "is already selected"},
    {"flags/specs_dir_missing", "--workload all --specs-dir $IN/nope", "$IN/nope", "no such spec directory"},
    {"flags/specs_dir_empty", "--workload all --specs-dir $IN/empty", "$IN/empty", "holds no spec files (*.json)", EmptyFolder},
    {"flags/specs_dir_with_a_bad_file", "--workload all --specs-dir $IN/specs", "$IN/specs/broken.json", "malformed JSON", SpecDirWithOneBadFile},
    {"flags/profiles_dir_missing", "--workload exp_tiled --profiles-dir $IN/nope", "--profiles-dir $IN/nope", "no such folder; expected a folder of device profiles"},
    {"flags/profiles_dir_without_profiles", "--workload exp_tiled --profiles-dir $IN/empty", "--device trn1: no profile $IN/empty/trn1.json", "available: none", EmptyFolder},
    {"flags/bool_flag_value", "--workload exp_tiled --allow-missing=maybe", "--allow-missing=maybe", "expected true or false"},
    {"flags/dashed_name_in_messages", "--workload exp_tiled --trace-repeat abc", "--trace-repeat=abc", "expected a recorded run, 0-based"},
    {"flags/gate_without_baseline", "gate", "gate", "needs --baseline DIR|FILE"},
    {"flags/baseline_missing", "--workload exp_tiled --baseline $IN/nope", "--baseline $IN/nope", "no such folder or file"},
    {"flags/compare_one_file", "compare $SRC/baselines/trn1/exp_tiled.json", "compare", "needs two files"},
    {"flags/compare_missing_file", "compare $IN/old.json $SRC/baselines/trn1/exp_tiled.json", "$IN/old.json", "no such baseline or results file"},
    {"flags/compare_a_folder", "compare $SRC/baselines/trn1/exp_tiled.json $SRC/baselines/trn1", "$SRC/baselines/trn1", "is a folder; expected a regular baseline or results file"},
    {"flags/compare_dev_zero", "compare /dev/zero $SRC/baselines/trn1/exp_tiled.json", "/dev/zero", "is a device; expected a regular baseline or results file"},
    {"flags/threshold_without_baseline", "--workload exp_tiled --repeat 2 --threshold 0.05", "--threshold", "only means something with a baseline; add --baseline DIR|FILE"},
    {"flags/allow_missing_without_baseline", "--workload exp_tiled --repeat 2 --allow-missing", "--allow-missing", "only means something with a baseline"},
    {"flags/trace_repeat_without_trace", "--workload exp_tiled --repeat 2 --trace-repeat 1", "--trace-repeat", "only means something with --trace FILE"},
    {"flags/baseline_folder_unreadable", "--workload exp_tiled --repeat 2 --baseline $IN/locked", "--baseline $IN/locked", "cannot read the folder: Permission denied", UnreadableBaselineFolder, Start::kUnprivileged, false},
    {"flags/compare_a_fifo", "compare $IN/fifo $SRC/baselines/trn1/exp_tiled.json", "$IN/fifo", "is a named pipe (FIFO); expected a regular baseline or results file", AFifo},
    {"flags/baseline_a_fifo", "--workload exp_tiled --repeat 2 --baseline $IN/fifo", "$IN/fifo", "is a named pipe (FIFO); expected a regular baseline or results file", AFifo},
    {"flags/spec_a_fifo", "--spec $IN/fifo", "$IN/fifo", "is a named pipe (FIFO); expected a regular spec file", AFifo},
    {"flags/compare_nothing_in_common", "compare $SRC/baselines/trn1/exp_tiled.json $SRC/baselines/trn1/rmsnorm_fused.json", "$SRC/baselines/trn1/rmsnorm_fused.json: no workload in common with $SRC/baselines/trn1/exp_tiled.json", "expected the same workload on both sides (old: exp_tiled; new: rmsnorm_fused)"},
    {"flags/profile_with_report_dir", "profile --workload exp_tiled --report-dir $OUT/report", "--report-dir", "trnbench profile does not use this flag; it takes --workload"},
    {"flags/compare_with_trace", "compare $SRC/baselines/trn1/exp_tiled.json $SRC/baselines/trn1/exp_tiled.json --trace $OUT/t.json", "--trace", "trnbench compare does not use this flag; it takes --format"},
    {"flags/list_with_repeat", "list --repeat 5", "--repeat", "trnbench list does not use this flag; it takes --device"},

    // ---- where trnbench writes ----
    {"outputs/output_folder_missing", "--workload exp_tiled --repeat 2 --output $IN/nope/results.json", "$IN/nope/results.json", "cannot create a file in", nullptr, Start::kPlain, false},
    {"outputs/output_is_a_folder", "--workload exp_tiled --repeat 2 --output $IN/a_folder", "$IN/a_folder", "is a folder; expected a file name", AFolder, Start::kPlain, false},
    {"outputs/output_under_a_file", "--workload exp_tiled --repeat 2 --output $IN/a_file/results.json", "$IN/a_file/results.json", "cannot create a file in", AFileInTheWay, Start::kPlain, false},
    {"outputs/output_full_disk", "--workload exp_tiled --repeat 2 --output $OUT/results.json", "$OUT/results.json", "write failed (is the disk full?), the old file is kept: File too large", OldResultsInOut, Start::kFullDisk, false},
    {"outputs/save_baseline_under_a_file", "--workload exp_tiled --repeat 2 --save-baseline $IN/a_file/bl", "--save-baseline $IN/a_file/bl: cannot create the folder: $IN/a_file", "is not a folder", AFileInTheWay},
    {"outputs/save_baseline_folder_in_the_way", "--workload exp_tiled --repeat 2 --save-baseline $OUT/bl", "$OUT/bl/exp_tiled.json", "is a folder; expected a file name", FolderInPlaceOfBaseline},
    {"outputs/save_baseline_full_disk", "--workload exp_tiled --repeat 2 --save-baseline $OUT/bl", "$OUT/bl/exp_tiled.json", "write failed (is the disk full?), the old file is kept: File too large", OldBaselineInOut, Start::kFullDisk, false},
    {"outputs/save_baseline_read_only_folder", "--workload exp_tiled --repeat 2 --save-baseline $OUT/ro", "$OUT/ro/exp_tiled.json", "expected an existing folder that can be written): Permission denied", ReadOnlyBaselineFolder, Start::kUnprivileged, false},
    {"outputs/report_dir_under_a_file", "--workload exp_tiled --repeat 2 --report-dir $IN/a_file/report", "--report-dir $IN/a_file/report", "is not a folder", AFileInTheWay},
    {"outputs/output_a_folder_beside_a_trace_and_a_report", "--workload exp_tiled --repeat 2 --output $IN/a_folder --trace $OUT/t.json --report-dir $OUT/rep", "--output $IN/a_folder", "is a folder; expected a file name", AFolder, Start::kPlain, false},
    {"outputs/save_baseline_folder_in_the_way_beside_a_report", "--workload exp_tiled --repeat 2 --save-baseline $OUT/bl --trace $OUT/t.json --report-dir $OUT/rep", "--save-baseline $OUT/bl/exp_tiled.json", "is a folder; expected a file name", FolderInPlaceOfBaseline, Start::kPlain, false},
    {"outputs/save_baseline_new_folder_full_disk", "--workload exp_tiled --repeat 2 --save-baseline $OUT/new/bl", "--save-baseline $OUT/new/bl", "write of exp_tiled.json failed (is the disk full?), nothing is written: File too large", nullptr, Start::kFullDisk, false},
    {"outputs/output_and_trace_one_file", "--workload exp_tiled --repeat 2 --output $OUT/x.json --trace $OUT/x.json", "--trace $OUT/x.json: --output writes $OUT/x.json too", "expected a different place for each output", nullptr, Start::kPlain, false},
    {"outputs/output_in_the_report_folder", "--workload exp_tiled --repeat 2 --output $OUT/rep/results.json --report-dir $OUT/rep", "--output $OUT/rep/results.json: --report-dir writes $OUT/rep/results.json too", "expected a different place for each output", ReportFolderInOut, Start::kPlain, false},
    {"outputs/compare_output_is_an_input", "compare $IN/old.json $IN/saved/exp_tiled.json --output $IN/old.json", "--output $IN/old.json: would overwrite $IN/old.json, which is the input compare $IN/old.json", "expected an output that is not read by this command", OldAndNewBaseline, Start::kPlain, false},
    {"outputs/output_is_the_spec", "--spec $IN/k.json --repeat 2 --output $IN/k.json", "--output $IN/k.json: would overwrite $IN/k.json, which is the input --spec $IN/k.json", "expected an output that is not read by this command", SpecCopy, Start::kPlain, false},
    {"outputs/report_dir_read_only", "--workload exp_tiled --repeat 2 --report-dir $OUT/ro/report", "--report-dir $OUT/ro/report", "cannot create a folder in", ReadOnlyReportFolder, Start::kUnprivileged, false},

    // ---- spec files (tests/errors/specs; the rules are in bad_specs below) ----
    {"specs/nan_dim", "--spec $ERR/specs/nan_dim.json", "$ERR/specs/nan_dim.json: /: ", "malformed JSON"},
    {"specs/infinity_dim", "--spec $ERR/specs/infinity_dim.json", "$ERR/specs/infinity_dim.json: /: ", "malformed JSON"},
    {"specs/negative_infinity_threshold", "--spec $ERR/specs/negative_infinity_threshold.json", "$ERR/specs/negative_infinity_threshold.json: /: ", "number overflow"},
    {"specs/noise_threshold_one", "--spec $ERR/specs/noise_threshold_one.json", "$ERR/specs/noise_threshold_one.json: /noise_threshold: ", "expected a number in [0, 1), such as 0.02 for 2%, got number 1.0"},
    {"specs/noise_threshold_negative", "--spec $ERR/specs/noise_threshold_negative.json", "$ERR/specs/noise_threshold_negative.json: /noise_threshold: ", "expected a number in [0, 1), such as 0.02 for 2%, got number -0.01"},
    {"specs/empty_file", "--spec $ERR/specs/empty_file.json", "$ERR/specs/empty_file.json: /: ", "malformed JSON"},
    {"specs/whitespace_only", "--spec $ERR/specs/whitespace_only.json", "$ERR/specs/whitespace_only.json: /: ", "malformed JSON"},
    {"specs/null_document", "--spec $ERR/specs/null_document.json", "$ERR/specs/null_document.json: /: ", "expected an object, got null"},
    {"specs/trailing_garbage", "--spec $ERR/specs/trailing_garbage.json", "$ERR/specs/trailing_garbage.json: /: ", "malformed JSON"},
    {"specs/comment", "--spec $ERR/specs/comment.json", "$ERR/specs/comment.json: /: ", "malformed JSON"},
    {"specs/trailing_comma", "--spec $ERR/specs/trailing_comma.json", "$ERR/specs/trailing_comma.json: /: ", "malformed JSON"},
    {"specs/invalid_utf8", "--spec $ERR/specs/invalid_utf8.json", "$ERR/specs/invalid_utf8.json: /: ", "invalid string: ill-formed UTF-8 byte"},
    {"specs/deep_nesting", "--spec $ERR/specs/deep_nesting.json", "$ERR/specs/deep_nesting.json: /tensors/1/shape", "JSON nested deeper than 64 levels"},
    {"specs/newline_in_name", "--spec $ERR/specs/newline_in_name.json", "$ERR/specs/newline_in_name.json: /name: ", "name \"bad\\nname\" must match ^[a-z][a-z0-9_]*$"},
    {"specs/escape_sequence_in_op", "--spec $ERR/specs/escape_sequence_in_op.json", "$ERR/specs/escape_sequence_in_op.json: /ops/0/op: ", "unknown op \"\\u001b[2J\\u001b[31maten::mul\"; supported ops:"},
    {"specs/bell_in_key", "--spec $ERR/specs/bell_in_key.json", "$ERR/specs/bell_in_key.json: /tensors/0/sh\\u0007pe: ", "allowed keys: name, shape, dtype, placement"},
    {"specs/loop_2pow40_iterations", "--spec $ERR/specs/loop_2pow40_iterations.json", "$ERR/specs/loop_2pow40_iterations.json", "lowers to more than 5000000 instructions"},
    {"specs/too_many_instructions", "--spec $ERR/specs/too_many_instructions.json", "$ERR/specs/too_many_instructions.json", "lowers to more than 5000000 instructions"},
    {"specs/too_many_instructions_eager", "--spec $ERR/specs/too_many_instructions_eager.json", "$ERR/specs/too_many_instructions_eager.json", "lowers to more than 5000000 instructions"},
    {"specs/repeat_times_instructions", "--spec $ERR/specs/million_instructions.json --repeat 2000", "$ERR/specs/million_instructions.json: --repeat=2000", "expected at most 2000000000 per workload"},
    {"specs/buffers_int32_max", "--spec $ERR/specs/buffers_int32_max.json", "$ERR/specs/buffers_int32_max.json: /kernel/loops/0/body/1: ", "SBUF overflow: the live tiles need 8796093018112 B per partition here"},
    {"specs/tile_partitions_1e300", "--spec $ERR/specs/tile_partitions_1e300.json", "$ERR/specs/tile_partitions_1e300.json: /kernel/loops/0/tile_partitions: ", "expected a positive integer, got number 1e+300"},
    {"specs/line_above_int64", "--spec $ERR/specs/line_above_int64.json", "$ERR/specs/line_above_int64.json: /kernel/loops/0/body/0/line: ", "expected a source line number >= 1"},
    {"specs/dim_below_int64", "--spec $ERR/specs/dim_below_int64.json", "$ERR/specs/dim_below_int64.json: /tensors/0/shape/0: ", "expected a positive integer no larger than 2^40"},
    {"specs/elements_2pow41", "--spec $ERR/specs/elements_2pow41.json", "$ERR/specs/elements_2pow41.json: /tensors/0/shape: ", "a tensor may have at most 2^40 (1099511627776) elements"},
    {"specs/elements_2pow64", "--spec $ERR/specs/elements_2pow64.json", "$ERR/specs/elements_2pow64.json: /tensors/0/shape: ", "overflows int64; a tensor may have at most 2^40"},
    {"specs/no_tensors", "--spec $ERR/specs/no_tensors.json", "$ERR/specs/no_tensors.json: /tensors: ", "a spec needs at least one tensor"},
    {"specs/psum_overflow_tile", "--spec $ERR/specs/psum_overflow_tile.json", "$ERR/specs/psum_overflow_tile.json: /kernel/loops/0/body/3: ", "PSUM overflow: the live tiles need 9 banks of 2048 B per partition here, the limit is 8 banks (live: big 16388 B)"},
    {"specs/cycle_two_ops", "--spec $ERR/specs/cycle_two_ops.json", "$ERR/specs/cycle_two_ops.json: /kernel/loops/0/body/", "dependency cycle"},
    {"specs/unknown_dtype_fp8", "--spec $ERR/specs/unknown_dtype_fp8.json", "$ERR/specs/unknown_dtype_fp8.json: /tensors/0/dtype: ", "unknown dtype \"fp8\"; expected one of bf16, fp16, fp32, int8, int32"},
    {"specs/unknown_engine_pe", "--spec $ERR/specs/unknown_engine_pe.json", "$ERR/specs/unknown_engine_pe.json: /kernel/loops/0/body/1/engine: ", "unknown engine \"pe\"; expected one of tensor, vector, scalar, gpsimd"},
    {"specs/not_a_spec", "--spec $ERR/specs/not_a_spec.json", "$ERR/specs/not_a_spec.json: /schema: ", "unknown key \"schema\" in a spec"},
    {"specs/over_1_mib", "--spec $IN/big.json", "$IN/big.json: /: ", "a spec may be at most 1 MiB (1048576 bytes)", SpecOverOneMib},
    {"specs/dev_zero", "--spec /dev/zero", "/dev/zero", "is a device; expected a regular spec file"},
    {"specs/megabyte_key", "--spec $IN/key.json", "$IN/key.json: /kkkk", "in a spec; allowed keys: schema_version", SpecMegabyteKey},
    {"specs/megabyte_op_name", "--spec $IN/op.json", "$IN/op.json: /ops/0/op: unknown op \"aten::eeee", "; supported ops: aten::", SpecMegabyteOpName},
    {"specs/nested_100000_levels", "--spec $IN/deep.json", "$IN/deep.json: /0/0/0", "JSON nested deeper than 64 levels", SpecDeepNesting},

    // ---- device profiles (--profiles-dir $ERR/profiles --device NAME) ----
    {"profiles/malformed", "--workload exp_tiled --profiles-dir $ERR/profiles --device malformed", "$ERR/profiles/malformed.json: /: ", "malformed JSON"},
    {"profiles/truncated", "--workload exp_tiled --profiles-dir $ERR/profiles --device truncated", "$ERR/profiles/truncated.json: /: ", "malformed JSON"},
    {"profiles/empty", "--workload exp_tiled --profiles-dir $ERR/profiles --device empty", "$ERR/profiles/empty.json: /: ", "malformed JSON"},
    {"profiles/not_an_object", "--workload exp_tiled --profiles-dir $ERR/profiles --device not_an_object", "$ERR/profiles/not_an_object.json: /: ", "expected an object, got an empty array"},
    {"profiles/nan_value", "--workload exp_tiled --profiles-dir $ERR/profiles --device nan_value", "$ERR/profiles/nan_value.json: /: ", "malformed JSON"},
    {"profiles/schema_version_1", "--workload exp_tiled --profiles-dir $ERR/profiles --device schema_version_1", "$ERR/profiles/schema_version_1.json: /schema_version: ", "unsupported schema_version 1; this trnbench reads 2"},
    {"profiles/unknown_top_key", "--workload exp_tiled --profiles-dir $ERR/profiles --device unknown_top_key", "$ERR/profiles/unknown_top_key.json: /vendor: ", "unknown key \"vendor\" in a device profile; allowed keys: schema_version, name, description, calibrated, parameters"},
    {"profiles/duplicate_parameter", "--workload exp_tiled --profiles-dir $ERR/profiles --device duplicate_parameter", "$ERR/profiles/duplicate_parameter.json: /parameters/hbm_gbps: ", "duplicate key \"hbm_gbps\"; each key may appear once"},
    {"profiles/unknown_parameter", "--workload exp_tiled --profiles-dir $ERR/profiles --device unknown_parameter", "$ERR/profiles/unknown_parameter.json: /parameters/dma_latncy_us: ", "unknown key \"dma_latncy_us\" in the parameters; allowed keys: partitions"},
    {"profiles/missing_parameter", "--workload exp_tiled --profiles-dir $ERR/profiles --device missing_parameter", "$ERR/profiles/missing_parameter.json: /parameters/hbm_gbps: ", "required key \"hbm_gbps\" is missing"},
    {"profiles/negative_bandwidth", "--workload exp_tiled --profiles-dir $ERR/profiles --device negative_bandwidth", "$ERR/profiles/negative_bandwidth.json: /parameters/dma_queue_gbps/value: ", "expected a finite number >= 0"},
    {"profiles/zero_clock", "--workload exp_tiled --profiles-dir $ERR/profiles --device zero_clock", "$ERR/profiles/zero_clock.json: /parameters/vector_clock_ghz: ", "expected a rate greater than 0"},
    {"profiles/tiny_clock", "--workload exp_tiled --profiles-dir $ERR/profiles --device tiny_clock", "$ERR/profiles/tiny_clock.json: /parameters/vector_clock_ghz: ", "expected a rate greater than 0 (at least 1e-06)"},
    {"profiles/huge_latency", "--workload exp_tiled --profiles-dir $ERR/profiles --device huge_latency", "$ERR/profiles/huge_latency.json: /parameters/dma_latency_us: ", "expected values from 0 to 1e+09"},
    {"profiles/huge_latency_quantile", "--workload exp_tiled --profiles-dir $ERR/profiles --device huge_latency_quantile", "$ERR/profiles/huge_latency_quantile.json: /parameters/dma_latency_us: ", "expected values from 0 to 1e+09"},
    {"profiles/billion_dma_queues", "--workload exp_tiled --profiles-dir $ERR/profiles --device billion_dma_queues", "$ERR/profiles/billion_dma_queues.json: /parameters/dma_queues: ", "expected values from 0 to 1024"},
    {"profiles/fractional_partitions", "--workload exp_tiled --profiles-dir $ERR/profiles --device fractional_partitions", "$ERR/profiles/fractional_partitions.json: /parameters/partitions/value: ", "expected a positive integer"},
    {"profiles/quantiles_decreasing", "--workload exp_tiled --profiles-dir $ERR/profiles --device quantiles_decreasing", "$ERR/profiles/quantiles_decreasing.json: /parameters/dma_latency_us/quantiles: ", "non-decreasing in value"},
    {"profiles/quantiles_not_to_one", "--workload exp_tiled --profiles-dir $ERR/profiles --device quantiles_not_to_one", "$ERR/profiles/quantiles_not_to_one.json: /parameters/dma_latency_us/quantiles: ", "must start at p = 0 and end at p = 1"},
    {"profiles/quantiles_on_fixed_figure", "--workload exp_tiled --profiles-dir $ERR/profiles --device quantiles_on_fixed_figure", "$ERR/profiles/quantiles_on_fixed_figure.json: /parameters/hbm_gbps/quantiles: ", "fixed hardware figure; give `value`"},
    {"profiles/value_and_quantiles", "--workload exp_tiled --profiles-dir $ERR/profiles --device value_and_quantiles", "$ERR/profiles/value_and_quantiles.json: /parameters/dma_latency_us: ", "expected exactly one of `value` or `quantiles`"},
    {"profiles/missing_source", "--workload exp_tiled --profiles-dir $ERR/profiles --device missing_source", "$ERR/profiles/missing_source.json: /parameters/hbm_gbps/source: ", "every parameter must say where its value comes from"},
    {"profiles/value_is_string", "--workload exp_tiled --profiles-dir $ERR/profiles --device value_is_string", "$ERR/profiles/value_is_string.json: /parameters/hbm_gbps/value: ", "expected a finite number >= 0, got string \"fast\""},
    {"profiles/fitted_on_public", "--workload exp_tiled --profiles-dir $ERR/profiles --device fitted_on_public", "$ERR/profiles/fitted_on_public.json: /parameters/hbm_gbps/fitted_on: ", "only a fitted parameter names the figures it was fitted on"},
    {"profiles/deep_nesting", "--workload exp_tiled --profiles-dir $ERR/profiles --device deep_nesting", "$ERR/profiles/deep_nesting.json: /parameters/hbm_gbps/0/0", "JSON nested deeper than 64 levels"},
    {"profiles/name_missing", "--workload exp_tiled --profiles-dir $ERR/profiles --device name_missing", "$ERR/profiles/name_missing.json: /name: ", "required key \"name\" is missing"},
    {"profiles/megabyte_key", "--workload exp_tiled --profiles-dir $IN/profiles --device huge_key", "$IN/profiles/huge_key.json: /parameters/pppp", "in the parameters; allowed keys: partitions", ProfileMegabyteKey},
    {"profiles/nested_100000_levels", "--workload exp_tiled --profiles-dir $IN/profiles --device deep", "$IN/profiles/deep.json: /parameters/0/0", "JSON nested deeper than 64 levels", ProfileDeepNesting},
    {"profiles/over_1_mib", "--workload exp_tiled --profiles-dir $IN/profiles --device big", "$IN/profiles/big.json: /: ", "a device profile may be at most 1 MiB", ProfileOverOneMib},

    // ---- baselines and results files (--baseline FILE, compare) ----
    {"baselines/other_device", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/other_device.json", "$ERR/baselines/other_device.json: /device/name: ", "the baseline is for device trn2, this run is on trn1"},
    {"baselines/schema_version_2", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/schema_version_2.json", "$ERR/baselines/schema_version_2.json: /schema_version: ", "unsupported schema_version 2; this trnbench reads 1"},
    {"baselines/unknown_schema", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/unknown_schema.json", "$ERR/baselines/unknown_schema.json: /schema: ", "unknown schema \"google.benchmark\"; expected one of trnbench.baseline, trnbench.results"},
    {"baselines/schema_missing", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/schema_missing.json", "$ERR/baselines/schema_missing.json: /schema: ", "required key \"schema\" is missing"},
    {"baselines/fewer_samples_than_repeat", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/fewer_samples_than_repeat.json", "$ERR/baselines/fewer_samples_than_repeat.json: /metrics/device_time_us/samples: ", "expected 4 samples (schedule.repeat), found 3"},
    {"baselines/more_samples_than_repeat", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/more_samples_than_repeat.json", "$ERR/baselines/more_samples_than_repeat.json: /metrics/ncl_us/samples: ", "expected 4 samples (schedule.repeat), found 5"},
    {"baselines/nan_sample", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/nan_sample.json", "$ERR/baselines/nan_sample.json: /: ", "malformed JSON: parse error at line"},
    {"baselines/infinity_sample", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/infinity_sample.json", "$ERR/baselines/infinity_sample.json: /: ", "malformed JSON: parse error at line"},
    {"baselines/overflow_sample", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/overflow_sample.json", "$ERR/baselines/overflow_sample.json: /: ", "malformed JSON: number overflow parsing '1e400'"},
    {"baselines/null_sample", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/null_sample.json", "$ERR/baselines/null_sample.json: /metrics/device_time_us/samples/2: ", "expected a number > 0 (a time or rate), got null"},
    {"baselines/string_sample", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/string_sample.json", "$ERR/baselines/string_sample.json: /metrics/device_time_us/samples/0: ", "expected a number > 0 (a time or rate), got string \"20.1\""},
    {"baselines/repeat_zero", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/repeat_zero.json", "$ERR/baselines/repeat_zero.json: /provenance/schedule/repeat: ", "expected an integer from 1 to 1099511627776"},
    {"baselines/repeat_negative", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/repeat_negative.json", "$ERR/baselines/repeat_negative.json: /provenance/schedule/repeat: ", "expected an integer from 1 to 1099511627776"},
    {"baselines/repeat_2pow41", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/repeat_2pow41.json", "$ERR/baselines/repeat_2pow41.json: /provenance/schedule/repeat: ", "expected an integer from 1 to 1099511627776"},
    {"baselines/seed_negative", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/seed_negative.json", "$ERR/baselines/seed_negative.json: /provenance/seed: ", "expected a non-negative integer"},
    {"baselines/unknown_metric", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/unknown_metric.json", "$ERR/baselines/unknown_metric.json: /metrics/device_time_ms: ", "unknown metric"},
    {"baselines/no_metrics", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/no_metrics.json", "$ERR/baselines/no_metrics.json: /metrics: ", "expected a non-empty object of metrics"},
    {"baselines/device_missing", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/device_missing.json", "$ERR/baselines/device_missing.json: /device: ", "required key \"device\" is missing"},
    {"baselines/workload_not_a_string", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/workload_not_a_string.json", "$ERR/baselines/workload_not_a_string.json: /workload: ", "expected a string, got number 7"},
    {"baselines/noise_threshold_too_big", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/noise_threshold_too_big.json", "$ERR/baselines/noise_threshold_too_big.json: /provenance/noise_threshold: ", "expected a number in [0, 1), such as 0.02 for 2%, got number 1.5"},
    {"baselines/commit_a_number", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/commit_a_number.json", "$ERR/baselines/commit_a_number.json: /provenance/git_commit: ", "expected a string or null"},
    {"baselines/duplicate_samples", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/duplicate_samples.json", "$ERR/baselines/duplicate_samples.json: /metrics/device_time_us/samples: ", "duplicate key \"samples\"; each key may appear once"},
    {"baselines/truncated", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/truncated.json", "$ERR/baselines/truncated.json: /: ", "malformed JSON: parse error at line"},
    {"baselines/empty", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/empty.json", "$ERR/baselines/empty.json: /: ", "malformed JSON"},
    {"baselines/not_an_object", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/not_an_object.json", "$ERR/baselines/not_an_object.json: /: ", "expected an object, got string \"trnbench.baseline\""},
    {"baselines/deep_nesting", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/deep_nesting.json", "$ERR/baselines/deep_nesting.json: /provenance/git_commit", "JSON nested deeper than 64 levels"},
    {"baselines/newline_in_metric", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/newline_in_metric.json", "$ERR/baselines/newline_in_metric.json: /metrics/ncl_us\\nFAKE: all good: ", "unknown metric"},
    {"baselines/workload_not_its_file_name", "--workload exp_tiled --repeat 2 --baseline $ERR/baselines/dir_workload_mismatch", "$ERR/baselines/dir_workload_mismatch/exp_tiled.json: /workload: ", "expected exp_tiled (the file's name), found exp_tiled_v2"},
    {"baselines/results_workload_name_path", "compare $ERR/baselines/results_workload_name_path.json $SRC/tests/fuzz/corpus/results/all_repeat3_min.json", "$ERR/baselines/results_workload_name_path.json: /workloads/0/name: workload name \"../escape\" ", "not starting with '.'"},
    {"baselines/results_duplicate_workload", "compare $ERR/baselines/results_duplicate_workload.json $SRC/tests/fuzz/corpus/results/all_repeat3_min.json", "$ERR/baselines/results_duplicate_workload.json: /workloads/4/name: ", "appears twice"},
    {"baselines/results_fewer_samples", "compare $SRC/tests/fuzz/corpus/results/all_repeat3_min.json $ERR/baselines/results_fewer_samples.json", "$ERR/baselines/results_fewer_samples.json: /workloads/1/metrics/device_time_us/samples: ", "expected 3 samples (schedule.repeat), found 2"},
    {"baselines/results_schema_version_2", "compare $ERR/baselines/results_schema_version_2.json $SRC/tests/fuzz/corpus/results/all_repeat3_min.json", "$ERR/baselines/results_schema_version_2.json: /schema_version: ", "unsupported schema_version 2; this trnbench reads 1"},
    {"baselines/results_no_workloads", "compare $ERR/baselines/results_no_workloads.json $SRC/tests/fuzz/corpus/results/all_repeat3_min.json", "$ERR/baselines/results_no_workloads.json: /workloads: ", "expected at least one workload, found an empty array"},
    {"baselines/results_workloads_not_array", "compare $ERR/baselines/results_workloads_not_array.json $SRC/tests/fuzz/corpus/results/all_repeat3_min.json", "$ERR/baselines/results_workloads_not_array.json: /workloads: ", "expected an array"},
    {"gate/baseline_without_gated_metrics", "gate --workload exp_tiled --repeat 4 --baseline $IN/saved/exp_tiled.json --set dma_latency_us=4.5", "$IN/saved/exp_tiled.json: /metrics/device_time_us: ", "missing; the gate judges device_time_us of a nki workload and the run has it", BaselineWithoutGatedMetrics},
    {"gate/results_without_gated_metrics", "gate --workload exp_tiled --repeat 4 --baseline $IN/results.json", "$IN/results.json: /workloads/0/metrics/device_time_us: ", "missing; the gate judges device_time_us", ResultsWithoutGatedMetrics},
    {"gate/negative_throughput_sample", "gate --workload exp_tiled --repeat 4 --baseline $IN/saved/exp_tiled.json", "$IN/saved/exp_tiled.json: /metrics/throughput_per_s/samples/1: ", "expected a number > 0 (a time or rate), got number -4969.27", BaselineNegativeThroughput},
    {"gate/zero_time_sample", "gate --workload exp_tiled --repeat 4 --baseline $IN/saved/exp_tiled.json", "$IN/saved/exp_tiled.json: /metrics/ncl_us/samples/2: ", "expected a number > 0 (a time or rate), got number 0", BaselineZeroTime},
    {"gate/unit_ms", "gate --workload exp_tiled --repeat 4 --baseline $IN/saved/exp_tiled.json", "$IN/saved/exp_tiled.json: /metrics/device_time_us/unit: ", "expected \"us\" (the unit of device_time_us), found \"ms\"", BaselineUnitMs},
    {"gate/flipped_digit", "gate --workload exp_tiled --repeat 4 --baseline $IN/saved/exp_tiled.json", "$IN/saved/exp_tiled.json: /metrics/ncl_us/samples: ", "the samples do not match samples_checksum", BaselineFlippedDigit},
    {"gate/too_few_samples_for_an_interval", "gate --workload exp_tiled --repeat 2 --baseline $IN/saved2/exp_tiled.json", "$IN/saved2/exp_tiled.json: exp_tiled ", "2 baseline and 2 new samples: a gated comparison needs at least 8 per side", BaselineOfTwoRuns},
    {"baselines/over_64_mib", "--workload exp_tiled --repeat 2 --baseline $IN/big.json", "$IN/big.json: /: ", "file is larger than 64 MiB", BaselineOver64Mib},
    {"baselines/megabyte_metric_name", "--workload exp_tiled --repeat 2 --baseline $IN/metric.json", "$IN/metric.json: /metrics/mmmm", "unknown metric", BaselineMegabyteMetricName},
    {"baselines/nested_100000_levels", "--workload exp_tiled --repeat 2 --baseline $IN/deep.json", "$IN/deep.json: /0/0/0", "JSON nested deeper than 64 levels", BaselineDeepNesting},

    {"baselines/results_source_unknown", "compare $ERR/baselines/results_source_unknown.json $ERR/baselines/results_source_unknown.json", "results_source_unknown.json: /source", "unknown source \"guessed\"; expected one of model, measured"},
    {"baselines/results_measured_no_measurement", "compare $ERR/baselines/results_measured_no_measurement.json $ERR/baselines/results_measured_no_measurement.json", "results_measured_no_measurement.json: /measurement", "required key \"measurement\" is missing"},
    {"baselines/results_measured_no_samples", "compare $ERR/baselines/results_measured_no_samples.json $ERR/baselines/results_measured_no_samples.json", "results_measured_no_samples.json: /workloads/0/metrics/wall_time_us/samples", "expected at least one sample, or the percentiles of a summary without samples"},
    {"baselines/results_measured_percentiles_decreasing", "compare $ERR/baselines/results_measured_percentiles_decreasing.json $ERR/baselines/results_measured_percentiles_decreasing.json", "/workloads/0/metrics/wall_time_us/percentiles", "expected percentiles that do not decrease"},

    // ---- measured files (trnbench import, docs/import.md; tests/errors/measured) ----
    {"import/no_files", "import", "import needs measured files", "trnbench import FILE..."},
    {"import/missing_file", "import $IN/nope.json", "$IN/nope.json", "no such measured file"},
    {"import/a_folder", "import $ERR/measured", "$ERR/measured", "is a folder; expected a measured file"},
    {"import/from_unknown", "import $ERR/measured/unknown.json --from csv", "--from=csv", "expected one of kineto, neuron-bench"},
    {"import/format_gbench_json", "import $ERR/measured/gbench_two.json --format gbench-json", "--format=gbench-json", "import writes --format table or json"},
    {"import/trace_flag", "import $ERR/measured/gbench_two.json --trace $OUT/t.json", "--trace", "trnbench import does not use this flag"},
    {"import/unknown_content", "import $ERR/measured/unknown.json", "unknown.json: /", "expected a measured file trnbench imports"},
    {"import/mixed_formats", "import $ERR/measured/gbench_two.json $ERR/measured/hyperfine_all_failed.json", "hyperfine_all_failed.json: /", "import one format at a time"},
    {"import/truncated_gzip", "import $ERR/measured/truncated.json.gz", "truncated.json.gz: /", "gzip"},
    {"import/gbench_no_times", "import $ERR/measured/gbench_no_times.json", "gbench_no_times.json: /benchmarks/0/real_time", "required key \"real_time\" is missing"},
    {"import/gbench_workload_of_many", "import $ERR/measured/gbench_two.json --workload mine", "--workload mine", "keep their own names"},
    {"import/device_categories_only_commas", "import $ERR/measured/kineto_no_steps.json --device-categories ,", "--device-categories=,", "expected trace event categories, comma-separated"},
    {"import/kineto_no_steps", "import $ERR/measured/kineto_no_steps.json", "kineto_no_steps.json: /traceEvents", "expected ProfilerStep#N spans"},
    {"import/kineto_span_absent", "import $ERR/measured/kineto_no_steps.json --span train", "kineto_no_steps.json: /traceEvents", "expected spans named \"train\" (--span)"},
    {"import/kineto_string_ts", "import $ERR/measured/kineto_string_ts.json", "kineto_string_ts.json: /traceEvents/1/ts", "expected a number, got string \"5\""},
    {"import/hyperfine_exit_codes_mismatch", "import $ERR/measured/hyperfine_exit_codes_mismatch.json", "/results/0/exit_codes", "expected an array of 2 exit codes, one per time"},
    {"import/hyperfine_all_failed", "import $ERR/measured/hyperfine_all_failed.json", "hyperfine_all_failed.json: /results/0/exit_codes", "expected at least one run with exit code 0"},
    {"import/hyperfine_name_collision", "import $ERR/measured/hyperfine_name_collision.json", "hyperfine_name_collision.json: two workloads become the name a_b", "expected names that differ"},
    {"import/neuron_bench_two_summaries", "import $ERR/measured/info_run1.json $ERR/measured/info_run2.json", "info_run2.json: /nc_latency", "the percentiles of several runs cannot be pooled"},
    {"import/summary_percent_above_one", "import $ERR/measured/summary_percent_above_one.json", "/neff_node_1/vector_engine_active_time_percent", "expected a fraction from 0 to 1"},
    {"import/hyperfine_zero_time", "import $ERR/measured/hyperfine_zero_time.json", "hyperfine_zero_time.json: /results/0/times/1", "expected a time in seconds > 0, got number 0"},
    {"import/hyperfine_one_command_twice", "import $ERR/measured/hyperfine_one_command_twice.json", "hyperfine_one_command_twice.json: /results/1/command", "expected each command once per file"},
    {"import/gbench_overflow", "import $ERR/measured/gbench_overflow.json", "gbench_overflow.json: /benchmarks/0/real_time", "overflows on conversion"},
    {"import/kineto_step_of_zero_time", "import $ERR/measured/kineto_zero_step.json", "kineto_zero_step.json: /", "kineto_zero_step wall_time_us sample 2 is 0 us; expected a finite time or rate > 0"},
    {"import/gzip_trailing_bytes", "import $ERR/measured/trailing_bytes.json.gz", "trailing_bytes.json.gz: /", "4 bytes after the end of the gzip stream"},
    {"import/gzip_padding", "import $ERR/measured/padding.json.gz", "padding.json.gz: /", "decompresses to more than 200 times its size"},
    {"import/nki_two_rows", "import $ERR/measured/nki_two_rows.txt", "nki_two_rows.txt: line 3", "expected one result row"},
    {"import/nki_percentile_101", "import $ERR/measured/nki_percentile_101.txt", "nki_percentile_101.txt: line 1", "column NCL(101): expected L(p) or NCL(p) with a percentile p from 0 to 100"},
    {"import/nki_duplicate_column", "import $ERR/measured/nki_duplicate_column.txt", "nki_duplicate_column.txt: line 1", "column NCL(50) appears twice"},
    {"import/nki_not_a_number", "import $ERR/measured/nki_not_a_number.txt", "nki_not_a_number.txt: line 2", "expected a number of at least 0 in column NCL(50)"},

    // ---- the model against measurements (validate --measured, calibrate) ----
    {"validate/model_results", "validate --measured $SRC/baselines/trn1/exp_tiled.json", "exp_tiled.json: /source", "expected a measured results file"},
    {"validate/no_spec_of_that_name", "validate --measured $ERR/measured/measured_no_spec.json", "workload nothing_like_it", "expected a spec of that name"},
    {"validate/negative_percentile", "validate --measured $ERR/measured/measured_negative_percentile.json", "measured_negative_percentile.json: /workloads/0/metrics/ncl_us/percentiles/", "expected a time or rate > 0 (a percentile of ncl_us), found -20"},
    {"calibrate/negative_percentile", "calibrate $ERR/measured/measured_negative_percentile.json", "measured_negative_percentile.json: /workloads/0/metrics/ncl_us/percentiles/", "expected a time or rate > 0 (a percentile of ncl_us), found -20"},
    {"calibrate/repeat_beyond_the_instruction_bound", "calibrate $ERR/measured/measured_exp_tiled.json --repeat 1000000", "--repeat=1000000: calibrate would simulate", "expected at most 2000000000 instructions for the whole fit"},
    {"calibrate/no_files", "calibrate", "calibrate needs measured results files", "trnbench calibrate MEASURED.json"},
    {"calibrate/no_output", "calibrate $ERR/measured/measured_no_spec.json", "calibrate needs --output PROFILE.json", "the fitted device profile", nullptr, Start::kPlain, false},

    // ---- every rule of the spec format: tests/workloads/bad_specs ----
    {"bad_specs/malformed_json", "--spec $BAD/malformed_json.json", "$BAD/malformed_json.json: /: ", "malformed JSON: parse error at line 4, column 1"},
    {"bad_specs/truncated", "--spec $BAD/truncated.json", "$BAD/truncated.json: /: ", "unexpected end of input"},
    {"bad_specs/empty_object", "--spec $BAD/empty_object.json", "$BAD/empty_object.json: /schema_version: ", "required key \"schema_version\" is missing"},
    {"bad_specs/not_an_object", "--spec $BAD/not_an_object.json", "$BAD/not_an_object.json: /: ", "expected an object, got an array"},
    {"bad_specs/duplicate_key", "--spec $BAD/duplicate_key.json", "$BAD/duplicate_key.json: /name: ", "duplicate key \"name\""},
    {"bad_specs/number_overflow", "--spec $BAD/number_overflow.json", "$BAD/number_overflow.json: /: ", "malformed JSON: number overflow parsing '1e400'"},
    {"bad_specs/schema_version_2", "--spec $BAD/schema_version_2.json", "$BAD/schema_version_2.json: /schema_version: ", "unsupported schema_version 2; this trnbench reads 1"},
    {"bad_specs/schema_version_string", "--spec $BAD/schema_version_string.json", "$BAD/schema_version_string.json: /schema_version: ", "expected an integer, got string \"1\""},
    {"bad_specs/name_wrong_type", "--spec $BAD/name_wrong_type.json", "$BAD/name_wrong_type.json: /name: ", "expected a string, got number 5"},
    {"bad_specs/name_bad_pattern", "--spec $BAD/name_bad_pattern.json", "$BAD/name_bad_pattern.json: /name: ", "name \"RMSNorm\" must match ^[a-z][a-z0-9_]*$"},
    {"bad_specs/unknown_mode", "--spec $BAD/unknown_mode.json", "$BAD/unknown_mode.json: /mode: ", "unknown mode \"lazy\"; expected one of eager, fused_op, compiled, nki"},
    {"bad_specs/unknown_top_key", "--spec $BAD/unknown_top_key.json", "$BAD/unknown_top_key.json: /colour: ", "unknown key \"colour\" in a spec; allowed keys: schema_version, name, family, description, mode, tensors, ops, kernel"},
    {"bad_specs/unknown_tensor_key", "--spec $BAD/unknown_tensor_key.json", "$BAD/unknown_tensor_key.json: /tensors/1/layout: ", "unknown key \"layout\" in a tensor; allowed keys: name, shape, dtype, placement"},
    {"bad_specs/unknown_op_key", "--spec $BAD/unknown_op_key.json", "$BAD/unknown_op_key.json: /ops/0/alpha: ", "unknown key \"alpha\" in a torch op"},
    {"bad_specs/unknown_nki_op_key", "--spec $BAD/unknown_nki_op_key.json", "$BAD/unknown_nki_op_key.json: /kernel/loops/0/body/1/engnie: ", "unknown key \"engnie\" in an activation op"},
    {"bad_specs/misplaced_nki_key", "--spec $BAD/misplaced_nki_key.json", "$BAD/misplaced_nki_key.json: /kernel/loops/0/body/0/engine: ", "key \"engine\" does not apply to a load op"},
    {"bad_specs/unknown_loop_key", "--spec $BAD/unknown_loop_key.json", "$BAD/unknown_loop_key.json: /kernel/loops/0/unroll: ", "unknown key \"unroll\" in a loop"},
    {"bad_specs/shape_wrong_type", "--spec $BAD/shape_wrong_type.json", "$BAD/shape_wrong_type.json: /tensors/0/shape: ", "expected an array of dims, got string \"4x8\""},
    {"bad_specs/inputs_wrong_type", "--spec $BAD/inputs_wrong_type.json", "$BAD/inputs_wrong_type.json: /ops/0/inputs: ", "expected an array of strings, got string \"x\""},
    {"bad_specs/tensors_wrong_type", "--spec $BAD/tensors_wrong_type.json", "$BAD/tensors_wrong_type.json: /tensors: ", "expected an array, got an object"},
    {"bad_specs/unknown_placement", "--spec $BAD/unknown_placement.json", "$BAD/unknown_placement.json: /tensors/2/placement: ", "unknown placement \"gpu\"; expected one of host, device"},
    {"bad_specs/unknown_dtype", "--spec $BAD/unknown_dtype.json", "$BAD/unknown_dtype.json: /tensors/0/dtype: ", "unknown dtype \"bf32\"; expected one of bf16, fp16, fp32, int8, int32"},
    {"bad_specs/unknown_engine", "--spec $BAD/unknown_engine.json", "$BAD/unknown_engine.json: /kernel/loops/0/body/1/engine: ", "unknown engine \"dma\"; expected one of tensor, vector, scalar, gpsimd"},
    {"bad_specs/unknown_range", "--spec $BAD/unknown_range.json", "$BAD/unknown_range.json: /kernel/loops/0/range: ", "unknown range \"parallel\"; expected one of affine, sequential"},
    {"bad_specs/zero_dim", "--spec $BAD/zero_dim.json", "$BAD/zero_dim.json: /tensors/0/shape/1: ", "expected a positive integer no larger than 2^40 (1099511627776), got number 0"},
    {"bad_specs/negative_dim", "--spec $BAD/negative_dim.json", "$BAD/negative_dim.json: /tensors/0/shape/0: ", "got number -4"},
    {"bad_specs/fractional_dim", "--spec $BAD/fractional_dim.json", "$BAD/fractional_dim.json: /tensors/0/shape/0: ", "got a fractional number 4.5"},
    {"bad_specs/huge_dim", "--spec $BAD/huge_dim.json", "$BAD/huge_dim.json: /tensors/0/shape/0: ", "no larger than 2^40 (1099511627776), got number 1e+300"},
    {"bad_specs/elements_overflow_int64", "--spec $BAD/elements_overflow_int64.json", "$BAD/elements_overflow_int64.json: /tensors/0/shape: ", "the element count of [1099511627776, 1099511627776] overflows int64; a tensor may have at most 2^40"},
    {"bad_specs/elements_over_limit", "--spec $BAD/elements_over_limit.json", "$BAD/elements_over_limit.json: /tensors/0/shape: ", "has 2199023255552 elements; a tensor may have at most 2^40 (1099511627776) elements"},
    {"bad_specs/empty_tensors", "--spec $BAD/empty_tensors.json", "$BAD/empty_tensors.json: /tensors: ", "a spec needs at least one tensor"},
    {"bad_specs/duplicate_tensor", "--spec $BAD/duplicate_tensor.json", "$BAD/duplicate_tensor.json: /tensors/3/name: ", "tensor \"x\" is declared twice (first at /tensors/0)"},
    {"bad_specs/tensor_bad_name", "--spec $BAD/tensor_bad_name.json", "$BAD/tensor_bad_name.json: /tensors/1/name: ", "tensor name \"w-1\" must match"},
    {"bad_specs/unknown_op", "--spec $BAD/unknown_op.json", "$BAD/unknown_op.json: /ops/0/op: ", "unknown op \"aten::gemm\"; supported ops: aten::mul, aten::add"},
    {"bad_specs/undeclared_tensor", "--spec $BAD/undeclared_tensor.json", "$BAD/undeclared_tensor.json: /ops/0/inputs/1: ", "input \"bias\" is not declared in /tensors"},
    {"bad_specs/use_before_produce", "--spec $BAD/use_before_produce.json", "$BAD/use_before_produce.json: /ops/0/inputs/1: ", "tensor \"t\" is used before it is produced (by /ops/1)"},
    {"bad_specs/produced_twice", "--spec $BAD/produced_twice.json", "$BAD/produced_twice.json: /ops/1/output: ", "tensor \"y\" is produced twice (first by /ops/0)"},
    {"bad_specs/arity_wrong", "--spec $BAD/arity_wrong.json", "$BAD/arity_wrong.json: /ops/0/inputs: ", "aten::mul takes 2 inputs, got 1"},
    {"bad_specs/broadcast_mismatch", "--spec $BAD/broadcast_mismatch.json", "$BAD/broadcast_mismatch.json: /ops/0/inputs: ", "aten::mul: input shapes [4, 8] and [3] do not broadcast: dim -1 is 8 in one and 3 in the other"},
    {"bad_specs/reduce_shape_wrong", "--spec $BAD/reduce_shape_wrong.json", "$BAD/reduce_shape_wrong.json: /ops/0/output: ", "aten::mean of [4, 8] gives [4, 1], but output \"y\" is declared [4, 8]"},
    {"bad_specs/matmul_shape", "--spec $BAD/matmul_shape.json", "$BAD/matmul_shape.json: /ops/0/inputs: ", "aten::matmul multiplies [..., m, k] by [k, n]; got [4, 8] and [4, 8]"},
    {"bad_specs/output_on_host", "--spec $BAD/output_on_host.json", "$BAD/output_on_host.json: /ops/0/output: ", "output \"y\" has placement host"},
    {"bad_specs/fused_two_ops", "--spec $BAD/fused_two_ops.json", "$BAD/fused_two_ops.json: /ops: ", "mode \"fused_op\" runs exactly one op, got 2"},
    {"bad_specs/eager_no_ops", "--spec $BAD/eager_no_ops.json", "$BAD/eager_no_ops.json: /ops: ", "mode \"eager\" needs at least one op"},
    {"bad_specs/eager_missing_ops", "--spec $BAD/eager_missing_ops.json", "$BAD/eager_missing_ops.json: /ops: ", "required key \"ops\" is missing"},
    {"bad_specs/eager_with_kernel", "--spec $BAD/eager_with_kernel.json", "$BAD/eager_with_kernel.json: /kernel: ", "not allowed in mode \"eager\": \"kernel\" is only for mode \"nki\""},
    {"bad_specs/nki_with_ops", "--spec $BAD/nki_with_ops.json", "$BAD/nki_with_ops.json: /ops: ", "not allowed in mode \"nki\""},
    {"bad_specs/nki_missing_kernel", "--spec $BAD/nki_missing_kernel.json", "$BAD/nki_missing_kernel.json: /kernel: ", "required key \"kernel\" is missing"},
    {"bad_specs/nki_no_loops", "--spec $BAD/nki_no_loops.json", "$BAD/nki_no_loops.json: /kernel/loops: ", "a kernel needs at least one loop"},
    {"bad_specs/nki_empty_body", "--spec $BAD/nki_empty_body.json", "$BAD/nki_empty_body.json: /kernel/loops/0/body: ", "a loop body needs at least one op"},
    {"bad_specs/unknown_nki_op", "--spec $BAD/unknown_nki_op.json", "$BAD/unknown_nki_op.json: /kernel/loops/0/body/1/op: ", "unknown NKI op \"exp\"; expected one of load, store, iota"},
    {"bad_specs/hbm_copy_other_dtype", "--spec $BAD/hbm_copy_other_dtype.json", "$BAD/hbm_copy_other_dtype.json: /kernel/loops/0/body/0/from: ", "\"in_tensor\" is fp32 [256, 512] but \"out_tensor\" is bf16 [256, 512]; an hbm_copy moves a block between tensors of one shape and dtype"},
    {"bad_specs/hbm_copy_without_from", "--spec $BAD/hbm_copy_without_from.json", "$BAD/hbm_copy_without_from.json: /kernel/loops/0/body/1/from: ", "an hbm_copy needs the tensor it copies from"},
    {"bad_specs/block_slot_other_trips", "--spec $BAD/block_slot_other_trips.json", "$BAD/block_slot_other_trips.json: /kernel/loops/0/body/1/body/1/body/0/inputs/0: ", "slot variable \"n\" in \"lhsT_tiles[n]\" walks 2 iterations, but that level of the block has 4 slots (loop \"kl\"); a slot variable walks its level's slots one for one"},
    {"bad_specs/carry_outside_scope", "--spec $BAD/carry_outside_scope.json", "$BAD/carry_outside_scope.json: /kernel/loops/0/body/3/body/0/carry/0: ", "\"nope\" is not a tile of this loop body or of one around it; a carried tile comes from the previous iteration of the loop whose body makes it"},
    {"bad_specs/results_not_in_body", "--spec $BAD/results_not_in_body.json", "$BAD/results_not_in_body.json: /kernel/loops/0/body/3/results/2: ", "\"nope\" is not a tile of this loop's body; a loop's result is the tile an op of its own body makes in the last iteration (ids there: y, buf_n, peak_n)"},
    {"bad_specs/slot_sum_past_slots", "--spec $BAD/slot_sum_past_slots.json", "$BAD/slot_sum_past_slots.json: /kernel/loops/0/body/1/body/0/body/0/inputs/0: ", "slot \"a*5+b\" in \"blk[a*5+b]\" reaches slot 8, but that level of the block has 8 slots (loop \"j\")"},
    {"bad_specs/constant_block_past_dim", "--spec $BAD/constant_block_past_dim.json", "$BAD/constant_block_past_dim.json: /kernel/loops/0/body/5/index/1: ", "the constant block \"768:1100\" of dim 1 of \"out\" (1024 elements) must be START:STOP with START < STOP <= 1024"},
    {"bad_specs/tile_too_many_partitions", "--spec $BAD/tile_too_many_partitions.json", "$BAD/tile_too_many_partitions.json: /kernel/loops/0/body/1/tile/0: ", "tile [256, 512] has 256 partitions; SBUF has 128"},
    {"bad_specs/tile_one_dim", "--spec $BAD/tile_one_dim.json", "$BAD/tile_one_dim.json: /kernel/loops/0/body/1/tile: ", "a tile is [partitions, free], got 1 dim"},
    {"bad_specs/tile_partitions_over_limit", "--spec $BAD/tile_partitions_over_limit.json", "$BAD/tile_partitions_over_limit.json: /kernel/loops/0/tile_partitions: ", "must be between 1 and 128 (the SBUF partitions), got 256"},
    {"bad_specs/sbuf_overflow", "--spec $BAD/sbuf_overflow.json", "$BAD/sbuf_overflow.json: /kernel/loops/0/body/1: ", "SBUF overflow: the live tiles need 480000 B per partition here, the limit is 196608 B per partition (live: in_tile 240000 B, out_tile 240000 B)"},
    {"bad_specs/buffers_word", "--spec $BAD/buffers_word.json", "$BAD/buffers_word.json: /kernel/loops/0/buffers: ", "expected a positive integer or \"auto\", got string \"double\""},
    {"bad_specs/sbuf_overflow_buffers", "--spec $BAD/sbuf_overflow_buffers.json", "$BAD/sbuf_overflow_buffers.json: /kernel/loops/0/body/1: ", "SBUF overflow: the live tiles need 262144 B per partition here, the limit is 196608 B per partition (live: in_tile 32768 B x 4, out_tile 32768 B x 4)"},
    {"bad_specs/psum_overflow", "--spec $BAD/psum_overflow.json", "$BAD/psum_overflow.json: /kernel/loops/0/body/2: ", "PSUM overflow: the live tiles need 16 banks of 2048 B per partition here, the limit is 8 banks (live: acc 32768 B)"},
    {"bad_specs/matmul_not_psum", "--spec $BAD/matmul_not_psum.json", "$BAD/matmul_not_psum.json: /kernel/loops/0/body/2/buffer: ", "the Tensor engine writes matmul results to PSUM; set \"buffer\": \"psum\" (got \"sbuf\")"},
    {"bad_specs/missing_mask_load", "--spec $BAD/missing_mask_load.json", "$BAD/missing_mask_load.json: /kernel/loops/0/body/0/mask: ", "the last tile is partial (250 rows, tile 128): load needs a mask"},
    {"bad_specs/missing_mask_store", "--spec $BAD/missing_mask_store.json", "$BAD/missing_mask_store.json: /kernel/loops/0/body/4/mask: ", "the last tile is partial (250 rows, tile 128): store needs a mask"},
    {"bad_specs/cycle_after", "--spec $BAD/cycle_after.json", "$BAD/cycle_after.json: /kernel/loops/0/body/0: ", "dependency cycle through inputs, mask and after: in_tile -> out_tile -> in_tile"},
    {"bad_specs/cycle_self", "--spec $BAD/cycle_self.json", "$BAD/cycle_self.json: /kernel/loops/0/body/1: ", "dependency cycle through inputs, mask and after: out_tile -> out_tile"},
    {"bad_specs/unknown_id_in_inputs", "--spec $BAD/unknown_id_in_inputs.json", "$BAD/unknown_id_in_inputs.json: /kernel/loops/0/body/1/inputs/0: ", "unknown tile id \"in_tle\"; ids defined in this loop body: in_tile, out_tile"},
    {"bad_specs/unknown_id_in_mask", "--spec $BAD/unknown_id_in_mask.json", "$BAD/unknown_id_in_mask.json: /kernel/loops/0/body/2/mask: ", "unknown tile id \"msk\""},
    {"bad_specs/duplicate_id", "--spec $BAD/duplicate_id.json", "$BAD/duplicate_id.json: /kernel/loops/0/body/1/id: ", "id \"in_tile\" is already defined at /kernel/loops/0/body/0"},
    {"bad_specs/missing_id", "--spec $BAD/missing_id.json", "$BAD/missing_id.json: /kernel/loops/0/body/1/id: ", "an activation defines a tile and needs an id"},
    {"bad_specs/wrong_engine_for_op", "--spec $BAD/wrong_engine_for_op.json", "$BAD/wrong_engine_for_op.json: /kernel/loops/0/body/1/engine: ", "an activation cannot run on the vector engine; expected scalar"},
    {"bad_specs/unknown_func", "--spec $BAD/unknown_func.json", "$BAD/unknown_func.json: /kernel/loops/0/body/1/func: ", "unknown func \"cube\"; expected one of exp, rsqrt"},
    {"bad_specs/unknown_alu", "--spec $BAD/unknown_alu.json", "$BAD/unknown_alu.json: /kernel/loops/0/body/1/alu/1: ", "unknown operator \"cube\"; expected one of add, subtract, multiply"},
    {"bad_specs/alu_not_on_scalar", "--spec $BAD/alu_not_on_scalar.json", "$BAD/alu_not_on_scalar.json: /kernel/loops/0/body/1/alu: ", "ScalarE runs a tensor_scalar of multiply then add, multiply, or add only"},
    {"bad_specs/alu_on_activation", "--spec $BAD/alu_on_activation.json", "$BAD/alu_on_activation.json: /kernel/loops/0/body/1/alu: ", "key \"alu\" does not apply to an activation op"},
    {"bad_specs/load_dim0_mismatch", "--spec $BAD/load_dim0_mismatch.json", "$BAD/load_dim0_mismatch.json: /kernel/loops/0/body/0/tensor: ", "tensor \"weight\" has dim 0 = 512, but the loop tiles dim 0 of \"in_tensor\" = 256"},
    {"bad_specs/store_two_inputs", "--spec $BAD/store_two_inputs.json", "$BAD/store_two_inputs.json: /kernel/loops/0/body/2/inputs: ", "a store takes 1 input tile, got 2"},
    {"bad_specs/store_with_id", "--spec $BAD/store_with_id.json", "$BAD/store_with_id.json: /kernel/loops/0/body/2/id: ", "key \"id\" does not apply to a store op"},
    {"bad_specs/missing_line", "--spec $BAD/missing_line.json", "$BAD/missing_line.json: /kernel/loops/0/body/1/line: ", "required key \"line\" is missing"},
    {"bad_specs/zero_line", "--spec $BAD/zero_line.json", "$BAD/zero_line.json: /kernel/loops/0/body/1/line: ", "expected a source line number >= 1, got number 0"},
    {"bad_specs/loop_tensor_on_host", "--spec $BAD/loop_tensor_on_host.json", "$BAD/loop_tensor_on_host.json: /kernel/loops/0/tensor: ", "loop tensor \"in_tensor\" has placement host"},
    {"bad_specs/loop_tensor_undeclared", "--spec $BAD/loop_tensor_undeclared.json", "$BAD/loop_tensor_undeclared.json: /kernel/loops/0/tensor: ", "loop tensor \"missing\" is not declared in /tensors"},
};
// clang-format on

// Every file and subfolder below tests/errors/*/ and tests/workloads/
// bad_specs/, for the check that each is used by a case.
std::vector<std::string> CatalogueFiles() {
  std::vector<std::string> out;
  const fs::path src(TRNBENCH_SOURCE_DIR);
  for (const char* dir :
       {"tests/errors/specs", "tests/errors/profiles", "tests/errors/baselines",
        "tests/errors/measured", "tests/errors/kernels"}) {
    for (const auto& e : fs::directory_iterator(src / dir)) {
      out.push_back(fs::relative(e.path(), src).string());
    }
  }
  for (const auto& e :
       fs::directory_iterator(src / "tests/workloads/bad_specs")) {
    out.push_back(fs::relative(e.path(), src).string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every regular file below `dir` with its bytes (folders as "<dir>").
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out[fs::relative(e.path(), dir).string()] =
        e.is_directory() ? "<dir>" : Slurp(e.path());
  }
  return out;
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

Outcome RunTrnbench(const Case& c, const Sandbox& box) {
  const fs::path root = box.in.parent_path();
  std::string args = Expand(c.args, box);
  if (c.add_output) args += " --output " + (box.out / "results.json").string();
  std::string prefix;
  if (c.start == Start::kFullDisk) {
    // 8 blocks of 512 bytes; an ignored SIGXFSZ stays ignored across exec.
    prefix = "ulimit -f 8 && trap '' XFSZ && ";
  } else if (c.start == Start::kShortTraceBound) {
    prefix = "TRNBENCH_TRACE_SECONDS=0.5 ";
  } else if (c.start == Start::kUnprivileged && geteuid() == 0) {
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  // Run from the sandbox, so that a default such as baselines/<device>
  // could never land in the source tree.
  const std::string cmd = "cd '" + root.string() + "' && " + prefix +
                          TRNBENCH_BINARY + " " + args + " >stdout 2>stderr" +
                          " </dev/null";
  const int status = std::system(cmd.c_str());
  Outcome o;
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  o.out = Slurp(root / "stdout");
  o.err = Slurp(root / "stderr");
  return o;
}

std::string TestName(const Case& c) {
  std::string name = c.id;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

class ErrorCatalogueTest : public ::testing::TestWithParam<Case> {};

TEST_P(ErrorCatalogueTest, RefusedWithOneLineExitTwoAndNothingWritten) {
  const Case& c = GetParam();
  const fs::path root =
      fs::path(::testing::TempDir()) / "trnbench_catalogue" / TestName(c);
  if (fs::exists(root)) {
    fs::permissions(root, fs::perms::owner_all, fs::perm_options::add);
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add);
    }
    fs::remove_all(root);
  }
  const Sandbox box{root / "in", root / "out"};
  fs::create_directories(box.in);
  fs::create_directories(box.out);
  if (c.prepare != nullptr) c.prepare(box);
  if (c.start == Start::kUnprivileged) {
    // The sandbox must be enterable by the unprivileged user.
    for (fs::path p = root; p != p.parent_path() && p != fs::path("/tmp");
         p = p.parent_path()) {
      fs::permissions(p, fs::perms::others_exec | fs::perms::others_read,
                      fs::perm_options::add);
    }
  }
  const auto before = Snapshot(box.out);

  const Outcome o = RunTrnbench(c, box);
  const std::string names = Expand(c.names, box);
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_THAT(o.out, IsEmpty());
  ASSERT_FALSE(o.err.empty());
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1)
      << "exactly one line on stderr, got:\n"
      << o.err.substr(0, 4000);
  EXPECT_EQ(o.err.back(), '\n');
  EXPECT_THAT(o.err, StartsWith("trnbench: error: "));
  EXPECT_THAT(o.err.substr(0, 4000), HasSubstr(names));
  EXPECT_THAT(o.err.substr(0, 4000), HasSubstr(c.expected));
  EXPECT_LE(o.err.size(), 2100u) << "a readable line, not an echo of the input";
  for (size_t i = 0; i + 1 < o.err.size(); ++i) {
    const auto u = static_cast<unsigned char>(o.err[i]);
    EXPECT_TRUE(u >= 0x20 && u != 0x7f)
        << "control character " << int{u} << " at " << i;
  }
  EXPECT_EQ(Snapshot(box.out), before)
      << "a refused run must not write, replace or leave any file";
}

INSTANTIATE_TEST_SUITE_P(Catalogue, ErrorCatalogueTest,
                         ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& p) {
                           return TestName(p.param);
                         });

TEST(ErrorCatalogueFilesTest, EveryCatalogueFileIsRunByACase) {
  std::set<std::string> used;
  for (const Case& c : kCases) {
    std::string args = ReplaceAll(c.args, "$ERR", "tests/errors");
    args = ReplaceAll(args, "$BAD", "tests/workloads/bad_specs");
    std::istringstream words(args);
    for (std::string w; words >> w;) {
      used.insert(w);
      used.insert(w.substr(0, w.find("::")));  // --kernel FILE.py::FUNCTION
    }
    // --profiles-dir $ERR/profiles --device NAME names the file NAME.json.
    const auto pos = args.find("--profiles-dir tests/errors/profiles");
    if (pos != std::string::npos) {
      const auto dev = args.find("--device ", pos);
      used.insert("tests/errors/profiles/" +
                  args.substr(dev + 9, args.find(' ', dev + 9) - dev - 9) +
                  ".json");
    }
  }
  for (const std::string& f : CatalogueFiles()) {
    EXPECT_TRUE(used.count(f))
        << f << " is in the catalogue but no case runs it";
  }
  for (const Case& c : kCases) {
    // An empty fragment would match any message.
    EXPECT_GT(std::string_view(c.names).size(), 2u) << c.id;
    EXPECT_GT(std::string_view(c.expected).size(), 2u) << c.id;
  }
  EXPECT_GE(std::size(kCases), 60u);
}

// docs/errors.md lists every case. The table is generated from kCases; after
// adding a case, regenerate it with TRNBENCH_UPDATE_GOLDEN=1.
std::string MarkdownCode(std::string s) {
  s = ReplaceAll(s, "|", "\\|");
  return s.empty() ? "" : "`" + s + "`";
}

std::string CatalogueTable() {
  std::string out =
      "| # | case | command (`trnbench ...`) | the message names | and says |\n"
      "| --- | --- | --- | --- | --- |\n";
  int n = 0;
  for (const Case& c : kCases) {
    std::string args = c.args;
    if (c.start == Start::kFullDisk) args = "(disk full) " + args;
    if (c.start == Start::kUnprivileged) args = "(read-only folder) " + args;
    if (c.start == Start::kShortTraceBound) {
      args = "(TRNBENCH_TRACE_SECONDS=0.5) " + args;
    }
    out += "| " + std::to_string(++n) + " | " + c.id + " | " +
           MarkdownCode(args) + " | " + MarkdownCode(c.names) + " | " +
           MarkdownCode(c.expected) + " |\n";
  }
  return out;
}

TEST(ErrorCatalogueDocTest, DocsErrorsMdListsEveryCase) {
  const fs::path doc = fs::path(TRNBENCH_SOURCE_DIR) / "docs/errors.md";
  const std::string text = Slurp(doc);
  const std::string begin =
      "<!-- catalogue: generated by tests/errors/error_catalogue_test.cc -->\n";
  const std::string end = "<!-- end of catalogue -->";
  const size_t b = text.find(begin);
  const size_t e = text.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/errors.md lacks: " << begin;
  ASSERT_NE(e, std::string::npos) << "docs/errors.md lacks: " << end;
  const std::string table = CatalogueTable();
  if (std::getenv("TRNBENCH_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(doc, std::ios::binary)
        << text.substr(0, b + begin.size()) << table << text.substr(e);
    return;
  }
  EXPECT_EQ(text.substr(b + begin.size(), e - b - begin.size()), table)
      << "regenerate with TRNBENCH_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace trn
