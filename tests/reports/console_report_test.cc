// The terminal report and the comparison: tables that fit the terminal
// (folded columns, never wrapped rows), notes said once, and speed-ups only
// between variants of one size.
#include "reports/console_report.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/comparison_report.h"
#include "reports/report_tables.h"
#include "reports/text_table.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using report_test::Count;
using ::testing::HasSubstr;
using ::testing::Not;

size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    widest = std::max(widest,
                      DisplayWidth(std::string_view(line.data(), line.size())));
  }
  return widest;
}

TEST(TextTableTest, FoldsColumnsToFitAndRepeatsTheNameColumn) {
  TextTable t({"workload", "aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"});
  t.AddRow({"w1", "1", "2", "3"});
  t.AddRow({"w2", "4", "5", "6"});
  const std::string wide = t.Render("  ");
  EXPECT_EQ(Count(wide, "workload"), 1);
  EXPECT_GT(WidestLine(wide), 30u);
  const std::string folded = t.Render("  ", 40);
  EXPECT_LE(WidestLine(folded), 40u) << folded;
  // Each group of columns is a table of its own under the name column.
  EXPECT_EQ(Count(folded, "workload"), 2);
  EXPECT_EQ(Count(folded, "w1"), 2);
  for (const char* h : {"aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"}) {
    EXPECT_EQ(Count(folded, h), 1) << h;
  }
}

TEST(TextTableTest, WrapsLongLinesAtSpaces) {
  EXPECT_EQ(WrapText("one two three", 0), "one two three\n");
  EXPECT_EQ(WrapText("one two three", 9, "  "), "  one two\n    three\n");
}

TEST(ConsoleReportTest, FitsAnEightyColumnTerminal) {
  const RunResult run = report_test::MakeRun("rmsnorm,exp", 10);
  const std::string wide = RenderConsoleReport(run);
  EXPECT_GT(WidestLine(wide), 100u) << "the summary table is wide";
  ConsoleStyle style;
  style.width = 80;
  const std::string narrow = RenderConsoleReport(run, style);
  EXPECT_LE(WidestLine(narrow), 80u) << narrow;
  // Nothing is lost by folding: every figure of the wide report is there.
  for (absl::string_view word : absl::StrSplit(wide, ' ', absl::SkipEmpty())) {
    const std::string w(word);
    if (w.find('\n') != std::string::npos) continue;
    EXPECT_THAT(narrow, HasSubstr(w));
  }
}

RunResult Sized(std::vector<std::pair<std::string, int64_t>> variants) {
  RunResult run;
  run.confidence = 0.95;
  for (const auto& [name, rows] : variants) {
    WorkloadResult w;
    w.name = name;
    w.family = "f";
    w.mode = "nki";
    w.tensor_shapes = {{"x", {rows, 512}}, {"scratch_" + name, {1}}};
    MetricResult m;
    m.name = "device_time_us";
    m.unit = "us";
    for (int k = 0; k < 20; ++k) {
      m.samples.push_back(static_cast<double>(rows) * (1 + 0.001 * k));
    }
    m.summary = stats::Summarize(m.samples, 0.95);
    w.metrics.push_back(m);
    run.workloads.push_back(w);
  }
  ComputeSpeedups(run, "device_time_us");
  return run;
}

TEST(SpeedupTest, OnlyBetweenVariantsOfOneSize) {
  const RunResult run =
      Sized({{"a_small", 250}, {"a_big", 8192}, {"b_small", 250}});
  // Own scratch tensors do not matter; the shared x does.
  EXPECT_EQ(run.workloads[0].speedup.baseline, "");
  EXPECT_EQ(run.workloads[1].speedup.baseline, "") << "another size";
  EXPECT_EQ(run.workloads[2].speedup.baseline, "a_small");
  EXPECT_NEAR(run.workloads[2].speedup.ratio, 1.0, 1e-12);
  const auto families = GroupByFamily(run);
  const ReportTable t = FamilySummaryTable(families[0], 0.95, nullptr);
  const size_t col = t.header.size() - 2;
  ASSERT_EQ(t.header[col], "speed-up");
  EXPECT_EQ(t.rows[0][col].text, "1.00x");  // a reference of b_small
  EXPECT_EQ(t.rows[1][col].text, "\xE2\x80\x94") << "compared with nothing";
  EXPECT_EQ(t.rows[2][col].text, "1.00x");
  EXPECT_THAT(SpeedupExplanation(families[0]), HasSubstr("a_small"));

  const RunResult sweep = Sized({{"p1", 250}, {"p2", 2048}, {"p3", 8192}});
  for (const auto& w : sweep.workloads) EXPECT_EQ(w.speedup.baseline, "");
  EXPECT_EQ(SpeedupExplanation(GroupByFamily(sweep)[0]), "");
}

TEST(ComparisonReportTest, EachNoteOnceAndVerdictsFirst) {
  ComparisonReport r;
  r.comparisons = 4;
  for (const char* w : {"w1", "w2", "w3"}) {
    MetricComparison c;
    c.workload = w;
    c.metric = "device_time_us";
    c.change = 0.001;
    c.change_interval = {-0.01, 0.012, 0.95};
    c.notes = {"model version 1 -> 2 (figures may move)"};
    if (std::string(w) == "w1") c.notes.push_back("spec changed");
    r.rows.push_back(c);
    c.metric = "ncl_us";
    r.rows.push_back(c);
  }
  r.rows.back().notes.push_back("device profile differs (edited or --set)");
  const std::vector<std::string> notes = CollapsedNotes(r);
  EXPECT_THAT(
      notes,
      ::testing::ElementsAre(
          "all 3 compared workloads: model version 1 -> 2 (figures "
          "may move)",
          "w1: spec changed", "w3: device profile differs (edited or --set)"));
  const std::string text = RenderComparisonReport(r);
  EXPECT_EQ(Count(text, "model version 1 -> 2"), 1);
  EXPECT_THAT(text, HasSubstr("result: no regression"));
  ConsoleStyle style;
  style.width = 80;
  EXPECT_LE(WidestLine(RenderComparisonReport(r, style)), 80u);
  // The verdict comes right after the names.
  const std::vector<const MetricComparison*> first = {&r.rows[0]};
  const ReportTable t = ComparisonTable(first, 0.95);
  EXPECT_EQ(t.header[2], "verdict");
  EXPECT_THAT(t.header, Not(::testing::Contains("95% interval 2")));
}

}  // namespace
}  // namespace trn
