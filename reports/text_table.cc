#include "reports/text_table.h"

#include <algorithm>

namespace trn {
namespace {

// Display width: count UTF-8 code points, not bytes, so "μs" aligns, and
// skip ANSI colour sequences (ESC [ ... m), which take no columns.
size_t Width(const std::string& s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && (s[i] < '@' || s[i] > '~')) ++i;
      continue;
    }
    w += (c & 0xC0) != 0x80;
  }
  return w;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) {
  rows_.push_back(std::move(header));
}

void TextTable::AddRow(std::vector<std::string> row) {
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
}

std::string TextTable::Render(const std::string& indent) const {
  const size_t cols = rows_.front().size();
  std::vector<size_t> width(cols, 0);
  for (const auto& r : rows_) {
    for (size_t c = 0; c < cols; ++c)
      width[c] = std::max(width[c], Width(r[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& r) {
    std::string line = indent;
    for (size_t c = 0; c < cols; ++c) {
      std::string pad(width[c] - Width(r[c]), ' ');
      if (c > 0) line += "  ";
      line += c == 0 ? r[c] + pad : pad + r[c];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit(rows_.front());
  std::string rule = indent;
  size_t total = 0;
  for (size_t c = 0; c < cols; ++c) total += width[c] + (c > 0 ? 2 : 0);
  rule += std::string(total, '-');
  out += rule + "\n";
  for (size_t i = 1; i < rows_.size(); ++i) emit(rows_[i]);
  return out;
}

}  // namespace trn
