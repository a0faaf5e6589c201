#include "support/message_text.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/strings/str_format.h"

namespace trn {
namespace {

bool IsContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The largest position <= `pos` that does not split a UTF-8 character.
size_t BackToBoundary(std::string_view s, size_t pos) {
  while (pos > 0 && pos < s.size() && IsContinuationByte(s[pos])) --pos;
  return pos;
}

// The smallest position >= `pos` that does not split a UTF-8 character.
size_t ForwardToBoundary(std::string_view s, size_t pos) {
  while (pos < s.size() && IsContinuationByte(s[pos])) ++pos;
  return pos;
}

// `s` as head ... tail, where the marker says how many bytes are left out.
std::string Elide(std::string_view s, size_t head, size_t tail) {
  if (s.size() <= head + tail) return std::string(s);
  const size_t head_end = BackToBoundary(s, head);
  const size_t tail_begin = ForwardToBoundary(s, s.size() - tail);
  return absl::StrFormat("%s...[%d bytes]...%s", s.substr(0, head_end),
                         tail_begin - head_end, s.substr(tail_begin));
}

}  // namespace

std::string EscapeControl(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u != 0x7f) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else {
      out += absl::StrFormat("\\u%04x", u);
    }
  }
  return out;
}

std::string ShortenForTerminal(std::string_view line) {
  const std::string escaped = EscapeControl(line);
  std::string out;
  out.reserve(escaped.size() < 4 * kMaxEchoBytes ? escaped.size()
                                                 : 4 * kMaxEchoBytes);
  size_t i = 0;
  while (i < escaped.size()) {
    size_t j = i;
    const bool blank = escaped[i] == ' ';
    while (j < escaped.size() && (escaped[j] == ' ') == blank) ++j;
    const std::string_view run = std::string_view(escaped).substr(i, j - i);
    if (!blank && run.size() > kMaxEchoBytes) {
      out += Elide(run, kMaxEchoBytes / 2, kMaxEchoBytes / 4);
    } else {
      out.append(run);
    }
    i = j;
  }
  if (out.size() > kMaxMessageLineBytes) {
    out = Elide(out, kMaxMessageLineBytes / 2, kMaxMessageLineBytes / 3);
  }
  return out;
}

}  // namespace trn
