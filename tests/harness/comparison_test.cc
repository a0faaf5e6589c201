#include "harness/gate/comparison.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

using ::testing::HasSubstr;

// Deterministic noisy samples around `center` (relative spread `cv`-ish):
// the sum of 4 uniforms is close to normal and fully reproducible.
std::vector<double> Noisy(double center, double spread, int n, uint64_t key) {
  CounterRng rng(CounterRng::KeyFor(key, 77, 0));
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    double z = rng.NextUniform() + rng.NextUniform() + rng.NextUniform() +
               rng.NextUniform() - 2.0;
    v.push_back(center * (1.0 + spread * z));
  }
  return v;
}

MetricComparison Decided(std::vector<double> base, std::vector<double> cur,
                         bool lower_is_better = true, bool paired = false,
                         double threshold = 0.02) {
  // One comparison through the full path (Holm with m = 1, verdict).
  RunResult run;
  run.device = "trn1";
  run.seed = paired ? 1 : 2;
  run.schedule.repeat = static_cast<int64_t>(cur.size());
  WorkloadResult w;
  w.name = "wl";
  MetricResult m;
  m.name = lower_is_better ? "device_time_us" : "throughput_per_s";
  m.lower_is_better = lower_is_better;
  m.samples = cur;
  w.metrics.push_back(m);
  run.workloads.push_back(w);
  Baseline b;
  b.workload = "wl";
  b.device = "trn1";
  b.seed = 1;
  b.schedule.repeat = static_cast<int64_t>(base.size());
  MetricResult bm = m;
  bm.samples = base;
  b.metrics.push_back(bm);
  CompareOptions o;
  o.threshold = threshold;
  auto r = CompareWithBaselines(run, {b}, o);
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows.size(), 1u);
  return r->rows.front();
}

TEST(ComparisonTest, IdenticalPairedSamplesAreExactlyZeroAndUnchanged) {
  auto s = Noisy(100, 0.02, 100, 1);
  MetricComparison c = Decided(s, s, true, /*paired=*/true);
  EXPECT_TRUE(c.paired);
  EXPECT_EQ(c.change, 0.0);
  EXPECT_EQ(c.change_interval.low, 0.0);
  EXPECT_EQ(c.change_interval.high, 0.0);
  EXPECT_EQ(c.verdict, Verdict::kUnchanged);
  EXPECT_EQ(c.rank_test, "wilcoxon-signed-rank");
}

TEST(ComparisonTest, SameDistributionUnpairedIsUnchanged) {
  MetricComparison c =
      Decided(Noisy(100, 0.02, 100, 1), Noisy(100, 0.02, 100, 2));
  EXPECT_FALSE(c.paired);
  EXPECT_EQ(c.rank_test, "mann-whitney-u");
  EXPECT_EQ(c.verdict, Verdict::kUnchanged) << c.reason;
  EXPECT_LT(c.change_interval.low, 0.0);
  EXPECT_GT(c.change_interval.high, 0.0);
}

TEST(ComparisonTest, TenPercentSlowerIsARegression) {
  MetricComparison c =
      Decided(Noisy(100, 0.02, 100, 1), Noisy(110, 0.02, 100, 2));
  EXPECT_EQ(c.verdict, Verdict::kRegression) << c.reason;
  EXPECT_NEAR(c.change, 0.10, 0.01);
  EXPECT_LT(c.change_interval.low, 0.10);
  EXPECT_GT(c.change_interval.high, 0.10);
  EXPECT_LT(c.p_adjusted, 1e-6);
  EXPECT_LT(c.p_t, 1e-6);
  EXPECT_THAT(c.reason, HasSubstr("higher (worse)"));
}

TEST(ComparisonTest, DirectionFollowsTheMetric) {
  // Lower throughput is a regression; higher throughput an improvement.
  EXPECT_EQ(
      Decided(Noisy(100, 0.02, 80, 1), Noisy(90, 0.02, 80, 2), false).verdict,
      Verdict::kRegression);
  EXPECT_EQ(
      Decided(Noisy(100, 0.02, 80, 1), Noisy(110, 0.02, 80, 2), false).verdict,
      Verdict::kImprovement);
  EXPECT_EQ(
      Decided(Noisy(100, 0.02, 80, 1), Noisy(90, 0.02, 80, 2), true).verdict,
      Verdict::kImprovement);
}

