// `trnbench profile`: a neuron-profile-style device summary of a workload's
// median run, its roofline, and findings, each with its figures and, where
// the model can predict the fix, the what-if that predicts it.
#ifndef TRNBENCH_HARNESS_PROFILE_PROFILE_ANALYSIS_H_
#define TRNBENCH_HARNESS_PROFILE_PROFILE_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/device_summary.h"
#include "device_model/roofline.h"
#include "device_model/unit.h"
#include "harness/runner/results.h"
#include "harness/runner/runner.h"
#include "workloads/spec/spec.h"

namespace trn {

// A variant of the workload that the model runs to predict a fix.
struct WhatIf {
  std::string id;      // stable key, e.g. "double_buffering"
  std::string change;  // what was changed, in words
  bool feasible = true;
  std::string why_not;  // when infeasible: the validator's reason
  double time_us = 0;   // median of the same metric, same seed and repeats
  double relative = 0;  // time_us / the workload's median - 1
  double dma_compute_overlap = 0;  // median, for the overlap it buys
};

// One figure a finding rests on, in its unit.
struct FindingFigure {
  std::string key;  // stable within the finding, e.g. "overlap"
  double value = 0;
  Unit unit = Unit::kCount;
};

// A finding is data: what was found and the figures that show it. The
// sentence people read is written by reports/ (FindingText), so the
// harness never decides how a number is printed (docs/profile.md lists the
// ids and their figures).
struct Finding {
  std::string id;  // stable key, e.g. "no_dma_compute_overlap"
  std::vector<FindingFigure> figures;
  std::vector<Engine> engines;  // the engines it is about, if any
  std::string what_if;          // id of the what-if whose prediction it quotes

  // The figure `key`, or nullptr when the finding has none of that name.
  const FindingFigure* Find(std::string_view key) const {
    for (const FindingFigure& f : figures) {
      if (f.key == key) return &f;
    }
    return nullptr;
  }
};

struct WorkloadProfile {
  WorkloadResult result;    // every recorded run, summarised
  std::string time_metric;  // ncl_us for NKI kernels, device_time_us else
  double median_us = 0;     // of time_metric over the recorded runs
  // The recorded run shown: the first whose time is closest to the median.
  int64_t recorded_run = 0;  // k, 0-based
  int64_t repeat_index = 0;  // its random stream: wait + warmup + k
  double time_us = 0;        // its time_metric
  DeviceSummary summary;
  ProgramCost cost;
  Roofline roofline;
  double memory_bandwidth_utilisation = 0;  // HBM bytes / time / HBM peak
  double flop_utilisation = 0;              // achieved / TensorE bf16 peak
  std::vector<WhatIf> what_ifs;
  std::vector<Finding> findings;
  // The compiler stage's decisions for an nki spec (empty otherwise).
  CompilerDecisions compiler;
};

struct ProfileReport : RunContext {
  std::string device_description;
  DevicePeaks peaks;
  std::vector<WorkloadProfile> workloads;
};

absl::StatusOr<WorkloadProfile> ProfileWorkload(const WorkloadSpec& spec,
                                                const DeviceProfile& profile,
                                                const RunOptions& options);
// Every spec profiled, in order, on up to `options.jobs` threads (0:
// DefaultJobs()); the same to the bit for any number. Calls
// options.on_workload before each workload, one call at a time.
absl::StatusOr<std::vector<WorkloadProfile>> ProfileWorkloads(
    const std::vector<WorkloadSpec>& specs, const DeviceProfile& profile,
    const RunOptions& options);

// The spec with every affine loop (nested ones included) that has one
// buffer given two; unchanged when there is none.
WorkloadSpec WithDoubleBuffering(const WorkloadSpec& spec, bool* changed);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_PROFILE_PROFILE_ANALYSIS_H_
