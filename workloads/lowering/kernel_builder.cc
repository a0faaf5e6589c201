// Lowering's instruction builder (workloads/lowering/kernel_builder.h).
#include "workloads/lowering/kernel_builder.h"

#include "absl/strings/str_cat.h"
#include "workloads/lowering/lowering.h"

namespace trn::lowering_internal {

void AppendMany(Deps& to, const Deps& from) {
  to.reserve(to.size() + from.size());
  for (const uint32_t id : from) to.push_back(id);
}

absl::Status TooManyInstructions(const WorkloadSpec& spec) {
  return absl::InvalidArgumentError(
      absl::StrCat(spec.file, ": the program lowers to more than ",
                   kMaxInstructions, " instructions; use a smaller shape"));
}

}  // namespace trn::lowering_internal
