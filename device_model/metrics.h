// Metrics derived from a timeline, and the per-op view torch.profiler's
// key_averages() table gives.
#ifndef TRNBENCH_DEVICE_MODEL_METRICS_H_
#define TRNBENCH_DEVICE_MODEL_METRICS_H_

#include <string>
#include <string_view>
#include <vector>

#include "device_model/timeline.h"
#include "device_model/unit.h"

namespace trn {

struct MetricInfo {
  std::string_view name;
  Unit unit;
  bool lower_is_better;
  std::string_view description;
};

// Every metric the model can report, in report order.
const std::vector<MetricInfo>& AllMetrics();
const MetricInfo* FindMetric(std::string_view name);

struct MetricValue {
  std::string name;
  double value;
};

// The metrics of one run, in AllMetrics() order; NKI-only metrics appear
// only for NKI timelines.
std::vector<MetricValue> ComputeMetrics(const Timeline& timeline);

// One row of the profiler-style op table for one run.
struct OpRow {
  std::string name;
  double self_cpu_us = 0;     // framework + runtime lane time
  double self_device_us = 0;  // hardware lane time of its executions
  int64_t calls = 0;
};

// Rows in first-appearance order.
std::vector<OpRow> ComputeOpRows(const Timeline& timeline);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_METRICS_H_
