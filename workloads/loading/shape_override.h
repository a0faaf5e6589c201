// --shape: run a spec at other tensor shapes, one at a time or as a sweep.
#ifndef TRNBENCH_WORKLOADS_LOADING_SHAPE_OVERRIDE_H_
#define TRNBENCH_WORKLOADS_LOADING_SHAPE_OVERRIDE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "device_model/memory_limits.h"
#include "workloads/spec/spec.h"

namespace trn {

// TENSOR[,TENSOR...]=DIMS[,DIMS...], DIMS like 250x512: every named tensor
// takes each shape in turn. Several names share one list because a kernel's
// input and output usually change together.
struct ShapeOverride {
  std::string text;  // as given
  std::vector<std::string> tensors;
  std::vector<std::vector<int64_t>> shapes;  // the sweep, in order
};

// Errors start with the override's text ("x=1x2: ..."); the caller says
// where it came from (the tool adds "--shape ", validation the spec's
// JSON pointer).
absl::StatusOr<ShapeOverride> ParseShapeOverride(std::string_view text);

// The text of one sweep point of `o`, e.g. "in_tensor,out_tensor=1024x512".
std::string ShapePointText(const ShapeOverride& o, size_t point);

// Makes `spec` again at one sweep point, for a spec whose shapes do not
// change alone: a spec traced from an NKI kernel is traced again there, so
// that the kernel's own shape arithmetic and asserts run at the point
// (tools/trnbench/kernel_source.h, docs/nki-source.md). `point` holds the
// point's texts, one per override that applies ("lhsT,rhs=4096x4096").
// nullopt: not such a spec, its tensors take the shapes as they are.
using RemakeAtPoint = std::function<absl::StatusOr<std::optional<WorkloadSpec>>(
    const WorkloadSpec& spec, const std::vector<std::string>& point,
    const MemoryLimits& limits)>;

// Expands each spec into one spec per sweep point of the overrides that
// apply to it (those naming tensors it declares), in place and in order;
// a spec no override applies to is kept as it is. Overrides that apply to
// one spec sweep together, point by point, so their lists have one length
// (or one shape, which every point uses). Each point is renamed
// `<name>[<point>;<point>...]`, its content hash covers the change, and it
// is validated again. In torch modes, op outputs whose shapes are not given
// follow their inputs by the ops' shape rules. A spec `remake` makes again
// is the remade one at each point, and each tensor an override names must
// come out with the override's dims as its last dims (a traced kernel
// makes its outputs itself: one it makes at other dims is an error).
absl::StatusOr<std::vector<WorkloadSpec>> ApplyShapeOverrides(
    const std::vector<WorkloadSpec>& specs,
    const std::vector<ShapeOverride>& overrides, const MemoryLimits& limits,
    const RemakeAtPoint& remake = nullptr);

// The name of the spec a point was made from: `name` up to its "[point]".
// A point's name deliberately breaks the spec-name pattern, so code that
// validates a point again validates it under this name.
std::string SpecNameOfPoint(const std::string& name);

}  // namespace trn

#endif  // TRNBENCH_WORKLOADS_LOADING_SHAPE_OVERRIDE_H_
