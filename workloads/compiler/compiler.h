// The compiler stage: between a validated WorkloadSpec and lowering, it
// decides what neuronx-cc decides for a kernel whose source leaves it to the
// compiler — the engine of each compute op, the depth of each loop (how many
// iterations are in flight), and the on-chip allocation by liveness — and
// records each decision with its reason (docs/architecture.md, "The
// compiler stage"; the rules in docs/spec-format.md, "Compiler stage").
#ifndef TRNBENCH_WORKLOADS_COMPILER_COMPILER_H_
#define TRNBENCH_WORKLOADS_COMPILER_COMPILER_H_

#include "absl/status/status.h"
#include "device_model/memory_limits.h"
#include "workloads/spec/spec.h"

namespace trn {

// The deepest pipeline the compiler stage gives a loop: iterations in
// flight at most. A cap, not a fit: beyond it the suite's kernels gain
// nothing (docs/calibration.md, "Buffer depth").
inline constexpr int kMaxPipelineDepth = 8;

// Validates `spec` for `limits`, then compiles it: fills in each unstated
// engine and loop depth and sets spec.compiled. Decided again on every
// call, so a spec whose shape or device changed is compiled anew. A kernel
// whose live tiles cannot fit at some point is InvalidArgument naming that
// point and the tiles live there.
absl::Status CompileSpec(WorkloadSpec& spec, const MemoryLimits& limits);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_COMPILER_COMPILER_H_
