// The gate's statistical claims on serially dependent samples (issue 12),
// measured on synthetic series whose truth is known; docs/statistics.md
// quotes this file's output and every figure there is asserted here:
// - A/A: gate runs of 7 comparisons, each side 100 samples of AR(1)
//   log-noise (rho 0.5 and 0.9, marginal sd 2%), raise a regression in at
//   most 5% of runs;
// - coverage: the 95% interval on the change covers a known ratio in
//   93-97% of trials at rho 0.5 and 0.9 (and on independent samples);
// - power: on independent samples a 5% slowdown is called a regression in
//   at least 95% of gate runs.
// Beside each figure the test prints what the rank methods alone (the gate
// before serial dependence was handled) give on the same data.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "boost/math/distributions/normal.hpp"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/comparison_stats.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

constexpr int kComparisons = 7;  // one gate run, as in the issue
constexpr int kN = 100;          // samples per side
constexpr double kSigma = 0.02;  // marginal sd of the log noise

int Trials(const char* env, int fallback) {
  const char* v = std::getenv(env);
  return v != nullptr ? std::atoi(v) : fallback;
}

double Gauss(CounterRng& rng) {
  const double u = (static_cast<double>(rng.NextU64() >> 11) + 0.5) * 0x1p-53;
  return boost::math::quantile(boost::math::normal_distribution<double>(), u);
}

// 100 exp(sigma e_t + shift), e_t stationary AR(1) with unit variance.
std::vector<double> Series(uint64_t key, double rho, double sigma,
                           double shift) {
  CounterRng rng(key);
  std::vector<double> x(kN);
  double e = Gauss(rng);
  const double innovation = std::sqrt(1.0 - rho * rho);
  for (int t = 0; t < kN; ++t) {
    if (t > 0) e = rho * e + innovation * Gauss(rng);
    x[t] = 100.0 * std::exp(sigma * e + shift);
  }
  return x;
}

Baseline Side(const std::string& workload, uint64_t seed,
              std::vector<double> samples) {
  Baseline b;
  b.workload = workload;
  b.device = "trn1";
  b.seed = seed;  // different seeds: independent sides, unpaired analysis
  b.schedule.repeat = kN;
  MetricResult m;
  m.name = "device_time_us";
  m.samples = std::move(samples);
  b.metrics.push_back(std::move(m));
  return b;
}

struct GateOutcome {
  bool regression = false;       // the gate as shipped
  bool rank_regression = false;  // rank methods alone (before)
};

// One gate run: 7 workloads, the first `changed` of them slowed by
// `shift` (log scale) on the current side.
GateOutcome GateRun(uint64_t experiment, int run, double rho, double sigma,
                    double shift, int changed, double threshold) {
  std::vector<Baseline> old_side;
  std::vector<Baseline> new_side;
  for (int w = 0; w < kComparisons; ++w) {
    const std::string name = "w" + std::to_string(w);
    const uint64_t key = CounterRng::KeyFor(experiment, run, w);
    old_side.push_back(Side(name, 1, Series(Mix64(key), rho, sigma, 0.0)));
    new_side.push_back(Side(name, 2,
                            Series(Mix64(key ^ 0x9e3779b97f4a7c15ULL), rho,
                                   sigma, w < changed ? shift : 0.0)));
  }
  CompareOptions options;
  options.threshold = threshold;
  auto report = CompareFiles(old_side, new_side, options);
  EXPECT_TRUE(report.ok()) << report.status();
  GateOutcome out;
  out.regression = report->AnyRegression();
  // The same data through the rank methods only: Hodges-Lehmann interval,
  // Mann-Whitney p, Holm, and the same threshold rule.
  std::vector<double> p;
  std::vector<double> low;
  for (int w = 0; w < kComparisons; ++w) {
    std::vector<double> la;
    std::vector<double> lb;
    for (double x : old_side[w].metrics[0].samples) la.push_back(std::log(x));
    for (double x : new_side[w].metrics[0].samples) lb.push_back(std::log(x));
    const stats::ShiftEstimate s = stats::HodgesLehmannShift(la, lb, 0.95);
    p.push_back(s.p_value);
    low.push_back(std::expm1(s.interval.low));
  }
  const std::vector<double> adjusted = stats::HolmAdjust(p);
  for (int w = 0; w < kComparisons; ++w) {
    out.rank_regression =
        out.rank_regression || (adjusted[w] < 0.05 && low[w] > threshold);
  }
  return out;
}