TEST(ComparisonTest, SignificantButBelowThresholdIsUnchanged) {
  // 1% slower with a tight spread: the test sees it, the threshold ignores it.
  MetricComparison c =
      Decided(Noisy(100, 0.001, 200, 1), Noisy(101, 0.001, 200, 2));
  EXPECT_LT(c.p_adjusted, 0.05);
  EXPECT_EQ(c.verdict, Verdict::kUnchanged) << c.reason;
}

TEST(ComparisonTest,
     StraddlingTheThresholdIsInconclusiveAndSaysHowManyRepeats) {
  MetricComparison c =
      Decided(Noisy(100, 0.05, 20, 1), Noisy(102, 0.05, 20, 2));
  EXPECT_EQ(c.verdict, Verdict::kInconclusive) << c.reason;
  EXPECT_GT(c.repeats_to_resolve, 20);
  EXPECT_THAT(c.reason, HasSubstr("repeats per side"));
}

TEST(ComparisonTest, PerWorkloadThresholdIsUsed) {
  // 10% slower is under a 15% threshold.
  MetricComparison c = Decided(Noisy(100, 0.01, 100, 1),
                               Noisy(110, 0.01, 100, 2), true, false, 0.15);
  EXPECT_EQ(c.verdict, Verdict::kUnchanged) << c.reason;
}

Baseline OneBaseline(const std::string& workload, const std::string& device,
                     std::vector<double> samples) {
  Baseline b;
  b.workload = workload;
  b.device = device;
  b.seed = 1;
  b.spec_hash = "old";
  b.file = "base/" + workload + ".json";
  b.schedule.repeat = static_cast<int64_t>(samples.size());
  MetricResult m;
  m.name = "device_time_us";
  m.unit = "us";  // what a baseline file must say of this metric
  m.samples = std::move(samples);
  b.metrics.push_back(m);
  return b;
}

RunResult TwoWorkloadRun() {
  RunResult run;
  run.device = "trn1";
  run.seed = 9;
  run.schedule.repeat = 50;
  for (const char* name : {"a", "b"}) {
    WorkloadResult w;
    w.name = name;
    w.spec_hash = "new";
    MetricResult m;
    m.name = "device_time_us";
    m.samples = Noisy(100, 0.02, 50, name[0]);
    w.metrics.push_back(m);
    run.workloads.push_back(w);
  }
  return run;
}

TEST(ComparisonTest, MissingBaselineIsAnErrorUnlessAllowed) {
  RunResult run = TwoWorkloadRun();
  for (auto& w : run.workloads) {
    w.metrics[0].summary = stats::Summarize(w.metrics[0].samples, 0.95);
  }
  std::vector<Baseline> only_a = {
      OneBaseline("a", "trn1", Noisy(100, 0.02, 50, 5))};
  auto refused = CompareWithBaselines(run, only_a, CompareOptions{});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("no baseline for workload b"));
  CompareOptions allow;
  allow.allow_missing = true;
  auto r = CompareWithBaselines(run, only_a, allow);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[1].workload, "b");
  EXPECT_EQ(r->rows[1].verdict, Verdict::kNew);
  // A new workload is shown with its own figures, per gated metric.
  EXPECT_EQ(r->rows[1].metric, r->rows[0].metric);
  EXPECT_GT(r->rows[1].n_current, 0);
  EXPECT_GT(r->rows[1].current_median, 0);
  EXPECT_TRUE(std::isnan(r->rows[1].baseline_median));
  EXPECT_EQ(r->comparisons, 1);
}

