// Lowering's instruction builder (workloads/lowering/kernel_builder.h).
#include "workloads/lowering/kernel_builder.h"

#include "absl/strings/str_cat.h"
#include "workloads/lowering/lowering.h"

namespace trn::lowering_internal {

absl::Status CheckSize(const WorkloadSpec& spec, size_t n) {
  if (static_cast<int64_t>(n) > kMaxInstructions) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.file, ": the program lowers to more than ",
                     kMaxInstructions, " instructions; use a smaller shape"));
  }
  return absl::OkStatus();
}

}  // namespace trn::lowering_internal
