// report.md: GitHub-flavoured markdown with a summary table per family, the
// comparison when there is a baseline, per-op tables, plot links, and
// escaping that keeps every table intact whatever the names contain.
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/report_builder.h"
#include "reports/report_doc.h"
#include "reports/text_escape.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using report_test::Count;
using ::testing::HasSubstr;
using ::testing::Not;

// Cells of a markdown table line: split on pipes that are not escaped.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell += line.substr(i, 2);
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  cells.push_back(cell);
  // A row starts and ends with a pipe: drop the empty outer pieces.
  if (!cells.empty() && cells.front().empty()) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

struct MdTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// Every table of the document; checks the delimiter row and that every row
// has the header's number of cells.
std::vector<MdTable> Tables(const std::string& md) {
  std::vector<std::string> lines = absl::StrSplit(md, '\n');
  std::vector<MdTable> out;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].rfind("|", 0) != 0) continue;
    MdTable t;
    t.header = Cells(lines[i]);
    const auto delim = Cells(lines[i + 1]);
    EXPECT_EQ(delim.size(), t.header.size()) << lines[i + 1];
    for (const auto& d : delim) {
      EXPECT_TRUE(d == " ---: " || d == " :--- ") << "[" << d << "]";
    }
    size_t j = i + 2;
    for (; j < lines.size() && lines[j].rfind("|", 0) == 0; ++j) {
      t.rows.push_back(Cells(lines[j]));
      EXPECT_EQ(t.rows.back().size(), t.header.size()) << lines[j];
    }
    EXPECT_TRUE(j >= lines.size() || lines[j].empty())
        << "a table must end with a blank line";
    out.push_back(std::move(t));
    i = j;
  }
  return out;
}

TEST(MarkdownReportTest, FamiliesTablesPlotsAndOps) {
  const RunResult run = report_test::MakeRun(report_test::kSeeds, 20);
  ReportInputs in;
  in.run = &run;
  const ReportDoc doc = BuildReport(in);
  const std::string md = RenderMarkdown(doc);
  EXPECT_EQ(md.rfind("# trnbench report\n\n", 0), 0u);
  EXPECT_THAT(md, HasSubstr("## Family `rmsnorm`"));
  EXPECT_THAT(md, HasSubstr("## Family `exp`"));
  EXPECT_THAT(md, HasSubstr("### NKI benchmark figures"));
  EXPECT_THAT(md, HasSubstr("### Per-op tables"));
  EXPECT_THAT(md, Not(HasSubstr("## Verdict")));
  EXPECT_EQ(md.back(), '\n');
  EXPECT_THAT(md, Not(HasSubstr("\n\n\n")));

  const auto tables = Tables(md);
  // Per family: summary, all-metrics; exp: NKI figures; per workload: ops.
  EXPECT_EQ(tables.size(), 2 + 2 + 1 + run.workloads.size());
  const MdTable* summary = nullptr;
  for (const auto& t : tables) {
    if (t.header.size() >= 10 && t.header[0] == " workload " &&
        t.header[8] == " speed-up ") {
      if (summary == nullptr || t.rows.size() > summary->rows.size()) {
        summary = &t;
      }
    }
  }
  ASSERT_NE(summary, nullptr);
  ASSERT_EQ(summary->rows.size(), 3u);  // the three RMSNorm variants
  EXPECT_EQ(summary->rows[0][0], " `rmsnorm_naive` ");
  EXPECT_EQ(summary->rows[0][8], " 1.00x ");
  EXPECT_THAT(summary->rows[1][8], HasSubstr("x"));
  // The median is p50: one column, not two.
  for (const char* h : {" median ", " 95% interval ", " p1 ", " p99 ", " CV ",
                        " speed-up interval "}) {
    EXPECT_NE(std::find(summary->header.begin(), summary->header.end(), h),
              summary->header.end())
        << h;
  }
  // No table has two columns with one heading (there were two "95%
  // interval"s, one of the median and one of the speed-up).
  for (const auto& t : tables) {
    std::set<std::string> seen(t.header.begin(), t.header.end());
    EXPECT_EQ(seen.size(), t.header.size()) << t.header[0];
  }
  for (const char* op : {"`aten::mul`", "`aten::rsqrt`", "`aten::copy_`",
                         "`Torch-Compiled Region`", "`aten::rms_norm`"}) {
    EXPECT_THAT(md, HasSubstr(op));
  }

  // Every figure is linked, with a relative path into plots/.
  const auto figures = Figures(doc);
  ASSERT_GE(figures.size(), 20u);
  for (const DocFigure* f : figures) {
    EXPECT_THAT(md, HasSubstr("](" + f->file + ")"));
    EXPECT_EQ(f->file.rfind("plots/", 0), 0u);
  }
  EXPECT_THAT(md, HasSubstr("](plots/rmsnorm-device_time_us.svg)"));
  EXPECT_THAT(md, HasSubstr("](plots/exp-ncl_us.svg)"));
  EXPECT_EQ(Count(md, "<details>"), Count(md, "</details>"));
  EXPECT_EQ(Count(md, "<summary>"), Count(md, "</summary>"));
}

