// The verdict's rules from issue 26, one test per failure the campaigns
// found: too few samples refused (not "inconclusive" and a pass), the
// inconclusive reason naming its true cause, a level shift reported as
// non-stationarity, a whole-suite gate that refuses a file missing
// workloads, and a recorded noise_threshold capped.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/gate/gate_inputs.h"
#include "harness/history/shards.h"
#include "harness/statistics/sample_size.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

// n samples around `level` with 1% multiplicative jitter, deterministic.
std::vector<double> Samples(int n, double level, uint64_t key) {
  CounterRng rng(key);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    v.push_back(level * (1 + 0.01 * (rng.NextUniform() - 0.5)));
  }
  return v;
}

Baseline Side(const std::string& name, uint64_t seed,
              std::vector<double> samples) {
  Baseline b;
  b.workload = name;
  b.device = "trn1";
  b.seed = seed;
  b.file = name + "_" + std::to_string(seed) + ".json";
  b.schedule.repeat = static_cast<int64_t>(samples.size());
  MetricResult m;
  m.name = "device_time_us";
  m.samples = std::move(samples);
  b.metrics.push_back(std::move(m));
  return b;
}

TEST(SampleSizeTest, SmallestRankPAndTheGatesMinimum) {
  EXPECT_NEAR(stats::SmallestRankP(5, 5, false), 2.0 / 252, 1e-12);
  EXPECT_NEAR(stats::SmallestRankP(6, 6, true), 2.0 / 64, 1e-12);
  // 7 comparisons at 5 per side: 7 * 2/252 = 0.056 > 0.05.
  EXPECT_GE(7 * stats::SmallestRankP(5, 5, false), 0.05);
  EXPECT_EQ(stats::MinSamplesForGate(7, 0.05, false), 8);
  EXPECT_EQ(stats::MinSamplesForGate(7, 0.05, true), 9);
  EXPECT_EQ(stats::MinSamplesForGate(38, 0.05, true), 11);
  EXPECT_EQ(stats::MinSamplesForGate(100, 0.05, true), 12);
  EXPECT_EQ(stats::MinSamplesForGate(1000, 0.05, true), 16);
  EXPECT_EQ(stats::MinSamplesForGate(1000, 0.05, false), 9);
}

// Issue: a baseline saved with --repeat 3 let a +25% regression exit 0.
TEST(VerdictRulesTest, ABaselineOfThreeSamplesIsRefused) {
  const std::vector<Baseline> old_side = {Side("w", 1, Samples(3, 100, 1))};
  const std::vector<Baseline> new_side = {Side("w", 2, Samples(100, 125, 2))};
  auto r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "w_1.json"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "at least 8 per side"))
      << r.status();
  // --allow-unchecked names the choice: not checked, not "straddles".
  CompareOptions lenient;
  lenient.allow_unchecked = true;
  auto l = CompareFiles(old_side, new_side, lenient);
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(l->rows[0].unchecked);
  EXPECT_TRUE(absl::StartsWith(l->rows[0].reason, "not checked"));
}

// Issue: 5 samples, 7 comparisons: Holm's smallest p 0.056 can never reach
// 0.05, and the reason said "straddles the threshold".
TEST(VerdictRulesTest, AGateThatCannotReachAlphaIsRefused) {
  std::vector<Baseline> old_side;
  std::vector<Baseline> new_side;
  for (int w = 0; w < 7; ++w) {
    const std::string name = "w" + std::to_string(w);
    old_side.push_back(Side(name, 1, Samples(5, 100, 10 + w)));
    new_side.push_back(Side(name, 2, Samples(5, 125, 20 + w)));
  }
  auto r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(
      absl::StrContains(r.status().message(), "8 per side for 7 comparisons"))
      << r.status();
  std::map<std::string, std::vector<std::string>> metrics;
  for (const Baseline& b : old_side) metrics[b.workload] = {"device_time_us"};
  const absl::Status s = CheckGateCanReachAlpha(
      old_side, "trn1", 2, new_side[0].schedule, metrics, 0.05);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "refused before running")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "for 7 comparisons")) << s;
}

