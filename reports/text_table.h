#ifndef TRNBENCH_REPORTS_TEXT_TABLE_H_
#define TRNBENCH_REPORTS_TEXT_TABLE_H_

#include <string>
#include <vector>

namespace trn {

// A plain-text table: the first column is left-aligned, the others are
// right-aligned so that numbers line up.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void AddRow(std::vector<std::string> row);
  std::string Render(const std::string& indent = "") const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace trn

#endif  // TRNBENCH_REPORTS_TEXT_TABLE_H_
