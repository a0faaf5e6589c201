#include "harness/runner/measured_metrics.h"

namespace trn {

const std::vector<MetricInfo>& MeasuredOnlyMetrics() {
  static const std::vector<MetricInfo> kMetrics = {
      {"cpu_time_us", Unit::kMicroseconds, true,
       "measured: CPU time of the measuring process per iteration"},
      {"mfu", Unit::kFraction, false,
       "measured: model FLOPs utilisation of TensorE (neuron-profile)"},
      {"mbu", Unit::kFraction, false,
       "measured: HBM bandwidth utilisation (neuron-profile)"},
      {"hbm_read_bytes", Unit::kBytes, true, "measured: bytes read from HBM"},
      {"hbm_write_bytes", Unit::kBytes, true, "measured: bytes written to HBM"},
  };
  return kMetrics;
}

const MetricInfo* FindAnyMetric(std::string_view name) {
  if (const MetricInfo* m = FindMetric(name)) return m;
  for (const auto& m : MeasuredOnlyMetrics()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

bool MustBePositive(std::string_view metric) {
  return metric == "device_time_us" || metric == "wall_time_us" ||
         metric == "ncl_us" || metric == "latency_us" ||
         metric == "throughput_per_s";
}

}  // namespace trn
