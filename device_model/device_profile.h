// The device profile: every cost the timing model uses, loaded from JSON
// (device_model/profiles/*.json, documented in docs/device-profile.md).
#ifndef TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_
#define TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/memory_limits.h"
#include "device_model/quantile_table.h"

namespace trn {

inline constexpr int kProfileSchemaVersion = 2;
// Profiles are a few kilobytes; a larger file is not one, and is refused
// before it is read whole.
inline constexpr int64_t kMaxProfileBytes = int64_t{1} << 20;

// One named parameter as the profile file states it.
struct ProfileParam {
  QuantileTable dist;  // constant for fixed hardware figures
  std::string unit;
  std::string source;  // the public figure or calibration target behind it
  // A fitted parameter's figures: the validation keys ("<workload> <metric>
  // <statistic> <device>", docs/validation.md) of the published figures its
  // value was fitted to. `trnbench validate` marks those figures as fits
  // rather than predictions: a model earns trust only against measurements
  // it was not fitted to. Empty for a public value.
  std::vector<std::string> fitted_on;
};

struct EngineParams {
  double clock_ghz = 1.0;
  double elements_per_cycle = 1.0;  // per partition
  // Cycles from the end of an instruction's issue interval to its result
  // being readable (InstructionTiming::latency_us).
  double static_overhead_cycles = 0.0;
};

// The constants of the published per-instruction cost rules
// (device_model/instruction_cost.h).
struct CostParams {
  double min_ii_cycles = 64;
  double two_input_factor = 2;
  double reciprocal_factor = 8;
  double bn_aggr_factor = 13.0 / 3.0;
  double index_gen_fixed_cycles = 150;
  double vector_narrow_speedup_1input = 1;
  double vector_narrow_speedup_2input = 1;
  double tensor_fp32_transpose_rate = 0.25;
  // Cycles of an instruction's tensor access (SBUF/PSUM) that its engine
  // is active for even when it does not wait for the result
  // (InstructionTiming::active_us).
  double access_overhead_cycles = 60;
  // Semaphore hand-off between a producer's completion and a consumer's
  // start, on any engine or DMA.
  double dependency_sync_us = 0;
};

struct DeviceProfile {
  std::string name;
  std::string description;
  std::string content_hash;  // FNV-1a 64 of the profile file, hex
  bool calibrated = false;

  MemoryLimits memory;
  std::array<EngineParams, kNumEngines> engines;
  double tensor_fp32_rate = 0.25;  // TensorE fp32 speed relative to bf16
  CostParams cost;

  // DMA: `dma_queues` engines, each serving the partitions
  // [e * P / E, (e + 1) * P / E) of a transfer through one in-order queue.
  int dma_queues = 16;
  double dma_queue_gbps = 27.2;  // one engine's data rate
  double hbm_gbps = 410.0;       // this core's share
  // Every contiguous run (descriptor) costs this many bytes' worth of the
  // engine's time on top of its data.
  double dma_descriptor_overhead_bytes = 2048;
  // How many of an engine's rows one descriptor covers when they follow one
  // another in HBM (a block of whole rows): 1 when every row is its own
  // descriptor (trn1's fit), more when the descriptor generator makes one
  // read of them (trn2's DGE: the DMA overview's 8 rows, one 2 KiB read).
  int dma_rows_per_descriptor = 1;
  double dma_transpose_efficiency = 0.9;
  // A transfer's fixed latency from the end of its data to its completion
  // semaphore; pipelined, so it does not hold the engine.
  QuantileTable dma_latency_us;
  // The cost of generating a DMA instruction's descriptors before its data
  // moves (trn2's DGE), on one of `dma_issuers` units.
  double dma_issue_us = 0;
  int dma_issuers = 1;
  // DMA queues (model 12): every DMA instruction of the program is bound to
  // one queue, and each engine serves the queues' transfers round robin,
  // in order within a queue. An engine starts a queue's next transfer no
  // sooner than this after that queue's previous transfer on it moved its
  // data; another queue's transfer may run in between.
  double dma_queue_gap_us = 0;

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

// Whether parameter `key` is a count (a whole number such as `dma_queues`),
// false for an unknown key. Calibration moves only continuous parameters.
bool IsCountParam(absl::string_view key);

// Replaces parameter `key` with `value`: a constant for fixed figures; for a
// distribution, every quantile is scaled so the median becomes `value`.
// `by` says who did, in the parameter's source ("--set", "calibrate").
// Errors start with "<key>: " or "<key>=<value>: "; the caller adds where
// the value came from (the tool: "--set ").
absl::Status OverrideParam(DeviceProfile& profile, absl::string_view key,
                           double value, absl::string_view by);

}  // namespace trn

#endif  // TRNBENCH_DEVICE_MODEL_DEVICE_PROFILE_H_
