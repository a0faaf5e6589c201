#include "harness/unit_text.h"

#include "absl/strings/str_format.h"

namespace trn {

std::string BytesText(double b) {
  if (b >= 1 << 30) return absl::StrFormat("%.2f GiB", b / (1 << 30));
  if (b >= 1 << 20) return absl::StrFormat("%.2f MiB", b / (1 << 20));
  if (b >= 1 << 10) return absl::StrFormat("%.1f KiB", b / (1 << 10));
  return absl::StrFormat("%.0f B", b);
}

}  // namespace trn
