// Partition broadcasts (`"broadcasts"` on an op, NKI `x.broadcast_to((P, n))`
// on a one-partition tile): the compiler stage makes each one the TensorE
// matmul NKI issues for it, a [1, P] row of ones as the stationary matrix
// times the [1, n] input into a [P, n] PSUM tile (the Trainium/Inferentia2
// architecture guide, Tensor Engine, "Alternative Use Case";
// docs/spec-format.md, "Partition broadcasts"); one wider than a matmul's
// 512 moving columns is one matmul per PSUM bank, each copied to SBUF,
// since no PSUM tile is wider than a bank. The inserted ops are plain
// ops, so the engine placement, the allocator, lowering and `profile` treat
// them as any other.
#ifndef TRNBENCH_WORKLOADS_COMPILER_BROADCASTS_H_
#define TRNBENCH_WORKLOADS_COMPILER_BROADCASTS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "workloads/spec/spec.h"

namespace trn {

// Undoes ExpandBroadcasts: removes every op it inserted and gives the ops
// that read them their inputs back, so that a spec compiled again (at a new
// shape) is expanded from what it says.
void RemoveInsertedBroadcasts(WorkloadSpec& spec);

// For each broadcast input of each op of a validated spec: a matmul
// `<input>_bcast<P>` just before the op, which the op reads instead (or,
// past 512 columns, matmuls `<input>_bcast<P>_<j>` and their SBUF copies
// `<input>_bcast<P>_<j>_sb`, which it reads), and
// once per kernel loop (at the top of its body) the memset of the row of
// ones `ones_<P>_<dtype>` it multiplies. InvalidArgument, naming the
// op's "/broadcasts/K", when the input is not a tile of one partition or
// P is not the op's partitions.
absl::Status ExpandBroadcasts(WorkloadSpec& spec, int64_t partitions);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_BROADCASTS_H_
