// A `--kwarg` sweep's points ranked by median device time with the
// median's interval from their summaries: the fastest marked, and two
// adjacent ranks whose intervals overlap said to be a tie.
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/runner/runner.h"
#include "nlohmann/json.hpp"
#include "reports/json_results.h"
#include "reports/report_tables.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

// A sweep point whose 20 samples spread `spread` (relative) around `us`.
WorkloadResult Point(const std::string& name, double us, double spread,
                     bool sweep_point = true) {
  WorkloadResult w;
  w.name = name;
  w.family = "f";
  w.mode = "nki";
  w.sweep_point = sweep_point;
  w.tensor_shapes = {{"x", {128, 512}}};
  MetricResult m;
  m.name = "device_time_us";
  m.unit = "us";
  // In a scrambled order (k * 7 mod 20): a ramp in run order would be a
  // drift, whose samples get no interval.
  for (int k = 0; k < 20; ++k) {
    const int j = (k * 7) % 20;
    m.samples.push_back(us * (1 + spread * (j - 10) / 10.0));
  }
  m.summary = stats::Summarize(m.samples, 0.95);
  w.metrics.push_back(m);
  return w;
}

RunResult Sweep(std::vector<WorkloadResult> points) {
  RunResult run;
  run.confidence = 0.95;
  run.workloads = std::move(points);
  ComputeSpeedups(run, "device_time_us");
  ComputeSweepRanks(run, "device_time_us");
  return run;
}

TEST(SweepRankTest, FastestFirstAndOverlapsAreTies) {
  // f_b and f_c overlap (±5% around 100 and 101); f_a is far slower.
  const RunResult run = Sweep({Point("f_a", 300, 0.01), Point("f_b", 101, 0.05),
                               Point("f_c", 100, 0.05)});
  const SweepRank& a = run.workloads[0].rank;
  const SweepRank& b = run.workloads[1].rank;
  const SweepRank& c = run.workloads[2].rank;
  EXPECT_EQ(c.position, 1);
  EXPECT_TRUE(c.fastest);
  EXPECT_FALSE(c.tied_with_previous);
  EXPECT_EQ(b.position, 2);
  EXPECT_FALSE(b.fastest);
  EXPECT_TRUE(b.tied_with_previous) << "intervals overlap: not separated";
  EXPECT_EQ(a.position, 3);
  EXPECT_FALSE(a.tied_with_previous) << "300 us is clearly slower";
  for (const SweepRank* r : {&a, &b, &c}) EXPECT_EQ(r->of, 3);
  // The interval is the summary's, not recomputed.
  const stats::Summary& s = run.workloads[2].metrics[0].summary;
  EXPECT_EQ(c.median, s.median);
  EXPECT_EQ(c.interval.low, s.median_ci.low);
  EXPECT_EQ(c.interval.high, s.median_ci.high);
  EXPECT_LE(c.interval.low, c.median);
  EXPECT_GE(c.interval.high, c.median);
}

TEST(SweepRankTest, OnlySweepPointsOfOneSizeAreRanked) {
  std::vector<WorkloadResult> points = {Point("f", 50, 0.01, false),
                                        Point("f_1", 90, 0.01),
                                        Point("f_2", 80, 0.01)};
  WorkloadResult other_size = Point("f_3", 10, 0.01);
  other_size.tensor_shapes = {{"x", {256, 512}}};
  points.push_back(other_size);
  const RunResult run = Sweep(std::move(points));
  EXPECT_EQ(run.workloads[0].rank.position, 0) << "not a sweep point";
  EXPECT_EQ(run.workloads[1].rank.position, 2);
  EXPECT_EQ(run.workloads[2].rank.position, 1);
  EXPECT_EQ(run.workloads[1].rank.of, 2);
  EXPECT_EQ(run.workloads[3].rank.position, 1) << "its own sweep";
  EXPECT_EQ(run.workloads[3].rank.of, 1);
}

TEST(SweepRankTest, TableAndJsonShowTheRank) {
  const RunResult run = Sweep({Point("f_a", 300, 0.01), Point("f_b", 101, 0.05),
                               Point("f_c", 100, 0.05)});
  const auto families = GroupByFamily(run);
  ASSERT_EQ(families.size(), 1u);
  const ReportTable t = FamilySummaryTable(families[0], 0.95, nullptr);
  ASSERT_EQ(t.header.back(), "rank");
  // GroupByFamily lists a sweep's points fastest first.
  EXPECT_EQ(t.rows[0].back().text, "1/3 fastest");
  EXPECT_EQ(t.rows[1].back().text, "2/3 (tie with 1)");
  EXPECT_EQ(t.rows[2].back().text, "3/3");
  EXPECT_THAT(RankExplanation(families[0], 0.95),
              HasSubstr("by median device_time_us, fastest first"));

  const nlohmann::ordered_json j = ResultsToJson(run, nullptr);
  const auto& ws = j["workloads"];
  ASSERT_EQ(ws.size(), 3u);
  EXPECT_EQ(ws[2]["rank"]["position"], 1);
  EXPECT_EQ(ws[2]["rank"]["fastest"], true);
  EXPECT_EQ(ws[1]["rank"]["tied_with_previous"], true);
  EXPECT_EQ(ws[0]["rank"]["of"], 3);
  EXPECT_EQ(ws[0]["rank"]["metric"], "device_time_us");
  EXPECT_TRUE(ws[0]["rank"].contains("ci_low"));
}

TEST(SweepRankTest, AFamilyWithoutSweepHasNoRankColumnOrField) {
  const RunResult run =
      Sweep({Point("g", 300, 0.01, false), Point("g_b", 101, 0.05, false)});
  const ReportTable t =
      FamilySummaryTable(GroupByFamily(run)[0], 0.95, nullptr);
  EXPECT_NE(t.header.back(), "rank");
  EXPECT_EQ(RankExplanation(GroupByFamily(run)[0], 0.95), "");
  const nlohmann::ordered_json j = ResultsToJson(run, nullptr);
  EXPECT_FALSE(j["workloads"][0].contains("rank"));
}

}  // namespace
}  // namespace trn
