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

// The likely cause of a step: what differs between the last run of the
// night before it and the last run of its first night on the series'
// device (device profile hash, model version, trnbench version), e.g.
// "device profile changed (9818d56f2a8a15a2 -> 5e1c0b7d3a2f4e61)". Empty
// when nothing recorded differs, for a drift, or without `runs`.
std::vector<std::string> StepCauses(const history::Series& series,
                                    const history::Alert& alert,
                                    std::span<const history::RunInfo> runs);

// The versioned `trnbench.history.detect` document, newline-terminated.
// `runs` (the history's, for the likely causes) may be empty.
std::string DetectionToJsonText(std::span<const history::Series> series,
                                const history::Detection& detection,
                                const DetectReportOptions& options,
                                std::span<const history::RunInfo> runs = {});
// One line per alert group and alert, for a terminal or a CI log.
std::string RenderDetectionTable(std::span<const history::Series> series,
                                 const history::Detection& detection,
                                 std::span<const history::RunInfo> runs = {});
// The same as a markdown section (for $GITHUB_STEP_SUMMARY or a PR).
std::string RenderDetectionMarkdown(
    std::span<const history::Series> series,
    const history::Detection& detection,
    std::span<const history::RunInfo> runs = {});

// `history show`: the runs, then every series' last nights.
std::string RenderHistoryTable(std::span<const history::RunInfo> runs,
                               std::span<const history::Series> series,
                               int nights);

// `history show --format json`: the `trnbench.history.show` document
// (version 1), every run with its provenance and every series with each
// night's pooled median, interval, commit and baseline refresh; exact
// numbers, newline-terminated.
inline constexpr int kShowSchemaVersion = 1;
std::string HistoryToJsonText(std::span<const history::RunInfo> runs,
                              std::span<const history::Series> series);
// `history show --format csv`: one RFC 4180 record per series and night
// (workload, metric, device, unit, lower_is_better, night, commit, median,
// ci_low, ci_high, baseline_refresh), booleans TRUE / FALSE as in
// summary.csv.
std::string HistoryToCsv(std::span<const history::Series> series);

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
    const history::Detection& detection,
    std::span<const history::RunInfo> runs = {});

}  // namespace trn

#endif  // TRNBENCH_REPORTS_HISTORY_REPORT_H_
