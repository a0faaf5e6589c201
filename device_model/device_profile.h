// The device profile: every cost the timing model uses, loaded from JSON
// (device_model/profiles/*.json, documented in docs/device-profile.md).
#ifndef TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_
#define TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/memory_limits.h"
#include "device_model/quantile_table.h"

namespace trn {

inline constexpr int kProfileSchemaVersion = 1;
// Profiles are a few kilobytes; a larger file is not one, and is refused
// before it is read whole.
inline constexpr int64_t kMaxProfileBytes = int64_t{1} << 20;

// One named parameter as the profile file states it.
struct ProfileParam {
  QuantileTable dist;  // constant for fixed hardware figures
  std::string unit;
  std::string source;  // the public figure or calibration target behind it
};

struct EngineParams {
  double clock_ghz = 1.0;
  double elements_per_cycle = 1.0;  // per partition
  double overhead_cycles = 0.0;     // static cost of every instruction
};

struct DeviceProfile {
  std::string name;
  std::string description;
  std::string content_hash;  // FNV-1a 64 of the profile file, hex
  bool calibrated = false;

  MemoryLimits memory;
  std::array<EngineParams, kNumEngines> engines;
  double tensor_fp32_rate = 0.25;  // TensorE fp32 speed relative to bf16

  int dma_queues = 16;
  double dma_queue_gbps = 27.2;
  double hbm_gbps = 410.0;  // this core's share
  double dma_half_efficiency_bytes = 4096;
  QuantileTable dma_latency_us;

  QuantileTable op_exec_overhead_us;     // eager and fused_op executions
  QuantileTable graph_exec_overhead_us;  // compiled-graph executions
  QuantileTable host_op_dispatch_us;     // framework lane, per op
  QuantileTable runtime_schedule_us;     // runtime lane, per execution
  QuantileTable h2d_copy_latency_us;     // a host-to-device copy's fixed cost
  double h2d_gbps = 32.0;
  QuantileTable nki_host_latency_us;   // NKI: launch to completion, host side
  QuantileTable nki_iteration_gap_us;  // NKI: benchmark-loop gap per iteration

  // Every parameter as read, by name, for reports and what-if overrides.
  std::map<std::string, ProfileParam, std::less<>> params;

  // Elements per second per partition of `e` for data of type `t`.
  double ElementsPerUs(Engine e, DType t) const;
};

// `label` names the file in error messages.
absl::StatusOr<DeviceProfile> ParseDeviceProfile(absl::string_view text,
                                                 absl::string_view label);
absl::StatusOr<DeviceProfile> LoadDeviceProfile(const std::string& path);

// Replaces parameter `key` with `value`: a constant for fixed figures; for a
// distribution, every quantile is scaled so the median becomes `value`.
absl::Status OverrideParam(DeviceProfile& profile, absl::string_view key,
                           double value);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_
