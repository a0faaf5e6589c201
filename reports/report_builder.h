// Builds the human-readable report (report.md, report.html and the plots)
// from the result model: per family a summary table with intervals,
// speed-ups and, with a baseline, changes and verdicts; per-op tables; and a
// distribution plot of every metric.
#ifndef TRNBENCH_REPORTS_REPORT_BUILDER_H_
#define TRNBENCH_REPORTS_REPORT_BUILDER_H_

#include <string>
#include <vector>

#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/runner/results.h"
#include "reports/report_doc.h"

namespace trn {

struct ReportInputs {
  const RunResult* run = nullptr;
  // Both optional. The baselines supply the samples drawn beside the
  // current ones; a workload without one is drawn alone.
  const ComparisonReport* comparison = nullptr;
  const std::vector<Baseline>* baselines = nullptr;
};

ReportDoc BuildReport(const ReportInputs& inputs);

// plots/<family>-<metric>.svg, with anything but [A-Za-z0-9_.-] replaced so
// that the name is safe on every file system and in a markdown link.
std::string PlotFileName(const std::string& family, const std::string& metric);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_REPORT_BUILDER_H_
