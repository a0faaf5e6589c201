// Lowering: from a validated spec to the program the timing model runs.
#ifndef TRNBENCH_WORKLOADS_LOWERING_LOWERING_H_
#define TRNBENCH_WORKLOADS_LOWERING_LOWERING_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "workloads/spec/spec.h"

namespace trn {

// Programs larger than this are refused rather than exhausting memory:
// lowering and simulating take some 300 bytes an instruction, so about
// 1.5 GB at the limit (the largest shipped spec has 9000 instructions).
inline constexpr int64_t kMaxInstructions = 5'000'000;

// `spec` must have passed ValidateSpec for `profile.memory`.
absl::StatusOr<Program> Lower(const WorkloadSpec& spec,
                              const DeviceProfile& profile);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_LOWERING_LOWERING_H_
