// Comparison of a run with its baselines, and the gate's verdicts.
#ifndef TRNBENCH_HARNESS_GATE_COMPARISON_H_
#define TRNBENCH_HARNESS_GATE_COMPARISON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/gate/baseline_store.h"
#include "harness/runner/results.h"
#include "harness/statistics/serial_dependence.h"
#include "harness/statistics/statistics.h"

namespace trn {

enum class Verdict : uint8_t {
  kRegression,
  kImprovement,
  kUnchanged,
  kInconclusive,
  kNew,  // no baseline, and --allow-missing said that is fine
};
std::string_view VerdictName(Verdict v);

// The metrics a gate judges by default: the ones people ship decisions on.
const std::vector<std::string>& DefaultGateMetrics();
bool IsGatedMetric(std::string_view metric);

struct CompareOptions {
  double threshold = 0.02;   // relative change below which nothing is called
  double alpha = 0.05;       // family-wise false-alarm rate of one gate run
  double confidence = 0.95;  // level of the change's interval
  std::vector<std::string> metrics = DefaultGateMetrics();
  bool allow_missing = false;
  // A gated metric one side lacks, or a comparison whose interval cannot
  // be computed, is reported as inconclusive ("not checked") instead of
  // refused (harness/gate/gate_inputs.h).
  bool allow_unchecked = false;
  std::string source;  // what the baselines are called in reports
  // CompareFiles: the old side is a set of baselines (a folder) that should
  // hold every workload of the new side, as a gate's --baseline does; a
  // workload without one is refused unless allow_missing (then "new").
  // Otherwise two files are compared on the workloads they share.
  bool old_side_is_baseline_set = false;
  // CompareFiles with a baseline set: the workloads the set has baselines
  // for. A workload of it that the new side lacks is refused (a whole-suite
  // gate must not pass by leaving the regressed workloads out of the
  // file) unless allow_missing, which lists each as "not checked".
  std::vector<std::string> baseline_set_workloads;
};

struct MetricComparison {
  std::string workload;
  std::string metric;
  bool lower_is_better = true;
  double threshold = 0.02;
  int64_t n_baseline = 0;
  int64_t n_current = 0;
  double baseline_median = 0;
  double current_median = 0;
  // Common random numbers: same seed and schedule on both sides, so sample
  // k of each came from the same random stream and the analysis is paired.
  bool paired = false;
  // Relative change of the median, current / baseline - 1, with interval.
  double change = 0;
  stats::Interval change_interval;
  // Independent samples: the rank test whose inversion is the interval
  // ("mann-whitney-u" or "wilcoxon-signed-rank") and a t test on log times
  // ("welch-t-log" or "paired-t-log"). When a series is autocorrelated the
  // rank tests' null distributions do not hold: rank_test is empty, p_rank
  // NaN, and the t test allows for the correlation ("welch-t-log-ar1" or
  // "paired-t-log-ar1"; see serial_dependence.h).
  std::string rank_test;
  double p_rank = 1;
  std::string t_test;
  double p_t = 1;
  // The test behind the verdict, whose inversion is change_interval, and
  // its raw p-value: the one Holm adjusts (p_rank, or p_t when
  // autocorrelated). NaN when nothing could be computed; such a row is not
  // counted in Holm's m.
  std::string test;
  double p_value = 1;
  double p_adjusted = 1;  // Holm over every comparison of the run
  // What the order of each side's samples says (and, when paired, of the
  // per-repeat log ratios).
  stats::SeriesDiagnostics baseline_series;
  stats::SeriesDiagnostics current_series;
  stats::SeriesDiagnostics paired_series;
  bool autocorrelation_adjusted = false;
  // The run's samples were judged autocorrelated by the lag-1 test pooled
  // over every series of the comparison report, although this row's own
  // series were not (stats::PooledLag1Test).
  bool pooled_autocorrelation = false;
  // Fewer than stats::kSmallSampleAr1 samples per side, and no test found
  // the samples autocorrelated: too few to show them independent, so the
  // interval and p allow for the correlation the run's series do not rule
  // out (the pooled rho's upper bound, stats::PooledLag1::rho) instead of
  // assuming none. The series diagnostics still say what was detected.
  bool small_sample_dependence = false;
  // Fewer than stats::kMinDiagnosedSamples per side: no interval is given
  // (its coverage is not established when the samples' serial dependence
  // cannot be checked).
  bool interval_withheld = false;
  Verdict verdict = Verdict::kUnchanged;
  // Inconclusive because --allow-unchecked let a row through that the gate
  // could not check (a metric one side lacks, no interval computable): the
  // summary must not read as "no regression" about it.
  bool unchecked = false;
  std::string reason;
  int64_t repeats_to_resolve = 0;  // for inconclusive verdicts
  std::vector<std::string> notes;  // spec, model, profile changes
};

struct ComparisonReport {
  std::string baseline_source;
  double threshold = 0.02;
  double alpha = 0.05;
  double confidence = 0.95;
  // The m of Holm's correction: rows with a p-value (a row whose samples
  // could not be compared has none and takes no part).
  int64_t comparisons = 0;
  std::vector<MetricComparison> rows;

