// The gate at small sample sizes (issue 26): A/A family-wise false alarms,
// coverage of the change's interval and power, for n = 5, 10, 20, 50 and
// 100 samples per side under seven kinds of noise with a known truth.
// docs/statistics.md ("Small samples") is this file's table; regenerate it
// with
//
//   TRN_SMALL_N_RUNS=1000 ./build/tests/harness_tests
//       --gtest_filter='SmallSampleExperiments*'
//
// (the default, 200 gate runs per cell, keeps the test under ctest's
// minute; the seed is fixed, so either count prints the same table on
// every machine). Asserted on every cell: the A/A rate of gate runs with
// any regression or improvement is at most 5%; the 95% interval covers the
// true ratio in 93-97% of the comparisons the gate gives a verdict on (at
// least 93% where the small-sample AR(1) rule or a drift widens it); and
// where the gate cannot give one (too few samples for Holm, a run that is
// not stationary) it refuses or says why, and a "straddles the threshold"
// reason is true of its interval.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "boost/math/distributions/normal.hpp"
#include "gtest/gtest.h"
#include "harness/gate/baseline_store.h"
#include "harness/gate/comparison.h"
#include "harness/statistics/serial_dependence.h"
#include "support/counter_rng.h"

namespace trn {
namespace {

constexpr int kComparisons = 7;     // one gate run, as in the issue
constexpr double kSigma = 0.02;     // sd of the log noise
constexpr double kRatio = 1.03;     // the coverage trials' true ratio
constexpr double kSlowdown = 1.05;  // the power trials' regression

int Runs() {
  const char* v = std::getenv("TRN_SMALL_N_RUNS");
  return v != nullptr ? std::max(1, std::atoi(v)) : 200;
}

// The first run's index (TRN_SMALL_N_FIRST, default 0): runs [first,
// first + runs) are drawn, so a table of runs no choice was made on (a
// held-out check) is TRN_SMALL_N_FIRST=1000.
int First() {
  const char* v = std::getenv("TRN_SMALL_N_FIRST");
  return v != nullptr ? std::max(0, std::atoi(v)) : 0;
}

double Gauss(CounterRng& rng) {
  const double u = (static_cast<double>(rng.NextU64() >> 11) + 0.5) * 0x1p-53;
  return boost::math::quantile(boost::math::normal_distribution<double>(), u);
}

enum class Noise { kIid, kAr05, kAr09, kDrift, kBimodal, kHeavy, kStep };
constexpr Noise kNoises[] = {Noise::kIid,   Noise::kAr05,    Noise::kAr09,
                             Noise::kDrift, Noise::kBimodal, Noise::kHeavy,
                             Noise::kStep};

const char* NoiseName(Noise k) {
  switch (k) {
    case Noise::kIid:
      return "iid";
    case Noise::kAr05:
      return "AR(1) 0.5";
    case Noise::kAr09:
      return "AR(1) 0.9";
    case Noise::kDrift:
      return "drift +3%";
    case Noise::kBimodal:
      return "bimodal";
    case Noise::kHeavy:
      return "heavy-tailed";
    case Noise::kStep:
      return "level shift +3%";
  }
  return "?";
}

// One run's log noise: sd kSigma marginally (iid, AR(1)), plus the
// disturbance the kind names. Both sides of a comparison draw from the
// same process, so their true ratio is exactly the factor applied.
//  - drift: +3% from the first sample to the last, linearly;
//  - bimodal: 30% of the samples in a second mode 8% above the first;
//  - heavy-tailed: Student t with 3 degrees of freedom (infinite fourth
//    moment), scaled to sd kSigma;
//  - level shift: +3% from a uniformly chosen sample in the middle half of
//    the run on.
std::vector<double> Series(uint64_t key, Noise kind, int n, double factor) {
  CounterRng rng(key);
  std::vector<double> x(static_cast<size_t>(n));
  const double rho = kind == Noise::kAr05   ? 0.5
                     : kind == Noise::kAr09 ? 0.9
                                            : 0.0;
  const double innovation = std::sqrt(1.0 - rho * rho);
  const int step_at = n / 4 + static_cast<int>(rng.NextBelow(
                                  static_cast<uint64_t>(std::max(1, n / 2))));
  double e = Gauss(rng);
  for (int t = 0; t < n; ++t) {
    if (t > 0) e = rho * e + innovation * Gauss(rng);
    double log_x = kSigma * e;
    switch (kind) {
      case Noise::kDrift:
        log_x += std::log(1.03) * t / std::max(1, n - 1);
        break;
      case Noise::kBimodal:
        if (rng.NextUniform() < 0.3) log_x += std::log(1.08);
        break;
      case Noise::kHeavy: {
        double chi2 = 0;
        for (int k = 0; k < 3; ++k) {
          const double g = Gauss(rng);
          chi2 += g * g;
        }
        log_x = kSigma * e / std::sqrt(chi2 / 3.0) / std::sqrt(3.0);
        break;
      }
      case Noise::kStep:
        if (t >= step_at) log_x += std::log(1.03);
        break;
      default:
        break;
    }
    x[static_cast<size_t>(t)] = 100.0 * std::exp(log_x) * factor;
  }
  return x;
}

Baseline Side(const std::string& workload, uint64_t seed, int n,
              std::vector<double> samples) {
  Baseline b;
  b.workload = workload;
  b.device = "trn1";
  b.seed = seed;  // different seeds: independent sides, unpaired analysis
  b.schedule.repeat = n;
  MetricResult m;
  m.name = "device_time_us";
  m.samples = std::move(samples);
  b.metrics.push_back(std::move(m));
  return b;
}

// The reasons of a comparison the gate withholds a verdict from, as
// DecideVerdict words them.
bool Withheld(const MetricComparison& c) {
  return absl::StartsWith(c.reason, "not stationary");
}

struct Cell {
  int runs = 0;
  int refused = 0;          // gate runs refused (exit 2)
  int false_alarms = 0;     // A/A gate runs with a regression or improvement
  int aa_withheld = 0;      // A/A comparisons without a verdict
  int covered = 0;          // coverage: intervals covering the true ratio
  int given = 0;            // coverage: comparisons given a verdict
  int cov_total = 0;        // coverage: comparisons computed
  int caught = 0;           // power: gate runs calling the slowed one
  int straddles_false = 0;  // a "straddles" reason whose interval clears t
};

// One gate run of kComparisons: the first `changed` current sides
// multiplied by `factor`. Returns false when the gate refused.
bool GateRun(Noise kind, int n, uint64_t experiment, int run, double factor,
             int changed, ComparisonReport& out) {
  std::vector<Baseline> old_side;
  std::vector<Baseline> new_side;
  for (int w = 0; w < kComparisons; ++w) {
    const std::string name = "w" + std::to_string(w);
    const uint64_t key = CounterRng::KeyFor(
        experiment * 100 + static_cast<uint64_t>(kind),
        static_cast<uint64_t>(n) * 100000 + static_cast<uint64_t>(run),
        static_cast<uint64_t>(w));
    old_side.push_back(Side(name, 1, n, Series(Mix64(key), kind, n, 1.0)));
    new_side.push_back(Side(name, 2, n,
                            Series(Mix64(key ^ 0x9e3779b97f4a7c15ULL), kind, n,
                                   w < changed ? factor : 1.0)));
  }
  CompareOptions options;
  auto report = CompareFiles(old_side, new_side, options);
  if (!report.ok()) {
    EXPECT_TRUE(absl::StrContains(report.status().message(), "per side for"))
        << report.status();
    return false;
  }
  out = *std::move(report);
  return true;
}

void CheckReasons(const ComparisonReport& r, Cell& cell) {
  for (const MetricComparison& c : r.rows) {
    if (!absl::StrContains(c.reason, "straddles")) continue;
    const double lo = c.change_interval.low;
    const double hi = c.change_interval.high;
    cell.straddles_false += lo > c.threshold || hi < -c.threshold ||
                            (lo >= -c.threshold && hi <= c.threshold);
  }
}

Cell Measure(Noise kind, int n, int runs) {
  Cell cell;
  cell.runs = runs;
  for (int k = First(); k < First() + runs; ++k) {
    ComparisonReport aa;
    if (!GateRun(kind, n, 1, k, 1.0, 0, aa)) {
      ++cell.refused;
      continue;
    }
    CheckReasons(aa, cell);
    bool alarm = false;
    for (const MetricComparison& c : aa.rows) {
      alarm = alarm || c.verdict == Verdict::kRegression ||
              c.verdict == Verdict::kImprovement;
      cell.aa_withheld += Withheld(c);
    }
    cell.false_alarms += alarm;

    ComparisonReport cov;
    if (GateRun(kind, n, 2, k, kRatio, kComparisons, cov)) {
      CheckReasons(cov, cell);
      for (const MetricComparison& c : cov.rows) {
        ++cell.cov_total;
        if (Withheld(c)) continue;
        ++cell.given;
        cell.covered += 1 + c.change_interval.low <= kRatio &&
                        kRatio <= 1 + c.change_interval.high;
      }
    }
    ComparisonReport power;
    if (GateRun(kind, n, 3, k, kSlowdown, 1, power)) {
      CheckReasons(power, cell);
      cell.caught += power.rows[0].verdict == Verdict::kRegression;
    }
  }
  return cell;
}

TEST(SmallSampleExperiments, TableAndBounds) {
  const int runs = Runs();
  std::printf(
      "Gate runs of %d comparisons, %d per cell, log-noise sd %.0f%%, "
      "threshold 2%%, alpha 0.05:\n\n"
      "| noise | n | refused | A/A false alarms | A/A withheld | coverage "
      "(given) | given | power (+5%%) |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
      kComparisons, runs, kSigma * 100);
  for (Noise kind : kNoises) {
    for (int n : {5, 10, 20, 50, 100}) {
      const Cell c = Measure(kind, n, runs);
      const int decided = runs - c.refused;
      const double fwer =
          decided > 0 ? c.false_alarms / static_cast<double>(decided) : 0;
      const double coverage =
          c.given > 0 ? c.covered / static_cast<double>(c.given) : NAN;
      if (c.refused == runs) {
        std::printf("| %s | %d | %d/%d | - | - | - | - | - |\n",
                    NoiseName(kind), n, c.refused, runs);
      } else {
        std::printf(
            "| %s | %d | %d/%d | %d/%d = %.3f | %.1f%% | %d/%d = %.3f | "
            "%.0f%% | %d/%d = %.3f |\n",
            NoiseName(kind), n, c.refused, runs, c.false_alarms, decided, fwer,
            100.0 * c.aa_withheld /
                (decided * static_cast<double>(kComparisons)),
            c.covered, c.given, coverage,
            c.cov_total > 0 ? 100.0 * c.given / c.cov_total : 0.0, c.caught,
            decided, decided > 0 ? c.caught / static_cast<double>(decided) : 0);
      }
      // At 5 per side a 7-comparison gate cannot reach alpha: refused.
      if (n == 5) {
        EXPECT_EQ(c.refused, runs) << NoiseName(kind);
      }
      EXPECT_LE(fwer, 0.05) << NoiseName(kind) << " n " << n;
      EXPECT_EQ(c.straddles_false, 0) << NoiseName(kind) << " n " << n;
      // A level shift from 50 samples on is withheld ("not stationary"),
      // found by Pettitt at 1% or, on a series already autocorrelated, as a
      // suspected shift at 5% (kSuspectedShiftAlpha): at most 1% of its
      // comparisons get a verdict. At 1% alone 111 of 7000 did, covering
      // 0.838.
      if (kind == Noise::kStep && n >= 50 && c.cov_total > 0) {
        EXPECT_LE(c.given, c.cov_total / 100) << NoiseName(kind) << " n " << n;
      }
      // Coverage where a verdict is given, when there are enough of them to
      // measure it (a handful of given comparisons says nothing).
      if (c.given >= 100) {
        EXPECT_GE(coverage, 0.93) << NoiseName(kind) << " n " << n;
        // Not met, and said so in docs/statistics.md: a drift the trend
        // test misses widens each side's spread, and the interval then
        // over-covers (0.98-0.995 at n = 10-50); a level shift the
        // change-point test misses looks autocorrelated and over-covers
        // (0.99 at n = 10-20). Below 50 per side every comparison takes
        // the AR(1) interval at the pooled rho's 75% upper bound, detected
        // or not (issue 43; serial_dependence.h, kSmallSampleRhoLevel,
        // fitted on this grid): 0.954-0.976 at n = 10-20 over 1000 runs
        // (heavy tails the most), so these cells are held to 0.98, which
        // the 95% bound (0.976-0.996) did not meet.
        const bool small = n < stats::kSmallSampleAr1;
        if (small && kind != Noise::kDrift && kind != Noise::kStep) {
          EXPECT_LE(coverage, 0.98) << NoiseName(kind) << " n " << n;
        } else if (!small && kind != Noise::kDrift) {
          EXPECT_LE(coverage, 0.97) << NoiseName(kind) << " n " << n;
        }
      }
    }
  }
}

// Issue 43: one comparison alone (a gate of one workload, `compare` of
// two files of one), where the lag-1 test pooled over the run has two
// short series to go on. At 10 per side under AR(1) rho 0.5 the rank
// interval, chosen whenever that test saw nothing, covered 0.805. Below
// kSmallSampleAr1 per side every comparison now allows for the correlation
// the run's series do not rule out; below kMinDiagnosedSamples no interval
// is given at all. Runs: TRN_SMALL_N_RUNS (default 200; the table in
// docs/statistics.md is 2000), from TRN_SMALL_N_FIRST.
struct OneComparison {
  int runs = 0;
  int refused = 0;   // gate refused (too few samples), the message says why
  int withheld = 0;  // --allow-unchecked: no interval, and the note says why
  int covered = 0;
  int given = 0;  // intervals given
  int adjusted = 0;
  int false_alarms = 0;  // A/A
};

OneComparison MeasureOne(Noise kind, int n, int runs) {
  OneComparison out;
  out.runs = runs;
  for (int k = First(); k < First() + runs; ++k) {
    for (int experiment : {4, 5}) {  // 4: coverage of 1.03; 5: A/A
      const double factor = experiment == 4 ? kRatio : 1.0;
      const uint64_t key = CounterRng::KeyFor(
          experiment * 100 + static_cast<uint64_t>(kind),
          static_cast<uint64_t>(n) * 100000 + static_cast<uint64_t>(k), 0);
      std::vector<Baseline> old_side = {
          Side("w", 1, n, Series(Mix64(key), kind, n, 1.0))};
      std::vector<Baseline> new_side = {
          Side("w", 2, n,
               Series(Mix64(key ^ 0x9e3779b97f4a7c15ULL), kind, n, factor))};
      CompareOptions options;
      auto report = CompareFiles(old_side, new_side, options);
      if (!report.ok()) {
        // Only too few samples may refuse, and the message says so.
        EXPECT_TRUE(
            absl::StrContains(report.status().message(), "per side for"))
            << report.status();
        out.refused += experiment == 4;
        options.allow_unchecked = true;
        report = CompareFiles(old_side, new_side, options);
        EXPECT_TRUE(report.ok()) << report.status();
        if (!report.ok() || experiment != 4) continue;
        const MetricComparison& c = report->rows[0];
        bool said = false;
        for (const std::string& note : c.notes) {
          said = said || absl::StrContains(note, "is not established");
        }
        if (!std::isfinite(c.change_interval.low) && said) ++out.withheld;
        continue;
      }
      const MetricComparison& c = report->rows[0];
      if (experiment == 5) {
        out.false_alarms += c.verdict == Verdict::kRegression ||
                            c.verdict == Verdict::kImprovement;
        continue;
      }
      if (Withheld(c)) continue;
      ++out.given;
      out.adjusted += c.autocorrelation_adjusted;
      out.covered += 1 + c.change_interval.low <= kRatio &&
                     kRatio <= 1 + c.change_interval.high;
    }
  }
  return out;
}

TEST(SmallSampleExperiments, OneComparisonCoverage) {
  const int runs = Runs();
  std::printf(
      "\nOne comparison per gate run, %d runs per cell, log-noise sd %.0f%%, "
      "true ratio %.2f:\n\n"
      "| noise | n | interval given | coverage | AR(1) t used | A/A false "
      "alarms |\n| --- | --- | --- | --- | --- | --- |\n",
      runs, kSigma * 100, kRatio);
  for (Noise kind : {Noise::kIid, Noise::kAr05, Noise::kAr09}) {
    for (int n : {5, 10, 20}) {
      const OneComparison c = MeasureOne(kind, n, runs);
      const double coverage =
          c.given > 0 ? c.covered / static_cast<double>(c.given) : NAN;
      if (c.given == 0) {
        std::printf(
            "| %s | %d | none: refused %d/%d, and with --allow-unchecked no "
            "interval (coverage not established) %d/%d | - | - | - |\n",
            NoiseName(kind), n, c.refused, runs, c.withheld, runs);
      } else {
        std::printf(
            "| %s | %d | %d/%d | %d/%d = %.3f | %.0f%% | %d/%d = "
            "%.3f |\n",
            NoiseName(kind), n, c.given, runs, c.covered, c.given, coverage,
            100.0 * c.adjusted / c.given, c.false_alarms, runs - c.refused,
            c.false_alarms / static_cast<double>(runs - c.refused));
      }
      if (n < stats::kMinDiagnosedSamples) {
        // No interval is printed, and the output says why.
        EXPECT_EQ(c.given, 0) << NoiseName(kind);
        EXPECT_EQ(c.refused, runs) << NoiseName(kind);
        EXPECT_EQ(c.withheld, runs) << NoiseName(kind);
        continue;
      }
      EXPECT_EQ(c.adjusted, c.given) << NoiseName(kind) << " n " << n;
      EXPECT_LE(c.false_alarms, std::max(1, runs / 20))
          << NoiseName(kind) << " n " << n;
      // The cell: 93-97%, within the binomial spread of 200 runs
      // (sd 1.5%) at the ctest default, 93-97% on the 2000 of the table.
      if (kind == Noise::kAr05 && n == 10) {
        const double slack = runs >= 2000 ? 0.0 : 0.01;
        EXPECT_GE(coverage, 0.93 - slack);
        EXPECT_LE(coverage, 0.97 + slack);
      }
    }
  }
}

}  // namespace
}  // namespace trn
