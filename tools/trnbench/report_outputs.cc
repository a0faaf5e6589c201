#include "tools/trnbench/report_outputs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "harness/runner.h"
#include "reports/chrome_trace.h"
#include "reports/junit_report.h"
#include "support/atomic_file.h"
#include "support/status_macros.h"

namespace trn {
namespace fs = std::filesystem;

namespace {

// A file destination must be a file name in an existing folder; the write
// itself (atomic) reports anything this cannot foresee.
absl::Status CheckFileDestination(const std::string& flag,
                                  const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", path, ": is a folder; expected a file name"));
  }
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " ", path, ": no folder ", dir.string(), " to write it in"));
  }
  return absl::OkStatus();
}

absl::Status CheckReportDir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--report-dir ", dir, ": exists and is not a folder"));
  }
  return absl::OkStatus();
}

// Checked now so that an unusable summary file fails before the report
// folder is written; a missing file is created only by the append itself.
absl::Status CheckAppendable(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return CheckFileDestination("GITHUB_STEP_SUMMARY", path);
  }
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GITHUB_STEP_SUMMARY ", path,
                     ": cannot append: ", std::strerror(errno)));
  }
  close(fd);
  return absl::OkStatus();
}

absl::Status Append(const std::string& path, const std::string& text) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GITHUB_STEP_SUMMARY ", path,
                     ": cannot append: ", std::strerror(errno)));
  }
  // One write call: with O_APPEND, other steps' appends never interleave.
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return absl::InvalidArgumentError(
          absl::StrCat("GITHUB_STEP_SUMMARY ", path,
                       ": write failed: ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  return absl::OkStatus();
}

absl::Status CheckDestinations(const PendingOutputs& p) {
  const ReportOutputOptions& o = p.options;
  if (!o.report_dir.empty()) TRN_RETURN_IF_ERROR(CheckReportDir(o.report_dir));
  if (!o.trace_file.empty()) {
    TRN_RETURN_IF_ERROR(CheckFileDestination("--trace", o.trace_file));
  }
  if (!o.junit_file.empty()) {
    TRN_RETURN_IF_ERROR(CheckFileDestination("--junit", o.junit_file));
  }
  if (!o.report_dir.empty() && !o.step_summary.empty()) {
    TRN_RETURN_IF_ERROR(CheckAppendable(o.step_summary));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateReportOutputs(const ReportOutputOptions& o, int64_t repeat,
                                   bool have_baseline) {
  if (o.trace_repeat < 0 || o.trace_repeat >= repeat) {
    return absl::InvalidArgumentError(
        absl::StrCat("--trace-repeat=", o.trace_repeat,
                     ": expected a recorded run from 0 to ", repeat - 1,
                     " (--repeat ", repeat, ")"));
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
  TRN_RETURN_IF_ERROR(CheckDestinations(p));
  if (!options.report_dir.empty()) {
    TRN_ASSIGN_OR_RETURN(
        p.staged, StagedReportDir::Stage(options.report_dir, p.report.files));
  }
  return p;
}

absl::StatusOr<PendingOutputs> PrepareJunitOutput(
    const ReportOutputOptions& options, const ComparisonReport& comparison) {
  PendingOutputs p;
  p.options.junit_file = options.junit_file;
  p.junit = JunitXml(comparison);
  TRN_RETURN_IF_ERROR(CheckDestinations(p));
  return p;
}

absl::Status CommitReportOutputs(const PendingOutputs& p) {
  const ReportOutputOptions& o = p.options;
  if (!o.trace_file.empty()) {
    TRN_RETURN_IF_ERROR(WriteFileAtomic(o.trace_file, p.trace));
  }
  if (!o.junit_file.empty()) {
    TRN_RETURN_IF_ERROR(WriteFileAtomic(o.junit_file, p.junit));
  }
  if (p.staged != nullptr) {
    TRN_RETURN_IF_ERROR(p.staged->Commit());
    if (!o.step_summary.empty()) {
      TRN_RETURN_IF_ERROR(Append(o.step_summary, p.report.step_summary));
    }
  }
  return absl::OkStatus();
}

}  // namespace trn
