// Loop-invariant loads (docs/spec-format.md, "Loop-invariant loads"): a
// load whose address uses no variable of a loop around it, from a tensor
// the kernel never writes, loads the same HBM block in every iteration of
// that loop. neuronx-cc unrolls the loops and loads such a block once,
// keeping it in SBUF while it fits; otherwise each iteration loads it
// again (the Mamba tutorial's "performance warnings for reloading" of its
// inputs when SBUF cannot hold them).
#ifndef TRNBENCH_WORKLOADS_COMPILER_HOISTING_H_
#define TRNBENCH_WORKLOADS_COMPILER_HOISTING_H_

#include <vector>

#include "device_model/memory_limits.h"
#include "workloads/spec/compiler_decisions.h"
#include "workloads/spec/spec.h"

namespace trn {

// For each load of the kernel that is invariant in some loop around it,
// the hoists it could take, outermost loop first (the most reuse, the
// most SBUF). The compiler stage keeps the first that fits.
std::vector<std::vector<HoistDecision>> HoistCandidates(
    const WorkloadSpec& spec, const MemoryLimits& limits);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_HOISTING_H_
