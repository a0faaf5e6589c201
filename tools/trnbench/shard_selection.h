// `--shard K/N`: this CI job's part of the selected workloads, and what its
// results record about the split (docs/history.md).
#ifndef TRNBENCH_TOOLS_TRNBENCH_SHARD_SELECTION_H_
#define TRNBENCH_TOOLS_TRNBENCH_SHARD_SELECTION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "device_model/device_profile.h"
#include "harness/runner/results.h"
#include "tools/trnbench/options.h"
#include "workloads/spec/spec.h"

namespace trn {

// Keeps the specs of shard --shard K/N of `specs` (all of them when the
// flag is not given) and describes the split in `info`. Work per workload
// is the time the history at --db recorded when it has one for every
// selected workload, else the instruction count of the lowered program.
absl::StatusOr<std::vector<WorkloadSpec>> SelectShard(
    const Options& options, const DeviceProfile& profile,
    std::vector<WorkloadSpec> specs, std::optional<ShardInfo>& info);

}  // namespace trn

#endif  // TRNBENCH_TOOLS_TRNBENCH_SHARD_SELECTION_H_
