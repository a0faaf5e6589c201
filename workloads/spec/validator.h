// The validator's internals, shared by its files (everyone else includes
// workloads/spec/spec_validator.h). `Validator` walks a spec once; its
// checks live in one file per concern, so that a new rule has one home:
//   validate_tensors.cc       the header and the tensors
//   validate_torch_ops.cc     torch modes: ATen ops and their shapes
//   validate_loops.cc         NKI loop nests, ids and references, cycles
//   validate_nki_ops.cc       one NKI op: kind, arity, func, engine
//   validate_data_movement.cc loads, stores, HBM copies: tensor, index, mask
//   validate_tiles.cc         tiles and buffers against the device's limits
// spec_validator.cc holds the entry points, the NKI op table and the
// message helpers below.
#ifndef TRNBENCH_WORKLOADS_SPEC_VALIDATOR_H_
#define TRNBENCH_WORKLOADS_SPEC_VALIDATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "device_model/engine.h"
#include "device_model/memory_limits.h"
#include "support/message_text.h"
#include "support/status_macros.h"
#include "workloads/spec/aten_ops.h"
#include "workloads/spec/nki_loops.h"
#include "workloads/spec/spec.h"
#include "workloads/spec/spec_validator.h"

namespace trn::validator_internal {

inline constexpr std::string_view kMaxElementsText = "2^40 (1099511627776)";

// ^[a-z][a-z0-9_]*$: names and families end up in file names and CLI
// selectors, where case and punctuation cause trouble.
bool IsLowerName(std::string_view s);

// ^[A-Za-z_][A-Za-z0-9_]*$: tensor names, tile ids and loop variables mirror
// Python identifiers in the kernel source.
bool IsIdentifier(std::string_view s);

std::string ShapeText(const std::vector<int64_t>& shape);

// Debian's Abseil has its own string_view, which StrCat and StrJoin do not
// take from std::string_view (StrFormat does); hence this join.
template <typename Range>
std::string Join(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    out.append(item);
    first = false;
  }
  return out;
}

// What each NKI op kind accepts. Arity counts input tiles; the scalar
// operand of tensor_scalar and the bias of activation may be a tile.
struct NkiOpRule {
  std::string_view kind;
  bool defines_tile;
  bool moves_data;  // load/store: a DMA, no compute engine
  std::vector<Engine> engines;
  int min_inputs;
  int max_inputs;
};

const std::vector<NkiOpRule>& NkiOpRules();

const NkiOpRule* FindNkiOpRule(std::string_view kind);

// "a load", "an activation": op kinds read better with their article.
std::string A(std::string_view kind);

std::string CountText(int n, std::string_view noun);

std::string ArityText(int min, int max, std::string_view noun);

class Validator {
 public:
  Validator(const WorkloadSpec& spec, const MemoryLimits& limits)
      : spec_(spec), limits_(limits) {
    if (!spec.file.empty()) {
      label_ = spec.file;
    } else if (!spec.name.empty()) {
      label_ = spec.name;
    } else {
      label_ = "<spec>";
    }
    for (const TensorDecl& t : spec.tensors) tensors_.emplace(t.name, &t);
  }

  absl::Status Run() const {
    TRN_RETURN_IF_ERROR(CheckHeader());
    TRN_RETURN_IF_ERROR(CheckTensors());
    if (spec_.mode == ExecMode::kNki) return CheckKernel();
    return CheckTorchOps();
  }

 private:
  absl::Status Error(std::string_view path, std::string_view what) const {
    // Escaped: `what` may quote the spec's names, which are checked here.
    return absl::InvalidArgumentError(EscapeControl(absl::StrFormat(
        "%s: %s: %s", label_, path.empty() ? "/" : path, what)));
  }

