#include "tools/trnbench/command_context.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/counter_rng.h"
#include "support/hash.h"
#include "support/message_text.h"
#include "support/name_match.h"
#include "support/status_macros.h"
#include "tools/trnbench/diagnostics.h"
#include "workloads/loading/shape_override.h"
#include "workloads/loading/spec_catalog.h"
#include "workloads/loading/spec_parser.h"

namespace trn {
namespace {

std::string SpecsDir(const Options& o) {
  return o.specs_dir.empty() ? SourceDir() + "/workloads/specs" : o.specs_dir;
}

absl::StatusOr<DeviceProfile> LoadNamedProfile(const Options& o) {
  const std::string dir = ProfilesDir(o);
  const std::string& name = o.device;
  if (std::error_code ec; !std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat("--profiles-dir ", dir,
                     ": no such folder; expected a folder of device profiles "
                     "(<name>.json)"));
  }
  const std::string path = dir + "/" + name + ".json";
  // A name, not a path: `--device ../x` must not reach outside the folder.
  const bool plain_name = !name.empty() && name.find('/') == std::string::npos;
  if (!plain_name || !std::filesystem::exists(path)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".json") {
        names.push_back(e.path().stem().string());
      }
    }
    std::sort(names.begin(), names.end());
    return absl::NotFoundError(absl::StrCat(
        "--device ", EscapeControl(name), ": ",
        plain_name ? absl::StrCat("no profile ", EscapeControl(path))
                   : std::string("expected the name of a profile, not a path"),
        DidYouMean(name, names),
        "; available: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
  }
  return LoadDeviceProfile(path);
}

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
                     if (a.mode != b.mode) {
                       return static_cast<int>(a.mode) <
                              static_cast<int>(b.mode);
                     }
                     return a.name < b.name;
                   });
}

// Shipped specs are named relative to the source tree, so results and
// baselines do not depend on where the tree was checked out.
void NameRelativeToSource(std::vector<WorkloadSpec>& specs) {
  const std::string root = SourceDir() + "/";
  for (auto& s : specs) {
    if (absl::StartsWith(s.file, root)) s.file = s.file.substr(root.size());
  }
}

}  // namespace

std::string SourceDir() { return TRNBENCH_SOURCE_DIR; }

std::string ProfilesDir(const Options& o) {
  return o.profiles_dir.empty() ? SourceDir() + "/device_model/profiles"
                                : o.profiles_dir;
}

absl::StatusOr<DeviceProfile> LoadProfile(const Options& options) {
  TRN_ASSIGN_OR_RETURN(DeviceProfile profile, LoadNamedProfile(options));
  for (const auto& [key, value] : options.sets) {
    TRN_RETURN_IF_ERROR(
        FromFlag("--set", OverrideParam(profile, key, value, "--set")));
  }
  if (!options.sets.empty()) {
    // A what-if profile is not the profile on disk: its hash says so, and a
    // comparison notes it.
    std::string what;
    for (const auto& [key, value] : options.sets) {
      absl::StrAppend(&what, key, "=", value, ";");
    }
    profile.content_hash = Fnv1a64Hex(profile.content_hash + what);
  }
  return profile;
}

absl::StatusOr<std::vector<WorkloadSpec>> LoadAllSpecs(
    const Options& options, const DeviceProfile& profile) {
  TRN_ASSIGN_OR_RETURN(auto specs,
                       LoadSpecDir(SpecsDir(options), profile.memory));
  OrderByFamily(specs);
  return specs;
}

namespace {

absl::StatusOr<std::vector<WorkloadSpec>> SelectSpecs(
    const Options& options, const DeviceProfile& profile,
    const std::string& default_selector) {
  std::vector<WorkloadSpec> specs;
  // `--workload=$UNSET` is not "the default selection" (which for `gate`
  // is every workload).
  if (options.Given("workload") && options.workload.empty()) {
    return absl::InvalidArgumentError(
        "--workload=: expected a workload name, family name or all, not an "
        "empty value (is a variable unset?)");
  }
  std::string selector = options.workload;
  if (selector.empty() && options.specs.empty()) selector = default_selector;
  if (selector.empty() && options.specs.empty()) {
    return absl::InvalidArgumentError(
        "nothing to run: give --workload NAME|FAMILY|all or --spec FILE (see "
        "trnbench --help, trnbench list)");
  }
  if (!selector.empty()) {
    TRN_ASSIGN_OR_RETURN(auto all,
                         LoadSpecDir(SpecsDir(options), profile.memory));
    auto chosen = SelectWorkloads(all, selector);
    if (!chosen.ok()) {
      // Name the flag when the selector is the user's (issue 43: `--workload
      // ,` said "empty workload selector" and nothing of where it came from).
      if (options.workload.empty()) return chosen.status();
      return FromFlag(
          absl::StrCat("--workload=", EscapeControl(options.workload), ":"),
          chosen.status());
    }
    specs = *std::move(chosen);
    if (!options.exclude.empty()) {
      auto kept = ExcludeWorkloads(std::move(specs), options.exclude);
      if (!kept.ok()) {
        return FromFlag(
            absl::StrCat("--exclude=", EscapeControl(options.exclude), ":"),
            kept.status());
      }
      specs = *std::move(kept);
      if (specs.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--exclude=", options.exclude,
                         ": leaves nothing of --workload's selection to run"));
      }
    }
    NameRelativeToSource(specs);
  }
  for (const auto& path : options.specs) {
    TRN_ASSIGN_OR_RETURN(WorkloadSpec spec, LoadSpecFile(path, profile.memory));
    for (const auto& s : specs) {
      if (s.name == spec.name) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": workload name '", spec.name,
                         "' is already selected (from ", s.file, ")"));
      }
    }
    specs.push_back(std::move(spec));
  }
  OrderByFamily(specs);
  if (!options.shapes.empty()) {
    auto points = ApplyShapeOverrides(specs, options.shapes, profile.memory,
                                      options.remake_at_point);
    if (!points.ok()) return FromFlag("--shape", points.status());
    specs = *std::move(points);
  }
  Schedule planned;
  planned.repeat = options.repeat;
  TRN_RETURN_IF_ERROR(
      CheckRunSize(static_cast<int64_t>(specs.size()), planned));
  return specs;
}

}  // namespace

