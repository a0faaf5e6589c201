// The validator's checks of one concern (workloads/spec/validator.h):
// The spec's header and its tensors: names, declared once, shapes within
// the element limit; and the check that a name is declared.
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

absl::Status Validator::CheckHeader() const {
  if (spec_.schema_version != kSpecSchemaVersion) {
    return Error("/schema_version",
                 absl::StrFormat("unsupported schema_version %d; this "
                                 "trnbench reads %d",
                                 spec_.schema_version, kSpecSchemaVersion));
  }
  if (!IsLowerName(spec_.name)) {
    return Error("/name", absl::StrFormat("name \"%s\" must match "
                                          "^[a-z][a-z0-9_]*$",
                                          spec_.name));
  }
  if (!IsLowerName(spec_.family)) {
    return Error("/family", absl::StrFormat("family \"%s\" must match "
                                            "^[a-z][a-z0-9_]*$",
                                            spec_.family));
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckTensors() const {
  if (spec_.tensors.empty()) {
    return Error("/tensors", "a spec needs at least one tensor");
  }
  std::map<std::string, size_t, std::less<>> seen;
  for (size_t i = 0; i < spec_.tensors.size(); ++i) {
    const TensorDecl& t = spec_.tensors[i];
    const std::string path = absl::StrFormat("/tensors/%d", i);
    if (!IsIdentifier(t.name)) {
      return Error(path + "/name",
                   absl::StrFormat("tensor name \"%s\" must match "
                                   "^[A-Za-z_][A-Za-z0-9_]*$",
                                   t.name));
    }
    auto [it, inserted] = seen.emplace(t.name, i);
    if (!inserted) {
      return Error(path + "/name",
                   absl::StrFormat("tensor \"%s\" is declared twice (first "
                                   "at /tensors/%d); tensor names are "
                                   "unique",
                                   t.name, it->second));
    }
    int64_t elements = 1;
    bool overflow = false;
    for (size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 1 || t.shape[d] > kMaxTensorElements) {
        return Error(absl::StrFormat("%s/shape/%d", path, d),
                     absl::StrFormat("a dim must be a positive integer no "
                                     "larger than %s, got %d",
                                     kMaxElementsText, t.shape[d]));
      }
      overflow =
          overflow || __builtin_mul_overflow(elements, t.shape[d], &elements);
    }
    if (overflow) {
      return Error(path + "/shape",
                   absl::StrFormat("the element count of %s overflows "
                                   "int64; a tensor may have at most %s "
                                   "elements",
                                   ShapeText(t.shape), kMaxElementsText));
    }
    if (elements > kMaxTensorElements) {
      return Error(
          path + "/shape",
          absl::StrFormat("%s has %d elements; a tensor may have "
                          "at most %s elements",
                          ShapeText(t.shape), elements, kMaxElementsText));
    }
  }
  return absl::OkStatus();
}

absl::Status Validator::CheckDeclared(std::string_view path,
                                      std::string_view name,
                                      std::string_view role) const {
  if (FindTensor(name) == nullptr) {
    return Error(path, absl::StrFormat("%s \"%s\" is not declared in "
                                       "/tensors",
                                       role, name));
  }
  return absl::OkStatus();
}

}  // namespace trn::validator_internal
