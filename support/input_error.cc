#include "support/input_error.h"

#include "absl/strings/str_format.h"
#include "support/message_text.h"
#include "support/strict_json.h"

namespace trn {

absl::Status InputError(std::string_view file, std::string_view pointer,
                        std::string_view what) {
  return absl::InvalidArgumentError(EscapeControl(absl::StrFormat(
      "%s: %s: %s", file, pointer.empty() ? "/" : pointer, what)));
}

std::string JsonChild(std::string_view pointer, std::string_view key) {
  return absl::StrFormat("%s/%s", pointer, EscapeJsonPointerToken(key));
}

std::string JsonChild(std::string_view pointer, size_t index) {
  return absl::StrFormat("%s/%d", pointer, index);
}

}  // namespace trn
