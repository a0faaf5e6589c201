// The command line's report outputs beyond stdout and --output: the report
// folder, the Chrome trace, JUnit XML and the GitHub step summary. Planned
// (and checked) before anything runs, rendered in memory after the run, and
// written with every other output of the command in one transaction.
#ifndef TRNBENCH_TOOLS_TRNBENCH_REPORT_OUTPUTS_H_
#define TRNBENCH_TOOLS_TRNBENCH_REPORT_OUTPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/runner/results.h"
#include "reports/report_dir.h"
#include "support/output_transaction.h"
#include "workloads/spec/spec.h"

namespace trn {

struct ReportOutputOptions {
  std::string report_dir;    // --report-dir
  std::string trace_file;    // --trace
  int64_t trace_repeat = 0;  // --trace-repeat: recorded run k, 0-based
  std::string junit_file;    // --junit
  // --summary: the compact markdown of what changed (a comparison).
  std::string summary_file;
  // GITHUB_STEP_SUMMARY: the compact summary is appended there when the
  // command compares; report.md when it only writes a report folder.
  std::string step_summary;
  bool compares = false;      // a baseline comparison is made
  std::string summary_title;  // "trnbench gate"

  bool any() const {
    return !report_dir.empty() || !trace_file.empty() || !junit_file.empty();
  }
};

// Checks that need no run, so that bad flags fail before anything runs.
absl::Status ValidateReportOutputs(const ReportOutputOptions& options,
                                   int64_t repeat, bool have_baseline);

// Adds the report outputs (and the step summary, appended when a report
// folder is written) to the command's output plan, before anything runs.
void PlanReportOutputs(const ReportOutputOptions& options,
                       OutputTransaction& out);

struct PendingOutputs {
  ReportOutputOptions options;
  ReportFiles report;
  std::string trace;
  std::string junit;
  std::string summary;  // RenderChangeSummary, when there is a comparison
};

// Renders every requested output (replaying the traced run). `specs` are
// the run's specs in the order of run.workloads.
absl::StatusOr<PendingOutputs> PrepareReportOutputs(
    const ReportOutputOptions& options, const RunResult& run,
    const ComparisonReport* comparison, const std::vector<Baseline>& baselines,
    const std::vector<WorkloadSpec>& specs, const DeviceProfile& profile);

// JUnit and the summary only, for `trnbench compare`.
PendingOutputs PrepareJunitOutput(const ReportOutputOptions& options,
                                  const ComparisonReport& comparison);

// Stages the rendered outputs in `out`, which planned them.
absl::Status StageReportOutputs(const PendingOutputs& pending,
                                OutputTransaction& out);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_REPORT_OUTPUTS_H_