// The check before a run counts only what the run will compare: baselines
// of another device and metrics they lack are left to the comparison's
// own errors, which name the device or the metric (error catalogue).
TEST(VerdictRulesTest, TheCheckBeforeARunCountsOnlyWhatWillBeCompared) {
  std::vector<Baseline> old_side;
  for (int w = 0; w < 7; ++w) {
    old_side.push_back(Side("w" + std::to_string(w), 1, Samples(5, 100, w)));
  }
  Schedule schedule;
  schedule.repeat = 5;
  std::map<std::string, std::vector<std::string>> metrics;
  for (const Baseline& b : old_side) metrics[b.workload] = {"device_time_us"};
  // Another device: nothing of it will be compared, nothing to refuse here.
  EXPECT_TRUE(
      CheckGateCanReachAlpha(old_side, "trn2", 2, schedule, metrics, 0.05)
          .ok());
  // A baseline without a metric the run has: left to CheckMissingMetric.
  std::map<std::string, std::vector<std::string>> more = metrics;
  for (auto& [w, m] : more) m.push_back("ncl_us");
  EXPECT_TRUE(
      CheckGateCanReachAlpha(old_side, "trn1", 2, schedule, more, 0.05).ok());
  // One of them on this device: m = 1, and 5 per side is still below 8.
  old_side[3].device = "trn1";
  for (Baseline& b : old_side) {
    if (&b != &old_side[3]) b.device = "trn2";
  }
  const absl::Status one =
      CheckGateCanReachAlpha(old_side, "trn1", 2, schedule, metrics, 0.05);
  EXPECT_FALSE(one.ok());
  EXPECT_TRUE(absl::StrContains(one.message(), "w3")) << one;
  EXPECT_TRUE(absl::StrContains(one.message(), "for 1 comparisons")) << one;
}

// The reason names the adjusted p when the interval clears the threshold
// but Holm's p does not reach alpha.
TEST(VerdictRulesTest, InconclusiveReasonNamesTheAdjustedP) {
  MetricComparison c;
  c.n_baseline = c.n_current = 10;
  c.threshold = 0.02;
  c.change_interval = {.low = 0.22, .high = 0.25, .level = 0.95};
  c.p_adjusted = 0.056;
  DecideVerdict(c, 0.05, 7);
  EXPECT_EQ(c.verdict, Verdict::kInconclusive);
  EXPECT_FALSE(absl::StrContains(c.reason, "straddles")) << c.reason;
  EXPECT_TRUE(absl::StrContains(c.reason, "adjusted p = 0.056")) << c.reason;
}

// Issue: half the samples +3% was called `unchanged` or given "about 728
// repeats per side would resolve it".
TEST(VerdictRulesTest, ALevelShiftIsNotStationaryWithoutRepeatsAdvice) {
  std::vector<double> current = Samples(100, 100, 31);
  for (size_t i = 50; i < current.size(); ++i) current[i] *= 1.03;
  const MetricComparison c0 =
      CompareSamples(Samples(100, 100, 30), current, false, 0.95);
  EXPECT_TRUE(c0.current_series.shifted);
  MetricComparison c = c0;
  c.threshold = 0.02;
  c.p_adjusted = c.p_value;
  DecideVerdict(c, 0.05, 1);
  EXPECT_EQ(c.verdict, Verdict::kInconclusive);
  EXPECT_TRUE(absl::StartsWith(c.reason, "not stationary")) << c.reason;
  EXPECT_FALSE(absl::StrContains(c.reason, "repeats per side")) << c.reason;
}

// Issue: `compare baselines/trn1 all.json` judged only what all.json held.
TEST(VerdictRulesTest, AWholeSuiteGateRefusesAFileMissingWorkloads) {
  std::vector<Baseline> old_side = {Side("a", 1, Samples(20, 100, 40))};
  std::vector<Baseline> new_side = {Side("a", 2, Samples(20, 100, 41))};
  CompareOptions o;
  o.old_side_is_baseline_set = true;
  o.source = "baselines/trn1";
  o.baseline_set_workloads = {"a", "regressed"};
  auto r = CompareFiles(old_side, new_side, o);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "lacks 1 workload"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "regressed"));
  o.allow_missing = true;
  auto allowed = CompareFiles(old_side, new_side, o);
  ASSERT_TRUE(allowed.ok()) << allowed.status();
  bool listed = false;
  for (const auto& row : allowed->rows) {
    listed = listed || (row.workload == "regressed" && row.unchecked);
  }
  EXPECT_TRUE(listed);
}

