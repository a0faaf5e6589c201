#include "reports/text_escape.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace trn {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence at s[i], or 0 if it is not one.
size_t Utf8SequenceLength(std::string_view s, size_t i, uint32_t* code) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  uint32_t c = 0;
  uint32_t min = 0;
  if (b0 < 0x80) {
    *code = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    c = b0 & 0x1F;
    min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    c = b0 & 0x0F;
    min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    c = b0 & 0x07;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *code = c;
  return len;
}

bool XmlAllowed(uint32_t c) {
  if (c < 0x20) return c == '\t' || c == '\n' || c == '\r';
  return c != 0xFFFE && c != 0xFFFF;
}

std::string Escape(std::string_view s, bool attribute) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    uint32_t c = 0;
    const size_t len = Utf8SequenceLength(s, i, &c);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (!XmlAllowed(c)) {
      out += kReplacement;
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&#39;";
    } else if (c == '\r' || (attribute && (c == '\n' || c == '\t'))) {
      // Kept as references: in an attribute value a literal line break
      // would be normalised to a space by every XML parser.
      out += c == '\r' ? "&#13;" : c == '\n' ? "&#10;" : "&#9;";
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string XmlEscape(std::string_view s) { return Escape(s, true); }
std::string XmlEscapeText(std::string_view s) { return Escape(s, false); }

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(s);
  }
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string MarkdownEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '\r':
      case '\n':
        out += ' ';
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '~':
      case '&':
      case '#':
      case '!':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string MarkdownCode(std::string_view s) {
  std::string body;
  size_t run = 0;
  size_t longest = 0;
  for (char c : s) {
    if (c == '\r' || c == '\n') c = ' ';
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    // GitHub's table parser splits cells on `|` even inside code spans.
    if (c == '|') body += '\\';
    body += c;
  }
  // A fence one backtick longer than any run inside, padded when the text
  // touches a backtick, so the span always closes where it should.
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string ShortestDouble(double x) {
  if (!std::isfinite(x)) return "";
  if (x == 0) return "0";  // also for -0: no report distinguishes them
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x);
  if (ec != std::errc()) return "";
  return std::string(buf, end);
}

}  // namespace trn
