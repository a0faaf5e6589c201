// The model held against a measurement of the same workload
// (`trnbench validate --measured`), and the fit of a device profile's
// fitted parameters to measurements (`trnbench calibrate`).
#ifndef TRNBENCH_HARNESS_VALIDATION_MEASURED_VALIDATION_H_
#define TRNBENCH_HARNESS_VALIDATION_MEASURED_VALIDATION_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "harness/gate/baseline_store.h"
#include "harness/runner/results.h"
#include "harness/runner/runner.h"
#include "harness/statistics/statistics.h"
#include "workloads/spec/spec.h"

namespace trn {

struct MetricValidation {
  std::string metric;
  std::string unit;
  stats::Summary model;
  stats::Summary measured;
  bool measured_has_samples = true;
  // The model's error relative to the measurement: the Hodges-Lehmann
  // shift of log model vs log measured samples, as a ratio - 1, with its
  // interval; for a measurement without samples, the ratio of medians - 1
  // and no interval.
  double error = 0;
  stats::Interval error_interval;
};

// A part of the model's prediction and its share of the model's median
// device time: an engine's busy time, DMA activity, or an op.
struct ModelPart {
  std::string name;
  double us = 0;
  double share = 0;
};

struct MeasuredValidation {
  std::string workload;
  std::string spec_file;
  std::string device;  // the profile the model ran on
  Measurement measurement;
  uint64_t seed = 0;
  int64_t model_repeat = 0;
  std::vector<MetricValidation> metrics;
  std::vector<ModelPart> engines;  // busy engines and DMA, largest first
  std::vector<ModelPart> ops;      // the model's ops by self device time
};

// Runs `spec` on `profile` and compares every metric both the model and
// `measured` carry. An error when they share none.
absl::StatusOr<MeasuredValidation> ValidateMeasured(
    const Baseline& measured, const WorkloadSpec& spec,
    const DeviceProfile& profile, const RunOptions& options);

// One measured workload of a calibration: its spec and its measurement.
struct CalibrationTarget {
  const WorkloadSpec* spec = nullptr;
  const Baseline* measured = nullptr;
};

struct Residual {
  std::string workload;
  std::string metric;
  double measured_median = 0;
  double model_before = 0;  // model median with the profile as given
  double model_after = 0;   // with the fitted parameters
};

struct FittedParam {
  std::string name;
  double before = 0;   // median as given
  double after = 0;    // fitted median
  bool pinned = true;  // false: no target depends on it; left as given
};

struct CalibrationResult {
  DeviceProfile profile;  // the fitted profile
  std::vector<FittedParam> params;
  std::vector<Residual> residuals;
  double rms_log_error_before = 0;
  double rms_log_error_after = 0;
};

// Fits the profile's parameters whose source says "fitted" jointly to the
// medians of `targets` (device_time_us, ncl_us, latency_us and
// throughput_per_s): least squares on log model / measured medians, by
// Levenberg-Marquardt on the log of each parameter's factor (limited to
// 1/20..20), with a small ridge (1e-3 per squared log move) so that
// parameters the figures do not tell apart move in proportion to their
// effect. Deterministic: the model runs with `options`' seed and schedule;
// `sweeps` x 10 iterations at most, bounded before the first run by
// kMaxSimulatedInstructions over the whole fit (SimulatedWork). `on_plan`,
// when set, is told the most runs the fit can make (for a progress line;
// options.on_run counts them as they go).
absl::StatusOr<CalibrationResult> Calibrate(
    const std::vector<CalibrationTarget>& targets, const DeviceProfile& profile,
    const RunOptions& options, int sweeps = 3,
    const std::function<void(int64_t)>& on_plan = nullptr);

// The device profile file `original_text` with every fitted parameter
// that moved set to its fitted median (a distribution scaled), its source
// saying what it was fitted to, and the residuals in the description.
// `fitted_to` names the measurements (files and workloads).
absl::StatusOr<std::string> CalibratedProfileText(
    absl::string_view original_text, const CalibrationResult& result,
    const std::string& fitted_to);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_VALIDATION_MEASURED_VALIDATION_H_
