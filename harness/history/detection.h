// `trnbench history detect`: change points and drifts over nights, across
// every series at once (docs/history.md). The night is the unit: a series
// holds one level per night (the median of that night's samples), never the
// samples themselves, which are not independent replicates of the night.
#ifndef TRNBENCH_HARNESS_HISTORY_DETECTION_H_
#define TRNBENCH_HARNESS_HISTORY_DETECTION_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "harness/history/change_points.h"

namespace trn::history {

struct NightPoint {
  std::string night;   // YYYY-MM-DD
  std::string commit;  // the commit measured that night (the last run's)
  double median = 0;   // the night's level
  double ci_low = 0;   // distribution-free interval of that median
  double ci_high = 0;
  bool baseline_refresh = false;  // the gate's baseline changed that night
  // The workload's spec hash that night (the last run's): a change between
  // two nights is a likely cause of a step between them.
  std::string spec_hash;
};

// One workload x metric x device over nights, oldest first.
struct Series {
  std::string workload;
  std::string metric;
  std::string device;
  std::string unit;
  bool lower_is_better = true;
  std::vector<NightPoint> points;
};

struct DetectOptions {
  // Smallest relative change reported (the gate's noise threshold), and
  // smallest in units of the series' own night-to-night noise: a series
  // noisier than the threshold must move further to be believed.
  double threshold = 0.02;
  double noise_multiple = 2.0;
  // The same for a drift's change over its window: a Theil-Sen slope over
  // a dozen nights is less certain than a step between two segments.
  double drift_noise_multiple = 3.0;
  // False-discovery rate across every test of every series
  // (Benjamini-Hochberg).
  double fdr = 0.05;
  // A step is confirmed once this many nights sit on each side of it;
  // a step closer to the end is provisional, one inside a shorter segment
  // is a transient and dropped.
  int confirm_nights = 3;
  SegmentationOptions segmentation;
  // The drift test looks at the nights since the last change point, at most
  // the last drift_window of them, and needs drift_min_nights.
  int drift_window = 12;
  int drift_min_nights = 6;
  // The drift test is repeated every night on a sliding window, so its
  // raw p-value must also clear this: a nightly job looks at each stretch
  // of nights about drift_window times.
  double drift_max_p = 0.0005;
  // Floor of the noise scale (log units): a series of identical nights.
  double scale_floor = 1e-6;
};

enum class AlertKind { kStep, kDrift };
enum class AlertStatus { kConfirmed, kProvisional };

struct Alert {
  size_t series = 0;  // index into the input
  AlertKind kind = AlertKind::kStep;
  AlertStatus status = AlertStatus::kConfirmed;
  bool regression = false;  // the worse direction for this metric
  // Step: the first night at the new level (first == last). Drift: the
  // window's first and last night.
  int first = 0;
  int last = 0;
  double change = 0;           // relative, e.g. 0.05 = 5% higher
  double slope_per_night = 0;  // drift only, relative per night
  double noise = 0;            // the series' noise scale, relative
  double p = 1;                // raw p-value
  double q = 1;                // Benjamini-Hochberg adjusted
  // The commits bracketing the change: the last night before it and the
  // first night of it (a drift: before its window, and its last night).
  std::string commit_from;
  std::string commit_to;
  bool is_new = false;  // not found on the data without the last night
};

// Alerts that share a commit range: one cause, one alert.
struct AlertGroup {
  std::string commit_from;
  std::string commit_to;
  std::vector<size_t> alerts;  // indices into Detection::alerts
  bool confirmed_regression = false;
};

struct Detection {
  std::vector<Alert> alerts;  // by series, then night
  std::vector<AlertGroup> groups;
  size_t series = 0;
  size_t nights = 0;  // series-nights analysed
  size_t tests = 0;   // hypotheses in the Benjamini-Hochberg family
  bool NewConfirmedRegression() const;
};

Detection Detect(std::span<const Series> series, const DetectOptions& options);

// ---- The pieces, exposed for the evaluation (tests/harness/history) ----

// One tested hypothesis of one series.
struct Candidate {
  AlertKind kind = AlertKind::kStep;
  bool confirmable = false;  // else provisional (steps near the end)
  int first = 0;
  int last = 0;
  double log_change = 0;
  double slope = 0;  // log units per night
  double scale = 0;  // the series' noise scale (log units)
  double p = 1;
  double q = 1;
};

// A series in log units: each night's level and the ends of its interval
// (empty when unknown: then no night is checked against its interval).
struct LogSeries {
  std::span<const double> level;
  std::span<const double> low;
  std::span<const double> high;
};

// The candidates of the prefix [0, n) of one series (`table` is the L1
// cost table of its levels, or of a longer series it prefixes).
std::vector<Candidate> SeriesCandidates(const LogSeries& series,
                                        const L1CostTable& table, int n,
                                        const DetectOptions& options,
                                        double* scale_out);

// Benjamini-Hochberg adjusted p-values, in place, over every candidate.
void AdjustBenjaminiHochberg(std::span<Candidate*> candidates);

// Whether a candidate with its q set is kept as an alert.
bool Kept(const Candidate& c, const DetectOptions& options);

}  // namespace trn::history

#endif  // TRNBENCH_HARNESS_HISTORY_DETECTION_H_