// Issue: provenance.noise_threshold 0.9 turned a +25% regression into a
// pass; capped at 20%, a baseline saying 0.99 still widened the gate from
// 2% to 20% (issue 43). A baseline's threshold may narrow the gate's,
// never widen it; a current side's own is capped at 20%.
TEST(VerdictRulesTest, ABaselineThresholdCannotWidenTheGate) {
  std::vector<Baseline> old_side = {Side("a", 1, Samples(20, 100, 50))};
  old_side[0].file = "baselines/trn1/a.json";
  std::vector<Baseline> new_side = {Side("a", 2, Samples(20, 110, 51))};
  for (double recorded : {0.9, 0.99, 0.15}) {
    old_side[0].noise_threshold = recorded;
    auto r = CompareFiles(old_side, new_side, CompareOptions{});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->rows[0].threshold, 0.02) << recorded;
    EXPECT_EQ(r->rows[0].verdict, Verdict::kRegression)
        << recorded << " " << r->rows[0].reason;
    EXPECT_EQ(ThresholdText(*r), "±2.00%");
    bool noted = false;
    for (const std::string& n : r->rows[0].notes) {
      noted = noted || (absl::StrContains(n,
                                          "baselines/trn1/a.json records "
                                          "noise_threshold") &&
                        absl::StrContains(n, "never widen it; 2.00% applies"));
    }
    EXPECT_TRUE(noted) << recorded;
  }
  // A wider --threshold is the user's own: the baseline narrows it.
  CompareOptions loose;
  loose.threshold = 0.5;
  old_side[0].noise_threshold = 0.05;
  auto r = CompareFiles(old_side, new_side, loose);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].threshold, 0.05);
  EXPECT_EQ(r->rows[0].verdict, Verdict::kRegression) << r->rows[0].reason;
  bool noted = false;
  for (const std::string& n : r->rows[0].notes) {
    noted = noted || absl::StrContains(n, "narrower than --threshold 50.00%");
  }
  EXPECT_TRUE(noted);
  // The current side's own recorded threshold is capped at 20%.
  old_side[0].noise_threshold = NAN;
  new_side[0].noise_threshold = 0.9;
  new_side.push_back(Side("b", 2, Samples(20, 125, 53)));
  old_side.push_back(Side("b", 1, Samples(20, 100, 52)));
  new_side[0] = Side("a", 2, Samples(20, 125, 51));
  new_side[0].noise_threshold = 0.9;
  r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].threshold, kMaxNoiseThreshold);
  EXPECT_EQ(r->rows[0].verdict, Verdict::kRegression) << r->rows[0].reason;
  EXPECT_TRUE(absl::StrContains(ThresholdText(*r), "20.00%"));
  EXPECT_EQ(ApplicableThreshold(NAN, 0.99, 0.02), 0.02);
  EXPECT_EQ(ApplicableThreshold(0.10, 0.99, 0.02), 0.10);
  EXPECT_EQ(ApplicableThreshold(0.10, 0.05, 0.02), 0.05);
  EXPECT_EQ(ApplicableThreshold(0.9, NAN, 0.02), kMaxNoiseThreshold);
  EXPECT_EQ(ApplicableThreshold(NAN, 0.01, 0.02), 0.01);
}

// Issue: deleting a workload from `shard.selected` in every shard merged.
TEST(VerdictRulesTest, ShardSelectionDigestCoversTheSelection) {
  const std::string d = history::SelectionDigest("cfg", {"a", "b"});
  EXPECT_TRUE(absl::StartsWith(d, "fnv1a64:"));
  EXPECT_NE(d, history::SelectionDigest("cfg", {"a"}));
  EXPECT_NE(d, history::SelectionDigest("cfg2", {"a", "b"}));
}

}  // namespace
}  // namespace trn
