#include "tools/trnbench/report_outputs.h"

#include "absl/strings/str_cat.h"
#include "harness/runner/runner.h"
#include "reports/change_summary.h"
#include "reports/chrome_trace.h"
#include "reports/junit_report.h"
#include "support/status_macros.h"

namespace trn {

absl::Status ValidateReportOutputs(const ReportOutputOptions& o, int64_t repeat,
                                   bool have_baseline) {
  if (o.trace_repeat < 0 || o.trace_repeat >= repeat) {
    return absl::InvalidArgumentError(
        absl::StrCat("--trace-repeat=", o.trace_repeat,
                     ": expected a recorded run from 0 to ", repeat - 1,
                     " (--repeat ", repeat, ")"));
  }
  if (!o.summary_file.empty() && !have_baseline) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--summary ", o.summary_file,
        ": the summary says what changed against a baseline; add --baseline "
        "DIR|FILE (or use trnbench gate)"));
  }
  if (!o.junit_file.empty() && !have_baseline) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--junit ", o.junit_file,
        ": JUnit test cases are comparisons with a baseline; add --baseline "
        "DIR|FILE (or use trnbench gate)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<PendingOutputs> PrepareReportOutputs(
    const ReportOutputOptions& options, const RunResult& run,
    const ComparisonReport* comparison, const std::vector<Baseline>& baselines,
    const std::vector<WorkloadSpec>& specs, const DeviceProfile& profile) {
  PendingOutputs p;
  p.options = options;
  if (!options.report_dir.empty()) {
    ReportInputs in;
    in.run = &run;
    in.comparison = comparison;
    in.baselines = &baselines;
    p.report = RenderReportFiles(in);
  }
  if (!options.trace_file.empty()) {
    // The trace is a replay: run k alone, from its own random stream, gives
    // exactly the timeline whose metrics are sample k of the results.
    const int64_t index = run.schedule.IndexOfActive(options.trace_repeat);
    std::vector<Timeline> timelines;
    timelines.reserve(specs.size());
    std::vector<TraceInput> traces;
    for (size_t i = 0; i < specs.size() && i < run.workloads.size(); ++i) {
      TRN_ASSIGN_OR_RETURN(Timeline tl,
                           ReplayRun(specs[i], profile, run.seed, index));
      timelines.push_back(std::move(tl));
    }
    for (size_t i = 0; i < timelines.size(); ++i) {
      traces.push_back(
          {run.workloads[i].name, options.trace_repeat, index, &timelines[i]});
    }
    p.trace = ChromeTraceJson(traces, run);
  }
  if (!options.junit_file.empty() && comparison != nullptr) {
    p.junit = JunitXml(*comparison);
  }
  if (comparison != nullptr) {
    p.summary = RenderChangeSummary(*comparison, options.summary_title);
  }
  return p;
}

PendingOutputs PrepareJunitOutput(const ReportOutputOptions& options,
                                  const ComparisonReport& comparison) {
  PendingOutputs p;
  p.options.junit_file = options.junit_file;
  p.options.summary_file = options.summary_file;
  p.options.step_summary = options.step_summary;
  p.options.compares = true;
  if (!options.junit_file.empty()) p.junit = JunitXml(comparison);
  p.summary = RenderChangeSummary(comparison, options.summary_title);
  return p;
}

void PlanReportOutputs(const ReportOutputOptions& o, OutputTransaction& out) {
  if (!o.report_dir.empty()) {
    out.PlanFolder("--report-dir", o.report_dir, ReportFileNames());
  }
  if (!o.step_summary.empty() && (o.compares || !o.report_dir.empty())) {
    out.PlanAppend("GITHUB_STEP_SUMMARY", o.step_summary);
  }
  if (!o.summary_file.empty()) out.PlanFile("--summary", o.summary_file);
  if (!o.trace_file.empty()) out.PlanFile("--trace", o.trace_file);
  if (!o.junit_file.empty()) out.PlanFile("--junit", o.junit_file);
}

absl::Status StageReportOutputs(const PendingOutputs& p,
                                OutputTransaction& out) {
  const ReportOutputOptions& o = p.options;
  if (!o.report_dir.empty()) {
    TRN_RETURN_IF_ERROR(out.StageFolder(o.report_dir, p.report.files));
  }
  // A job page or pull request gets what changed; the whole report (62 KB
  // for the shipped suite) stays in the folder.
  if (!o.step_summary.empty() && o.compares) {
    TRN_RETURN_IF_ERROR(out.StageAppend(o.step_summary, p.summary));
  } else if (!o.step_summary.empty() && !o.report_dir.empty()) {
    TRN_RETURN_IF_ERROR(out.StageAppend(o.step_summary, p.report.step_summary));
  }
  if (!o.summary_file.empty()) {
    TRN_RETURN_IF_ERROR(out.StageFile(o.summary_file, p.summary));
  }
  if (!o.trace_file.empty()) {
    TRN_RETURN_IF_ERROR(out.StageFile(o.trace_file, p.trace));
  }
  if (!o.junit_file.empty()) {
    TRN_RETURN_IF_ERROR(out.StageFile(o.junit_file, p.junit));
  }
  return absl::OkStatus();
}

}  // namespace trn
