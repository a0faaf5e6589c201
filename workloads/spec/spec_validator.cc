#include "workloads/spec/spec_validator.h"

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

namespace trn {
namespace validator_internal {
namespace {

// Byte counts are products of user-supplied numbers; saturating keeps a
// silly spec an "over the limit" error instead of a wrapped small number.
int64_t SatMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::numeric_limits<int64_t>::max();
  }
  return r;
}

bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// ResolveNkiTile with the tensors already looked up (either may be null).
NkiTile ResolveTile(const NkiLoop& loop, const NkiOp& op,
                    const TensorDecl* loop_tensor,
                    const TensorDecl* load_tensor) {
  const TensorDecl* source = load_tensor != nullptr ? load_tensor : loop_tensor;
  NkiTile tile;
  if (op.tile.size() == 2) {
    tile.partitions = op.tile[0];
    tile.free = op.tile[1];
  } else {
    tile.partitions = loop.tile_partitions;
    tile.free = source != nullptr ? FreeSize(*source) : 1;
  }
  if (op.dtype.has_value()) {
    tile.dtype = *op.dtype;
  } else if (source != nullptr) {
    tile.dtype = source->dtype;
  }
  return tile;
}

}  // namespace

// ^[a-z][a-z0-9_]*$: names and families end up in file names and CLI
// selectors, where case and punctuation cause trouble.
bool IsLowerName(std::string_view s) {
  if (s.empty() || !IsLower(s[0])) return false;
  for (char c : s) {
    if (!IsLower(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

// ^[A-Za-z_][A-Za-z0-9_]*$: tensor names, tile ids and loop variables mirror
// Python identifiers in the kernel source.
bool IsIdentifier(std::string_view s) {
  if (s.empty() || IsDigit(s[0])) return false;
  for (char c : s) {
    if (!IsLower(c) && !IsUpper(c) && !IsDigit(c) && c != '_') return false;
  }
  return true;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  // Real shapes have a handful of dims; a file with thousands should not
  // produce a message as long as itself.
  constexpr size_t kMaxShown = 8;
  if (shape.size() <= kMaxShown) {
    return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
  }
  const std::vector<int64_t> head(shape.begin(), shape.begin() + kMaxShown);
  return absl::StrFormat("[%s, ... (%d dims)]", absl::StrJoin(head, ", "),
                         shape.size());
}

const std::vector<NkiOpRule>& NkiOpRules() {
  using E = Engine;
  static const auto* rules = new std::vector<NkiOpRule>{
      {"load", true, true, {}, 0, 0},
      {"store", false, true, {}, 1, 1},
      {"iota", true, false, {E::kGpSimd}, 0, 0},
      // The engines of the NKI ISA reference (SDK 2.26) for each
      // instruction: tensor_scalar "using Vector or Scalar or GpSimd
      // Engine", memset "using Vector or GpSimd Engine".
      {"tensor_scalar",
       true,
       false,
       {E::kVector, E::kScalar, E::kGpSimd},
       1,
       2},
      {"tensor_tensor", true, false, {E::kVector, E::kGpSimd}, 2, 2},
      {"tensor_reduce", true, false, {E::kVector, E::kGpSimd}, 1, 1},
      {"tensor_copy", true, false, {E::kVector, E::kGpSimd, E::kScalar}, 1, 1},
      {"activation", true, false, {E::kScalar}, 1, 2},
      {"matmul", true, false, {E::kTensor}, 2, 2},
      // data0, data1 and optionally the initial state tile.
      {"tensor_tensor_scan", true, false, {E::kVector}, 2, 3},
      {"bn_stats", true, false, {E::kVector}, 1, 1},
      {"bn_aggr", true, false, {E::kVector}, 1, 1},
      {"reciprocal", true, false, {E::kVector, E::kGpSimd}, 1, 1},
      {"transpose", true, false, {E::kTensor, E::kVector}, 1, 1},
      {"memset", true, false, {E::kVector, E::kGpSimd}, 0, 0},
      // predicate, on-true and on-false tiles.
      {"select", true, false, {E::kVector, E::kGpSimd}, 3, 3},
      {"affine_select", true, false, {E::kGpSimd}, 1, 1},
      // DMA from one device tensor to another (`from` to `tensor`).
      {"hbm_copy", false, true, {}, 0, 0},
      // DMA from one SBUF tile to another (nki.isa.dma_copy or
      // dma_transpose with both sides on chip): no compute engine, and no
      // tensor, so none of a load's tensor checks.
      {"sbuf_copy", true, false, {}, 1, 1},
      // A nested loop; its optional id names it for ops that wait for it.
      {"loop", false, false, {}, 0, 0},
      // The second output of an accumulate op (its free-axis reduction,
      // NKI's reduce_res), or of a block loop of them the block of those:
      // no instruction of its own, so no engine.
      {"reduction", true, false, {}, 1, 1},
  };
  return *rules;
}

const NkiOpRule* FindNkiOpRule(std::string_view kind) {
  for (const auto& r : NkiOpRules()) {
    if (r.kind == kind) return &r;
  }
  return nullptr;
}

// "a load", "an activation": op kinds read better with their article.
std::string A(std::string_view kind) {
  const bool vowel = !kind.empty() && std::string_view("aeiou").find(kind[0]) !=
                                          std::string_view::npos;
  return absl::StrFormat("%s %s", vowel ? "an" : "a", kind);
}

std::string CountText(int n, std::string_view noun) {
  return absl::StrFormat("%d %s%s", n, noun, n == 1 ? "" : "s");
}

std::string ArityText(int min, int max, std::string_view noun) {
  if (min == max) return CountText(min, noun);
  return absl::StrFormat("%d to %s", min, CountText(max, noun));
}

}  // namespace validator_internal

using validator_internal::FindNkiOpRule;
using validator_internal::NkiOpRule;
using validator_internal::ResolveTile;
using validator_internal::SatMul;
using validator_internal::Validator;

bool IsNkiOpKind(std::string_view op) { return FindNkiOpRule(op) != nullptr; }

int64_t FreeSize(const TensorDecl& tensor) {
  int64_t free = 1;
  for (size_t d = 1; d < tensor.shape.size(); ++d) {
    free = SatMul(free, tensor.shape[d]);
  }
  return free;
}

NkiTile ResolveNkiTile(const WorkloadSpec& spec, const NkiLoop& loop,
                       const NkiOp& op) {
  return ResolveTile(loop, op, spec.FindTensor(loop.tensor),
                     op.op == "load" ? spec.FindTensor(op.tensor) : nullptr);
}

absl::Status ValidateSpec(const WorkloadSpec& spec,
                          const MemoryLimits& limits) {
  return Validator(spec, limits).Run();
}

std::vector<Engine> NkiOpEngines(std::string_view op) {
  const NkiOpRule* rule = FindNkiOpRule(op);
  return rule == nullptr ? std::vector<Engine>{} : rule->engines;
}

bool ScalarEngineAlu(const std::vector<std::string>& alu) {
  if (alu.size() == 1) return alu[0] == "multiply" || alu[0] == "add";
  return alu.size() == 2 && alu[0] == "multiply" && alu[1] == "add";
}

bool ScalarEngineMultiplyAdd(const std::vector<std::string>& alu) {
  if (alu.empty()) return false;
  for (const std::string& a : alu) {
    if (a != "multiply" && a != "add" && a != "subtract") return false;
  }
  return true;
}

bool NkiOpDefinesTile(std::string_view op) {
  const NkiOpRule* rule = FindNkiOpRule(op);
  return rule != nullptr && rule->defines_tile;
}

}  // namespace trn
