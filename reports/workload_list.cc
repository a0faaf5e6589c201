#include "reports/workload_list.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"
#include "device_model/exec_mode.h"

namespace trn {

std::string FirstSentence(std::string_view text, size_t max_bytes) {
  if (const size_t end = text.find(". "); end != std::string_view::npos) {
    text = text.substr(0, end + 1);
  }
  if (text.size() <= max_bytes) return std::string(text);
  constexpr std::string_view kEllipsis = "...";
  const size_t room = max_bytes > kEllipsis.size() ? max_bytes - 3 : 0;
  // A space is never inside a UTF-8 sequence, so cutting there is safe.
  size_t cut = text.substr(0, room + 1).rfind(' ');
  if (cut == std::string_view::npos || cut == 0) {
    cut = room;
    // Without a space, back up to the start of a UTF-8 character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
      --cut;
    }
  }
  return absl::StrFormat("%s%s", text.substr(0, cut), kEllipsis);
}

std::string RenderWorkloadList(std::span<const WorkloadSpec> specs,
                               size_t width) {
  size_t name_width = 0;
  size_t mode_width = 0;
  for (const WorkloadSpec& s : specs) {
    name_width = std::max(name_width, s.name.size());
    mode_width = std::max(mode_width, ExecModeName(s.mode).size());
  }
  const size_t used = 2 + name_width + 2 + mode_width + 2;
  // However long the names, leave a readable summary.
  const size_t room = width > used + 40 ? width - used : 40;
  std::string out;
  std::string family;
  for (const WorkloadSpec& s : specs) {
    if (s.family != family || out.empty()) {
      // A blank line between families, none before the first.
      absl::StrAppendFormat(&out, "%sfamily %s\n", out.empty() ? "" : "\n",
                            s.family);
      family = s.family;
    }
    absl::StrAppendFormat(&out, "  %-*s  %-*s  %s\n",
                          static_cast<int>(name_width), s.name,
                          static_cast<int>(mode_width), ExecModeName(s.mode),
                          FirstSentence(s.description, room));
  }
  out += "\nRun one with: trnbench --workload NAME (or a family, or all)\n";
  return out;
}

}  // namespace trn
