#include "harness/import/nki_benchmark_output.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trn::import {
namespace {

std::vector<std::string> Words(absl::string_view line) {
  std::vector<std::string> out;
  for (absl::string_view w :
       absl::StrSplit(line, absl::ByAnyChar(" \t|"), absl::SkipEmpty())) {
    out.emplace_back(w);
  }
  return out;
}

// What a header word is: not a figure's column, a percentile column, or
// one that names L(...) or NCL(...) with no percentile from 0 to 100 in it
// (NCL(101), L(abc)): a typo that must not drop the column silently.
enum class Column : uint8_t { kOther, kPercentile, kBadPercentile };

// "NCL(50)" -> ("ncl_us", 50); "L(p99)" -> ("latency_us", 99).
Column PercentileColumn(absl::string_view word, std::string* metric,
                        double* percent) {
  absl::string_view rest;
  if (absl::StartsWith(word, "NCL(")) {
    *metric = "ncl_us";
    rest = word.substr(4);
  } else if (absl::StartsWith(word, "L(")) {
    *metric = "latency_us";
    rest = word.substr(2);
  } else {
    return Column::kOther;
  }
  if (!absl::ConsumeSuffix(&rest, ")")) return Column::kBadPercentile;
  absl::ConsumePrefix(&rest, "p");
  return absl::SimpleAtod(rest, percent) && *percent >= 0 && *percent <= 100
             ? Column::kPercentile
             : Column::kBadPercentile;
}

bool IsHeader(absl::string_view line) {
  std::string metric;
  double p = 0;
  for (const std::string& w : Words(line)) {
    if (PercentileColumn(w, &metric, &p) != Column::kOther) return true;
  }
  return false;
}

// A line of figures under `columns`: as many cells, and a number in every
// percentile column (the tool's messages after the table are words).
bool IsResultRow(const std::vector<std::string>& columns,
                 const std::vector<std::string>& cells) {
  if (cells.size() != columns.size()) return false;
  for (size_t i = 0; i < cells.size(); ++i) {
    std::string metric;
    double p = 0;
    double value = 0;
    if (PercentileColumn(columns[i], &metric, &p) == Column::kPercentile &&
        !absl::SimpleAtod(cells[i], &value)) {
      return false;
    }
  }
  return true;
}

bool IsRule(absl::string_view line) {
  line = absl::StripAsciiWhitespace(line);
  return line.empty() || line.find_first_not_of("+-=|") == line.npos;
}

}  // namespace

bool LooksLikeNkiBenchmarkOutput(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (IsHeader(line)) return true;
  }
  return false;
}

absl::StatusOr<Imported> ReadNkiBenchmarkOutput(
    const std::vector<ParsedInput>& inputs, const ImportOptions& options) {
  Imported out;
  out.tool = "nki.benchmark";
  ImportedWorkload w;
  w.name = options.workload;
  int rows = 0;
  for (const ParsedInput& in : inputs) {
    const std::string& file = in.file->path;
    std::vector<std::string> header;
    // The header of the row already read: a second line of figures under
    // it is a second result row, not one of the tool's messages.
    std::vector<std::string> read_header;
    int line_no = 0;
    for (absl::string_view line : absl::StrSplit(in.file->text, '\n')) {
      ++line_no;
      const std::string where = absl::StrCat("line ", line_no);
      if (IsHeader(line)) {
        header = Words(line);
        std::vector<std::string> seen;
        for (const std::string& col : header) {
          std::string metric;
          double percent = 0;
          const Column kind = PercentileColumn(col, &metric, &percent);
          if (kind == Column::kBadPercentile) {
            return BadInput(file, where,
                            absl::StrCat("column ", col,
                                         ": expected L(p) or NCL(p) with a "
                                         "percentile p from 0 to 100"));
          }
          if (kind == Column::kOther && col != "INF/S") continue;
          const std::string key =
              kind == Column::kOther ? col : absl::StrCat(metric, "@", percent);
          if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
            return BadInput(file, where,
                            absl::StrCat("column ", col,
                                         " appears twice; expected each "
                                         "figure once"));
          }
          seen.push_back(key);
        }
        continue;
      }
      if (IsRule(line)) continue;
      const std::vector<std::string> cells = Words(line);
      if (header.empty()) {
        if (!read_header.empty() && IsResultRow(read_header, cells)) {
          return BadInput(file, where,
                          "expected one result row: the percentiles of "
                          "several runs cannot be pooled (import each run "
                          "on its own)");
        }
        continue;
      }
      // One row per header; the tool's other messages follow the table.
      const std::vector<std::string> columns = std::move(header);
      header.clear();
      read_header = columns;
      if (++rows > 1) {
        return BadInput(file, where,
                        "expected one result row: the percentiles of "
                        "several runs cannot be pooled (import each run "
                        "on its own)");
      }
      // Header words and cells are matched from the right: the left
      // columns have names of two words ("NC USED") over one cell.
      const size_t k = std::min(columns.size(), cells.size());
      for (size_t i = 1; i <= k; ++i) {
        const std::string& col = columns[columns.size() - i];
        const std::string& cell = cells[cells.size() - i];
        std::string metric;
        double percent = 0;
        const bool pct =
            PercentileColumn(col, &metric, &percent) == Column::kPercentile;
        if (!pct && col != "INF/S") continue;
        double value = 0;
        if (!absl::SimpleAtod(cell, &value) || !std::isfinite(value) ||
            value < 0) {
          return BadInput(file, where,
                          absl::StrCat("expected a number of at least 0 in "
                                       "column ",
                                       col, ", found \"", cell, "\""));
        }
        if (!pct) {
          w.metrics.push_back(MeasuredMetric("throughput_per_s", {value}));
          continue;
        }
        MetricResult* m = nullptr;
        for (auto& x : w.metrics) {
          if (x.name == metric) m = &x;
        }
        if (m == nullptr) {
          w.metrics.push_back(MeasuredMetric(metric, {}));
          m = &w.metrics.back();
        }
        m->percentiles.emplace_back(percent, value);
      }
    }
  }
  if (rows == 0) {
    return BadInput(inputs.front().file->path, "/",
                    "expected nki.benchmark's result table: a header with "
                    "L(p) and NCL(p) columns and one row of figures");
  }
  for (auto& m : w.metrics)
    std::sort(m.percentiles.begin(), m.percentiles.end());
  out.workloads.push_back(std::move(w));
  return out;
}

}  // namespace trn::import