absl::StatusOr<std::vector<WorkloadSpec>> LoadSelectedSpecs(
    const Options& options, const DeviceProfile& profile,
    const std::string& default_selector) {
  auto specs = SelectSpecs(options, profile, default_selector);
  if (specs.ok() || options.sets.empty() ||
      specs.status().code() != absl::StatusCode::kInvalidArgument) {
    return specs;
  }
  // Specs that fit the profile on disk but not the one --set makes (say
  // --set partitions=1): the flag is at fault, not every spec file, so the
  // message names it once, with the first spec's complaint as the example.
  auto as_on_disk = LoadNamedProfile(options);
  if (!as_on_disk.ok() ||
      !SelectSpecs(options, *as_on_disk, default_selector).ok()) {
    return specs;
  }
  std::string sets;
  for (const auto& [key, value] : options.sets) {
    absl::StrAppend(&sets, sets.empty() ? "" : ",", key, "=", value);
  }
  const absl::string_view message = specs.status().message();
  const absl::string_view first = message.substr(0, message.find('\n'));
  return absl::InvalidArgumentError(absl::StrCat(
      "--set ", sets,
      ": the selected specs fit the device as its profile has it, but not "
      "with this value; for example ",
      std::string(first), "; expected a value the selected specs fit"));
}

absl::StatusOr<std::vector<Baseline>> LoadBaselinesFor(
    const std::string& where, const std::vector<WorkloadSpec>& specs,
    double confidence) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return LoadBaselinesFor(where, names, confidence);
}

absl::StatusOr<std::vector<Baseline>> LoadBaselinesFor(
    const std::string& where, const std::vector<std::string>& workloads,
    double confidence, absl::string_view label) {
  std::error_code ec;
  if (std::filesystem::is_directory(where, ec)) {
    if (access(where.c_str(), R_OK | X_OK) != 0) {
      return absl::PermissionDeniedError(
          absl::StrCat(std::string(label), " ", EscapeControl(where),
                       ": cannot read the folder: ", std::strerror(errno)));
    }
    std::vector<Baseline> out;
    for (const std::string& name : workloads) {
      const std::string path = BaselinePath(where, name);
      // Only a file that is not there is skipped (and then reported as a
      // workload without a baseline); anything else is read and judged.
      struct stat st {};
      if (stat(path.c_str(), &st) != 0 && errno == ENOENT) continue;
      TRN_ASSIGN_OR_RETURN(auto loaded,
                           LoadBaselineOrResults(path, confidence));
      for (auto& b : loaded) {
        if (b.workload != name) {
          return absl::InvalidArgumentError(
              absl::StrCat(path, ": /workload: expected ", name,
                           " (the file's name), found ", b.workload));
        }
        out.push_back(std::move(b));
      }
    }
    return out;
  }
  if (struct stat st{}; stat(where.c_str(), &st) != 0 && errno == ENOENT) {
    return absl::NotFoundError(absl::StrCat(std::string(label), " ",
                                            EscapeControl(where),
                                            ": no such folder or file"));
  }
  return LoadBaselineOrResults(where, confidence);
}

std::string ProfilePath(const Options& options) {
  return ProfilesDir(options) + "/" + options.device + ".json";
}

RunOptions RunOptionsFrom(const Options& options,
                          const std::vector<Baseline>& baselines) {
  RunOptions r;
  r.seed = options.seed;
  if (options.fresh_seeds) {
    // Derived, not random, so a fresh-seed run is still reproducible; it
    // must differ from every baseline's seed to give independent samples.
    r.seed = Mix64(r.seed ^ 0x6672657368ULL);
    for (bool clash = true; clash;) {
      clash = false;
      for (const auto& b : baselines) clash = clash || b.seed == r.seed;
      if (clash) ++r.seed;
    }
  }
  r.confidence = options.confidence;
  r.schedule.repeat = options.repeat;
  r.schedule.warmup = options.warmup;
  r.schedule.wait = options.wait;
  return r;
}

CompareOptions CompareOptionsFrom(const Options& options) {
  CompareOptions c;
  c.threshold = options.threshold;
  c.alpha = options.alpha;
  c.confidence = options.confidence;
  c.allow_missing = options.allow_missing;
  c.allow_unchecked = options.allow_unchecked;
  return c;
}

ReportOutputOptions ReportOutputOptionsFrom(const Options& options) {
  ReportOutputOptions r;
  r.report_dir = options.report_dir;
  r.trace_file = options.trace;
  r.trace_repeat = options.trace_repeat;
  r.junit_file = options.junit;
  r.summary_file = options.summary;
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY")) {
    r.step_summary = summary;
  }
  r.compares = !options.baseline.empty() || options.command == "compare";
  r.summary_title = absl::StrCat(
      "trnbench ", options.command.empty() ? "run" : options.command);
  return r;
}

void WarnIfUncalibrated(const DeviceProfile& profile, std::ostream& err) {
  if (!profile.calibrated) {
    err << "trnbench: warning: device profile " << profile.name
        << " is NOT calibrated; its times are estimates "
           "(docs/device-profile.md)\n";
  }
}

}  // namespace trn
