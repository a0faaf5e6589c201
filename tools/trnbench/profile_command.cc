// `trnbench profile`: the device summary, roofline and findings of the
// selected workloads (docs/profile.md).
#include <ostream>

#include "absl/status/status.h"
#include "harness/profile/profile_analysis.h"
#include "harness/runner/runner.h"
#include "reports/profile_report.h"
#include "reports/terminal.h"
#include "support/output_transaction.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/output_format.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {
    "workload", "spec",       "kernel", "args",         "kwarg",     "torch",
    "mode",     "emit_spec",  "shape",  "repeat",       "warmup",    "wait",
    "seed",     "device",     "set",    "profiles_dir", "specs_dir", "format",
    "output",   "confidence", "jobs"};

int RunProfile(const Options& o, std::ostream& out, std::ostream& err) {
  const absl::StatusOr<OutputFormat> format =
      FormatFor(o, kReportFormats, "profile");
  if (!format.ok()) return Fail(err, format.status());
  auto profile = LoadProfile(o);
  if (!profile.ok()) return Fail(err, profile.status());
  auto specs = LoadSelectedSpecs(o, *profile, "");
  if (!specs.ok()) return Fail(err, specs.status());
  // The output is checked before anything runs.
  OutputTransaction outputs;
  for (const auto& path : o.specs) outputs.AddInput("--spec", path);
  if (!o.output.empty()) outputs.PlanFile("--output", o.output);
  if (auto s = outputs.Check(); !s.ok()) return Fail(err, s);
  WarnIfUncalibrated(*profile, err);
  RunOptions run = RunOptionsFrom(o, {});
  // Each workload runs the schedule twice at most: itself and its what-if.
  if (auto s = CheckSimulatedWork(*specs, *profile, run.schedule, "profile",
                                  /*passes=*/2);
      !s.ok()) {
    return Fail(err, s);
  }

  ProfileReport report;
  static_cast<RunContext&>(report) =
      ContextFor(*profile, run, TRNBENCH_VERSION);
  report.device_description = profile->description;
  report.peaks = ComputePeaks(*profile);
  // UI only, as for a run: drawn on a terminal after a second. The total
  // counts a what-if for every workload (at most one each), so a profile
  // without one finishes short of it.
  ProgressBar progress(err, IsTerminal(err),
                       2 * static_cast<int64_t>(specs->size()) * o.repeat);
  run.on_run = [&progress] { progress.Advance(); };
  run.on_workload = [&progress](const std::string& name) {
    progress.SetLabel(name);
  };
  auto profiles = ProfileWorkloads(*specs, *profile, run);
  if (!profiles.ok()) return Fail(err, profiles.status());
  report.workloads = *std::move(profiles);
  progress.Finish();
  const std::string json = ProfileToJsonText(report);
  if (!o.output.empty()) {
    if (auto s = outputs.StageFile(o.output, json); !s.ok()) {
      return Fail(err, s);
    }
    if (auto s = outputs.Commit(); !s.ok()) return Fail(err, s);
  }
  out << (*format == OutputFormat::kJson ? json : RenderProfileText(report));
  return kExitOk;
}

}  // namespace

const CommandInfo kProfileCommand = {"profile", RunProfile, kFlags};

}  // namespace trn
