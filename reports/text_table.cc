#include "reports/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "reports/terminal.h"

namespace trn {

std::string VerdictText(Verdict v, bool color) {
  const std::string name(VerdictName(v));
  switch (v) {
    case Verdict::kRegression:
      return Colorize(name, Color::kRed, color);
    case Verdict::kImprovement:
      return Colorize(name, Color::kGreen, color);
    case Verdict::kInconclusive:
      return Colorize(name, Color::kYellow, color);
    case Verdict::kNew:
      return Colorize(name, Color::kCyan, color);
    case Verdict::kUnchanged:
      break;
  }
  return name;
}

size_t DisplayWidth(std::string_view s) {
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

TextTable::TextTable(std::vector<std::string> header) {
  right_.assign(header.size(), true);
  if (!right_.empty()) right_[0] = false;
  rows_.push_back(std::move(header));
}

void TextTable::AddRow(std::vector<std::string> row) {
  row.resize(rows_.front().size());
  rows_.push_back(std::move(row));
}

void TextTable::SetRightAlign(std::vector<bool> right) {
  right.resize(rows_.front().size(), true);
  right_ = std::move(right);
}

std::string TextTable::RenderColumns(const std::string& indent,
                                     const std::vector<size_t>& columns,
                                     const std::vector<size_t>& width) const {
  std::string out;
  auto emit = [&](const std::vector<std::string>& r) {
    std::string line = indent;
    for (size_t k = 0; k < columns.size(); ++k) {
      const size_t c = columns[k];
      const std::string pad(width[c] - DisplayWidth(r[c]), ' ');
      if (k > 0) line += "  ";
      line += right_[c] ? pad + r[c] : r[c] + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  emit(rows_.front());
  size_t total = 0;
  for (size_t k = 0; k < columns.size(); ++k) {
    total += width[columns[k]] + (k > 0 ? 2 : 0);
  }
  out += indent + std::string(total, '-') + "\n";
  for (size_t i = 1; i < rows_.size(); ++i) emit(rows_[i]);
  return out;
}

std::string TextTable::Render(const std::string& indent,
                              size_t max_width) const {
  const size_t cols = rows_.front().size();
  std::vector<size_t> width(cols, 0);
  for (const auto& r : rows_) {
    for (size_t c = 0; c < cols; ++c) {
      width[c] = std::max(width[c], DisplayWidth(r[c]));
    }
  }
  // Fold: greedily fill groups of columns after the first that fit beside
  // it; a column too wide for any group gets one of its own.
  std::vector<std::vector<size_t>> groups(1, {0});
  size_t used = indent.size() + (cols > 0 ? width[0] : 0);
  for (size_t c = 1; c < cols; ++c) {
    const size_t add = 2 + width[c];
    if (max_width > 0 && groups.back().size() > 1 && used + add > max_width) {
      groups.push_back({0});
      used = indent.size() + width[0];
    }
    groups.back().push_back(c);
    used += add;
  }
  std::string out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) out += "\n";
    out += RenderColumns(indent, groups[g], width);
  }
  return out;
}

std::string RenderTextTable(const ReportTable& table, const ConsoleStyle& style,
                            const std::string& indent) {
  TextTable t(table.header);
  t.SetRightAlign(table.right_align);
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const TableCell& cell : row) {
      cells.push_back(cell.kind == TableCell::Kind::kVerdict
                          ? VerdictText(cell.verdict, style.color)
                          : cell.text);
    }
    t.AddRow(std::move(cells));
  }
  return t.Render(indent, style.width);
}

std::string WrapText(std::string_view text, size_t width,
                     std::string_view indent) {
  std::string line(indent);
  if (width == 0 || indent.size() + DisplayWidth(text) <= width) {
    return line.append(text) + "\n";
  }
  // Continuation lines hang two columns further in.
  const std::string hanging = std::string(indent) + "  ";
  std::string out;
  bool has_word = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (has_word && DisplayWidth(line) + 1 + DisplayWidth(word) > width) {
      out += line + "\n";
      line = hanging;
      has_word = false;
    }
    if (has_word) line += ' ';
    line.append(word);
    has_word = true;
  }
  return out + line + "\n";
}

}  // namespace trn
