#include "harness/cli/cli.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device_model/device_profile.h"
#include "device_model/status_macros.h"
#include "harness/atomic_file.h"
#include "harness/runner.h"
#include "reports/console_report.h"
#include "reports/json_results.h"
#include "workloads/spec_catalog.h"
#include "workloads/spec_parser.h"

ABSL_FLAG(std::string, workload, "",
          "workload name, family name, or 'all' (see `trnbench list`)");
ABSL_FLAG(int64_t, repeat, 100, "recorded (active) runs per workload");
ABSL_FLAG(int64_t, warmup, 1, "warm-up runs, simulated and discarded");
ABSL_FLAG(int64_t, wait, 0, "runs skipped before warm-up");
ABSL_FLAG(uint64_t, seed, 1, "seed of every random stream");
ABSL_FLAG(std::string, device, "trn1", "device profile name");
ABSL_FLAG(std::string, format, "table", "stdout format: table or json");
ABSL_FLAG(double, confidence, 0.95, "confidence level of every interval");
ABSL_FLAG(std::string, output, "", "also write the JSON results to FILE");
ABSL_FLAG(std::string, specs_dir, "",
          "folder of workload specs (default: the shipped workloads/specs)");
ABSL_FLAG(std::string, profiles_dir, "",
          "folder of device profiles (default: device_model/profiles)");

namespace trn {
namespace {

constexpr char kUsage[] =
    R"(trnbench: benchmark and regression harness for NeuronCore workloads,
run on a calibrated NeuronCore timing model.

Usage:
  trnbench --workload NAME|FAMILY|all [options]
  trnbench --spec FILE [--spec FILE ...] [options]
  trnbench list [--device NAME]

Examples:
  trnbench --workload rmsnorm --repeat 100      the three RMSNorm variants
  trnbench --workload exp_tiled --format json   one workload, JSON on stdout
  trnbench --spec my_kernel.json --seed 7       your own spec file
  trnbench --workload all --output results.json

Options:
  --workload NAME      workload name, family name, or 'all'
  --spec FILE          run a spec file (repeatable)
  --repeat N           recorded runs per workload (default 100)
  --warmup N           warm-up runs, simulated and discarded (default 1)
  --wait N             runs skipped before warm-up (default 0)
  --seed N             seed of every random stream (default 1); run k of a
                       workload is replayable alone from (seed, wait+warmup+k)
  --device NAME        device profile (default trn1)
  --format table|json  what to print on stdout (default table)
  --confidence C       confidence level of intervals, in (0, 1) (default 0.95)
  --output FILE        also write the JSON results to FILE (atomically)
  --specs-dir DIR      where --workload looks (default: shipped specs)
  --profiles-dir DIR   where --device looks (default: shipped profiles)
  --help               this text

Exit codes: 0 success, 2 bad usage or bad input (nothing is written).
Docs: docs/spec-format.md, docs/results-format.md, docs/calibration.md.
)";

struct Args {
  std::string command;  // "" (run) or "list"
  std::vector<std::string> specs;
  bool help = false;
};

absl::StatusOr<Args> ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "help") {
      a.help = true;
      continue;
    }
    if (!absl::StartsWith(arg, "--")) {
      if (a.command.empty() && arg == "list") {
        a.command = arg;
        continue;
      }
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg,
                       "'; expected a flag or the command list"));
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
    if (!has_value) {
      if (i + 1 >= argc || absl::StartsWith(argv[i + 1], "--")) {
        return absl::InvalidArgumentError(
            absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
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
        !absl::StrContains(flag->Filename(), "harness/cli/cli.cc")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag --", name, "; see trnbench --help"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, "=", value,
                                                     ": ", error, " (expected ",
                                                     flag->Help(), ")"));
    }
  }
  return a;
}

std::string SourceDir() { return TRNBENCH_SOURCE_DIR; }

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
  std::string path = dir + "/" + name + ".json";
  if (!std::filesystem::exists(path)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json")
        names.push_back(e.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return absl::InvalidArgumentError(absl::StrCat(
        "--device ", name, ": no profile ", path,
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

int Fail(std::ostream& err, const absl::Status& s) {
  err << "trnbench: error: " << s.message() << "\n";
  return kExitBadInput;
}

int RunList(std::ostream& out, std::ostream& err) {
  auto profile = LoadNamedProfile(absl::GetFlag(FLAGS_device));
  if (!profile.ok()) return Fail(err, profile.status());
  auto specs = LoadSpecDir(SpecsDir(), profile->memory);
  if (!specs.ok()) return Fail(err, specs.status());
  OrderByFamily(*specs);
  std::string family;
  for (const auto& s : *specs) {
    if (s.family != family) {
      family = s.family;
      out << "\nfamily " << family << "\n";
    }
    out << "  " << s.name
        << std::string(s.name.size() < 20 ? 20 - s.name.size() : 1, ' ')
        << ExecModeName(s.mode)
        << std::string(10 - std::min<size_t>(9, ExecModeName(s.mode).size()),
                       ' ')
        << s.description << "\n";
  }
  out << "\nRun one with: trnbench --workload NAME (or a family, or all)\n";
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
  if (format != "table" && format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--format=", format, ": expected table or json"));
  }
  return absl::OkStatus();
}

int RunBench(const Args& args, std::ostream& out, std::ostream& err) {
  if (auto s = Validate(); !s.ok()) return Fail(err, s);
  auto profile = LoadNamedProfile(absl::GetFlag(FLAGS_device));
  if (!profile.ok()) return Fail(err, profile.status());

  std::vector<WorkloadSpec> specs;
  const std::string selector = absl::GetFlag(FLAGS_workload);
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

  RunOptions opts;
  opts.seed = absl::GetFlag(FLAGS_seed);
  opts.confidence = absl::GetFlag(FLAGS_confidence);
  opts.schedule.repeat = absl::GetFlag(FLAGS_repeat);
  opts.schedule.warmup = absl::GetFlag(FLAGS_warmup);
  opts.schedule.wait = absl::GetFlag(FLAGS_wait);

  RunResult run;
  run.trnbench_version = TRNBENCH_VERSION;
  run.device = profile->name;
  run.device_hash = profile->content_hash;
  run.seed = opts.seed;
  run.schedule = opts.schedule;
  run.confidence = opts.confidence;
  for (const auto& spec : specs) {
    auto r = RunWorkload(spec, *profile, opts);
    if (!r.ok()) return Fail(err, r.status());
    run.workloads.push_back(*std::move(r));
  }
  ComputeSpeedups(run, "device_time_us");

  const std::string output = absl::GetFlag(FLAGS_output);
  if (!output.empty()) {
    if (auto s = WriteFileAtomic(output, ResultsToJsonText(run)); !s.ok()) {
      return Fail(err, s);
    }
  }
  if (absl::GetFlag(FLAGS_format) == "json") {
    out << ResultsToJsonText(run);
  } else {
    out << RenderConsoleReport(run);
  }
  return kExitOk;
}

}  // namespace

int RunCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  auto args = ParseArgs(argc, argv);
  if (!args.ok()) return Fail(err, args.status());
  if (args->help) {
    out << kUsage;
    return kExitOk;
  }
  if (args->command == "list") return RunList(out, err);
  return RunBench(*args, out, err);
}

}  // namespace trn