  bool AnyRegression() const;
  // Rows --allow-unchecked reported as not checked.
  int64_t Unchecked() const;
};

// "±2.00%" when every row uses one threshold, else the report's threshold
// and the rows that differ: "±2.00% (±10.00% for rmsnorm_fused)". For the
// header of every rendering, so it says what was applied.
std::string ThresholdText(const ComparisonReport& report);

// The largest threshold a current side's recorded spec noise_threshold
// is applied as: a spec or a file may record up to 1 (exclusive), and a
// threshold of 0.9 would turn any regression into a pass. Larger values are
// applied as this, with a note on the row (docs/statistics.md).
inline constexpr double kMaxNoiseThreshold = 0.20;

// The threshold a comparison applies, one rule for runs and files: the
// gate's own threshold is the current side's recorded spec noise_threshold
// (at most kMaxNoiseThreshold), else `flag` (--threshold or its default);
// a baseline's recorded noise_threshold may narrow it, never widen it: a
// baseline's provenance is not covered by its samples' checksum, and a
// file saying 0.99 let `gate --set` regressions pass. NaN means "not
// recorded".
double ApplicableThreshold(double current_spec, double baseline_spec,
                           double flag);

// The comparison of one metric's samples, before multiple-testing
// correction and verdict (exposed for tests and experiments).
// `assume_autocorrelated`: a pooled test over the run found its series
// autocorrelated, so each series is treated as autocorrelated even if its
// own test did not say so (stats::MarkAutocorrelated): below
// stats::kSmallSampleAr1 samples at `run_rho`, the run's pooled estimate
// (stats::PooledLag1::rho), from there on at its own corrected rho when
// that is positive.
MetricComparison CompareSamples(const std::vector<double>& baseline,
                                const std::vector<double>& current, bool paired,
                                double confidence,
                                bool assume_autocorrelated = false,
                                double run_rho = NAN);

// The verdict of a comparison whose Holm-adjusted p is known, out of
// `comparisons` (Holm's m), by the rules of docs/statistics.md; sets
// verdict, reason and repeats_to_resolve (exposed for experiments).
void DecideVerdict(MetricComparison& c, double alpha, int64_t comparisons);

// Compares every workload of `run` with the baseline of the same name. A
// workload without a baseline is an error unless options.allow_missing,
// when it is reported as `new`. A baseline of another device is an error.
absl::StatusOr<ComparisonReport> CompareWithBaselines(
    const RunResult& run, const std::vector<Baseline>& baselines,
    const CompareOptions& options);

// Offline: compares two loaded files workload by workload (those present in
// both), like Google Benchmark's compare.py.
absl::StatusOr<ComparisonReport> CompareFiles(
    const std::vector<Baseline>& old_side,
    const std::vector<Baseline>& new_side, const CompareOptions& options);

// The model's speed-up of `new_version` over `old_version`, two versions
// of one kernel under different workload names (`compare --pair`): the
// ratio of their medians of `metric` (old / new, above 1 when the new one is
// faster) with a percentile-bootstrap interval at `confidence`, the same
// statistic as a family's speed-up column (ComputeSpeedups). InvalidArgument
// when either lacks the metric's samples.
absl::StatusOr<Speedup> VersionSpeedup(const Baseline& old_version,
                                       const Baseline& new_version,
                                       std::string_view metric,
                                       double confidence);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_GATE_COMPARISON_H_
