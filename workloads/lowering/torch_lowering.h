// Lowering of the torch modes (eager, fused_op, compiled): ATen ops, by
// their table in workloads/spec/aten_ops.h, tiled over the partitions
// (internal to workloads/lowering/).
#ifndef TRNBENCH_WORKLOADS_LOWERING_TORCH_LOWERING_H_
#define TRNBENCH_WORKLOADS_LOWERING_TORCH_LOWERING_H_

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "device_model/program.h"
#include "workloads/spec/spec.h"

namespace trn::lowering_internal {

absl::StatusOr<Program> LowerTorch(const WorkloadSpec& spec,
                                   const DeviceProfile& profile);

}  // namespace trn::lowering_internal

#endif  // TRNBENCH_WORKLOADS_LOWERING_TORCH_LOWERING_H_
