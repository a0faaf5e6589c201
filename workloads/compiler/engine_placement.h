// The compiler stage's engine placement: each compute op whose spec leaves
// its engine out (or "auto") goes to an engine that can run it, by the rule
// of docs/spec-format.md ("Engines left to the compiler").
#ifndef TRNBENCH_WORKLOADS_COMPILER_ENGINE_PLACEMENT_H_
#define TRNBENCH_WORKLOADS_COMPILER_ENGINE_PLACEMENT_H_

#include <vector>

#include "device_model/memory_limits.h"
#include "workloads/spec/compiler_decisions.h"
#include "workloads/spec/spec.h"

namespace trn {

// Sets NkiOp::engine on every compute op of a validated nki spec that does
// not state one, and returns one decision per compute op, in body order.
std::vector<EngineDecision> PlaceEngines(WorkloadSpec& spec,
                                         const MemoryLimits& limits);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_ENGINE_PLACEMENT_H_