TEST(ComparisonTest, AnotherDeviceIsRefused) {
  RunResult run = TwoWorkloadRun();
  auto r =
      CompareWithBaselines(run,
                           {OneBaseline("a", "trn2", Noisy(100, 0.02, 50, 5)),
                            OneBaseline("b", "trn2", Noisy(100, 0.02, 50, 6))},
                           CompareOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(
      std::string(r.status().message()),
      HasSubstr("base/a.json: /device/name: the baseline is for device trn2"));
}

TEST(ComparisonTest, ChangedSpecIsNotedNotRefusedAndHolmCountsEveryComparison) {
  RunResult run = TwoWorkloadRun();
  auto r =
      CompareWithBaselines(run,
                           {OneBaseline("a", "trn1", Noisy(100, 0.02, 50, 5)),
                            OneBaseline("b", "trn1", Noisy(100, 0.02, 50, 6))},
                           CompareOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->comparisons, 2);
  for (const auto& c : r->rows) {
    EXPECT_THAT(c.notes,
                ::testing::Contains("spec changed since the baseline"));
    EXPECT_GE(c.p_adjusted, c.p_rank);
  }
}

TEST(ComparisonTest, HolmCountsOnlyTheComparisonsItAdjusts) {
  // Workload b's baseline holds a 0 (no log ratio exists): its row has no
  // p-value, so it is not one of Holm's m and a's p is adjusted with m = 1.
  RunResult run = TwoWorkloadRun();
  std::vector<double> broken = Noisy(100, 0.02, 50, 6);
  broken[3] = 0.0;
  // Without --allow-unchecked the gate refuses a row it cannot compute
  // (gate_inputs.h); with it, the row stays in the report as unchecked.
  EXPECT_FALSE(
      CompareWithBaselines(run,
                           {OneBaseline("a", "trn1", Noisy(104, 0.02, 50, 5)),
                            OneBaseline("b", "trn1", broken)},
                           CompareOptions{})
          .ok());
  CompareOptions unchecked;
  unchecked.allow_unchecked = true;
  auto r =
      CompareWithBaselines(run,
                           {OneBaseline("a", "trn1", Noisy(104, 0.02, 50, 5)),
                            OneBaseline("b", "trn1", broken)},
                           unchecked);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->comparisons, 1);
  EXPECT_EQ(r->rows[0].p_adjusted, r->rows[0].p_value);
  EXPECT_EQ(r->rows[0].p_value, r->rows[0].p_rank);
  EXPECT_TRUE(std::isnan(r->rows[1].p_value));
  EXPECT_TRUE(std::isnan(r->rows[1].p_adjusted));
  EXPECT_EQ(r->rows[1].verdict, Verdict::kInconclusive);
}

TEST(ComparisonTest, RepeatsToResolveAreBoundedAndExplained) {
  // The current side is 2% slower: the interval's centre sits on the 2%
  // threshold and 1/sqrt(n) extrapolation would ask for ~10^5 repeats.
  std::vector<double> base = Noisy(100, 0.05, 20, 1);
  std::vector<double> cur;
  for (double x : Noisy(100, 0.05, 20, 2)) cur.push_back(x);
  const MetricComparison probe = Decided(base, cur);
  // Scale so the interval's centre is on the threshold: a log shift s
  // moves [lo, hi] to [(1 + lo) e^s - 1, (1 + hi) e^s - 1].
  const double factor =
      2.04 / (2.0 + probe.change_interval.low + probe.change_interval.high);
  for (double& x : cur) x *= factor;
  const MetricComparison c = Decided(base, cur);
  ASSERT_EQ(c.verdict, Verdict::kInconclusive) << c.reason;
  EXPECT_EQ(c.repeats_to_resolve, 10000);
  EXPECT_THAT(c.reason, HasSubstr("more than 10000 repeats per side"));
  EXPECT_THAT(c.reason, HasSubstr("about the size of the threshold"));
}

