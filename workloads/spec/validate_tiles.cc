// The validator's checks of one concern (workloads/spec/validator.h):
// Tiles and on-chip buffers against the device's limits: a tile's
// partitions and free size, its buffer (SBUF or PSUM), and the slices and
// broadcasts of an op's inputs (the live set is the compiler's to check).
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

absl::Status Validator::CheckTileAndBuffer(const NkiOp& op,
                                           const NkiOpRule& rule,
                                           const std::string& path) const {
  if (!rule.defines_tile) {
    if (!op.tile.empty() || op.dtype.has_value() || op.buffer != "sbuf") {
      return Error(path, absl::StrFormat("%s defines no tile, so it takes "
                                         "no tile, dtype or buffer",
                                         A(op.op)));
    }
    return absl::OkStatus();
  }
  if (!op.tile.empty()) {
    if (op.tile.size() != 2) {
      return Error(path + "/tile",
                   absl::StrFormat("a tile is [partitions, free], got %s",
                                   ShapeText(op.tile)));
    }
    if (op.tile[0] < 1 || op.tile[0] > limits_.partitions) {
      return Error(path + "/tile/0",
                   absl::StrFormat("tile %s has %d partitions; SBUF has "
                                   "%d, so a tile spans 1 to %d",
                                   ShapeText(op.tile), op.tile[0],
                                   limits_.partitions, limits_.partitions));
    }
    if (op.tile[1] < 1 || op.tile[1] > kMaxTensorElements) {
      return Error(path + "/tile/1",
                   absl::StrFormat("the free size must be between 1 and %s, "
                                   "got %d",
                                   kMaxElementsText, op.tile[1]));
    }
  }
  if (op.buffer != "sbuf" && op.buffer != "psum") {
    return Error(path + "/buffer",
                 absl::StrFormat("unknown buffer \"%s\"; expected sbuf or "
                                 "psum",
                                 op.buffer));
  }
  if ((op.op == "load" || op.op == "sbuf_copy") && op.buffer != "sbuf") {
    return Error(path + "/buffer",
                 absl::StrFormat("%s writes its tile to sbuf", A(op.op)));
  }
  if (op.op == "transpose" && op.engine == Engine::kTensor &&
      op.buffer != "psum") {
    return Error(path + "/buffer",
                 absl::StrFormat("the Tensor engine writes a transpose to "
                                 "PSUM; set \"buffer\": \"psum\" (got "
                                 "\"%s\")",
                                 op.buffer));
  }
  if (op.op == "matmul" && op.buffer != "psum") {
    return Error(path + "/buffer",
                 absl::StrFormat("the Tensor engine writes matmul results "
                                 "to PSUM; set \"buffer\": \"psum\" (got "
                                 "\"%s\")",
                                 op.buffer));
  }
  return absl::OkStatus();
}

// "slices": one per input; each part fits the device's partitions.
absl::Status Validator::CheckSlices(const LoopContext& ctx, const NkiOp& op,
                                    const std::string& path) const {
  (void)ctx;
  if (op.slices.empty()) return absl::OkStatus();
  if (op.slices.size() != op.inputs.size()) {
    return Error(path + "/slices",
                 absl::StrFormat("has %d entries; expected one per input "
                                 "(%d), null for a whole tile",
                                 op.slices.size(), op.inputs.size()));
  }
  for (size_t k = 0; k < op.slices.size(); ++k) {
    if (op.slices[k].empty()) continue;
    if (op.slices[k][0] > limits_.partitions) {
      return Error(absl::StrFormat("%s/slices/%d", path, k),
                   absl::StrFormat("a slice of %d partitions; SBUF has %d",
                                   op.slices[k][0], limits_.partitions));
    }
  }
  return absl::OkStatus();
}

// "broadcasts": one per input, each 0 (null) or 1 to the partitions; the
// shapes are the compiler stage's to check (compiler/broadcasts.h).
absl::Status Validator::CheckBroadcasts(const NkiOp& op,
                                        const std::string& path) const {
  if (op.broadcasts.empty()) return absl::OkStatus();
  if (op.broadcasts.size() != op.inputs.size()) {
    return Error(path + "/broadcasts",
                 absl::StrFormat("has %d entries; expected one per input "
                                 "(%d), null for an input not broadcast",
                                 op.broadcasts.size(), op.inputs.size()));
  }
  for (size_t k = 0; k < op.broadcasts.size(); ++k) {
    const std::string at = absl::StrFormat("%s/broadcasts/%d", path, k);
    if (op.broadcasts[k] > limits_.partitions) {
      return Error(at, absl::StrFormat("a broadcast to %d partitions; SBUF "
                                       "has %d",
                                       op.broadcasts[k], limits_.partitions));
    }
    if (op.broadcasts[k] > 0 && k < op.slices.size() && !op.slices[k].empty()) {
      return Error(at, "an input is broadcast or read by a slice, not both");
    }
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
