// The validator's checks of one concern (workloads/spec/validator.h):
// Loads, stores and HBM copies: the tensor each moves, its index (which
// block of the tensor), the source of a copy, and the mask a partial
// last tile needs.
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

absl::Status Validator::CheckMovedTensor(const LoopContext& ctx,
                                         const NkiOp& op,
                                         const std::string& path) const {
  const std::string tensor_path = path + "/tensor";
  if (op.tensor.empty()) {
    return Error(tensor_path,
                 absl::StrFormat("%s needs the tensor it %s", A(op.op),
                                 op.op == "load" ? "reads" : "writes"));
  }
  TRN_ASSIGN_OR_RETURN(const TensorDecl* t,
                       TileableTensor(tensor_path, op.tensor, "tensor"));
  if (!op.index.empty()) return CheckIndex(ctx, op, *t, path);
  if (!ctx.loop->WalksPartitionTiles()) {
    return Error(path + "/index",
                 absl::StrFormat("the loop steps along dim %d, so %s needs "
                                 "an \"index\" saying which block of "
                                 "\"%s\" it moves",
                                 ctx.loop->dim, A(op.op), op.tensor));
  }
  if (t->shape[0] != ctx.tensor->shape[0]) {
    return Error(tensor_path,
                 absl::StrFormat("tensor \"%s\" has dim 0 = %d, but the "
                                 "loop tiles dim 0 of \"%s\" = %d; %s "
                                 "must move a tensor with the same dim 0",
                                 op.tensor, t->shape[0], ctx.loop->tensor,
                                 ctx.tensor->shape[0], A(op.op)));
  }
  return absl::OkStatus();
}

// An HBM copy moves the same block of `from` into `tensor`: the two
// tensors are distinct and alike, since a cast or a reshape on the way is
// not modelled.
absl::Status Validator::CheckCopySource(const NkiOp& op,
                                        const std::string& path) const {
  const std::string from_path = path + "/from";
  if (op.from.empty()) {
    return Error(from_path, "an hbm_copy needs the tensor it copies from");
  }
  TRN_ASSIGN_OR_RETURN(const TensorDecl* src,
                       TileableTensor(from_path, op.from, "from"));
  const TensorDecl* dst = FindTensor(op.tensor);
  if (src == dst) {
    return Error(from_path,
                 absl::StrFormat("\"%s\" is also the tensor copied to; an "
                                 "hbm_copy moves a block between two "
                                 "tensors",
                                 op.from));
  }
  if (src->shape != dst->shape || src->dtype != dst->dtype) {
    return Error(from_path,
                 absl::StrFormat("\"%s\" is %s %s but \"%s\" is %s %s; an "
                                 "hbm_copy moves a block between tensors "
                                 "of one shape and dtype",
                                 op.from, DTypeName(src->dtype),
                                 ShapeText(src->shape), op.tensor,
                                 DTypeName(dst->dtype), ShapeText(dst->shape)));
  }
  return absl::OkStatus();
}

// Each index entry takes a dim whole or follows an enclosing loop that
// walks a dim of the same size, so that the loop's tiles are blocks of it.
absl::Status Validator::CheckIndex(const LoopContext& ctx, const NkiOp& op,
                                   const TensorDecl& t,
                                   const std::string& path) const {
  const std::string index_path = path + "/index";
  if (op.index.size() != t.shape.size()) {
    return Error(index_path,
                 absl::StrFormat("tensor \"%s\" has rank %d, so the index "
                                 "needs %d entries, got %d",
                                 op.tensor, t.shape.size(), t.shape.size(),
                                 op.index.size()));
  }
  std::vector<std::string_view> vars;
  for (size_t i = 0; i < ctx.chain.size(); ++i) {
    vars.push_back(ctx.chain[i]->var);
  }
  for (size_t d = 0; d < op.index.size(); ++d) {
    const std::string& entry = op.index[d];
    const std::string entry_path = absl::StrFormat("%s/%d", index_path, d);
    if (entry == kWholeDim) continue;
    if (const auto range = ParseConstRange(entry)) {
      if (range->first >= range->second || range->second > t.shape[d]) {
        return Error(
            entry_path,
            absl::StrFormat("the constant block \"%s\" of dim %d "
                            "of \"%s\" (%d elements) must be "
                            "START:STOP with START < STOP <= %d",
                            entry, d, op.tensor, t.shape[d], t.shape[d]));
      }
      continue;
    }
    const int at = FindLoopVar(ctx.chain, entry);
    if (at < 0) {
      return Error(entry_path,
                   absl::StrFormat("\"%s\" is not the variable of an "
                                   "enclosing loop (%s), \":\" for the "
                                   "whole dim, nor a constant block "
                                   "\"START:STOP\"",
                                   entry, Join(vars, ", ")));
    }
    for (size_t e = 0; e < d; ++e) {
      if (op.index[e] == entry) {
        return Error(entry_path, absl::StrFormat("loop variable \"%s\" already "
                                                 "indexes dim %d",
                                                 entry, e));
      }
    }
    const NkiLoop& l = *ctx.chain[static_cast<size_t>(at)];
    const int64_t walked =
        FindTensor(l.tensor)->shape[static_cast<size_t>(l.dim)];
    // A loop over fewer elements than the dim moves its first tiles (a
    // loop over a prefix of the dim, attention v11's pipelined loop).
    if (walked > t.shape[d] &&
        !IndexesOneElement(spec_, ctx.chain, static_cast<size_t>(at),
                           t.shape[d])) {
      return Error(entry_path,
                   absl::StrFormat("loop \"%s\" walks dim %d of \"%s\" "
                                   "(%d), but dim %d of \"%s\" is %d; a "
                                   "loop indexes a dim of its size, or one "
                                   "of as many elements as it has "
                                   "iterations (one each)",
                                   entry, l.dim, l.tensor, walked, d, op.tensor,
                                   t.shape[d]));
    }
  }
  return absl::OkStatus();
}

// A load or store whose block follows a loop with a partial last tile
// reads or writes past the tensor unless masked.
absl::Status Validator::CheckMaskNeed(const LoopContext& ctx, const NkiOp& op,
                                      const std::string& path) const {
  const TensorDecl* t = FindTensor(op.tensor);
  for (const std::string& var :
       EffectiveIndex(op, *ctx.loop, t->shape.size())) {
    const int at = FindLoopVar(ctx.chain, var);
    if (at < 0 ||
        !LoopHasPartialTile(spec_, ctx.chain, static_cast<size_t>(at))) {
      continue;
    }
    const NkiLoop& l = *ctx.chain[static_cast<size_t>(at)];
    if (&l == ctx.loop && l.WalksPartitionTiles()) {
      return Error(
          path + "/mask",
          absl::StrFormat("the last tile is partial (%d rows, tile "
                          "%d): %s needs a mask",
                          ctx.tensor->shape[0], l.tile_partitions, op.op));
    }
    return Error(
        path + "/mask",
        absl::StrFormat(
            "loop \"%s\" has a partial last tile "
            "(tile %d does not divide %s): %s needs a "
            "mask",
            l.var, l.TileSize(),
            absl::StrJoin(
                LoopExtents(spec_, ctx.chain, static_cast<size_t>(at)), " or "),
            op.op));
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
