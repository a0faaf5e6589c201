// The report folder (--report-dir): results.json, report.md, report.html,
// summary.csv, samples.csv and plots/*.svg, rendered in memory and then
// written so that a failure leaves no partial folder content
// (docs/reports.md).
#ifndef TRNBENCH_REPORTS_REPORT_DIR_H_
#define TRNBENCH_REPORTS_REPORT_DIR_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "reports/report_builder.h"

namespace trn {

struct OutputFile {
  std::string path;  // relative to the report folder, '/'-separated
  std::string content;
};

struct ReportFiles {
  std::vector<OutputFile> files;
  // report.md without image links (the plots cannot be reached from a CI
  // step summary), for GITHUB_STEP_SUMMARY.
  std::string step_summary;
};

// Pure: the same inputs give byte-identical files.
ReportFiles RenderReportFiles(const ReportInputs& inputs);

// The files of a report folder, fully written to a hidden staging folder
// and waiting to be moved into place. A missing folder is staged whole
// beside its final name and renamed into place, so it appears complete or
// not at all; for an existing folder every file is staged in a hidden
// subfolder and only renamed over its old version once all are written, so
// a failure leaves the folder as it was. Files of the folder that trnbench
// does not write are left alone. Destroying an uncommitted stage removes
// everything it created. Errors name the folder as given.
class StagedReportDir {
 public:
  static absl::StatusOr<std::unique_ptr<StagedReportDir>> Stage(
      const std::string& dir, const std::vector<OutputFile>& files);
  ~StagedReportDir();
  StagedReportDir(const StagedReportDir&) = delete;
  StagedReportDir& operator=(const StagedReportDir&) = delete;

  absl::Status Commit();

 private:
  StagedReportDir() = default;

  std::string dir_;                // as given, for messages
  std::filesystem::path target_;   // the folder
  std::filesystem::path staging_;  // the hidden folder holding the files
  std::filesystem::path created_;  // topmost ancestor we created, if any
  bool fresh_ = false;
  bool committed_ = false;
  std::vector<std::string> paths_;
};

// Stage and commit in one step.
absl::Status WriteReportDir(const std::string& dir,
                            const std::vector<OutputFile>& files);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_REPORT_DIR_H_
