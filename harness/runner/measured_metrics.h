// Metrics that only a measurement carries, beside the model's own
// (device_model/metrics.h): a results or baseline file may hold either.
#ifndef TRNBENCH_HARNESS_RUNNER_MEASURED_METRICS_H_
#define TRNBENCH_HARNESS_RUNNER_MEASURED_METRICS_H_

#include <string_view>
#include <vector>

#include "device_model/metrics.h"

namespace trn {

// Metrics imported from measuring tools that the model does not compute
// (Google Benchmark's CPU time, neuron-profile's MFU, MBU and HBM bytes).
const std::vector<MetricInfo>& MeasuredOnlyMetrics();

// Times and rates that every run of a workload has: a sample of 0 or less
// is no measurement (the gate compares them as logarithms). The other
// metrics (busy times of idle engines, bytes, shares) may be 0, never
// negative. The rule of the results reader and of every importer.
bool MustBePositive(std::string_view metric);

// A metric of the model or of a measurement; nullptr when neither knows it.
const MetricInfo* FindAnyMetric(std::string_view name);

}  // namespace trn

#endif  // TRNBENCH_HARNESS_RUNNER_MEASURED_METRICS_H_
