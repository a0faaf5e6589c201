// The tables every human-readable output shows, built once from the result
// model: the console renders them as aligned text, report.md and
// report.html as document tables. Columns are chosen here, cells are
// formatted by number_format.h, and statistics are named by the summary
// field table (harness/runner/summary_json.h), so each figure reads the same in
// every output.
#ifndef TRNBENCH_REPORTS_REPORT_TABLES_H_
#define TRNBENCH_REPORTS_REPORT_TABLES_H_

#include <span>
#include <string>
#include <vector>

#include "harness/gate/comparison.h"
#include "harness/runner/results.h"

namespace trn {

struct TableCell {
  enum class Kind : uint8_t {
    kText,     // a figure or a word
    kName,     // a workload, metric or op name (code in documents)
    kVerdict,  // a gate verdict (coloured on a terminal, bold regression)
  };
  Kind kind = Kind::kText;
  std::string text;
  Verdict verdict = Verdict::kUnchanged;  // kVerdict only
};

struct ReportTable {
  std::vector<std::string> header;  // no two columns share a heading
  std::vector<bool> right_align;    // numbers right, names and words left
  std::vector<std::vector<TableCell>> rows;
};

using WorkloadGroup = std::vector<const WorkloadResult*>;

// The workloads of `run` grouped by family, families in order of first
// appearance, workloads in run order.
std::vector<WorkloadGroup> GroupByFamily(const RunResult& run);

// Device time per iteration, one row per variant: median and its interval,
// p1, p99, CV, Tukey outliers, the speed-up over the family's reference of
// the same size, and with `comparison` the change, its interval and the
// verdict right after the median, where a narrow window still shows them.
ReportTable FamilySummaryTable(const WorkloadGroup& family, double confidence,
                               const ComparisonReport* comparison);

// What a family's speed-up column means, or "" when no variant has one.
std::string SpeedupExplanation(const WorkloadGroup& family);

// A sweep point's rank cell: "2/5", "1/5 fastest", "3/5 (tie with 2)".
std::string RankText(const SweepRank& rank);

// What a family's rank column means, or "" when no variant is ranked.
std::string RankExplanation(const WorkloadGroup& family, double confidence);

// nki.benchmark's figures of the NKI variants: NCL and latency p1 / p50 /
// p99, throughput with its interval. No rows when there is no NKI variant.
ReportTable NkiBenchmarkTable(const WorkloadGroup& family, double confidence);

// One row per comparison: verdict, change and its interval first, then the
// two medians and the p-values.
ReportTable ComparisonTable(std::span<const MetricComparison* const> rows,
                            double confidence);

// Every metric of every variant: median, interval, p1 / p50 / p99, CV.
ReportTable AllMetricsTable(const WorkloadGroup& family, double confidence);

// Every metric of one measured workload: n, median and its interval, p1 /
// p50 / p99, CV, outliers. A metric the tool summarised without samples
// shows its percentiles and no interval ("none: percentiles only").
ReportTable MeasuredMetricsTable(const WorkloadResult& workload,
                                 double confidence);

// The per-op averages of one run, like torch.profiler's key_averages().
ReportTable OpTable(const WorkloadResult& workload);
// Its caption: hardware executions and instructions per run.
std::string OpTableCaption(const WorkloadResult& workload);

// The comparisons whose verdict is not `unchanged`, one line each:
// "<workload> <metric>: <verdict> — <reason>".
std::vector<const MetricComparison*> NotableComparisons(
    const ComparisonReport& report);

// The comparison's notes (spec, model or profile changes), each once: a
// note every compared workload shares is said once for all of them, one
// several share lists them ("model version 1 -> 2 (3 workloads: a, b, c)").
std::vector<std::string> CollapsedNotes(const ComparisonReport& report);

// "1 regression in 7 comparisons", "No regression in 7 comparisons".
std::string RegressionCount(const ComparisonReport& report);

}  // namespace trn

#endif  // TRNBENCH_REPORTS_REPORT_TABLES_H_
