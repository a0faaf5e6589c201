// Lowering's instruction builder (workloads/lowering/kernel_builder.h).
#include "workloads/lowering/kernel_builder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "workloads/lowering/lowering.h"

namespace trn::lowering_internal {

void AppendMany(Deps& to, const Deps& from) {
  to.Add(from.data(), from.size());
}

void Deps::GrowAndAdd(const uint32_t* ids, size_t n) {
  const size_t room =
      std::max<size_t>(size_ + n, 2 * static_cast<size_t>(capacity_));
  auto* to = new uint32_t[room];
  std::copy(data_, data_ + size_, to);
  if (ids != nullptr) {
    std::copy(ids, ids + n, to + size_);
    size_ += static_cast<uint32_t>(n);
  }
  Free();
  data_ = to;
  capacity_ = static_cast<uint32_t>(room);
}

absl::Status TooManyInstructions(const WorkloadSpec& spec) {
  return absl::InvalidArgumentError(
      absl::StrCat(spec.file, ": the program lowers to more than ",
                   kMaxInstructions, " instructions; use a smaller shape"));
}

}  // namespace trn::lowering_internal
