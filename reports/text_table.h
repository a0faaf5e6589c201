// Plain-text tables and paragraphs for the terminal. A table wider than the
// terminal is folded: its columns are split into groups that fit, each
// printed under the first (name) column, so an 80-column terminal never
// wraps a row.
#ifndef TRNBENCH_REPORTS_TEXT_TABLE_H_
#define TRNBENCH_REPORTS_TEXT_TABLE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report_tables.h"
#include "reports/terminal.h"

namespace trn {

// Display width: UTF-8 code points, ANSI colour sequences take none.
size_t DisplayWidth(std::string_view s);

// A plain-text table: the first column is left-aligned, the others are
// right-aligned unless told otherwise.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void AddRow(std::vector<std::string> row);
  // Which columns are right-aligned (default: all but the first).
  void SetRightAlign(std::vector<bool> right);
  // `max_width` 0: no limit. Otherwise every line fits in `max_width`
  // columns when the first column and any one other do.
  std::string Render(const std::string& indent = "",
                     size_t max_width = 0) const;

 private:
  std::string RenderColumns(const std::string& indent,
                            const std::vector<size_t>& columns,
                            const std::vector<size_t>& width) const;

  std::vector<std::vector<std::string>> rows_;
  std::vector<bool> right_;
};

// A verdict's name, coloured by what it means when `color`.
std::string VerdictText(Verdict verdict, bool color);

// `table` as text: names plain, verdicts coloured when `style.color`.
std::string RenderTextTable(const ReportTable& table, const ConsoleStyle& style,
                            const std::string& indent = "  ");

// `indent` + `text`, broken at spaces into lines of at most `width`
// columns (0: one line); continuation lines hang two columns further in.
// Ends with '\n'.
std::string WrapText(std::string_view text, size_t width,
                     std::string_view indent = "");

}  // namespace trn

#endif  // TRNBENCH_REPORTS_TEXT_TABLE_H_
