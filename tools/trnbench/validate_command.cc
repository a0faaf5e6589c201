// `trnbench validate --measured FILE`: the model beside a measurement of
// the same workload (docs/import.md). The published-kernel suite
// (`validate` without --measured, docs/validation.md) is its other half.
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "harness/measured_validation.h"
#include "reports/measured_validation_report.h"
#include "support/atomic_file.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/measured_inputs.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {
    "measured", "spec",   "device", "profiles_dir", "specs_dir", "set",
    "repeat",   "warmup", "seed",   "format",       "output",    "confidence"};

absl::Status ValidateMeasuredFile(const Options& o, std::ostream& out) {
  if (o.measured.empty()) {
    return absl::InvalidArgumentError(
        "validate needs --measured FILE, a measured results file (trnbench "
        "import --output FILE)");
  }
  TRN_RETURN_IF_ERROR(CheckFormat(o, /*allow_gbench=*/false, "validate"));
  TRN_ASSIGN_OR_RETURN(DeviceProfile profile, LoadProfile(o));
  TRN_ASSIGN_OR_RETURN(MeasuredInputs in,
                       LoadMeasuredInputs({o.measured}, o, profile));
  const RunOptions run = RunOptionsFrom(o, {});
  std::vector<MeasuredValidation> validations;
  for (size_t i = 0; i < in.measured.size(); ++i) {
    TRN_ASSIGN_OR_RETURN(
        MeasuredValidation v,
        ValidateMeasured(in.measured[i], in.specs[i], profile, run));
    validations.push_back(std::move(v));
  }
  const std::string json =
      MeasuredValidationToJson(validations).dump(2) + "\n";
  StagedFiles staged;
  if (!o.output.empty()) TRN_RETURN_IF_ERROR(staged.Stage(o.output, json));
  TRN_RETURN_IF_ERROR(staged.Commit());
  out << (o.format == "json" ? json : RenderMeasuredValidation(validations));
  return absl::OkStatus();
}

int RunValidate(const Options& o, std::ostream& out, std::ostream& err) {
  if (auto s = ValidateMeasuredFile(o, out); !s.ok()) return Fail(err, s);
  return kExitOk;
}

}  // namespace

const CommandInfo kValidateCommand = {"validate", RunValidate, kFlags};

}  // namespace trn
