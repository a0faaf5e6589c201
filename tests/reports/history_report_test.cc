// The history's trend page: the report's stylesheet and document model,
// series with a regression first, ticks at round values; and the one
// p-value format in detect's lines.
#include "reports/history_report.h"

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/report_doc.h"

namespace trn {
namespace {

using history::Alert;
using history::Detection;
using history::Series;
using ::testing::HasSubstr;
using ::testing::Not;

Series MakeSeries(const std::string& workload, double level, double step) {
  Series s;
  s.workload = workload;
  s.metric = "device_time_us";
  s.device = "trn1";
  s.unit = "us";
  for (int i = 0; i < 12; ++i) {
    const double v = level * (i >= 8 ? 1 + step : 1) * (1 + 0.001 * (i % 3));
    s.points.push_back({absl::StrFormat("2026-11-%02d", i + 1),
                        absl::StrCat("c", i), v, v * 0.99, v * 1.013, false,
                        ""});
  }
  return s;
}

Alert StepAt8(size_t series, bool regression, double change) {
  Alert a;
  a.series = series;
  a.regression = regression;
  a.first = a.last = 8;
  a.change = change;
  a.noise = 0.002;
  a.p = 1.5e-16;
  a.q = 3.1e-16;
  a.commit_from = "c7";
  a.commit_to = "c8";
  return a;
}

struct Page {
  std::string md;
  std::string html;
};

Page Render(const std::vector<Series>& series, const Detection& d) {
  Page p;
  for (const auto& [path, content] : RenderTrendReport(series, d)) {
    if (path == "report.md") p.md = content;
    if (path == "report.html") p.html = content;
  }
  return p;
}

TEST(TrendReportTest, RegressionsFirstThenImprovementsThenTheRest) {
  // In the history's (alphabetical) order: a quiet series, one that got
  // faster, one that got slower.
  const std::vector<Series> series = {MakeSeries("a_quiet", 100, 0),
                                      MakeSeries("b_faster", 400, -0.06),
                                      MakeSeries("c_slower", 2400, 0.06)};
  Detection d;
  d.series = 3;
  d.alerts = {StepAt8(1, false, -0.06), StepAt8(2, true, 0.06)};
  d.groups = {{"c7", "c8", {0, 1}, true}};
  const Page p = Render(series, d);
  const size_t slower = p.html.find("<h3><code>c_slower</code>");
  const size_t faster = p.html.find("<h3><code>b_faster</code>");
  const size_t quiet = p.html.find("<h3><code>a_quiet</code>");
  ASSERT_NE(slower, std::string::npos) << p.html.substr(0, 2000);
  ASSERT_NE(faster, std::string::npos);
  ASSERT_NE(quiet, std::string::npos);
  EXPECT_LT(slower, faster);
  EXPECT_LT(faster, quiet);
  EXPECT_LT(p.md.find("### `c_slower`"), p.md.find("### `a_quiet`"));
}

TEST(TrendReportTest, StyledLikeTheReport) {
  const std::vector<Series> series = {MakeSeries("w", 100, 0.06)};
  Detection d;
  d.series = 1;
  d.alerts = {StepAt8(0, true, 0.06)};
  d.groups = {{"c7", "c8", {0}, true}};
  const Page p = Render(series, d);
  EXPECT_THAT(p.html, HasSubstr(std::string(HtmlStyle())));
  // The detect table is a table of the page, not preformatted text.
  EXPECT_THAT(p.html, Not(HasSubstr("<pre>")));
  EXPECT_THAT(p.html, HasSubstr("<table>"));
  EXPECT_THAT(p.html, HasSubstr("<strong>confirmed regression</strong>"));
  // q as every table writes a p-value, not 3.1e-16.
  EXPECT_THAT(p.md, HasSubstr("| \\<0.0001 |"));
  EXPECT_THAT(p.md, Not(HasSubstr("e-16")));
  // The plot uses the report's font and frame.
  EXPECT_THAT(p.html, HasSubstr("font-family=\"DejaVu Sans"));
}

TEST(TrendReportTest, TicksAreRoundNumbers) {
  // 396 to 424 us: ticks 390, 400, ... 430 (before: 392.1, 401.5, ...).
  const Series s = MakeSeries("w", 396, 0.06);
  const std::string svg = RenderTrendSvg(s, {});
  const std::regex tick(
      R"re(text-anchor="end" font-size="11" fill="#57606a" font-weight="normal">([0-9.]+)</text>)re");
  std::vector<std::string> ticks;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick);
       it != std::sregex_iterator(); ++it) {
    ticks.push_back((*it)[1]);
  }
  ASSERT_GE(ticks.size(), 3u) << svg;
  for (const std::string& t : ticks) {
    const double v = std::stod(t);
    EXPECT_EQ(std::fmod(v, 10), 0) << t;
  }
}

TEST(DetectTextTest, QValuesAsEveryTableWritesThem) {
  const std::vector<Series> series = {MakeSeries("w", 100, 0.06)};
  Detection d;
  d.series = 1;
  d.alerts = {StepAt8(0, true, 0.06)};
  d.groups = {{"c7", "c8", {0}, true}};
  const std::string table = RenderDetectionTable(series, d);
  EXPECT_THAT(table, HasSubstr("(q < 0.0001, noise 0.20%)"));
  EXPECT_THAT(RenderDetectionMarkdown(series, d), HasSubstr("| <0.0001 |"));
}

// The device profile changed on the night of the step: detect names it,
// in the table, the markdown and the JSON; a night without a change names
// nothing.
TEST(DetectTextTest, TheLikelyCauseIsWhatChangedThatNight) {
  const std::vector<Series> series = {MakeSeries("w", 100, 0.06)};
  Detection d;
  d.series = 1;
  d.alerts = {StepAt8(0, true, 0.06)};
  d.groups = {{"c7", "c8", {0}, true}};
  std::vector<history::RunInfo> runs;
  for (int i = 0; i < 12; ++i) {
    history::RunInfo r;
    r.run_id = absl::StrCat("run", i);
    r.night = absl::StrFormat("2026-11-%02d", i + 1);
    r.device = "trn1";
    r.source = "model";
    r.device_hash = i >= 8 ? "bbbb" : "aaaa";
    r.model_version = "7";
    r.trnbench_version = "0.1.0";
    runs.push_back(r);
  }
  const std::string cause = "device profile changed (aaaa -> bbbb)";
  EXPECT_THAT(RenderDetectionTable(series, d, runs),
              HasSubstr("  likely cause: " + cause + "\n"));
  EXPECT_THAT(RenderDetectionMarkdown(series, d, runs),
              HasSubstr("device profile changed (aaaa -\\> bbbb)"));
  EXPECT_THAT(DetectionToJsonText(series, d, {}, runs),
              HasSubstr("\"likely_causes\": [\n        \"" + cause));
  // Another device's runs do not count; the same profile names nothing.
  for (auto& r : runs) r.device_hash = "aaaa";
  runs[8].device = "trn2";
  runs[8].device_hash = "cccc";
  EXPECT_THAT(StepCauses(series[0], d.alerts[0], runs), ::testing::IsEmpty());
  runs[8].device = "trn1";
  runs[8].model_version = "8";
  EXPECT_THAT(StepCauses(series[0], d.alerts[0], runs),
              ::testing::ElementsAre("device profile changed (aaaa -> cccc)",
                                     "model version changed (7 -> 8)"));
  // The workload's spec changed across the step (its hash, per night).
  std::vector<Series> edited = series;
  for (size_t i = 0; i < edited[0].points.size(); ++i) {
    edited[0].points[i].spec_hash = i >= 8 ? "5555" : "4444";
  }
  EXPECT_THAT(StepCauses(edited[0], d.alerts[0], runs),
              ::testing::ElementsAre("spec of w changed (4444 -> 5555)",
                                     "device profile changed (aaaa -> cccc)",
                                     "model version changed (7 -> 8)"));
}

}  // namespace
}  // namespace trn