  // A loop body being checked, with the bodies that enclose it: ids of an
  // enclosing body are visible inside, as in the kernel source.
  struct LoopContext {
    const NkiLoop* loop;
    const TensorDecl* tensor;
    std::string path;
    std::map<std::string, size_t, std::less<>> ids;
    // The results of the body's nested loops (NkiLoop::results): each id,
    // read after its loop, and the index of that loop's op in the body.
    std::map<std::string, size_t, std::less<>> results;
    bool partial;
    const LoopContext* parent = nullptr;
    LoopChain chain;  // outermost first, ending with `loop`
  };

  // WorkloadSpec::FindTensor scans; a 1 MiB spec can hold thousands of
  // tensors and ops, so the validator looks names up here instead.
  const TensorDecl* FindTensor(std::string_view name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : it->second;
  }

  // validate_tensors.cc
  absl::Status CheckHeader() const;
  absl::Status CheckTensors() const;
  absl::Status CheckDeclared(std::string_view path, std::string_view name,
                             std::string_view role) const;

  // validate_torch_ops.cc
  absl::Status CheckTorchOps() const;
  absl::Status CheckTorchOp(
      size_t j,
      const std::map<std::string, size_t, std::less<>>& producer) const;
  absl::Status CheckTorchShapes(const TorchOp& op, const AtenOpInfo& info,
                                const std::string& path) const;

  // validate_loops.cc
  absl::Status CheckKernel() const;
  absl::StatusOr<const TensorDecl*> TileableTensor(std::string_view path,
                                                   std::string_view name,
                                                   std::string_view role) const;
  static const LoopContext* Definer(const LoopContext& ctx, std::string_view id,
                                    bool results = true);
  static const NkiOp& DefiningOp(const LoopContext& def, std::string_view id,
                                 LoopChain& chain);
  absl::Status CheckLoop(const NkiLoop& loop, std::string path,
                         const LoopContext* parent) const;
  absl::Status CollectResults(LoopContext& ctx) const;
  absl::Status CheckRef(const LoopContext& ctx, std::string_view path,
                        std::string_view id) const;
  absl::Status CheckSlot(const LoopContext& ctx, const std::string& path,
                         const std::string& id,
                         const std::vector<std::string>& vars) const;
  absl::Status CheckCarry(const LoopContext& ctx, const NkiOp& op,
                          const std::string& path) const;
  absl::Status CheckCycles(const LoopContext& ctx) const;

  // validate_nki_ops.cc
  absl::Status CheckNkiOp(const LoopContext& ctx, size_t j) const;
  absl::Status CheckEngine(const NkiOp& op, const NkiOpRule& rule,
                           const std::string& path) const;
  absl::Status CheckTranspose(const NkiOp& op, const std::string& path) const;
  absl::Status CheckAlu(const NkiOp& op, const std::string& path) const;
  absl::Status CheckReduction(const LoopContext& ctx, const NkiOp& op,
                              const std::string& path) const;

  // validate_data_movement.cc
  absl::Status CheckMovedTensor(const LoopContext& ctx, const NkiOp& op,
                                const std::string& path) const;
  absl::Status CheckCopySource(const NkiOp& op, const std::string& path) const;
  absl::Status CheckIndex(const LoopContext& ctx, const NkiOp& op,
                          const TensorDecl& t, const std::string& path) const;
  absl::Status CheckMaskNeed(const LoopContext& ctx, const NkiOp& op,
                             const std::string& path) const;

  // validate_tiles.cc
  absl::Status CheckTileAndBuffer(const NkiOp& op, const NkiOpRule& rule,
                                  const std::string& path) const;
  absl::Status CheckSlices(const LoopContext& ctx, const NkiOp& op,
                           const std::string& path) const;
  absl::Status CheckBroadcasts(const NkiOp& op, const std::string& path) const;

  const WorkloadSpec& spec_;
  const MemoryLimits& limits_;
  std::string label_;
  std::map<std::string, const TensorDecl*, std::less<>> tensors_;
};

}  // namespace trn::validator_internal

#endif  // TRNBENCH_WORKLOADS_SPEC_VALIDATOR_H_
