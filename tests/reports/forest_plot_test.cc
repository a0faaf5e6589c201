// The forest plot at the top of a report with a baseline: one row per
// comparison, its change and interval drawn against the ±threshold band
// and coloured by verdict.
#include "reports/forest_plot.h"

#include <regex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/reports/report_test_util.h"

namespace trn {
namespace {

using report_test::Count;
using ::testing::HasSubstr;
using ::testing::Not;

MetricComparison Row(const std::string& workload, Verdict v, double change,
                     double low, double high) {
  MetricComparison c;
  c.workload = workload;
  c.metric = "device_time_us";
  c.verdict = v;
  c.change = change;
  c.change_interval = {low, high, 0.95};
  c.threshold = 0.02;
  return c;
}

ComparisonReport Report() {
  ComparisonReport r;
  r.confidence = 0.95;
  r.rows = {Row("slow", Verdict::kRegression, 0.057, 0.05, 0.064),
            Row("fast", Verdict::kImprovement, -0.10, -0.12, -0.08),
            Row("same", Verdict::kUnchanged, 0.001, -0.008, 0.009),
            Row("unsure", Verdict::kInconclusive, 0.02, 0.005, 0.035)};
  MetricComparison added;
  added.workload = "added";
  added.metric = "*";
  added.verdict = Verdict::kNew;
  added.change = NAN;
  r.rows.push_back(added);
  r.comparisons = 4;
  return r;
}

// The x coordinates of the <line>s drawn in `color`.
std::vector<double> LineXs(const std::string& svg, const std::string& color) {
  std::vector<double> xs;
  const std::regex line(
      R"re(<line x1="([-0-9.]+)" y1="[-0-9.]+" x2="([-0-9.]+)" )re"
      R"re(y2="[-0-9.]+" stroke=")re" +
      color + "\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line);
       it != std::sregex_iterator(); ++it) {
    xs.push_back(std::stod((*it)[1]));
    xs.push_back(std::stod((*it)[2]));
  }
  return xs;
}

double CircleX(const std::string& svg, const std::string& color) {
  const std::regex circle(
      R"re(<circle cx="([-0-9.]+)" cy="([0-9.]+)" r="4.5" fill=")re" + color +
      "\"");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, circle)) << color;
  return m.empty() ? NAN : std::stod(m[1]);
}

TEST(ForestPlotTest, OneRowPerComparisonColouredByVerdict) {
  const std::string svg = RenderForestSvg(Report());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_THAT(svg, Not(HasSubstr(" id=")));
  EXPECT_THAT(svg, Not(HasSubstr("<style")));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  for (const char* label :
       {">slow \xC2\xB7 device_time_us<", ">fast \xC2\xB7 device_time_us<",
        ">same \xC2\xB7 device_time_us<", ">unsure \xC2\xB7 device_time_us<",
        ">added<"}) {
    EXPECT_THAT(svg, HasSubstr(label));
  }
  // Four marks with a change (the new workload has none), plus the legend.
  EXPECT_EQ(Count(svg, "r=\"4.5\""), 4);
  EXPECT_THAT(svg, HasSubstr("no baseline to compare with"));
  // The change and verdict as text on the right, regressions in bold.
  EXPECT_THAT(svg, HasSubstr("font-weight=\"bold\">+5.70% regression<"));
  EXPECT_THAT(svg, HasSubstr(">-10.00% improvement<"));
  // A band per compared row, for its own threshold.
  EXPECT_EQ(Count(svg, "fill=\"#e4e8ec\""), 4);
  EXPECT_EQ(svg, RenderForestSvg(Report())) << "deterministic";
}

TEST(ForestPlotTest, MarksSitOnTheAxisWhereTheirFiguresAre) {
  const std::string svg = RenderForestSvg(Report());
  // Regression right of zero, improvement left, each inside its interval.
  const double slow = CircleX(svg, "#c2410c");
  const double fast = CircleX(svg, "#1d4ed8");
  const double same = CircleX(svg, "#6e7781");
  EXPECT_LT(fast, same);
  EXPECT_LT(same, slow);
  const auto slow_line = LineXs(svg, "#c2410c");
  ASSERT_GE(slow_line.size(), 2u);
  EXPECT_LT(slow_line[0], slow);
  EXPECT_GT(slow_line[1], slow);
  // The band of ±2% is centred on zero: its rectangle spans the zero line.
  const std::regex band(
      R"re(<rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)" )re"
      R"re(height="[0-9.]+" fill="#e4e8ec")re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, band));
  const double left = std::stod(m[1]);
  const double right = left + std::stod(m[2]);
  EXPECT_LT(left, same);
  EXPECT_GT(right, same);
  EXPECT_LT(right, slow) << "a 5.7% change lies beyond a 2% band";
  EXPECT_GT(left, fast) << "so does a 10% improvement";
}

TEST(ForestPlotTest, AnEmptyComparisonSaysSo) {
  const std::string svg = RenderForestSvg(ComparisonReport{});
  EXPECT_THAT(svg, HasSubstr("no comparisons"));
  EXPECT_EQ(Count(svg, "r=\"4.5\""), 0);
}

}  // namespace
}  // namespace trn
