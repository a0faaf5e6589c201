// The validator's checks of one concern (workloads/spec/validator.h):
// Torch modes (eager, fused_op, compiled): each ATen op's name, arity,
// inputs produced before use, one producer per tensor, and its output
// shape by the op's shape rule.
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

// numpy broadcasting; nullopt (and `why`) when the shapes are incompatible.
std::optional<std::vector<int64_t>> Broadcast(const std::vector<int64_t>& a,
                                              const std::vector<int64_t>& b,
                                              std::string* why) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      *why = absl::StrFormat(
          "dim -%d is %d in one and %d in the other, and "
          "neither is 1",
          i + 1, da, db);
      return std::nullopt;
    }
    out[rank - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace

absl::Status Validator::CheckTorchOps() const {
  const std::string_view mode = ExecModeName(spec_.mode);
  if (spec_.kernel.has_value()) {
    return Error("/kernel",
                 absl::StrFormat("mode \"%s\" takes \"ops\"; \"kernel\" is "
                                 "only for mode \"nki\"",
                                 mode));
  }
  if (spec_.ops.empty()) {
    return Error("/ops",
                 absl::StrFormat("mode \"%s\" needs at least one op", mode));
  }
  if (spec_.mode == ExecMode::kFusedOp && spec_.ops.size() != 1) {
    return Error("/ops", absl::StrFormat("mode \"fused_op\" runs exactly "
                                         "one op, got %d",
                                         spec_.ops.size()));
  }
  // The first producer of each tensor, so that a read of a tensor made by
  // a later op is told apart from a read of a spec input.
  std::map<std::string, size_t, std::less<>> producer;
  for (size_t j = 0; j < spec_.ops.size(); ++j) {
    producer.emplace(spec_.ops[j].output, j);
  }
  for (size_t j = 0; j < spec_.ops.size(); ++j) {
    TRN_RETURN_IF_ERROR(CheckTorchOp(j, producer));
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckTorchOp(
    size_t j,
    const std::map<std::string, size_t, std::less<>>& producer) const {
  const TorchOp& op = spec_.ops[j];
  const std::string path = absl::StrFormat("/ops/%d", j);
  const AtenOpInfo* info = FindAtenOp(op.op);
  if (info == nullptr) {
    std::vector<std::string_view> names;
    for (const auto& o : AllAtenOps()) names.push_back(o.name);
    return Error(path + "/op",
                 absl::StrFormat("unknown op \"%s\"; supported ops: %s", op.op,
                                 Join(names, ", ")));
  }
  const int n = static_cast<int>(op.inputs.size());
  if (n < info->min_inputs || n > info->max_inputs) {
    return Error(
        path + "/inputs",
        absl::StrFormat("%s takes %s, got %d", op.op,
                        ArityText(info->min_inputs, info->max_inputs, "input"),
                        n));
  }
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const std::string in_path = absl::StrFormat("%s/inputs/%d", path, k);
    TRN_RETURN_IF_ERROR(CheckDeclared(in_path, op.inputs[k], "input"));
    auto it = producer.find(op.inputs[k]);
    if (it != producer.end() && it->second >= j) {
      return Error(in_path,
                   absl::StrFormat("tensor \"%s\" is used before it is "
                                   "produced (by /ops/%d); an input must "
                                   "be a spec input or the output of an "
                                   "earlier op",
                                   op.inputs[k], it->second));
    }
  }
  TRN_RETURN_IF_ERROR(CheckDeclared(path + "/output", op.output, "output"));
  const TensorDecl& out = *FindTensor(op.output);
  if (out.placement != Placement::kDevice) {
    return Error(path + "/output",
                 absl::StrFormat("output \"%s\" has placement host; ops "
                                 "write device tensors",
                                 op.output));
  }
  const size_t first = producer.find(op.output)->second;
  if (first != j) {
    return Error(path + "/output",
                 absl::StrFormat("tensor \"%s\" is produced twice (first "
                                 "by /ops/%d); each tensor is produced at "
                                 "most once",
                                 op.output, first));
  }
  return CheckTorchShapes(op, *info, path);
}

absl::Status Validator::CheckTorchShapes(const TorchOp& op,
                                         const AtenOpInfo& info,
                                         const std::string& path) const {
  std::vector<const std::vector<int64_t>*> in;
  for (const auto& name : op.inputs) {
    in.push_back(&FindTensor(name)->shape);
  }
  const std::vector<int64_t>& out = FindTensor(op.output)->shape;
  std::vector<int64_t> expected;
  switch (info.rule) {
    case ShapeRule::kElementwise: {
      expected = *in[0];
      for (size_t k = 1; k < in.size(); ++k) {
        std::string why;
        auto b = Broadcast(expected, *in[k], &why);
        if (!b.has_value()) {
          return Error(path + "/inputs",
                       absl::StrFormat("%s: input shapes %s and %s do not "
                                       "broadcast: %s",
                                       op.op, ShapeText(expected),
                                       ShapeText(*in[k]), why));
        }
        expected = *std::move(b);
      }
      break;
    }
    case ShapeRule::kReduceLast:
      if (in[0]->empty()) {
        return Error(path + "/inputs/0",
                     absl::StrFormat("%s reduces the last dim, so its input "
                                     "needs rank >= 1; \"%s\" is 0-d",
                                     op.op, op.inputs[0]));
      }
      expected = *in[0];
      expected.back() = 1;
      break;
    case ShapeRule::kSameAsFirst:
      expected = *in[0];
      break;
    case ShapeRule::kMatmul:
    case ShapeRule::kLinear:
    case ShapeRule::kEmbedding:
    case ShapeRule::kView: {
      std::vector<std::vector<int64_t>> shapes;
      for (const auto* s : in) shapes.push_back(*s);
      std::string why;
      auto shape = AtenOutputShape(info, shapes, out, &why);
      if (!shape.has_value()) {
        return Error(
            info.rule == ShapeRule::kView ? path + "/output" : path + "/inputs",
            why);
      }
      expected = *std::move(shape);
      break;
    }
  }
  if (expected != out) {
    std::vector<std::string> in_text;
    for (const auto* s : in) in_text.push_back(ShapeText(*s));
    return Error(
        path + "/output",
        absl::StrFormat("%s of %s gives %s, but output \"%s\" is "
                        "declared %s",
                        op.op, Join(in_text, ", "), ShapeText(expected),
                        op.output, ShapeText(out)));
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
