// The validator's checks of one concern (workloads/spec/validator.h):
// One NKI op of a loop body: its kind, id, func, arity, engine, and the
// rules of particular kinds (transpose, reduction); it calls the checks
// of the other files on the op's references, tensors and tile.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "device_model/engine.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/validator.h"

namespace trn::validator_internal {
namespace {

// ScalarE's function table (NKI reference, nki.api.shared "Supported
// Activation Functions"): one ACTIVATE each, whichever the function.
constexpr std::string_view kActivationFuncs[] = {
    "exp",
    "rsqrt",
    "sqrt",
    "square",
    "tanh",
    "gelu",
    "sigmoid",
    "relu",
    "copy",
    "log",
    "reciprocal",
    "prelu",
    "gelu_dx",
    "gelu_apprx_tanh",
    "gelu_apprx_sigmoid",
    "gelu_apprx_sigmoid_dx",
    "silu",
    "silu_dx",
    "softplus",
    "mish",
    "erf",
    "erf_dx",
    "sin",
    "arctan",
    "sign",
    "abs",
};

// tensor_scalar's operators: the NKI reference's "Supported Math
// Operators for NKI ISA" (nki.api.shared, tbl-aluop), and nl.divide.
constexpr std::string_view kAluOps[] = {
    "add",         "subtract",    "multiply",    "divide",        "maximum",
    "minimum",     "equal",       "not_equal",   "greater_equal", "greater",
    "less_equal",  "less",        "logical_not", "logical_and",   "logical_or",
    "logical_xor", "rsqrt",       "reciprocal",  "abs",           "power",
    "invert",      "bitwise_and", "bitwise_or",  "bitwise_xor",   "left_shift",
    "right_shift",
};

bool IsAluOp(std::string_view f) {
  for (auto name : kAluOps) {
    if (name == f) return true;
  }
  return false;
}

bool IsActivationFunc(std::string_view f) {
  for (auto name : kActivationFuncs) {
    if (name == f) return true;
  }
  return false;
}

}  // namespace

// A tensor_scalar's "alu": op0 and optionally op1, each an operator of
// the ISA reference's table; on ScalarE only the combinations it lists
// for the Scalar Engine (multiply then add, multiply, add).
absl::Status Validator::CheckAlu(const NkiOp& op,
                                 const std::string& path) const {
  if (op.alu.empty()) return absl::OkStatus();
  if (op.alu.size() > 2) {
    return Error(path + "/alu",
                 absl::StrFormat("a tensor_scalar has at most two operators "
                                 "(op0, op1), got %d",
                                 op.alu.size()));
  }
  for (size_t k = 0; k < op.alu.size(); ++k) {
    if (!IsAluOp(op.alu[k])) {
      return Error(absl::StrFormat("%s/alu/%d", path, k),
                   absl::StrFormat("unknown operator \"%s\"; expected one "
                                   "of %s",
                                   op.alu[k], Join(kAluOps, ", ")));
    }
  }
  if (op.engine_stated && op.engine == Engine::kScalar &&
      !ScalarEngineAlu(op.alu)) {
    return Error(path + "/alu",
                 absl::StrFormat("ScalarE runs a tensor_scalar of multiply "
                                 "then add, multiply, or add only (NKI ISA "
                                 "reference, nki.isa.tensor_scalar), not %s",
                                 absl::StrJoin(op.alu, " then ")));
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckNkiOp(const LoopContext& ctx, size_t j) const {
  const NkiOp& op = ctx.loop->body[j];
  const std::string path = absl::StrFormat("%s/body/%d", ctx.path, j);
  const NkiOpRule* rule = FindNkiOpRule(op.op);
  if (rule == nullptr) {
    std::vector<std::string_view> kinds;
    for (const auto& r : NkiOpRules()) kinds.push_back(r.kind);
    return Error(path + "/op",
                 absl::StrFormat("unknown NKI op \"%s\"; expected one of %s",
                                 op.op, Join(kinds, ", ")));
  }
  const std::string& kind = op.op;
  if (rule->defines_tile && op.id.empty()) {
    return Error(path + "/id", absl::StrFormat("%s defines a tile and "
                                               "needs an id",
                                               A(kind)));
  }
  if (!rule->defines_tile && !op.id.empty() && kind != "loop") {
    return Error(path + "/id", absl::StrFormat("%s defines no tile, so it "
                                               "takes no id",
                                               A(kind)));
  }
  TRN_RETURN_IF_ERROR(CheckEngine(op, *rule, path));
  if (kind == "activation") {
    if (!IsActivationFunc(op.func)) {
      return Error(
          path + "/func",
          absl::StrFormat("%s; expected one of %s",
                          op.func.empty()
                              ? std::string("an activation needs a func")
                              : absl::StrFormat("unknown func \"%s\"", op.func),
                          Join(kActivationFuncs, ", ")));
    }
  } else if (!op.func.empty()) {
    return Error(
        path + "/func",
        absl::StrFormat("only an activation takes a func, not a %s", kind));
  }
  TRN_RETURN_IF_ERROR(CheckAlu(op, path));
  const int n = static_cast<int>(op.inputs.size());
  if (n < rule->min_inputs || n > rule->max_inputs) {
    return Error(
        path + "/inputs",
        absl::StrFormat(
            "%s takes %s, got %d", A(kind),
            ArityText(rule->min_inputs, rule->max_inputs, "input tile"), n));
  }
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const std::string in_path = absl::StrFormat("%s/inputs/%d", path, k);
    TRN_RETURN_IF_ERROR(CheckRef(ctx, in_path, op.inputs[k]));
    if (k < op.input_slots.size() && !op.input_slots[k].empty() &&
        kind != "reduction") {
      TRN_RETURN_IF_ERROR(
          CheckSlot(ctx, in_path, op.inputs[k], op.input_slots[k]));
    }
  }
  if (!op.mask.empty()) {
    TRN_RETURN_IF_ERROR(CheckRef(ctx, path + "/mask", op.mask));
  }
  for (size_t k = 0; k < op.after.size(); ++k) {
    TRN_RETURN_IF_ERROR(
        CheckRef(ctx, absl::StrFormat("%s/after/%d", path, k), op.after[k]));
  }
  TRN_RETURN_IF_ERROR(CheckCarry(ctx, op, path));
  if (!op.indirect.empty()) {
    TRN_RETURN_IF_ERROR(CheckRef(ctx, path + "/indirect", op.indirect));
  }
  if (rule->moves_data) {
    TRN_RETURN_IF_ERROR(CheckMovedTensor(ctx, op, path));
    if (kind == "hbm_copy") TRN_RETURN_IF_ERROR(CheckCopySource(op, path));
  } else if (!op.tensor.empty()) {
    return Error(path + "/tensor",
                 absl::StrFormat("only load, store and hbm_copy name a "
                                 "tensor, not %s",
                                 A(kind)));
  }
  TRN_RETURN_IF_ERROR(CheckTileAndBuffer(op, *rule, path));
  if (op.source_line < 1) {
    return Error(path + "/line",
                 absl::StrFormat("must be the kernel source line the op "
                                 "comes from (>= 1), got %d",
                                 op.source_line));
  }
  if (op.affine_mask && !op.mask.empty()) {
    return Error(path + "/affine_mask",
                 "a load or store is masked by a mask tile (\"mask\") or "
                 "by an affine predicate (\"affine_mask\"), not both");
  }
  TRN_RETURN_IF_ERROR(CheckSlices(ctx, op, path));
  TRN_RETURN_IF_ERROR(CheckBroadcasts(op, path));
  if (rule->moves_data && op.mask.empty() && !op.affine_mask) {
    TRN_RETURN_IF_ERROR(CheckMaskNeed(ctx, op, path));
  }
  if (!rule->moves_data && rule->defines_tile && op.tile.empty() &&
      !ctx.loop->WalksPartitionTiles()) {
    return Error(path + "/tile",
                 absl::StrFormat("the loop steps along dim %d, so there is "
                                 "no default tile; give %s its [partitions, "
                                 "free] tile",
                                 ctx.loop->dim, A(kind)));
  }
  if (op.one_buffer && op.id.empty()) {
    return Error(path + "/one_buffer",
                 "one_buffer says the tile the op defines is one buffer "
                 "for every iteration; a loop without an id defines none");
  }
  if (op.tile_buffers > 0 && op.id.empty()) {
    return Error(path + "/tile_buffers",
                 "tile_buffers says how many buffers the tile the op "
                 "defines has; a loop without an id defines none");
  }
  if (op.tile_buffers > 0 && op.one_buffer) {
    return Error(path + "/tile_buffers",
                 "give one_buffer (one buffer) or tile_buffers (two or "
                 "more), not both");
  }
  if (kind == "reduction") TRN_RETURN_IF_ERROR(CheckReduction(ctx, op, path));
  if (kind == "transpose") TRN_RETURN_IF_ERROR(CheckTranspose(op, path));
  if (kind == "loop") {
    return CheckLoop(op.loop.front(), path, &ctx);
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckEngine(const NkiOp& op, const NkiOpRule& rule,
                                    const std::string& path) const {
  std::vector<std::string_view> names;
  for (Engine e : rule.engines) names.push_back(EngineName(e));
  if (rule.engines.empty()) {
    if (op.engine.has_value()) {
      return Error(path + "/engine",
                   absl::StrFormat("%s is a DMA transfer and runs on no "
                                   "compute engine; remove \"engine\"",
                                   A(op.op)));
    }
    return absl::OkStatus();
  }
  // Left out, the compiler stage places the op (workloads/compiler/).
  if (!op.engine.has_value()) return absl::OkStatus();
  for (Engine e : rule.engines) {
    if (e == *op.engine) return absl::OkStatus();
  }
  return Error(
      path + "/engine",
      absl::StrFormat("%s cannot run on the %s engine; expected "
                      "%s",
                      A(op.op), EngineName(*op.engine), Join(names, " or ")));
}

// VectorE transposes a tile of at most 32 x 32; a larger one runs only
// on the PE array, which writes PSUM (NKI ISA reference, nc_transpose:
// TensorE handles up to [128, 128], VectorE up to [32, 32]). The op's
// tile is the transposed one, so its sides are the input's.
absl::Status Validator::CheckTranspose(const NkiOp& op,
                                       const std::string& path) const {
  constexpr int64_t kVectorTranspose = 32;
  if (op.tile.size() != 2 ||
      (op.tile[0] <= kVectorTranspose && op.tile[1] <= kVectorTranspose)) {
    return absl::OkStatus();
  }
  const std::string shape = ShapeText(op.tile);
  if (op.engine_stated && *op.engine == Engine::kVector) {
    return Error(path + "/engine",
                 absl::StrFormat("VectorE transposes at most [32, 32]; a "
                                 "%s transpose runs on the PE array "
                                 "(\"engine\": \"tensor\", \"buffer\": "
                                 "\"psum\")",
                                 shape));
  }
  if (op.buffer != "psum") {
    return Error(path + "/buffer",
                 absl::StrFormat("a %s transpose runs on the PE array only "
                                 "(VectorE transposes at most [32, 32]), "
                                 "which writes PSUM: give \"buffer\": "
                                 "\"psum\"",
                                 shape));
  }
  return absl::OkStatus();
}

// A reduction names an earlier op of its own body: an accumulate op (an
// activation or tensor_scalar with "accumulate": true), or a block loop
// whose result op is one. Its tile is the reduction's, [partitions, 1].
absl::Status Validator::CheckReduction(const LoopContext& ctx, const NkiOp& op,
                                       const std::string& path) const {
  const std::string& id = op.inputs.front();
  const std::string in_path = path + "/inputs/0";
  auto own = ctx.ids.find(id);
  if (own == ctx.ids.end()) {
    return Error(in_path,
                 absl::StrFormat("a reduction reads an op of its own loop "
                                 "body; \"%s\" is defined in a body "
                                 "around it",
                                 id));
  }
  if (!op.input_slots.empty() && !op.input_slots.front().empty()) {
    return Error(in_path,
                 absl::StrFormat("a reduction names the whole op or block "
                                 "\"%s\", not one of its slots",
                                 id));
  }
  const NkiOp* maker = &ctx.loop->body[own->second];
  if (maker->op == "loop") {
    const NkiLoop& l = maker->loop.front();
    const int r = LoopResultIndex(l);
    const NkiOp* result = r >= 0 ? &l.body[static_cast<size_t>(r)] : nullptr;
    if (result == nullptr || result->op == "loop" ||
        LoopResultOf(l) != LoopResultKind::kBlock) {
      return Error(in_path,
                   absl::StrFormat("\"%s\" is a loop whose id is not a "
                                   "block of one op's tiles; a reduction "
                                   "reads an accumulate op or a block loop "
                                   "whose last op is one",
                                   id));
    }
    maker = result;
  }
  if (!maker->accumulate) {
    return Error(in_path,
                 absl::StrFormat("\"%s\" is %s without \"accumulate\": "
                                 "true, so it makes no reduction",
                                 maker->id, A(maker->op)));
  }
  if (op.tile.size() != 2 || op.tile[1] != 1) {
    return Error(path + "/tile",
                 "a reduction's tile is [partitions, 1] (the op's result "
                 "reduced along its free axis)");
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
