// The report folder (--report-dir): results.json, report.md, report.html,
// summary.csv, samples.csv and plots/*.svg, rendered in memory; the tool
// writes them through its output transaction (support/output_transaction.h,
// docs/reports.md).
#ifndef TRNBENCH_REPORTS_REPORT_DIR_H_
#define TRNBENCH_REPORTS_REPORT_DIR_H_

#include <string>
#include <vector>

#include "reports/report_builder.h"
#include "support/output_transaction.h"

namespace trn {

struct ReportFiles {
  std::vector<OutputFile> files;
  // report.md without image links (the plots cannot be reached from a CI
  // step summary), for GITHUB_STEP_SUMMARY.
  std::string step_summary;
};

// Pure: the same inputs give byte-identical files.
ReportFiles RenderReportFiles(const ReportInputs& inputs);

// The names RenderReportFiles may write in the folder ("plots/" for the
// folder of plots), known before anything runs, for the output plan.
std::vector<std::string> ReportFileNames();

}  // namespace trn

#endif  // TRNBENCH_REPORTS_REPORT_DIR_H_