TEST(MarkdownReportTest, WithABaselineShowsChangesAndVerdicts) {
  const RunResult run = report_test::MakeRun("rmsnorm", 50, 3);
  std::vector<Baseline> baselines;
  const ComparisonReport c = report_test::MakeComparison(
      run, report_test::MakeRun("rmsnorm", 50, 4), &baselines);
  ReportInputs in;
  in.run = &run;
  in.comparison = &c;
  in.baselines = &baselines;
  const std::string md = RenderMarkdown(BuildReport(in));
  EXPECT_THAT(md, HasSubstr("## Verdict"));
  EXPECT_THAT(md, HasSubstr(" comparisons** with `baselines/test`"));
  EXPECT_THAT(md, HasSubstr("](plots/forest.svg)"));
  EXPECT_THAT(md, HasSubstr("### Comparison with the baseline"));
  const auto tables = Tables(md);
  bool found = false;
  for (const auto& t : tables) {
    // The change, its interval and the verdict come right after the
    // median, where a narrow window still shows them.
    if (t.header.size() == 13 && t.header[4] == " change ") {
      found = true;
      EXPECT_EQ(t.header[5], " change interval ");
      EXPECT_EQ(t.header[6], " verdict ");
      for (const auto& r : t.rows) {
        EXPECT_THAT(r[4], HasSubstr("%"));
        EXPECT_THAT(r[5], HasSubstr("["));
        EXPECT_THAT(r[6], HasSubstr("unchanged"));
      }
    }
  }
  EXPECT_TRUE(found) << "summary table with change and verdict columns";
  EXPECT_THAT(md, HasSubstr("p adjusted (Holm)"));
}

TEST(MarkdownReportTest, StepSummaryHasNoImageLinks) {
  const RunResult run = report_test::MakeRun("exp_tiled", 5);
  ReportInputs in;
  in.run = &run;
  const ReportDoc doc = BuildReport(in);
  MarkdownOptions o;
  o.link_figures = false;
  const std::string md = RenderMarkdown(doc, o);
  EXPECT_THAT(md, Not(HasSubstr("![")));
  EXPECT_THAT(md, HasSubstr("`plots/exp-device_time_us.svg` in the report"));
}

TEST(MarkdownEscapeTest, NamesCannotBreakMarkup) {
  EXPECT_EQ(MarkdownEscape("a|b"), "a\\|b");
  EXPECT_EQ(MarkdownEscape("*x* _y_ <b> [l](u) `c`"),
            "\\*x\\* \\_y\\_ \\<b\\> \\[l\\](u) \\`c\\`");
  EXPECT_EQ(MarkdownEscape("two\nlines"), "two lines");
  EXPECT_EQ(MarkdownCode("aten::mul"), "`aten::mul`");
  EXPECT_EQ(MarkdownCode("a|b"), "`a\\|b`");
  EXPECT_EQ(MarkdownCode("x`y"), "``x`y``");
  EXPECT_EQ(MarkdownCode("`x"), "`` `x ``");

  ReportDoc doc;
  doc.title = "t";
  DocTable t;
  t.header = {"name", "value"};
  t.right_align = {false, true};
  t.rows.push_back({CodeText("op|with|pipes"), PlainText("a|b\nc")});
  t.rows.push_back({PlainText("<script>"), StrongText("**")});
  doc.blocks.push_back(Table(t));
  const auto tables = Tables(RenderMarkdown(doc));
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[0][0], " `op\\|with\\|pipes` ");
  EXPECT_EQ(tables[0].rows[1][0], " \\<script\\> ");
}

TEST(MarkdownReportTest, SameInputsSameBytes) {
  const RunResult a = report_test::MakeRun(report_test::kSeeds, 8, 5);
  const RunResult b = report_test::MakeRun(report_test::kSeeds, 8, 5);
  ReportInputs ia;
  ia.run = &a;
  ReportInputs ib;
  ib.run = &b;
  EXPECT_EQ(RenderMarkdown(BuildReport(ia)), RenderMarkdown(BuildReport(ib)));
}

}  // namespace
}  // namespace trn
