// `trnbench calibrate MEASURED.json... --output PROFILE.json`: the device
// profile's fitted parameters fitted to measurements (docs/import.md).
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/validation/measured_validation.h"
#include "reports/measured_validation_report.h"
#include "reports/terminal.h"
#include "support/input_file.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/measured_inputs.h"
#include "tools/trnbench/output_format.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {
    "spec",   "device", "profiles_dir", "specs_dir", "repeat",
    "warmup", "seed",   "format",       "output",    "confidence",
    "jobs",   "torch",  "args",         "mode"};

absl::Status CalibrateProfile(const Options& o, std::ostream& out,
                              std::ostream& err) {
  if (o.positional.empty()) {
    return absl::InvalidArgumentError(
        "calibrate needs measured results files: trnbench calibrate "
        "MEASURED.json... --output PROFILE.json");
  }
  if (o.output.empty()) {
    return absl::InvalidArgumentError(
        "calibrate needs --output PROFILE.json: the fitted device profile "
        "is written there (use it with --profiles-dir and --device)");
  }
  TRN_ASSIGN_OR_RETURN(const OutputFormat format,
                       FormatFor(o, kReportFormats, "calibrate"));
  // The fitted profile must not replace what it was fitted from: the
  // profile it starts from (often the same --device), a measured file, a
  // spec. Checked before anything runs (support/output_transaction.h).
  OutputTransaction outputs;
  outputs.AddInput("--device", ProfilePath(o));
  for (const std::string& path : o.positional) {
    outputs.AddInput("calibrate", path);
  }
  for (const std::string& path : o.specs) outputs.AddInput("--spec", path);
  outputs.PlanFile("--output", o.output);
  TRN_RETURN_IF_ERROR(outputs.Check());
  TRN_ASSIGN_OR_RETURN(DeviceProfile profile, LoadProfile(o));
  // The fitted profile is the file's own text with the fitted values
  // replaced, so it is read as text too, within the profile reader's limits.
  TRN_ASSIGN_OR_RETURN(
      std::string text,
      ReadInputFile(ProfilePath(o), kMaxProfileBytes, "device profile"));
  TRN_ASSIGN_OR_RETURN(MeasuredInputs in,
                       LoadMeasuredInputs(o.positional, o, profile));
  // The specs found for the measurements in --specs-dir are inputs too:
  // the output may not replace one (same file by device and inode).
  for (const WorkloadSpec& spec : in.specs) {
    outputs.AddInput("the spec of calibrate", spec.file);
  }
  TRN_RETURN_IF_ERROR(outputs.Check());
  std::vector<CalibrationTarget> targets;
  std::vector<std::string> names;
  for (size_t i = 0; i < in.measured.size(); ++i) {
    targets.push_back({&in.specs[i], &in.measured[i]});
    names.push_back(in.measured[i].workload);
  }
  // UI only: a progress line on a terminal once the fit has run a second
  // (a fit at a large --repeat takes minutes); its total is the most runs
  // the fit can make, and a fit that converges early finishes short of it.
  ProgressBar progress(err, IsTerminal(err), 0);
  RunOptions run = RunOptionsFrom(o, {});
  run.on_run = [&progress] { progress.Advance(); };
  progress.SetLabel("calibrate");
  auto result =
      Calibrate(targets, profile, run, /*sweeps=*/3,
                [&progress](int64_t runs) { progress.SetTotal(runs); });
  progress.Finish();
  TRN_RETURN_IF_ERROR(result.status());
  const std::string fitted_to =
      absl::StrCat("measurements of ", absl::StrJoin(names, ", "), " (",
                   absl::StrJoin(o.positional, ", "), ")");
  TRN_ASSIGN_OR_RETURN(std::string new_profile,
                       CalibratedProfileText(text, *result, fitted_to));
  TRN_RETURN_IF_ERROR(outputs.StageFile(o.output, new_profile));
  TRN_RETURN_IF_ERROR(outputs.Commit());
  out << (format == OutputFormat::kJson
              ? CalibrationToJson(*result).dump(2) + "\n"
              : RenderCalibration(*result));
  return absl::OkStatus();
}

int RunCalibrate(const Options& o, std::ostream& out, std::ostream& err) {
  if (auto s = CalibrateProfile(o, out, err); !s.ok()) return Fail(err, s);
  return kExitOk;
}

}  // namespace

const CommandInfo kCalibrateCommand = {"calibrate", RunCalibrate, kFlags,
                                       /*takes_positional=*/true};

}  // namespace trn
