// Rematerialized input blocks (docs/spec-format.md, "Rematerialized input
// blocks"): a block of tiles that are unmodified copies of an input, made
// before a loop that reads it, is the one thing whose value the compiler
// can have again without keeping it: it loads it again from HBM. Where
// keeping such a block across a loop is what stops two of the loop's
// iterations from being in flight, the compiler does not keep it: its
// loads run in each iteration of the loop (rematerialization, Briggs,
// Cooper and Torczon, "Rematerialization", PLDI 1992: a value that can be
// recomputed from what is always available is recomputed, not spilled;
// the NKI performance guide's "input data reloading" is the trade the
// compiler then makes, "keeping too much data in SBUF ... can increase the
// memory pressure").
#ifndef TRNBENCH_WORKLOADS_COMPILER_REMATERIALIZATION_H_
#define TRNBENCH_WORKLOADS_COMPILER_REMATERIALIZATION_H_

#include <vector>

#include "device_model/memory_limits.h"
#include "workloads/spec/compiler_decisions.h"
#include "workloads/spec/spec.h"

namespace trn {

// Puts every block an earlier SinkInputBlocks moved back where the source
// has it (NkiOp::sunk_from_index).
void RestoreSunkBlocks(WorkloadSpec& spec);

// For each loop L (around other loops, its depth the compiler's, at one
// iteration in flight) and each block B before it in the same body whose
// loops only load inputs nothing writes and that only L reads: when two
// iterations of L in flight do not fit with B kept but do without it, B's
// loop moves to the start of L's body (so it is loaded in each iteration
// of L), recorded in the returned decisions. The spec must fit as it is
// (every loop at depth 1). `hoists`: the loads already kept over a loop.
std::vector<RematDecision> SinkInputBlocks(
    WorkloadSpec& spec, const MemoryLimits& limits,
    const std::vector<HoistDecision>& hoists);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_REMATERIALIZATION_H_
