#include "tools/trnbench/cli.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "support/counter_rng.h"
#include "device_model/device_profile.h"
#include "support/hash.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "support/atomic_file.h"
#include "harness/baseline_store.h"
#include "tools/trnbench/profile_command.h"
#include "tools/trnbench/report_outputs.h"
#include "harness/comparison.h"
#include "harness/runner.h"
#include "reports/comparison_report.h"
#include "reports/console_report.h"
#include "reports/gbench_json.h"
#include "reports/json_results.h"
#include "reports/terminal.h"
#include "reports/workload_list.h"
#include "workloads/shape_override.h"
#include "workloads/spec_catalog.h"
#include "workloads/spec_parser.h"

ABSL_FLAG(std::string, workload, "",
          "workload name, family name, or 'all' (see `trnbench list`)");
ABSL_FLAG(int64_t, repeat, 100, "recorded (active) runs per workload");
ABSL_FLAG(int64_t, warmup, 1, "warm-up runs, simulated and discarded");
ABSL_FLAG(int64_t, wait, 0, "runs skipped before warm-up");
ABSL_FLAG(uint64_t, seed, 1, "seed of every random stream");
ABSL_FLAG(std::string, device, "trn1", "device profile name");
ABSL_FLAG(std::string, format, "table",
          "stdout format: table, json or gbench-json");
ABSL_FLAG(double, confidence, 0.95, "confidence level of every interval");
ABSL_FLAG(std::string, output, "", "also write the JSON results to FILE");
ABSL_FLAG(std::string, report_dir, "",
          "write the report folder (results.json, report.md, report.html, "
          "CSV, plots) to DIR");
ABSL_FLAG(std::string, trace, "",
          "write the timeline of one recorded run as a Chrome trace to FILE");
ABSL_FLAG(int64_t, trace_repeat, 0,
          "a recorded run, 0-based: the one --trace writes (default 0)");
ABSL_FLAG(std::string, junit, "",
          "write the baseline comparison as JUnit XML to FILE");
ABSL_FLAG(std::string, specs_dir, "",
          "folder of workload specs (default: the shipped workloads/specs)");
ABSL_FLAG(std::string, profiles_dir, "",
          "folder of device profiles (default: device_model/profiles)");
ABSL_FLAG(std::string, baseline, "",
          "compare with baselines: a folder of <workload>.json or one file");
ABSL_FLAG(double, threshold, 0.02,
          "noise threshold: relative change below which nothing is called");
ABSL_FLAG(double, alpha, 0.05,
          "false-alarm rate of one gate run (Holm over all comparisons)");
ABSL_FLAG(bool, allow_missing, false,
          "a workload without a baseline is reported as new, not an error");
ABSL_FLAG(bool, fresh_seeds, false,
          "draw seeds that differ from the baseline's (independent samples)");

