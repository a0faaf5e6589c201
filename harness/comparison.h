// Comparison of a run with its baselines, and the gate's verdicts.
#ifndef TRNBENCH_HARNESS_COMPARISON_H_
#define TRNBENCH_HARNESS_COMPARISON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/baseline_store.h"
#include "harness/results.h"
#include "harness/statistics.h"

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

struct CompareOptions {
  double threshold = 0.02;   // relative change below which nothing is called
  double alpha = 0.05;       // family-wise false-alarm rate of one gate run
  double confidence = 0.95;  // level of the change's interval
  std::vector<std::string> metrics = DefaultGateMetrics();
  bool allow_missing = false;
  // A gated metric one side lacks, or a comparison whose interval cannot
  // be computed, is reported as inconclusive ("not checked") instead of
  // refused (harness/gate_inputs.h).
  bool allow_unchecked = false;
  std::string source;  // what the baselines are called in reports
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
  std::string rank_test;  // "mann-whitney-u" or "wilcoxon-signed-rank"
  double p_rank = 1;
  std::string t_test;  // "welch-t-log" or "paired-t-log"
  double p_t = 1;
  double p_adjusted = 1;  // Holm over every comparison of the run
  Verdict verdict = Verdict::kUnchanged;
  std::string reason;
  int64_t repeats_to_resolve = 0;  // for inconclusive verdicts
  std::vector<std::string> notes;  // spec, model, profile changes
};

struct ComparisonReport {
  std::string baseline_source;
  double threshold = 0.02;
  double alpha = 0.05;
  double confidence = 0.95;
  int64_t comparisons = 0;  // the m of Holm's correction
  std::vector<MetricComparison> rows;

  bool AnyRegression() const;
};

// The comparison of one metric's samples, before multiple-testing
// correction and verdict (exposed for tests and experiments).
MetricComparison CompareSamples(const std::vector<double>& baseline,
                                const std::vector<double>& current, bool paired,
                                double confidence);

// Compares every workload of `run` with the baseline of the same name. A
// workload without a baseline is an error unless options.allow_missing,
// when it is reported as `new`. A baseline of another device is an error.
absl::StatusOr<ComparisonReport> CompareWithBaselines(
    const RunResult& run, const std::vector<Baseline>& baselines,
    const std::vector<double>& thresholds_per_workload,
    const CompareOptions& options);

// Offline: compares two loaded files workload by workload (those present in
// both), like Google Benchmark's compare.py.
absl::StatusOr<ComparisonReport> CompareFiles(
    const std::vector<Baseline>& old_side,
    const std::vector<Baseline>& new_side, const CompareOptions& options);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_COMPARISON_H_
