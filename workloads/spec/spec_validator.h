// Semantic checks of a WorkloadSpec: the rules of docs/spec-format.md that
// go beyond JSON types, so that a spec built in code is held to the same
// rules as one read from a file.
#ifndef TRNBENCH_WORKLOADS_SPEC_SPEC_VALIDATOR_H_
#define TRNBENCH_WORKLOADS_SPEC_SPEC_VALIDATOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "device_model/dtype.h"
#include "device_model/engine.h"
#include "device_model/memory_limits.h"
#include "workloads/spec/spec.h"

namespace trn {

// Large enough for any workload the timing model is meant for, small enough
// that byte counts (elements x 4 B x buffers) stay far from int64 overflow.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

// Every error is absl::InvalidArgumentError("<spec.file>: <json pointer>:
// <what is wrong and what was expected>"); the pointer is computed from the
// position in the struct, which is where a parsed spec had it in its file.
absl::Status ValidateSpec(const WorkloadSpec& spec, const MemoryLimits& limits);

// The NKI op kinds a loop body may hold.
bool IsNkiOpKind(std::string_view op);

// The engines that can run an NKI op kind, in the order of the op table of
// docs/spec-format.md (from the NKI ISA reference); empty for DMA and loops.
std::vector<Engine> NkiOpEngines(std::string_view op);

// Whether a tensor_scalar of these operators (its "alu", op0 then op1)
// can run on ScalarE: multiply then add, multiply, or add, the
// combinations the NKI ISA reference lists for the Scalar Engine
// (nki.isa.tensor_scalar); on NeuronCore-v2 ScalarE's multiply-add before
// the function of an ACTIVATE (architecture guide, "Pipelined
// Multiply-Add"). False for an empty list.
bool ScalarEngineAlu(const std::vector<std::string>& alu);

// Whether the compiler can run a tensor_scalar of these operators as one
// ScalarE ACTIVATE of the identity with a scale and a bias: every
// operator add, subtract or multiply, so that the result is affine in the
// data (x * scale + bias, the architecture guide's "Pipelined
// Multiply-Add"), the scale and bias made from the operands: a subtract
// as the add of the negated operand, as the guide's softmax subtracts its
// maximum through the exponential's bias and NKIBench bmm_softmax's
// compiled kernel negates its row maximum into the bias of its `exp`.
bool ScalarEngineMultiplyAdd(const std::vector<std::string>& alu);

// Whether an op kind makes a tile (every compute op and load).
bool NkiOpDefinesTile(std::string_view op);

// The product of all dims but the first (1 for rank <= 1): the free axis of a
// tile over dim 0.
int64_t FreeSize(const TensorDecl& tensor);

// The tile an NKI op defines, with the defaults of docs/spec-format.md
// applied: an explicit `tile`/`dtype` wins; a load defaults to the tensor it
// reads ([tile_partitions, its free size], its dtype); any other op to the
// loop tensor. For a spec that passed ValidateSpec.
struct NkiTile {
  int64_t partitions = 0;
  int64_t free = 0;
  DType dtype = DType::kFp32;
  int64_t BytesPerPartition() const { return free * DTypeBytes(dtype); }
};
NkiTile ResolveNkiTile(const WorkloadSpec& spec, const NkiLoop& loop,
                       const NkiOp& op);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_SPEC_VALIDATOR_H_