TEST(ComparisonTest, TheRecordedSpecThresholdIsAppliedAndShown) {
  // compare OLD NEW: the new side's recorded noise_threshold (10%) applies
  // to its workload, the flag's 2% to the other; the header says both.
  std::vector<Baseline> old_side = {
      OneBaseline("a", "trn1", Noisy(100, 0.01, 50, 1)),
      OneBaseline("b", "trn1", Noisy(100, 0.01, 50, 2))};
  std::vector<Baseline> new_side = {
      OneBaseline("a", "trn1", Noisy(106, 0.01, 50, 3)),
      OneBaseline("b", "trn1", Noisy(100, 0.01, 50, 4))};
  new_side[0].noise_threshold = 0.10;
  new_side[0].seed = new_side[1].seed = 2;
  auto r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].threshold, 0.10);
  EXPECT_EQ(r->rows[0].verdict, Verdict::kUnchanged) << r->rows[0].reason;
  EXPECT_EQ(r->rows[1].threshold, 0.02);
  EXPECT_EQ(ThresholdText(*r), "±2.00% (±10.00% for a)");
  // One threshold for every row: the header shows it alone.
  {
    std::vector<Baseline> one_new = {new_side[0]};
    r = CompareFiles(old_side, one_new, CompareOptions{});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(ThresholdText(*r), "±10.00%");
  }
  // Recorded only on the old side: a baseline may narrow the threshold,
  // never widen it (issue 43), so its 10% gives way to the flag's 2%...
  std::swap(new_side[0].noise_threshold, old_side[0].noise_threshold);
  r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].threshold, 0.02);
  // ... and its 1% applies.
  old_side[0].noise_threshold = 0.01;
  r = CompareFiles(old_side, new_side, CompareOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->rows[0].threshold, 0.01);
  EXPECT_EQ(ApplicableThreshold(NAN, NAN, 0.03), 0.03);
  EXPECT_EQ(ApplicableThreshold(0.05, 0.07, 0.03), 0.05);
}

TEST(ComparisonTest, TheSpecThresholdSurvivesABaselineFile) {
  Baseline b = OneBaseline("a", "trn1", Noisy(100, 0.01, 8, 1));
  b.noise_threshold = 0.125;
  auto read = ParseBaselineOrResults(BaselineToJsonText(b), "a.json", 0.95);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->front().noise_threshold, 0.125);
  b.noise_threshold = NAN;  // a spec without one: nothing is written
  const std::string text = BaselineToJsonText(b);
  EXPECT_THAT(text, ::testing::Not(HasSubstr("noise_threshold")));
  read = ParseBaselineOrResults(text, "a.json", 0.95);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(std::isnan(read->front().noise_threshold));
}

TEST(ComparisonTest, AutocorrelatedSamplesAreComparedWithAnAr1TTest) {
  // Each side a slow random walk around 100 (AR(1) with rho 0.95): the
  // rank test would call a difference of the walks' levels significant.
  auto walk = [](uint64_t key) {
    CounterRng rng(CounterRng::KeyFor(key, 5, 0));
    std::vector<double> x;
    double e = 0.0;
    for (int i = 0; i < 100; ++i) {
      const double u = rng.NextUniform() + rng.NextUniform() +
                       rng.NextUniform() - 1.5;  // sd 0.5
      e = 0.95 * e + u;
      x.push_back(100.0 * std::exp(0.01 * e));
    }
    return x;
  };
  const MetricComparison c = Decided(walk(1), walk(2));
  EXPECT_TRUE(c.autocorrelation_adjusted);
  EXPECT_TRUE(c.baseline_series.autocorrelated);
  EXPECT_EQ(c.test, "welch-t-log-ar1");
  EXPECT_EQ(c.t_test, "welch-t-log-ar1");
  EXPECT_TRUE(c.rank_test.empty());
  EXPECT_TRUE(std::isnan(c.p_rank));
  EXPECT_EQ(c.p_value, c.p_t);
  EXPECT_THAT(c.notes, ::testing::Contains(HasSubstr(
                           "device_time_us baseline autocorrelated: ")));
  EXPECT_THAT(c.notes, ::testing::Contains(HasSubstr("no rank test")));
  const bool inside = c.change_interval.low <= 0 && 0 <= c.change_interval.high;
  EXPECT_EQ(inside, c.p_value > 0.05);
}

TEST(ComparisonTest, VerdictNames) {
  EXPECT_EQ(VerdictName(Verdict::kRegression), "regression");
  EXPECT_EQ(VerdictName(Verdict::kImprovement), "improvement");
  EXPECT_EQ(VerdictName(Verdict::kUnchanged), "unchanged");
  EXPECT_EQ(VerdictName(Verdict::kInconclusive), "inconclusive");
  EXPECT_EQ(VerdictName(Verdict::kNew), "new");
}

}  // namespace
}  // namespace trn
