// The ATen ops that torch-mode specs may use, with their shape rule and the
// engine instructions one hardware kernel of the op runs.
#ifndef TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_
#define TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_

#include <span>
#include <string_view>

#include "device_model/engine.h"
#include "device_model/program.h"

namespace trn {

enum class ShapeRule : uint8_t {
  kElementwise,  // inputs broadcast together (numpy rules)
  kReduceLast,   // one input; output is the input with its last dim = 1
  kSameAsFirst,  // output has the first input's shape (fused ops)
  kMatmul,       // [..., m, k] x [k, n] -> [..., m, n]
};

// How much work an instruction does, per partition.
enum class WorkBasis : uint8_t {
  kFree,  // the free size of the op's first input
  kOne,   // one element per partition (a per-row scalar)
};

struct AtenStep {
  Engine engine;
  std::string_view opcode;
  WorkBasis work;
  CostRule cost;  // the NKI ISA rule that prices the instruction
};

struct AtenOpInfo {
  std::string_view name;
  int min_inputs;
  int max_inputs;
  ShapeRule rule;
  std::span<const AtenStep> steps;
};

// nullptr when the op is not supported.
const AtenOpInfo* FindAtenOp(std::string_view name);
std::span<const AtenOpInfo> AllAtenOps();

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_
