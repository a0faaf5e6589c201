// `trnbench import FILE...`: measured files -> a results document marked
// "source": "measured"; like a run, it can be gated against baselines,
// saved as baselines and rendered as reports (docs/import.md).
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/import/importer.h"
#include "harness/import/measured_file.h"
#include "reports/comparison_report.h"
#include "reports/console_report.h"
#include "reports/json_results.h"
#include "reports/terminal.h"
#include "support/message_text.h"
#include "support/output_transaction.h"
#include "support/status_macros.h"
#include "tools/trnbench/command_context.h"
#include "tools/trnbench/commands.h"
#include "tools/trnbench/diagnostics.h"
#include "tools/trnbench/output_format.h"
#include "tools/trnbench/report_outputs.h"

namespace trn {
namespace {

constexpr std::string_view kFlags[] = {"from",
                                       "workload",
                                       "device",
                                       "span",
                                       "device_categories",
                                       "format",
                                       "output",
                                       "confidence",
                                       "baseline",
                                       "threshold",
                                       "alpha",
                                       "allow_missing",
                                       "allow_unchecked",
                                       "save_baseline",
                                       "report_dir",
                                       "junit"};

absl::StatusOr<import::ImportRequest> RequestFrom(const Options& o) {
  import::ImportRequest r;
  if (!o.from.empty()) {
    TRN_ASSIGN_OR_RETURN(r.format, import::ParseMeasuredFormat(o.from));
  }
  r.options.workload = o.workload;
  r.options.step_span = o.span;
  r.options.device_categories.clear();
  for (absl::string_view c :
       absl::StrSplit(o.device_categories, ',', absl::SkipWhitespace())) {
    r.options.device_categories.emplace_back(c);
  }
  // A list of commas or blanks names no category: refused, as an empty
  // --workload is, rather than read as "the default categories".
  if (o.Given("device_categories") && r.options.device_categories.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--device-categories=", EscapeControl(o.device_categories),
        ": expected trace event categories, comma-separated, such as "
        "kernel,gpu_memcpy"));
  }
  // --device has a default for runs; here only a given one counts.
  if (o.Given("device")) r.device = o.device;
  r.trnbench_version = TRNBENCH_VERSION;
  r.confidence = o.confidence;
  return r;
}

absl::StatusOr<int> Import(const Options& o, std::ostream& out) {
  if (o.positional.empty()) {
    return absl::InvalidArgumentError(
        "import needs measured files: trnbench import FILE... (see "
        "docs/import.md)");
  }
  TRN_ASSIGN_OR_RETURN(const OutputFormat format,
                       FormatFor(o, kReportFormats, "import"));
  const ReportOutputOptions report = ReportOutputOptionsFrom(o);
  TRN_RETURN_IF_ERROR(ValidateReportOutputs(report, 1, !o.baseline.empty()));
  TRN_ASSIGN_OR_RETURN(import::ImportRequest request, RequestFrom(o));
  std::vector<import::MeasuredFile> files;
  for (const std::string& path : o.positional) {
    TRN_ASSIGN_OR_RETURN(import::MeasuredFile f,
                         import::ReadMeasuredFile(path));
    files.push_back(std::move(f));
  }
  TRN_ASSIGN_OR_RETURN(RunResult run, import::ImportMeasured(files, request));
  // Every output planned and checked before anything is written: an output
  // that is also an input (a measured file, the baseline) is refused.
  const std::string baseline_dir = o.save_baseline_dir.empty()
                                       ? "baselines/" + run.device
                                       : o.save_baseline_dir;
  OutputTransaction outputs;
  for (const std::string& path : o.positional) outputs.AddInput("import", path);
  if (!o.baseline.empty()) {
    outputs.AddInput("--baseline", o.baseline, /*replaceable=*/true);
  }
  if (!o.output.empty()) outputs.PlanFile("--output", o.output);
  PlanReportOutputs(report, outputs);
  if (o.save_baseline) {
    std::vector<std::string> names;
    for (const WorkloadResult& w : run.workloads) {
      names.push_back(w.name + ".json");
    }
    outputs.PlanFolder("--save-baseline", baseline_dir, std::move(names));
  }
  TRN_RETURN_IF_ERROR(outputs.Check());

  std::vector<Baseline> baselines;
  std::optional<ComparisonReport> comparison;
  if (!o.baseline.empty()) {
    std::vector<std::string> names;
    for (const WorkloadResult& w : run.workloads) names.push_back(w.name);
    TRN_ASSIGN_OR_RETURN(baselines,
                         LoadBaselinesFor(o.baseline, names, o.confidence));
    CompareOptions copts = CompareOptionsFrom(o);
    copts.source = o.baseline;
    TRN_ASSIGN_OR_RETURN(comparison,
                         CompareWithBaselines(run, baselines, copts));
  }
  // As for a run: everything rendered and every destination checked
  // before the first file is written.
  TRN_ASSIGN_OR_RETURN(
      PendingOutputs pending,
      PrepareReportOutputs(report, run, comparison ? &*comparison : nullptr,
                           baselines, {}, DeviceProfile{}));
  const std::string json_text =
      ResultsToJsonText(run, comparison ? &*comparison : nullptr);
  TRN_RETURN_IF_ERROR(StageReportOutputs(pending, outputs));
  if (!o.output.empty()) {
    TRN_RETURN_IF_ERROR(outputs.StageFile(o.output, json_text));
  }
  if (o.save_baseline) {
    TRN_RETURN_IF_ERROR(StageBaselines(
        BaselinesFromRun(run, NowUtcIso8601(), CurrentGitCommit(SourceDir())),
        baseline_dir, outputs));
  }
  TRN_RETURN_IF_ERROR(outputs.Commit());
  if (format == OutputFormat::kJson) {
    out << json_text;
  } else {
    const ConsoleStyle style = ConsoleStyleFor(out);
    out << RenderConsoleReport(run, style);
    if (comparison) out << RenderComparisonReport(*comparison, style);
  }
  return comparison && comparison->AnyRegression() ? kExitRegression : kExitOk;
}

int RunImport(const Options& o, std::ostream& out, std::ostream& err) {
  auto code = Import(o, out);
  if (!code.ok()) return Fail(err, code.status());
  return *code;
}

}  // namespace

const CommandInfo kImportCommand = {"import", RunImport, kFlags,
                                    /*takes_positional=*/true};

}  // namespace trn
