#include "harness/history/detection.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace trn::history {
namespace {

// `nights` nights of level `base` with a small deterministic wiggle, a
// relative `step` from night `at` on, commit "cK" on night K.
Series Make(const std::string& workload, int nights, int at, double step,
            bool lower_is_better = true) {
  Series s;
  s.workload = workload;
  s.metric = "device_time_us";
  s.device = "trn1";
  s.unit = "us";
  s.lower_is_better = lower_is_better;
  for (int k = 0; k < nights; ++k) {
    NightPoint p;
    p.night = absl::StrFormat("2026-10-%02d", k + 1);
    p.commit = absl::StrCat("c", k);
    const double wiggle = 1.0 + 0.001 * std::sin(1.3 * k);
    p.median = 100.0 * wiggle * (k >= at ? 1.0 + step : 1.0);
    p.ci_low = p.median * 0.999;
    p.ci_high = p.median * 1.001;
    s.points.push_back(p);
  }
  return s;
}

TEST(Detect, AStepIsProvisionalThenConfirmedAndNewOnce) {
  // Two nights after the step: provisional, no exit 1.
  std::vector<Series> two = {Make("a", 22, 20, 0.05), Make("b", 22, 99, 0)};
  Detection d = Detect(two, DetectOptions{});
  ASSERT_EQ(d.alerts.size(), 1u);
  EXPECT_EQ(d.alerts[0].status, AlertStatus::kProvisional);
  EXPECT_FALSE(d.NewConfirmedRegression());
  // Third night: confirmed, new, a regression; the range is c19..c20.
  std::vector<Series> three = {Make("a", 23, 20, 0.05), Make("b", 23, 99, 0)};
  d = Detect(three, DetectOptions{});
  ASSERT_EQ(d.alerts.size(), 1u);
  const Alert& a = d.alerts[0];
  EXPECT_EQ(a.status, AlertStatus::kConfirmed);
  EXPECT_EQ(a.kind, AlertKind::kStep);
  EXPECT_EQ(a.first, 20);
  EXPECT_TRUE(a.regression);
  EXPECT_TRUE(a.is_new);
  EXPECT_NEAR(a.change, 0.05, 0.003);
  EXPECT_EQ(a.commit_from, "c19");
  EXPECT_EQ(a.commit_to, "c20");
  EXPECT_TRUE(d.NewConfirmedRegression());
  // A night later it is still there but no longer new.
  std::vector<Series> four = {Make("a", 24, 20, 0.05), Make("b", 24, 99, 0)};
  d = Detect(four, DetectOptions{});
  ASSERT_EQ(d.alerts.size(), 1u);
  EXPECT_FALSE(d.alerts[0].is_new);
  EXPECT_FALSE(d.NewConfirmedRegression());
}

TEST(Detect, DirectionFollowsTheMetric) {
  std::vector<Series> s = {Make("fast", 26, 20, 0.05, false)};
  const Detection d = Detect(s, DetectOptions{});
  ASSERT_EQ(d.alerts.size(), 1u);
  EXPECT_FALSE(d.alerts[0].regression);  // a higher rate is better
}

TEST(Detect, BelowTheThresholdIsNotReported) {
  std::vector<Series> s = {Make("a", 30, 20, 0.01)};
  EXPECT_TRUE(Detect(s, DetectOptions{}).alerts.empty());
  DetectOptions loose;
  loose.threshold = 0.005;
  EXPECT_EQ(Detect(s, loose).alerts.size(), 1u);
}

TEST(Detect, ASpikeIsNeverAnAlert) {
  for (int at = 10; at < 30; ++at) {
    Series s = Make("a", 30, 99, 0);
    s.points[static_cast<size_t>(at)].median *= 1.3;
    std::vector<Series> v = {s};
    EXPECT_TRUE(Detect(v, DetectOptions{}).alerts.empty()) << at;
  }
}

TEST(Detect, ADriftIsFoundAsADrift) {
  Series s = Make("a", 30, 99, 0);
  for (int k = 20; k < 30; ++k) {
    s.points[static_cast<size_t>(k)].median *= std::pow(1.005, k - 19);
  }
  std::vector<Series> v = {s};
  const Detection d = Detect(v, DetectOptions{});
  bool drift = false;
  for (const auto& a : d.alerts) {
    drift = drift || (a.kind == AlertKind::kDrift && a.regression);
  }
  EXPECT_TRUE(drift);
}

TEST(Detect, AlertsSharingACommitRangeAreOneGroup) {
  std::vector<Series> s = {Make("a", 25, 20, 0.05), Make("b", 25, 20, 0.08),
                           Make("c", 25, 15, 0.05), Make("d", 25, 99, 0)};
  const Detection d = Detect(s, DetectOptions{});
  ASSERT_EQ(d.alerts.size(), 3u);
  ASSERT_EQ(d.groups.size(), 2u);
  EXPECT_EQ(d.groups[0].commit_from, "c19");
  EXPECT_EQ(d.groups[0].alerts.size(), 2u);
  EXPECT_TRUE(d.groups[0].confirmed_regression);
  EXPECT_EQ(d.groups[1].commit_to, "c15");
  EXPECT_EQ(d.series, 4u);
  EXPECT_EQ(d.nights, 100u);
}

TEST(Detect, SameInputSameOutput) {
  std::vector<Series> s = {Make("a", 40, 25, 0.03), Make("b", 40, 30, -0.1)};
  const Detection x = Detect(s, DetectOptions{});
  const Detection y = Detect(s, DetectOptions{});
  ASSERT_EQ(x.alerts.size(), y.alerts.size());
  for (size_t i = 0; i < x.alerts.size(); ++i) {
    EXPECT_EQ(x.alerts[i].p, y.alerts[i].p);
    EXPECT_EQ(x.alerts[i].change, y.alerts[i].change);
  }
}

TEST(BenjaminiHochberg, MatchesRsPAdjust) {
  // p.adjust(c(0.01, 0.04, 0.03, 0.2), "BH") = 0.04 0.0533.. 0.0533.. 0.2
  std::vector<Candidate> c(4);
  c[0].p = 0.01;
  c[1].p = 0.04;
  c[2].p = 0.03;
  c[3].p = 0.2;
  std::vector<Candidate*> family = {&c[0], &c[1], &c[2], &c[3]};
  AdjustBenjaminiHochberg(family);
  EXPECT_DOUBLE_EQ(c[0].q, 0.04);
  EXPECT_DOUBLE_EQ(c[1].q, 0.04 * 4 / 3);
  EXPECT_DOUBLE_EQ(c[2].q, 0.04 * 4 / 3);
  EXPECT_DOUBLE_EQ(c[3].q, 0.2);
}

}  // namespace
}  // namespace trn::history
