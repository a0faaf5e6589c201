// The run history rendered: `history detect` as JSON, markdown and a table,
// and `history trend` as a report folder of SVG plots of nightly medians
// with their intervals, change points and baseline refreshes marked, in
// markdown and HTML (docs/history.md).
#ifndef TRNBENCH_REPORTS_HISTORY_REPORT_H_
#define TRNBENCH_REPORTS_HISTORY_REPORT_H_

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/history/detection.h"
#include "harness/history/history_store.h"

namespace trn {

inline constexpr int kDetectSchemaVersion = 1;

struct DetectReportOptions {
  double threshold = 0.02;
  double fdr = 0.05;
};

// The versioned `trnbench.history.detect` document, newline-terminated.
std::string DetectionToJsonText(std::span<const history::Series> series,
                                const history::Detection& detection,
                                const DetectReportOptions& options);
// One line per alert group and alert, for a terminal or a CI log.
std::string RenderDetectionTable(std::span<const history::Series> series,
                                 const history::Detection& detection);
// The same as a markdown section (for $GITHUB_STEP_SUMMARY or a PR).
std::string RenderDetectionMarkdown(std::span<const history::Series> series,
                                    const history::Detection& detection);

// `history show`: the runs, then every series' last nights.
std::string RenderHistoryTable(std::span<const history::RunInfo> runs,
                               std::span<const history::Series> series,
                               int nights);

// One series over nights as a standalone SVG: the nightly medians joined
// by a line, each night's interval as a bar, every change point as a
// vertical line (solid when confirmed, dashed when provisional; red for a
// regression, green for an improvement), a drift's window shaded, and
// every baseline refresh as a dotted blue line.
std::string RenderTrendSvg(const history::Series& series,
                           std::span<const history::Alert> alerts);

// The files of a trend report folder, relative paths and contents:
// report.md, report.html and plots/<workload>.<metric>.<device>.svg.
std::vector<std::pair<std::string, std::string>> RenderTrendReport(
    std::span<const history::Series> series,
    const history::Detection& detection);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_HISTORY_REPORT_H_