TEST(RobustnessExperiments, AaFalseAlarmsUnderAutocorrelation) {
  const int runs = Trials("TRN_ROBUSTNESS_RUNS", 1000);
  std::printf(
      "A/A, %d gate runs of %d comparisons, n = %d per side, "
      "AR(1) log-noise sd %.0f%%:\n",
      runs, kComparisons, kN, kSigma * 100);
  for (double rho : {0.0, 0.5, 0.9}) {
    for (double threshold : {0.02, 0.0}) {
      int alarms = 0;
      int rank_alarms = 0;
      for (int k = 0; k < runs; ++k) {
        const GateOutcome o = GateRun(static_cast<uint64_t>(rho * 10) + 100, k,
                                      rho, kSigma, 0.0, 0, threshold);
        alarms += o.regression;
        rank_alarms += o.rank_regression;
      }
      const double rate = alarms / double{static_cast<double>(runs)};
      std::printf(
          "  rho %.1f threshold %.0f%%: false-alarm rate %d/%d = "
          "%.3f (rank methods alone: %.3f)\n",
          rho, threshold * 100, alarms, runs, rate,
          rank_alarms / static_cast<double>(runs));
      // The requirement is for the gate as shipped (2% threshold); with
      // no threshold the family-wise rate rests on the p-values alone.
      if (threshold > 0) {
        EXPECT_LE(rate, 0.05) << rho;
      } else {
        EXPECT_LE(rate, 0.06) << rho;
      }
    }
  }
}

TEST(RobustnessExperiments, IntervalCoverageUnderAutocorrelation) {
  const int trials = Trials("TRN_COVERAGE_TRIALS", 2000);
  constexpr double kRatio = 1.03;
  for (double rho : {0.0, 0.2, 0.5, 0.9}) {
    int covered = 0;
    int adjusted = 0;
    int rank_covered = 0;
    int drifting = 0;
    int bimodal = 0;
    for (int t = 0; t < trials; ++t) {
      const uint64_t key = CounterRng::KeyFor(
          200 + static_cast<uint64_t>(rho * 10), static_cast<uint64_t>(t), 0);
      const std::vector<double> a = Series(Mix64(key), rho, kSigma, 0.0);
      const std::vector<double> b =
          Series(Mix64(key + 1), rho, kSigma, std::log(kRatio));
      const MetricComparison c = CompareSamples(a, b, false, 0.95);
      covered += (1 + c.change_interval.low) <= kRatio &&
                 kRatio <= (1 + c.change_interval.high);
      adjusted += c.autocorrelation_adjusted;
      drifting += c.baseline_series.drifting;
      bimodal += c.baseline_series.bimodal;
      std::vector<double> la;
      std::vector<double> lb;
      for (double x : a) la.push_back(std::log(x));
      for (double x : b) lb.push_back(std::log(x));
      const stats::ShiftEstimate s = stats::HodgesLehmannShift(la, lb, 0.95);
      rank_covered += s.interval.low <= std::log(kRatio) &&
                      std::log(kRatio) <= s.interval.high;
    }
    const double coverage = covered / static_cast<double>(trials);
    std::printf(
        "coverage: rho %.1f: 95%% interval covers x%.2f in %d/%d = "
        "%.3f (AR(1) t used in %.0f%%; rank interval alone: %.3f); "
        "series flagged as drifting %.1f%%, bimodal %.1f%%\n",
        rho, kRatio, covered, trials, coverage, 100.0 * adjusted / trials,
        rank_covered / static_cast<double>(trials), 100.0 * drifting / trials,
        100.0 * bimodal / trials);
    if (rho != 0.2) {  // rho 0.2 is reported, not promised: see the docs
      EXPECT_GE(coverage, 0.93) << rho;
      EXPECT_LE(coverage, 0.97) << rho;
    }
  }
}

TEST(RobustnessExperiments, PowerOnIndependentSamples) {
  const int runs = Trials("TRN_ROBUSTNESS_RUNS", 1000);
  for (double sigma : {0.02, 0.05}) {
    int caught = 0;
    for (int k = 0; k < runs; ++k) {
      // One of the 7 comparisons is 5% slower.
      caught += GateRun(300 + static_cast<uint64_t>(sigma * 100), k, 0.0, sigma,
                        std::log(1.05), 1, 0.02)
                    .regression;
    }
    const double power = caught / static_cast<double>(runs);
    std::printf(
        "power: independent, log-noise sd %.0f%%, one of %d "
        "comparisons 5%% slower: %d/%d = %.3f\n",
        sigma * 100, kComparisons, caught, runs, power);
    EXPECT_GE(power, 0.95) << sigma;
  }
}

}  // namespace
}  // namespace trn