namespace trn {
namespace {

constexpr char kUsage[] =
    R"(trnbench: benchmark and regression harness for NeuronCore workloads,
run on a calibrated NeuronCore timing model.

Usage:
  trnbench --workload NAME|FAMILY|all [options]
  trnbench --spec FILE [--spec FILE ...] [options]
  trnbench gate --baseline DIR|FILE [options]
  trnbench compare OLD.json NEW.json [--format F] [--output FILE] [--junit FILE]
  trnbench list [--device NAME]
  trnbench profile --workload NAME|FAMILY|all [options]
A flag that a command does not use is refused, never ignored.

Examples:
  trnbench --workload rmsnorm --repeat 100      the three RMSNorm variants
  trnbench --workload exp_tiled --format json   one workload, JSON on stdout
  trnbench --spec my_kernel.json --seed 7       your own spec file
  trnbench --workload all --output results.json
  trnbench --workload all --save-baseline       write baselines/<device>/*.json
  trnbench gate --baseline baselines/trn1       nightly gate: exit 1 on regression
  trnbench gate --baseline baselines/trn1 --set op_exec_overhead_us=410
                                                what-if: one profile parameter changed
  trnbench compare old.json new.json            two saved results or baselines
  trnbench profile --workload exp_tiled         device summary, roofline, findings
  trnbench --workload exp_tiled --shape in_tensor,out_tensor=1024x512,4096x512
                                                a size sweep: one row per shape

Options:
  --workload NAME      workload name, family name, or 'all'
  --spec FILE          run a spec file (repeatable)
  --repeat N           recorded runs per workload (default 100)
  --warmup N           warm-up runs, simulated and discarded (default 1)
  --wait N             runs skipped before warm-up (default 0)
  --seed N             seed of every random stream (default 1); run k of a
                       workload is replayable alone from (seed, wait+warmup+k)
  --device NAME        device profile (default trn1)
  --format F           what to print on stdout: table, json, or gbench-json
                       (Google Benchmark's JSON format) (default table)
  --confidence C       confidence level of intervals, in (0, 1) (default 0.95)
  --output FILE        also write the JSON results (for compare: the
                       comparison) to FILE (atomically)
  --specs-dir DIR      where --workload looks (default: shipped specs)
  --profiles-dir DIR   where --device looks (default: shipped profiles)
  --set KEY=VALUE      override a device profile parameter for this run
                       (repeatable; a distribution is rescaled to that median)
  --shape T[,T...]=DIMS[,DIMS...]
                       run at other tensor shapes (DIMS like 250x512);
                       several DIMS sweep them, one result row per shape
                       (repeatable; docs/spec-format.md)

Reports (docs/reports.md; every file is written atomically):
  --report-dir DIR     results.json, report.md, report.html, summary.csv,
                       samples.csv and plots/*.svg; report.md is also
                       appended to $GITHUB_STEP_SUMMARY when that is set
  --trace FILE         Chrome trace (Perfetto, chrome://tracing) of one
                       recorded run of every selected workload
  --trace-repeat K     which recorded run, 0-based (default 0)
  --junit FILE         JUnit XML: one test case per baseline comparison,
                       a regression is a failure

Baselines and the regression gate:
  --save-baseline [DIR]  save this run as baselines (default baselines/<device>)
  --baseline DIR|FILE    compare with baselines; `gate` implies --workload all
  --threshold T          noise threshold, a fraction (default 0.02 = 2%);
                         a spec's noise_threshold overrides it
  --alpha A              false-alarm rate of one gate run (default 0.05)
  --allow-missing        report a workload without a baseline as new
  --fresh-seeds          use seeds that differ from the baseline's
  --help                 this text

Exit codes: 0 success and no regression, 1 a regression was found,
2 bad usage or bad input (nothing is written).
Docs: docs/spec-format.md, docs/results-format.md, docs/reports.md,
docs/baseline-format.md, docs/statistics.md, docs/ci.md, docs/calibration.md.
)";

struct Args {
  std::string command;  // "" (run), "list", "gate", "compare" or "profile"
  std::vector<std::string> positional;  // compare's two files
  std::vector<std::string> specs;
  std::vector<std::pair<std::string, double>> sets;
  std::vector<ShapeOverride> shapes;
  bool save_baseline = false;
  std::string save_baseline_dir;  // empty: baselines/<device>
  bool help = false;
  std::vector<std::string> given;  // flag names as written, '-' for '_'
};

absl::StatusOr<std::pair<std::string, double>> ParseSet(const std::string& kv) {
  auto eq = kv.find('=');
  double value = 0;
  if (eq == std::string::npos || eq == 0 ||
      !absl::SimpleAtod(kv.substr(eq + 1), &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--set ", kv,
                     ": expected KEY=VALUE with a number, such as "
                     "--set dma_latency_us=4.1"));
  }
  return std::pair{kv.substr(0, eq), value};
}

// Flags are named as typed (--report-dir), though Abseil knows them as
// report_dir.
std::string Dashed(std::string_view flag) {
  std::string out(flag);
  std::replace(out.begin(), out.end(), '_', '-');
  return "--" + out;
}

// What a value flag takes, for a value that does not even parse: the same
// words Validate() uses for one out of range ("--repeat=1e12: expected an
// integer from 1 to 1000000"), the flag's help for the others.
std::string ExpectedFlagValue(const std::string& name,
                              const std::string& help) {
  if (name == "repeat")
    return absl::StrCat("an integer from 1 to ", kMaxRepeat);
  if (name == "warmup" || name == "wait") {
    return absl::StrCat("an integer from 0 to ", kMaxRepeat);
  }
  if (name == "seed") return "an integer from 0 to 18446744073709551615";
  if (name == "confidence") {
    return "a level strictly between 0 and 1, such as 0.95";
  }
  if (name == "alpha") return "a level strictly between 0 and 1, such as 0.05";
  if (name == "threshold") return "a fraction in [0, 1), such as 0.02";
  if (name == "allow_missing" || name == "fresh_seeds") {
    return "true or false (or the flag alone for true)";
  }
  if (name == "trace_repeat") {
    return "a recorded run, 0-based (the one --trace writes; default 0)";
  }
  return help;
}

absl::StatusOr<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "help") {
      a.help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      if (a.command.empty() && a.positional.empty() &&
          (arg == "list" || arg == "gate" || arg == "compare" ||
           arg == "profile")) {
        a.command = arg;
        continue;
      }
      if (a.command == "compare" && a.positional.size() < 2) {
        a.positional.push_back(arg);
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", arg,
          "'; expected a flag or one of the commands list, gate, compare, "
          "profile"));
    }
    if (arg == "--save-baseline" || arg == "--save_baseline") {
      // The folder is optional: the next word is taken only if it is not a
      // flag.
      a.save_baseline = true;
      a.given.push_back("save_baseline");
      if (i + 1 < argc && !absl::StartsWith(argv[i + 1], "--")) {
        a.save_baseline_dir = argv[++i];
      }
      continue;
    }
    if (absl::StartsWith(arg, "--save-baseline=") ||
        absl::StartsWith(arg, "--save_baseline=")) {
      a.save_baseline = true;
      a.given.push_back("save_baseline");
      a.save_baseline_dir = arg.substr(arg.find('=') + 1);
      if (a.save_baseline_dir.empty()) {
        return absl::InvalidArgumentError("--save-baseline= needs a folder");
      }
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    std::replace(name.begin(), name.end(), '-', '_');
    a.given.push_back(name);
    if (!has_value && (name == "allow_missing" || name == "fresh_seeds")) {
      value = "true";
      has_value = true;
    }
    if (!has_value) {
      if (i + 1 >= argc || absl::StartsWith(argv[i + 1], "--")) {
        return absl::InvalidArgumentError(
            absl::StrCat(Dashed(name), " needs a value"));
      }
      value = argv[++i];
    }
    if (name == "set") {
      TRN_ASSIGN_OR_RETURN(auto kv, ParseSet(value));
      a.sets.push_back(std::move(kv));
      continue;
    }
    if (name == "shape") {
      TRN_ASSIGN_OR_RETURN(auto shape, ParseShapeOverride(value));
      a.shapes.push_back(std::move(shape));
      continue;
    }
    if (name == "spec") {
      if (value.empty()) {
        return absl::InvalidArgumentError("--spec needs a file name");
      }
      a.specs.push_back(value);
      continue;
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr ||
        !absl::StrContains(flag->Filename(), "tools/trnbench/cli.cc")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag ", Dashed(name), "; see trnbench --help"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Dashed(name), "=", value, ": expected ",
                       ExpectedFlagValue(name, flag->Help())));
    }
  }
  return a;
}

std::string SourceDir() { return TRNBENCH_SOURCE_DIR; }

// Shipped specs are named relative to the source tree, so results and
// baselines do not depend on where the tree was checked out.
void NameRelativeToSource(std::vector<WorkloadSpec>& specs) {
  const std::string root = SourceDir() + "/";
  for (auto& s : specs) {
    if (absl::StartsWith(s.file, root)) s.file = s.file.substr(root.size());
  }
}

std::string SpecsDir() {
  std::string d = absl::GetFlag(FLAGS_specs_dir);
  return d.empty() ? SourceDir() + "/workloads/specs" : d;
}

std::string ProfilesDir() {
  std::string d = absl::GetFlag(FLAGS_profiles_dir);
  return d.empty() ? SourceDir() + "/device_model/profiles" : d;
}

absl::StatusOr<DeviceProfile> LoadNamedProfile(const std::string& name) {
  std::string dir = ProfilesDir();
  if (std::error_code ec; !std::filesystem::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--profiles-dir ", dir,
                     ": no such folder; expected a folder of device profiles "
                     "(<name>.json)"));
  }
  std::string path = dir + "/" + name + ".json";
  // A name, not a path: `--device ../x` must not reach outside the folder.
  const bool plain_name = !name.empty() && name.find('/') == std::string::npos;
  if (!plain_name || !std::filesystem::exists(path)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json")
        names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return absl::InvalidArgumentError(absl::StrCat(
        "--device ", name, ": ",
        plain_name ? absl::StrCat("no profile ", path)
                   : std::string("expected the name of a profile, not a path"),
        "; available: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
  }
  return LoadDeviceProfile(path);
}

int ModeRank(ExecMode m) { return static_cast<int>(m); }

// Variants of a family run in mode order (eager, fused_op, compiled, nki),
// then by name; the first is the reference of the family's speed-ups.
void OrderByFamily(std::vector<WorkloadSpec>& specs) {
  std::vector<std::string> families;
  for (const auto& s : specs) {
    if (std::find(families.begin(), families.end(), s.family) ==
        families.end()) {
      families.push_back(s.family);
    }
  }
  auto family_rank = [&](const std::string& f) {
    return std::find(families.begin(), families.end(), f) - families.begin();
  };
  std::stable_sort(specs.begin(), specs.end(),
                   [&](const WorkloadSpec& a, const WorkloadSpec& b) {
                     auto fa = family_rank(a.family);
                     auto fb = family_rank(b.family);
                     if (fa != fb) return fa < fb;
                     if (a.mode != b.mode)
                       return ModeRank(a.mode) < ModeRank(b.mode);
                     return a.name < b.name;
                   });
}

// One line per problem (a spec folder may report several, joined by
// newlines), each cut to a readable length: messages quote the input, and
// an input may hold a megabyte-long key.
int Fail(std::ostream& err, const absl::Status& s) {
  for (absl::string_view line : absl::StrSplit(s.message(), '\n')) {
    err << "trnbench: error: "
        << ShortenForTerminal(std::string_view(line.data(), line.size()))
        << "\n";
  }
  return kExitBadInput;
}

// A flag that a command does not use is refused, not ignored: `profile
// --report-dir out` writing nothing would otherwise look like success.
// Running and `gate` use every flag.
absl::Status CheckFlagsFitCommand(const Args& a) {
  static constexpr std::string_view kList[] = {"device", "profiles_dir",
                                               "specs_dir"};
  static constexpr std::string_view kCompare[] = {
      "format",        "confidence", "threshold", "alpha",
      "allow_missing", "output",     "junit"};
  static constexpr std::string_view kProfile[] = {
      "workload",  "spec",   "shape",  "repeat",    "warmup",
      "wait",      "seed",   "device", "set",       "profiles_dir",
      "specs_dir", "format", "output", "confidence"};
  std::span<const std::string_view> takes;
  if (a.command == "list") {
    takes = kList;
  } else if (a.command == "compare") {
    takes = kCompare;
  } else if (a.command == "profile") {
    takes = kProfile;
  } else {
    return absl::OkStatus();
  }
  for (const std::string& name : a.given) {
    if (std::find(takes.begin(), takes.end(), name) != takes.end()) continue;
    std::string list;
    for (std::string_view t : takes) {
      absl::StrAppend(&list, list.empty() ? "" : ", ", Dashed(t));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(Dashed(name), ": trnbench ", a.command,
                     " does not use this flag; it takes ", list));
  }
  return absl::OkStatus();
}

int RunList(std::ostream& out, std::ostream& err) {
  auto profile = LoadNamedProfile(absl::GetFlag(FLAGS_device));
  if (!profile.ok()) return Fail(err, profile.status());
  auto specs = LoadSpecDir(SpecsDir(), profile->memory);
  if (!specs.ok()) return Fail(err, specs.status());
  OrderByFamily(*specs);
  out << RenderWorkloadList(*specs);
  return kExitOk;
}

absl::Status Validate() {
  const double c = absl::GetFlag(FLAGS_confidence);
  if (!(c > 0.0 && c < 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--confidence=", c,
                     ": expected a level strictly between 0 and 1, "
                     "such as 0.95"));
  }
  const int64_t repeat = absl::GetFlag(FLAGS_repeat);
  if (repeat < 1 || repeat > kMaxRepeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--repeat=", repeat, ": expected an integer from 1 to ", kMaxRepeat));
  }
  for (auto [name, v] : {std::pair{"warmup", absl::GetFlag(FLAGS_warmup)},
                         std::pair{"wait", absl::GetFlag(FLAGS_wait)}}) {
    if (v < 0 || v > kMaxRepeat) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--", name, "=", v, ": expected an integer from 0 to ", kMaxRepeat));
    }
  }
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "table" && format != "json" && format != "gbench-json") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--format=", format, ": expected table, json or gbench-json"));
  }
  const double t = absl::GetFlag(FLAGS_threshold);
  if (!(t >= 0.0 && t < 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--threshold=", t, ": expected a fraction in [0, 1), such as 0.02"));
  }
  const double alpha = absl::GetFlag(FLAGS_alpha);
  if (!(alpha > 0.0 && alpha < 1.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--alpha=", alpha, ": expected a level strictly between 0 and 1"));
  }
  return absl::OkStatus();
}

ReportOutputOptions ReportOutputOptionsFromFlags() {
  ReportOutputOptions o;
  o.report_dir = absl::GetFlag(FLAGS_report_dir);
  o.trace_file = absl::GetFlag(FLAGS_trace);
  o.trace_repeat = absl::GetFlag(FLAGS_trace_repeat);
  o.junit_file = absl::GetFlag(FLAGS_junit);
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY")) {
    o.step_summary = summary;
  }
  return o;
}

CompareOptions CompareOptionsFromFlags() {
  CompareOptions o;
  o.threshold = absl::GetFlag(FLAGS_threshold);
  o.alpha = absl::GetFlag(FLAGS_alpha);
  o.confidence = absl::GetFlag(FLAGS_confidence);
  o.allow_missing = absl::GetFlag(FLAGS_allow_missing);
  return o;
}

// --baseline DIR loads <workload>.json for each workload that has one;
// --baseline FILE loads that file (a baseline or a results file).
absl::StatusOr<std::vector<Baseline>> LoadBaselinesFor(
    const std::string& where, const std::vector<WorkloadSpec>& specs,
    double confidence) {
  std::error_code ec;
  if (std::filesystem::is_directory(where, ec)) {
    std::vector<Baseline> out;
    for (const auto& s : specs) {
      const std::string path = BaselinePath(where, s.name);
      if (!std::filesystem::exists(path, ec)) continue;
      TRN_ASSIGN_OR_RETURN(auto loaded,
                           LoadBaselineOrResults(path, confidence));
      for (auto& b : loaded) {
        if (b.workload != s.name) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ": /workload: expected ", s.name,
                           " (the file's name), "
                           "found ",
                           b.workload));
        }
        out.push_back(std::move(b));
      }
    }
    return out;
  }
  if (!std::filesystem::exists(where, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--baseline ", where, ": no such folder or file"));
  }
  return LoadBaselineOrResults(where, confidence);
}

int RunBench(const Args& args, std::ostream& out, std::ostream& err) {
  if (auto s = Validate(); !s.ok()) return Fail(err, s);
  const bool gate = args.command == "gate";
  const std::string baseline_where = absl::GetFlag(FLAGS_baseline);
  if (gate && baseline_where.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "gate needs --baseline DIR|FILE (for example "
                         "--baseline baselines/trn1)"));
  }
  const ReportOutputOptions report_options = ReportOutputOptionsFromFlags();
  if (auto s = ValidateReportOutputs(
          report_options, absl::GetFlag(FLAGS_repeat), !baseline_where.empty());
      !s.ok()) {
    return Fail(err, s);
  }
  auto profile = LoadNamedProfile(absl::GetFlag(FLAGS_device));
  if (!profile.ok()) return Fail(err, profile.status());
  for (const auto& [key, value] : args.sets) {
    if (auto s = OverrideParam(*profile, key, value); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (!args.sets.empty()) {
    // A what-if profile is not the profile on disk: its hash says so, and a
    // comparison notes it.
    std::string what;
    for (const auto& [key, value] : args.sets) {
      absl::StrAppend(&what, key, "=", value, ";");
    }
    profile->content_hash = Fnv1a64Hex(profile->content_hash + what);
  }

  std::vector<WorkloadSpec> specs;
  std::string selector = absl::GetFlag(FLAGS_workload);
  if (gate && selector.empty() && args.specs.empty()) selector = "all";
  if (selector.empty() && args.specs.empty()) {
    return Fail(err, absl::InvalidArgumentError(
                         "nothing to run: give --workload NAME|FAMILY|all or "
                         "--spec FILE (see trnbench --help, trnbench list)"));
  }
  if (!selector.empty()) {
    auto all = LoadSpecDir(SpecsDir(), profile->memory);
    if (!all.ok()) return Fail(err, all.status());
    auto chosen = SelectWorkloads(*all, selector);
    if (!chosen.ok()) return Fail(err, chosen.status());
    specs = *std::move(chosen);
    NameRelativeToSource(specs);
  }
  for (const auto& path : args.specs) {
    auto spec = LoadSpecFile(path, profile->memory);
    if (!spec.ok()) return Fail(err, spec.status());
    for (const auto& s : specs) {
      if (s.name == spec->name) {
        return Fail(err, absl::InvalidArgumentError(absl::StrCat(
                             path, ": workload name '", spec->name,
                             "' is already selected (from ", s.file, ")")));
      }
    }
    specs.push_back(*std::move(spec));
  }
  OrderByFamily(specs);
  if (!args.shapes.empty()) {
    auto swept = ApplyShapeOverrides(specs, args.shapes, profile->memory);
    if (!swept.ok()) return Fail(err, swept.status());
    specs = *std::move(swept);
  }
  {
    Schedule planned;
    planned.repeat = absl::GetFlag(FLAGS_repeat);
    auto s = CheckRunSize(static_cast<int64_t>(specs.size()), planned);
    if (!s.ok()) return Fail(err, s);
  }
  if (!profile->calibrated) {
    err << "trnbench: warning: device profile " << profile->name
        << " is NOT calibrated; its times are estimates "
           "(docs/device-profile.md)\n";
  }

  // Baselines are read before anything runs, so bad input fails fast.
  std::vector<Baseline> baselines;
  if (!baseline_where.empty()) {
    auto loaded = LoadBaselinesFor(baseline_where, specs,
                                   absl::GetFlag(FLAGS_confidence));
    if (!loaded.ok()) return Fail(err, loaded.status());
    baselines = *std::move(loaded);
  }

  RunOptions opts;
  opts.seed = absl::GetFlag(FLAGS_seed);
  if (absl::GetFlag(FLAGS_fresh_seeds)) {
    // Derived, not random, so a fresh-seed run is still reproducible; it
    // must differ from every baseline's seed to give independent samples.
    opts.seed = Mix64(opts.seed ^ 0x6672657368ULL);
    for (bool clash = true; clash;) {
      clash = false;
      for (const auto& b : baselines) clash = clash || b.seed == opts.seed;
      if (clash) ++opts.seed;
    }
  }
  opts.confidence = absl::GetFlag(FLAGS_confidence);
  opts.schedule.repeat = absl::GetFlag(FLAGS_repeat);
  opts.schedule.warmup = absl::GetFlag(FLAGS_warmup);
  opts.schedule.wait = absl::GetFlag(FLAGS_wait);

  if (args.command == "profile") {
    if (absl::GetFlag(FLAGS_format) == "gbench-json") {
      return Fail(err, absl::InvalidArgumentError(
                           "--format=gbench-json: profile writes --format "
                           "table or json; gbench-json needs a run (trnbench "
                           "--workload ...)"));
    }
    ProfileCommandOptions popts;
    popts.format = absl::GetFlag(FLAGS_format);
    popts.output = absl::GetFlag(FLAGS_output);
    popts.trnbench_version = TRNBENCH_VERSION;
    return RunProfileCommand(specs, *profile, opts, popts, out, err);
  }

  RunResult run;
  run.trnbench_version = TRNBENCH_VERSION;
  run.device = profile->name;
  run.device_hash = profile->content_hash;
  run.device_calibrated = profile->calibrated;
  run.seed = opts.seed;
  run.schedule = opts.schedule;
  run.confidence = opts.confidence;
  std::vector<double> thresholds;
  // UI only: the bar reads the wall clock, the model never does, and it
  // draws nothing unless stderr is a terminal.
  ProgressBar progress(err, IsTerminal(err),
                       static_cast<int64_t>(specs.size()) *
                           (opts.schedule.warmup + opts.schedule.repeat));
  opts.on_run = [&progress] { progress.Advance(); };
  for (const auto& spec : specs) {
    progress.SetLabel(spec.name);
    auto r = RunWorkload(spec, *profile, opts);
    if (!r.ok()) {
      progress.Finish();
      return Fail(err, r.status());
    }
    run.workloads.push_back(*std::move(r));
    thresholds.push_back(spec.noise_threshold.value_or(
        std::numeric_limits<double>::quiet_NaN()));
  }
  progress.SetLabel("intervals and comparisons");
  ComputeSpeedups(run, "device_time_us");

  std::optional<ComparisonReport> comparison;
  if (!baseline_where.empty()) {
    CompareOptions copts = CompareOptionsFromFlags();
    copts.source = baseline_where;
    auto c = CompareWithBaselines(run, baselines, thresholds, copts);
    if (!c.ok()) return Fail(err, c.status());
    comparison = *std::move(c);
  }

  // Everything is rendered and every destination checked before the first
  // file is written.
  auto pending = PrepareReportOutputs(report_options, run,
                                      comparison ? &*comparison : nullptr,
                                      baselines, specs, *profile);
  progress.Finish();
  if (!pending.ok()) return Fail(err, pending.status());

  const std::string output = absl::GetFlag(FLAGS_output);
  const std::string json_text =
      ResultsToJsonText(run, comparison ? &*comparison : nullptr);
  // The results file and the baselines are staged (written and flushed
  // beside their destinations) before any is put in place, so a full disk
  // or an unwritable folder leaves every old file as it was.
  StagedFiles staged;
  if (!output.empty()) {
    if (auto s = staged.Stage(output, json_text); !s.ok()) {
      return Fail(err, s);
    }
  }
  const std::string baseline_dir = args.save_baseline_dir.empty()
                                       ? "baselines/" + profile->name
                                       : args.save_baseline_dir;
  if (args.save_baseline) {
    auto s = StageBaselines(
        BaselinesFromRun(run, NowUtcIso8601(), CurrentGitCommit(SourceDir())),
        baseline_dir, staged);
    if (!s.ok()) return Fail(err, s);
  }
  if (auto s = CommitReportOutputs(*pending); !s.ok()) return Fail(err, s);
  if (auto s = staged.Commit(); !s.ok()) return Fail(err, s);
  if (args.save_baseline) {
    err << "trnbench: saved " << run.workloads.size() << " baseline"
        << (run.workloads.size() == 1 ? "" : "s") << " in " << baseline_dir
        << "\n";
  }
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format == "json") {
    out << json_text;
  } else if (format == "gbench-json") {
    out << GbenchJson(run);
  } else {
    const bool color = ShouldUseColor(out);
    if (!gate) out << RenderConsoleReport(run, color);
    if (comparison) out << RenderComparisonReport(*comparison, color);
  }
  return comparison && comparison->AnyRegression() ? kExitRegression : kExitOk;
}

int RunCompare(const Args& args, std::ostream& out, std::ostream& err) {
  if (auto s = Validate(); !s.ok()) return Fail(err, s);
  if (args.positional.size() != 2) {
    return Fail(err, absl::InvalidArgumentError(
                         "compare needs two files: trnbench compare OLD.json "
                         "NEW.json"));
  }
  const ReportOutputOptions report_options = ReportOutputOptionsFromFlags();
  if (absl::GetFlag(FLAGS_format) == "gbench-json") {
    return Fail(err, absl::InvalidArgumentError(
                         "--format=gbench-json: compare writes --format "
                         "table or json; gbench-json needs a run (trnbench "
                         "--workload ... or gate)"));
  }
  const double confidence = absl::GetFlag(FLAGS_confidence);
  auto old_side = LoadBaselineOrResults(args.positional[0], confidence);
  if (!old_side.ok()) return Fail(err, old_side.status());
  auto new_side = LoadBaselineOrResults(args.positional[1], confidence);
  if (!new_side.ok()) return Fail(err, new_side.status());
  auto c = CompareFiles(*old_side, *new_side, CompareOptionsFromFlags());
  if (!c.ok()) return Fail(err, c.status());
  const std::string json_text = ComparisonToJson(*c).dump(2) + "\n";
  // As for a run: every file is prepared before the first is put in place.
  StagedFiles staged;
  if (const std::string output = absl::GetFlag(FLAGS_output); !output.empty()) {
    if (auto s = staged.Stage(output, json_text); !s.ok()) return Fail(err, s);
  }
  if (!report_options.junit_file.empty()) {
    auto pending = PrepareJunitOutput(report_options, *c);
    if (!pending.ok()) return Fail(err, pending.status());
    if (auto s = CommitReportOutputs(*pending); !s.ok()) return Fail(err, s);
  }
  if (auto s = staged.Commit(); !s.ok()) return Fail(err, s);
  if (absl::GetFlag(FLAGS_format) == "json") {
    out << json_text;
  } else {
    out << RenderComparisonReport(*c, ShouldUseColor(out));
  }
  return c->AnyRegression() ? kExitRegression : kExitOk;
}

}  // namespace

int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  auto args = ParseArgs(argc, argv);
  if (!args.ok()) return Fail(err, args.status());
  if (args->help) {
    out << kUsage;
    return kExitOk;
  }
  if (auto s = CheckFlagsFitCommand(*args); !s.ok()) return Fail(err, s);
  if (args->command == "list") return RunList(out, err);
  if (args->command == "compare") return RunCompare(*args, out, err);
  return RunBench(*args, out, err);
}

}  // namespace trn
