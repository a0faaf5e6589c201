// Distribution plots: well-formed standalone SVG, every sample a dot (up to
// the cap), baseline beside current, readable axes, deterministic bytes.
#include "reports/svg_plot.h"

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

std::vector<double> Ramp(size_t n, double lo, double step) {
  std::vector<double> v;
  for (size_t i = 0; i < n; ++i)
    v.push_back(lo + step * static_cast<double>(i % 17));
  return v;
}

TEST(SvgPlotTest, StandaloneAndOneDotPerSample) {
  const auto a = Ramp(100, 390, 0.7);
  const auto b = Ramp(60, 380, 0.5);
  DistributionPlot p;
  p.title = "rmsnorm \xC2\xB7 device_time_us";
  p.metric = "device_time_us";
  p.unit = Unit::kMicroseconds;
  p.rows = {{"rmsnorm_fused", a, {}}, {"rmsnorm_compiled", b, {}}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  EXPECT_THAT(svg, HasSubstr("viewBox=\"0 0 "));
  EXPECT_EQ(Count(svg, "<circle"), 160);
  EXPECT_EQ(Count(svg, "<g "), Count(svg, "</g>"));
  EXPECT_EQ(Count(svg, "<text"), Count(svg, "</text>"));
  // No ids and no <style>: several plots inline in one page cannot clash.
  EXPECT_THAT(svg, Not(HasSubstr(" id=")));
  EXPECT_THAT(svg, Not(HasSubstr("<style")));
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
  EXPECT_THAT(svg, Not(HasSubstr("inf")));
  EXPECT_THAT(svg, HasSubstr(">rmsnorm_fused</text>"));
  EXPECT_THAT(svg, HasSubstr("device_time_us, in \xCE\xBCs"));
  EXPECT_EQ(svg, RenderDistributionSvg(p)) << "deterministic";
}

TEST(SvgPlotTest, BaselineBesideCurrent) {
  const auto cur = Ramp(30, 100, 1);
  const auto base = Ramp(30, 96, 1);
  DistributionPlot p;
  p.title = "t";
  p.metric = "ncl_us";
  p.unit = Unit::kMicroseconds;
  p.with_baseline = true;
  p.baseline_label = "baselines/trn1";
  p.rows = {{"w", cur, base}, {"new_one", cur, {}}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_EQ(Count(svg, "<circle"), 90);
  EXPECT_THAT(svg, HasSubstr(">baselines/trn1</text>"));
  EXPECT_THAT(svg, HasSubstr(">no baseline</text>"));
  EXPECT_THAT(svg, HasSubstr("#7a7a7a"));  // baseline dots
  EXPECT_THAT(svg, HasSubstr("#1f77b4"));  // current dots
}

TEST(SvgPlotTest, ManySamplesAreThinnedButStated) {
  const auto many = Ramp(5000, 10, 0.01);
  DistributionPlot p;
  p.title = "t";
  p.metric = "m";
  p.unit = Unit::kMicroseconds;
  p.rows = {{"w", many, {}}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_EQ(Count(svg, "<circle"), 1000);
  EXPECT_THAT(svg, HasSubstr("1 in 5 samples"));
}

TEST(SvgPlotTest, DegenerateInputsStillDraw) {
  const std::vector<double> same(10, 0.0);
  const std::vector<double> one = {3.0};
  DistributionPlot p;
  p.title = "t <&> \"q\"";
  p.metric = "tensor_util";
  p.unit = Unit::kFraction;
  p.rows = {{"zeros", same, {}}, {"one", one, {}}, {"none", {}, {}}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_THAT(svg, HasSubstr(">not measured</text>"));
  EXPECT_THAT(svg, HasSubstr("t &lt;&amp;&gt; &quot;q&quot;"));
  EXPECT_THAT(svg, HasSubstr(">0.0%</text>"));  // own axes: unit on ticks
  EXPECT_THAT(svg, Not(HasSubstr(">-")));       // an idle engine starts at 0
  EXPECT_THAT(svg, Not(HasSubstr("nan")));
  EXPECT_EQ(Count(svg, "<circle"), 11);
}

TEST(SvgPlotTest, VariantsOfVeryDifferentSizeGetTheirOwnAxes) {
  const auto slow = Ramp(50, 2380, 1);
  const auto fast = Ramp(50, 376, 0.3);
  DistributionPlot p;
  p.title = "t";
  p.metric = "device_time_us";
  p.unit = Unit::kMicroseconds;
  p.rows = {{"naive", slow, {}}, {"compiled", fast, {}}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_THAT(svg, HasSubstr("each row on its own axis"));
  // Comparable variants share one axis. PlotRow holds spans, so the
  // samples must outlive the call (a temporary here was a use after free).
  const auto close = Ramp(50, 377, 0.3);
  p.rows = {{"a", fast, {}}, {"b", close, {}}};
  EXPECT_THAT(RenderDistributionSvg(p), Not(HasSubstr("own axis")));
}

// With a baseline, the rule measures each side's spread, not the row's: a
// large regression (the naive variant 2.4 -> 9.1 ms beside 0.4 ms variants)
// put every row's two sides on one 0-10 ms axis, each box a sliver.
TEST(SvgPlotTest, ARegressionDoesNotMergeTheRowsOntoOneAxis) {
  const auto naive_base = Ramp(50, 2380, 1);
  const auto naive_cur = Ramp(50, 9100, 4);
  const auto fused_base = Ramp(50, 398, 0.3);
  const auto fused_cur = Ramp(50, 1510, 0.6);
  const auto compiled = Ramp(50, 376, 0.3);
  DistributionPlot p;
  p.title = "rmsnorm";
  p.metric = "device_time_us";
  p.unit = Unit::kMicroseconds;
  p.with_baseline = true;
  p.rows = {{"rmsnorm_naive", naive_cur, naive_base},
            {"rmsnorm_fused", fused_cur, fused_base},
            {"rmsnorm_compiled", compiled, compiled}};
  const std::string svg = RenderDistributionSvg(p);
  EXPECT_THAT(svg, HasSubstr("each row on its own axis"));
  // The compiled row, alone on its axis, is labelled in its own unit.
  EXPECT_THAT(svg, HasSubstr("\xCE\xBCs</text>"));
  // A small regression, whose sides overlap the row, keeps the rule too.
  const auto naive_close = Ramp(50, 2520, 1);
  p.rows[0] = {"rmsnorm_naive", naive_close, naive_base};
  p.rows[1] = {"rmsnorm_fused", fused_base, fused_base};
  EXPECT_THAT(RenderDistributionSvg(p), HasSubstr("each row on its own axis"));
}

}  // namespace
}  // namespace trn
