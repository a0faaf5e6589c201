// The ATen ops that torch-mode specs may use, with their shape rule and the
// engine instructions one hardware kernel of the op runs.
#ifndef TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_
#define TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device_model/engine.h"
#include "device_model/program.h"

namespace trn {

enum class ShapeRule : uint8_t {
  kElementwise,  // inputs broadcast together (numpy rules)
  kReduceLast,   // one input; output is the input with its last dim = 1
  kSameAsFirst,  // output has the first input's shape (fused ops)
  kMatmul,       // [..., m, k] x [k, n] or [..., k, n] -> [..., m, n]
  kLinear,       // [..., k] x [n, k] (+ [n]) -> [..., n] (x @ w.T + b)
  kEmbedding,    // [V, D] table, [...] indices -> [..., D]
  kView,         // any shape of as many elements, or a broadcast (expand)
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

// An op's steps run in order. An op that takes optional inputs (a norm's
// weight and bias, linear's bias) ends with one step per optional input,
// which runs only when that input is given: with n inputs, the first
// steps.size() - (max_inputs - n) steps run. A view has no steps: it moves
// no data, in eager mode it is no dispatch and in a graph no instruction.
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

// The steps an op with `inputs` inputs runs.
std::span<const AtenStep> StepsFor(const AtenOpInfo& op, size_t inputs);

// The output shape `op`'s rule gives for these input shapes (as many as
// the op takes), or nullopt with `why` saying what does not fit. For
// kView, `out` is the declared output (any shape of as many elements, or
// a broadcast of the input) and is returned when it fits.
std::optional<std::vector<int64_t>> AtenOutputShape(
    const AtenOpInfo& op, const std::vector<std::vector<int64_t>>& in,
    const std::vector<int64_t>& out, std::string* why);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_SPEC_ATEN_OPS_H_
